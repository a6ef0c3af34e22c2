//! What each party of the arithmetic protocol receives does not depend on
//! the inputs: over a layer of cross products in both directions, Beaver
//! triples and a layer of shared products, every bit position of the
//! bytes a party receives is set about half of the time, alike for two
//! very different inputs.

use std::time::Duration;

use twofold_circuit::Party;
use twofold_net::{Channel, ChannelOptions, Result, Transport};
use twofold_protocol::arith::{Arith, Cross, Width};

/// A channel that keeps every payload byte it receives.
struct Tap {
    chan: Channel,
    seen: Vec<u8>,
}

impl Transport for Tap {
    fn max_frame_len(&self) -> usize {
        Transport::max_frame_len(&self.chan)
    }
    fn send_frame(&mut self, payload: &[u8]) -> Result<()> {
        Transport::send_frame(&mut self.chan, payload)
    }
    fn flush(&mut self) -> Result<()> {
        Transport::flush(&mut self.chan)
    }
    fn recv_frame(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        Transport::recv_frame(&mut self.chan, buf)?;
        self.seen.extend_from_slice(buf);
        Ok(())
    }
    fn recv_frame_exact(&mut self, out: &mut [u8]) -> Result<()> {
        Transport::recv_frame_exact(&mut self.chan, out)?;
        self.seen.extend_from_slice(out);
        Ok(())
    }
    fn bytes_sent(&self) -> u64 {
        Transport::bytes_sent(&self.chan)
    }
    fn bytes_received(&self) -> u64 {
        Transport::bytes_received(&self.chan)
    }
}

const N: usize = 300;

/// One party's work on its `value` (every input and share of it): returns
/// the bytes it received after the setup.
fn party(p: Party, chan: Channel, value: u64) -> Vec<u8> {
    let w = Width::W32;
    let mut tap = Tap {
        chan,
        seen: Vec::new(),
    };
    let mut arith = Arith::setup(&mut tap, p, b"views").unwrap();
    tap.seen.clear();
    let vectors = vec![vec![value; 3]; N];
    let scalars = vec![value; N];
    let layer = Cross {
        vectors: &vectors,
        scalars: &scalars,
        peer_lens: &[3; N],
    };
    arith.cross(&mut tap, w, layer).unwrap();
    let mut triples = arith.triples(&mut tap, w, N).unwrap();
    arith
        .mul(&mut tap, w, &scalars, &scalars, &mut triples)
        .unwrap();
    tap.seen
}

/// The fraction of bytes with each bit set, for each party.
fn frequencies(value: u64) -> [[f64; 8]; 2] {
    let opts = ChannelOptions {
        read_timeout: Duration::from_secs(20),
        write_timeout: Duration::from_secs(20),
        ..ChannelOptions::default()
    };
    let (ca, cb) = Channel::pair(&opts).unwrap();
    let views = std::thread::scope(|s| {
        let hb = s.spawn(move || party(Party::B, cb, value));
        [party(Party::A, ca, value), hb.join().unwrap()]
    });
    views.map(|seen| {
        let mut f = [0f64; 8];
        for (bit, f) in f.iter_mut().enumerate() {
            let ones = seen.iter().filter(|&&b| (b >> bit) & 1 == 1).count();
            *f = ones as f64 / seen.len() as f64;
        }
        f
    })
}

#[test]
fn each_partys_received_bytes_look_alike_for_different_inputs() {
    let zeros = frequencies(0);
    let ones = frequencies(u32::MAX as u64);
    for p in 0..2 {
        for bit in 0..8 {
            let (f0, f1) = (zeros[p][bit], ones[p][bit]);
            assert!(
                (f0 - 0.5).abs() < 0.02,
                "party {p}, bit {bit}: {f0} for input 0"
            );
            assert!(
                (f1 - 0.5).abs() < 0.02,
                "party {p}, bit {bit}: {f1} for input 2^32-1"
            );
            assert!(
                (f0 - f1).abs() < 0.02,
                "party {p}, bit {bit}: {f0} against {f1}"
            );
        }
    }
}
