//! Measures correlated-OT throughput and traffic: 10^6 correlated OTs
//! between two threads over a loopback TCP channel, for IKNP and for
//! SoftSpoken with every group width.
//!
//! `cargo run --release -p twofold-ot --example ot_speed [COUNT]`

use std::thread;
use std::time::{Duration, Instant};

use twofold_crypto::{Delta, Prg};
use twofold_net::{Channel, ChannelOptions, Listener};
use twofold_ot::{CotReceiver, CotSender, Extension};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = match std::env::args().nth(1) {
        Some(arg) => arg.parse()?,
        None => 1_000_000,
    };
    println!("{count} correlated OTs a run");
    println!("extension        setup ms  setup bytes   extend ms    M OT/s  bytes/OT");
    let softspoken = (2..=8).map(|k| Extension::SoftSpoken { k });
    for ext in std::iter::once(Extension::Iknp).chain(softspoken) {
        run(ext, count)?;
    }
    Ok(())
}

/// One session of `ext`: setup, then one batch of `count` OTs.
fn run(ext: Extension, count: usize) -> Result<(), Box<dyn std::error::Error>> {
    let listener = Listener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;

    let receiver = thread::spawn(move || -> Result<_, twofold_ot::OtError> {
        let mut chan = Channel::connect(addr, Duration::from_secs(10), ChannelOptions::default())?;
        let mut prg = Prg::from_os();
        let choices: Vec<bool> = (0..count).map(|_| prg.random_bool()).collect();
        let mut r = CotReceiver::setup_with(&mut chan, b"ot_speed", ext)?;
        let setup_bytes = chan.bytes_sent();
        let out = r.receive(&mut chan, &choices)?;
        Ok((out.len(), setup_bytes, chan.bytes_sent() - setup_bytes))
    });

    let mut chan = listener.accept(Duration::from_secs(10))?;
    let delta = Delta::random(&mut Prg::from_os());
    let start = Instant::now();
    let mut sender = CotSender::setup_with(&mut chan, delta, b"ot_speed", ext)?;
    let setup = start.elapsed();
    let sender_setup_bytes = chan.bytes_sent();
    let start = Instant::now();
    let k0 = sender.send(&mut chan, count)?;
    let extend = start.elapsed();

    let (received, setup_bytes, bytes) =
        receiver.join().map_err(|_| "receiver thread panicked")??;
    assert_eq!(received, k0.len());
    // (SoftSpoken's receiver sends the end of its setup with the batch.)
    let deferred = ext.deferred_setup_bytes();
    let (setup_bytes, bytes) = (setup_bytes + deferred, bytes - deferred);
    println!(
        "{:<15} {:>9.2} {:>12} {:>11.2} {:>9.2} {:>9.2}",
        ext.name(),
        setup.as_secs_f64() * 1e3,
        setup_bytes + sender_setup_bytes,
        extend.as_secs_f64() * 1e3,
        count as f64 / extend.as_secs_f64() / 1e6,
        bytes as f64 / count.max(1) as f64
    );
    Ok(())
}
