//! The 16×16 int32 matrix product of A's and B's matrices, two ways, both
//! parties in this process over socketpairs: the Boolean path (the C
//! program compiled to garbled circuits, as `twofold run` does) and
//! arithmetic sharing (`twofold_protocol::arith`: Gilboa products by
//! correlated OT, the result opened to both), and the same as a mixed
//! program of dot products run by `twofold_protocol::mixed` (handshake
//! included). Prints bytes on the wire,
//! messages waited for and time, the median of 3 runs each, and checks
//! every result against the plaintext product.
//!
//! `cargo run --release -p twofold --example arith_matmul [N]` (N = 16).

use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use twofold::api::SecureProgram;
use twofold_circuit::Party;
use twofold_crypto::Prg;
use twofold_net::{Channel, ChannelOptions};
use twofold_protocol::arith::{Arith, Cross, Factor, Width};
use twofold_protocol::mixed::{run_mixed_local, MixedOptions};
use twofold_protocol::{run_local, Phase, SessionOptions};

/// One run's figures: bytes both parties sent, messages waited for (0
/// when not counted), and wall-clock times of the setup (everything before
/// the first gate or product: base OTs, and for the Boolean path the
/// handshake and the input labels) and of the rest (the computation and
/// opening the result to both).
#[derive(Clone, Copy, Default)]
struct Figures {
    bytes: u64,
    flights: u64,
    setup: Duration,
    online: Duration,
}

fn main() -> Result<()> {
    let n: usize = match std::env::args().nth(1) {
        Some(arg) => arg.parse().context("N must be a number")?,
        None => 16,
    };
    let w = Width::W32;
    let mut prg = Prg::try_from_os()?;
    let mut random = |count: usize| -> Vec<u64> {
        (0..count)
            .map(|_| {
                let mut b = [0u8; 4];
                prg.fill_bytes(&mut b);
                u32::from_le_bytes(b) as u64
            })
            .collect()
    };
    let (x, y) = (random(n * n), random(n * n));
    let want: Vec<u64> = (0..n * n)
        .map(|at| {
            let (i, j) = (at / n, at % n);
            let row: Vec<u64> = (0..n).map(|k| x[i * n + k]).collect();
            let col: Vec<u64> = (0..n).map(|k| y[k * n + j]).collect();
            w.dot(&row, &col)
        })
        .collect();

    let program = SecureProgram::compile(&twofold_testkit::matmul_c(n))?;
    let runs = [
        (
            "garbled circuits (C → Boolean)",
            boolean(&program, n, &x, &y, &want)?,
        ),
        (
            "arithmetic, grouped (one OT per bit of B's element)",
            arith(n, &x, &y, &want, true)?,
        ),
        (
            "arithmetic, per product (one OT per bit per product)",
            arith(n, &x, &y, &want, false)?,
        ),
        (
            "mixed program (run_mixed: dot products)",
            mixed(n, &x, &y, &want)?,
        ),
    ];
    println!("{n}×{n} int32 matrix product, A's matrix times B's, median of 3 runs");
    println!(
        "{:<55} {:>12} {:>9} {:>10} {:>10}",
        "", "bytes", "messages", "setup ms", "compute ms"
    );
    let base = runs[0].1.bytes as f64;
    for (name, f) in runs {
        let flights = match f.flights {
            0 => "-".to_string(),
            k => k.to_string(),
        };
        println!(
            "{name:<55} {:>12} {flights:>9} {:>10.1} {:>10.1}   1/{:.0} of the Boolean bytes",
            f.bytes,
            f.setup.as_secs_f64() * 1e3,
            f.online.as_secs_f64() * 1e3,
            base / f.bytes as f64,
        );
    }
    Ok(())
}

/// The median of three runs of `run`, by total time.
fn median(mut run: impl FnMut() -> Result<Figures>) -> Result<Figures> {
    let mut all = [run()?, run()?, run()?];
    all.sort_by_key(|f| f.setup + f.online);
    Ok(all[1])
}

/// The Boolean path: the compiled program under the two-party protocol.
fn boolean(
    program: &SecureProgram,
    n: usize,
    x: &[u64],
    y: &[u64],
    want: &[u64],
) -> Result<Figures> {
    let a = program.inputs_of(
        Party::A,
        &[("INPUT_A", &twofold_testkit::matrix_initializer(n, x))],
    )?;
    let b = program.inputs_of(
        Party::B,
        &[("INPUT_B", &twofold_testkit::matrix_initializer(n, y))],
    )?;
    median(|| {
        let (ra, rb) = run_local(
            program.program(),
            &a,
            &b,
            &SessionOptions::default(),
            &ChannelOptions::default(),
        )?;
        let bits = ra.outputs.context("A learns the outputs")?.concat();
        let got: Vec<u64> = bits
            .chunks(32)
            .map(|c| c.iter().rev().fold(0, |acc, &b| acc << 1 | b as u64))
            .collect();
        ensure!(got == want, "the Boolean path computed a wrong product");
        // Before the gates: handshake, preparing, base OTs and inputs.
        let setup = ra
            .phases
            .iter()
            .filter(|(phase, _)| !matches!(phase, Phase::Gates | Phase::Outputs))
            .map(|(_, t)| *t)
            .sum();
        Ok(Figures {
            bytes: ra.bytes_sent + rb.bytes_sent,
            flights: 0,
            setup,
            online: ra.total.saturating_sub(setup),
        })
    })
}

