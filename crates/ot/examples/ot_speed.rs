//! Measures correlated-OT throughput: 10^6 IKNP correlated OTs between two
//! threads over a loopback TCP channel.
//!
//! `cargo run --release -p twofold-ot --example ot_speed [COUNT]`

use std::thread;
use std::time::{Duration, Instant};

use twofold_crypto::{Delta, Prg};
use twofold_net::{Channel, ChannelOptions, Listener};
use twofold_ot::{CotReceiver, CotSender};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = match std::env::args().nth(1) {
        Some(arg) => arg.parse()?,
        None => 1_000_000,
    };
    let listener = Listener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;

    let receiver = thread::spawn(move || -> Result<_, twofold_ot::OtError> {
        let mut chan = Channel::connect(addr, Duration::from_secs(10), ChannelOptions::default())?;
        let mut prg = Prg::from_os();
        let choices: Vec<bool> = (0..count).map(|_| prg.random_bool()).collect();
        let mut r = CotReceiver::setup(&mut chan, b"ot_speed")?;
        let out = r.receive(&mut chan, &choices)?;
        Ok((out.len(), chan.bytes_sent()))
    });

    let mut chan = listener.accept(Duration::from_secs(10))?;
    let delta = Delta::random(&mut Prg::from_os());
    let start = Instant::now();
    let mut sender = CotSender::setup(&mut chan, delta, b"ot_speed")?;
    let setup = start.elapsed();
    let start = Instant::now();
    let k0 = sender.send(&mut chan, count)?;
    let extend = start.elapsed();

    let (received, bytes) = receiver.join().map_err(|_| "receiver thread panicked")??;
    assert_eq!(received, k0.len());
    println!(
        "base OT setup (128 OTs):   {:.2} ms",
        setup.as_secs_f64() * 1e3
    );
    println!(
        "{count} correlated OTs:    {:.2} ms  ({:.2} M OT/s)",
        extend.as_secs_f64() * 1e3,
        count as f64 / extend.as_secs_f64() / 1e6
    );
    println!(
        "receiver -> sender bytes:  {bytes} ({:.2} bytes/OT)",
        bytes as f64 / count.max(1) as f64
    );
    Ok(())
}
