//! What the transcript tests share: a relay that records what flows each
//! way, and the frequency of each bit position over many runs.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// A relay on a fresh port that forwards every connection to `target` and
/// appends what flows back to the connecting party to `to_connector`, and
/// what flows forward to `to_target`. Returns its address.
pub fn relay(
    target: String,
    to_connector: Arc<Mutex<Vec<u8>>>,
    to_target: Arc<Mutex<Vec<u8>>>,
) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let server = TcpStream::connect(&target).unwrap();
            // Small messages pass at once (no Nagle delay on the relay).
            let _ = (server.set_nodelay(true), client.set_nodelay(true));
            let pipe = |mut from: TcpStream, mut to: TcpStream, log: Arc<Mutex<Vec<u8>>>| {
                std::thread::spawn(move || {
                    let mut buf = [0u8; 65536];
                    while let Ok(n) = from.read(&mut buf) {
                        if n == 0 || to.write_all(&buf[..n]).is_err() {
                            break;
                        }
                        log.lock().unwrap().extend_from_slice(&buf[..n]);
                    }
                    let _ = to.shutdown(std::net::Shutdown::Write);
                })
            };
            pipe(
                client.try_clone().unwrap(),
                server.try_clone().unwrap(),
                to_target.clone(),
            );
            pipe(server, client, to_connector.clone());
        }
    });
    addr
}

/// Fraction of `runs` in which each bit of a view is set, over the
/// shortest view.
pub fn bit_frequencies<'a>(runs: impl Iterator<Item = &'a [u8]> + Clone) -> Vec<f64> {
    let count = runs.clone().count();
    let len = runs.clone().map(<[u8]>::len).min().unwrap_or(0);
    (0..8 * len)
        .map(|i| {
            let set = runs
                .clone()
                .filter(|v| v[i / 8] >> (i % 8) & 1 == 1)
                .count();
            set as f64 / count as f64
        })
        .collect()
}

/// The largest difference between two lists of frequencies.
pub fn worst_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}