/// The arithmetic path: shares of `X·Y` by correlated-OT products
/// (`grouped`: [`Arith::matmul`]; otherwise one product per term, added
/// up locally), opened to both parties.
fn arith(n: usize, x: &[u64], y: &[u64], want: &[u64], grouped: bool) -> Result<Figures> {
    let w = Width::W32;
    let party = |p: Party, chan: &mut Channel| -> Result<(Vec<u64>, Figures)> {
        let start = Instant::now();
        let mut arith = Arith::setup(chan, p, b"arith_matmul")?;
        let (setup, setup_flights) = (start.elapsed(), arith.flights());
        let start = Instant::now();
        let z = if grouped {
            let mine = if p == Party::A {
                Factor::Left(x)
            } else {
                Factor::Right(y)
            };
            arith.matmul(chan, w, (n, n, n), mine)?
        } else {
            per_product(&mut arith, chan, n, p, x, y)?
        };
        let z = arith.open(chan, w, &z)?;
        let f = Figures {
            bytes: chan.bytes_sent(),
            flights: arith.flights() - setup_flights,
            setup,
            online: start.elapsed(),
        };
        Ok((z, f))
    };
    median(|| {
        let (mut ca, mut cb) = Channel::pair(&ChannelOptions::default())?;
        let (a, b) = std::thread::scope(|s| {
            let hb = s.spawn(|| party(Party::B, &mut cb));
            (
                party(Party::A, &mut ca),
                hb.join().expect("party B does not panic"),
            )
        });
        let ((za, fa), (zb, fb)) = (a?, b?);
        ensure!(
            za == want && zb == want,
            "the arithmetic path computed a wrong product"
        );
        Ok(Figures {
            bytes: fa.bytes + fb.bytes,
            setup: fa.setup.max(fb.setup),
            online: fa.online.max(fb.online),
            ..fa
        })
    })
}

/// Shares of `X·Y` with one Gilboa product per term `X[i][k]·Y[k][j]`.
fn per_product(
    arith: &mut Arith,
    chan: &mut Channel,
    n: usize,
    p: Party,
    x: &[u64],
    y: &[u64],
) -> Result<Vec<u64>> {
    let w = Width::W32;
    let terms = (0..n * n * n).map(|t| (t / (n * n), (t / n) % n, t % n));
    let shares = if p == Party::A {
        let vectors: Vec<Vec<u64>> = terms.map(|(i, _, k)| vec![x[i * n + k]]).collect();
        let layer = Cross {
            vectors: &vectors,
            ..Cross::default()
        };
        arith.cross(chan, w, layer)?.vectors
    } else {
        let scalars: Vec<u64> = terms.map(|(_, j, k)| y[k * n + j]).collect();
        let ones = vec![1; scalars.len()];
        let layer = Cross {
            scalars: &scalars,
            peer_lens: &ones,
            ..Cross::default()
        };
        arith.cross(chan, w, layer)?.scalars
    };
    Ok(shares
        .chunks(n)
        .map(|terms| terms.iter().fold(0, |acc, t| w.add(acc, t[0])))
        .collect())
}

/// The mixed program of dot products ([`twofold_testkit::mixed_matmul`])
/// under the mixed executor, the result opened to both.
fn mixed(n: usize, x: &[u64], y: &[u64], want: &[u64]) -> Result<Figures> {
    let program = twofold_testkit::mixed_matmul(n, 32);
    let bits = |m: &[u64]| -> Vec<Option<Vec<bool>>> {
        m.iter()
            .map(|&v| Some((0..32).map(|i| (v >> i) & 1 == 1).collect()))
            .collect()
    };
    let a: Vec<_> = bits(x).into_iter().chain(vec![None; n * n]).collect();
    let b: Vec<_> = vec![None; n * n].into_iter().chain(bits(y)).collect();
    median(|| {
        let (ra, _) = run_mixed_local(
            &program,
            (&a, &b),
            &MixedOptions::default(),
            &ChannelOptions::default(),
        )?;
        let got: Vec<u64> = ra
            .outputs
            .context("A learns the outputs")?
            .iter()
            .map(|c| c.iter().rev().fold(0, |acc, &b| acc << 1 | b as u64))
            .collect();
        ensure!(got == want, "the mixed path computed a wrong product");
        Ok(Figures {
            bytes: ra.traffic.total(),
            flights: ra.flights,
            setup: ra.setup,
            online: ra.total.saturating_sub(ra.setup),
        })
    })
}
