//! Two-party tests of base OT and correlated OT extension over loopback TCP
//! and over the in-memory transport pair.

use std::collections::HashSet;
use std::io::Write;
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use twofold_crypto::{Block, Delta, Prg};
use twofold_net::{Channel, ChannelOptions, Listener, MemoryTransport, NetError, Transport};
use twofold_ot::{base_receive, base_send, CotReceiver, CotSender, Extension, OtError};

const DEADLINE: Duration = Duration::from_secs(10);

/// The extensions every correlated-OT property is checked for: IKNP and
/// SoftSpoken with group widths that divide 128 and one that does not.
const EXTENSIONS: [Extension; 4] = [
    Extension::Iknp,
    Extension::SoftSpoken { k: 2 },
    Extension::SoftSpoken { k: 5 },
    Extension::SoftSpoken { k: 8 },
];

fn opts() -> ChannelOptions {
    ChannelOptions {
        read_timeout: Duration::from_secs(10),
        write_timeout: Duration::from_secs(10),
        ..ChannelOptions::default()
    }
}

/// Runs `a` and `b` as the two parties, each in its own thread, over a
/// loopback channel.
fn run<RA, RB>(
    opts: ChannelOptions,
    a: impl FnOnce(&mut Channel) -> RA + Send,
    b: impl FnOnce(&mut Channel) -> RB + Send,
) -> (RA, RB)
where
    RA: Send,
    RB: Send,
{
    run_over(tcp(opts), a, b)
}

/// A connected pair of loopback channels.
fn tcp(opts: ChannelOptions) -> (Channel, Channel) {
    let listener = Listener::bind("127.0.0.1:0")
        .unwrap()
        .with_options(opts.clone())
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let client = thread::spawn(move || Channel::connect(addr, DEADLINE, opts).unwrap());
    let server = listener.accept(DEADLINE).unwrap();
    (server, client.join().unwrap())
}

/// Runs `a` and `b` as the two parties, each in its own thread with its end
/// of `ends` (dropped when the party returns).
fn run_over<T, RA, RB>(
    (mut end_a, mut end_b): (T, T),
    a: impl FnOnce(&mut T) -> RA + Send,
    b: impl FnOnce(&mut T) -> RB + Send,
) -> (RA, RB)
where
    T: Transport + Send,
    RA: Send,
    RB: Send,
{
    thread::scope(|s| {
        let hb = s.spawn(move || b(&mut end_b));
        let ha = s.spawn(move || a(&mut end_a));
        (ha.join().unwrap(), hb.join().unwrap())
    })
}

/// The in-memory pair with the options of [`opts`].
fn memory() -> (MemoryTransport, MemoryTransport) {
    MemoryTransport::pair(opts()).unwrap()
}

fn random_bools(rng: &mut impl Rng, n: usize) -> Vec<bool> {
    (0..n).map(|_| rng.gen()).collect()
}

#[test]
fn base_ot_delivers_the_chosen_key() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for n in [0usize, 1, 7, 200] {
        let choices = random_bools(&mut rng, n);
        let (pairs, keys) = run(
            opts(),
            |c| base_send(c, n, b"base test").unwrap(),
            |c| base_receive(c, &choices, b"base test").unwrap(),
        );
        assert_eq!(pairs.len(), n);
        assert_eq!(keys.len(), n);
        let mut seen = HashSet::new();
        for ((k0, k1), (key, &c)) in pairs.iter().zip(keys.iter().zip(&choices)) {
            assert_eq!(*key, if c { *k1 } else { *k0 });
            assert_ne!(key, if c { k0 } else { k1 });
            assert!(seen.insert(k0.0) && seen.insert(k1.0), "repeated key");
        }
    }
}

#[test]
fn base_ot_keys_depend_on_the_session_id() {
    let choices = [false, true];
    let (pairs, keys) = run(
        opts(),
        |c| base_send(c, 2, b"session one").unwrap(),
        |c| base_receive(c, &choices, b"session two").unwrap(),
    );
    assert_ne!(keys[0], pairs[0].0);
    assert_ne!(keys[1], pairs[1].1);
}

#[test]
fn base_ot_count_mismatch_is_an_error_on_both_sides() {
    base_ot_count_mismatch(tcp(opts()));
}

#[test]
fn base_ot_count_mismatch_is_an_error_on_both_sides_in_memory() {
    base_ot_count_mismatch(memory());
}

fn base_ot_count_mismatch<T: Transport + Send>(ends: (T, T)) {
    let (send, recv) = run_over(
        ends,
        |c| base_send(c, 3, b"sid"),
        |c| base_receive(c, &[true, false], b"sid"),
    );
    assert!(
        matches!(recv, Err(OtError::CountMismatch { ours: 2, theirs: 3 })),
        "{recv:?}"
    );
    // The receiver quit (its channel was dropped): the sender sees that.
    assert!(
        matches!(send, Err(OtError::Net(NetError::Disconnected))),
        "{send:?}"
    );
}

#[test]
fn base_ot_rejects_malformed_points() {
    // The receiver's answer to a sender whose point is 32 bytes of `fill`.
    let against_sender_point = |fill: u8| {
        run(
            opts(),
            |c| base_receive(c, &[true; 4], b"sid"),
            move |c| {
                let mut msg = 4u64.to_le_bytes().to_vec();
                msg.extend_from_slice(&[fill; 32]);
                c.send_frame(&msg).unwrap();
                c.flush().unwrap();
            },
        )
        .0
    };

    // The sender's point is not a valid encoding.
    let recv = against_sender_point(0xff);
    assert!(
        matches!(recv, Err(OtError::InvalidPoint { index: 0, .. })),
        "{recv:?}"
    );

    // The identity is refused as the sender's point.
    let recv = against_sender_point(0);
    assert!(
        matches!(recv, Err(OtError::InvalidPoint { .. })),
        "{recv:?}"
    );

    // The sender's answer to receiver points that are all valid but the
    // `bad`-th, which is 32 bytes of `fill`.
    let against_receiver_points = |bad: usize, fill: u8| {
        run(
            opts(),
            |c| base_send(c, 4, b"sid"),
            move |c| {
                let mut first = Vec::new();
                c.recv_frame(&mut first).unwrap();
                let valid = curve25519_dalek::constants::RISTRETTO_BASEPOINT_COMPRESSED;
                let mut reply = valid.as_bytes().repeat(4);
                reply[bad * 32..(bad + 1) * 32].fill(fill);
                c.send_frame(&reply).unwrap();
                c.flush().unwrap();
            },
        )
        .0
    };

    // The receiver's third point is invalid.
    let send = against_receiver_points(2, 0xff);
    assert!(
        matches!(send, Err(OtError::InvalidPoint { index: 2, .. })),
        "{send:?}"
    );

    // The identity is refused as a receiver's point too.
    let send = against_receiver_points(1, 0);
    assert!(
        matches!(send, Err(OtError::InvalidPoint { index: 1, .. })),
        "{send:?}"
    );

    // A short reply is a framing error, not a panic.
    let (send, _) = run(
        opts(),
        |c| base_send(c, 4, b"sid"),
        |c| {
            let mut first = Vec::new();
            c.recv_frame(&mut first).unwrap();
            c.send_frame(&[1, 2, 3]).unwrap();
            c.flush().unwrap();
        },
    );
    assert!(
        matches!(
            send,
            Err(OtError::Net(NetError::UnexpectedLength {
                expected: 128,
                got: 3
            }))
        ),
        "{send:?}"
    );
}

/// Checks `r = k0 ⊕ b·Δ` for every OT of a batch.
fn check_correlation(k0: &[Block], r: &[Block], choices: &[bool], delta: Delta) {
    assert_eq!(k0.len(), choices.len());
    assert_eq!(r.len(), choices.len());
    for (j, ((&k, &r), &b)) in k0.iter().zip(r).zip(choices).enumerate() {
        let expected = if b { k ^ delta.block() } else { k };
        assert!(r == expected, "OT {j} of {}: wrong label", choices.len());
    }
}

#[test]
fn correlated_ots_hold_over_many_batches_in_one_session() {
    many_batches(tcp(opts()), Extension::Iknp);
}

#[test]
fn correlated_ots_hold_over_many_batches_in_memory() {
    many_batches(memory(), Extension::Iknp);
}

#[test]
fn softspoken_ots_hold_over_many_batches_in_one_session() {
    many_batches(tcp(opts()), Extension::SoftSpoken { k: 4 });
}

#[test]
fn softspoken_ots_hold_over_many_batches_for_every_k() {
    for k in 2..=8 {
        many_batches(memory(), Extension::SoftSpoken { k });
    }
}

/// Many batches of correlated OTs of `ext` in one session over `ends`.
fn many_batches<T: Transport + Send>(ends: (T, T), ext: Extension) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut counts = vec![0usize, 1, 127, 128, 129, 0, 3 * 65_536 / 2 + 77];
    counts.extend((0..8).map(|_| rng.gen_range(0..=5000)));
    let batches: Vec<Vec<bool>> = counts.iter().map(|&m| random_bools(&mut rng, m)).collect();
    let delta = Delta::random(&mut Prg::from_os());

    let (sent, received) = run_over(
        ends,
        |c| {
            let mut s = CotSender::setup_with(c, delta, b"cot test", ext).unwrap();
            assert!(s.delta() == delta);
            counts
                .iter()
                .map(|&m| s.send(c, m).unwrap())
                .collect::<Vec<_>>()
        },
        |c| {
            let mut r = CotReceiver::setup_with(c, b"cot test", ext).unwrap();
            batches
                .iter()
                .map(|b| r.receive(c, b).unwrap())
                .collect::<Vec<_>>()
        },
    );

    let mut seen = HashSet::new();
    for ((k0, r), choices) in sent.iter().zip(&received).zip(&batches) {
        check_correlation(k0, r, choices, delta);
        // Fresh PRG output in every batch: no label ever repeats.
        for k in k0 {
            assert!(seen.insert(k.0), "a K0 repeated across batches");
        }
    }
}

#[test]
fn into_variants_reuse_buffers_and_check_lengths() {
    for ext in EXTENSIONS {
        into_variants_reuse_buffers_and_check_lengths_for(ext);
    }
}

fn into_variants_reuse_buffers_and_check_lengths_for(ext: Extension) {
    let delta = Delta::random(&mut Prg::from_os());
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let batches: Vec<Vec<bool>> = (0..3).map(|_| random_bools(&mut rng, 1000)).collect();
    let (sent, received) = run(
        opts(),
        |c| {
            let mut s = CotSender::setup_with(c, delta, b"into", ext).unwrap();
            let mut buf = vec![Block::ZERO; 1000];
            let mut all = Vec::new();
            for _ in 0..3 {
                s.send_into(c, &mut buf).unwrap();
                all.push(buf.clone());
            }
            all
        },
        |c| {
            let mut r = CotReceiver::setup_with(c, b"into", ext).unwrap();
            let mut buf = vec![Block::ZERO; 1000];
            // A wrong buffer is refused before anything is sent.
            let wrong = r.receive_into(c, &batches[0][..999], &mut buf);
            assert!(
                matches!(
                    wrong,
                    Err(OtError::OutputLength {
                        choices: 999,
                        out: 1000
                    })
                ),
                "{wrong:?}"
            );
            let mut all = Vec::new();
            for b in &batches {
                r.receive_into(c, b, &mut buf).unwrap();
                all.push(buf.clone());
            }
            all
        },
    );
    for ((k0, r), choices) in sent.iter().zip(&received).zip(&batches) {
        check_correlation(k0, r, choices, delta);
    }
    assert!(sent[0] != sent[1] && sent[1] != sent[2]);
}

#[test]
fn delta_lsb_gives_opposite_colour_bits() {
    for ext in EXTENSIONS {
        delta_lsb_gives_opposite_colour_bits_for(ext);
    }
}

fn delta_lsb_gives_opposite_colour_bits_for(ext: Extension) {
    let mut prg = Prg::from_os();
    let delta = Delta::random(&mut prg);
    assert!(delta.block().lsb());
    let choices = vec![true; 300];
    let (k0, r) = run(
        opts(),
        |c| {
            CotSender::setup_with(c, delta, b"lsb", ext)
                .unwrap()
                .send(c, 300)
                .unwrap()
        },
        |c| {
            CotReceiver::setup_with(c, b"lsb", ext)
                .unwrap()
                .receive(c, &choices)
                .unwrap()
        },
    );
    check_correlation(&k0, &r, &choices, delta);
    for (k, r) in k0.iter().zip(&r) {
        assert_ne!(k.lsb(), r.lsb());
    }
}

#[test]
fn outputs_differ_between_sessions() {
    for ext in EXTENSIONS {
        outputs_differ_between_sessions_for(ext);
    }
}

fn outputs_differ_between_sessions_for(ext: Extension) {
    let delta = Delta::from_block(Block(0x1234_5678_9abc_def0_0fed_cba9_8765_4321));
    let choices: Vec<bool> = (0..500).map(|j| j % 3 == 0).collect();
    let session = || {
        run(
            opts(),
            |c| {
                CotSender::setup_with(c, delta, b"same", ext)
                    .unwrap()
                    .send(c, 500)
                    .unwrap()
            },
            |c| {
                CotReceiver::setup_with(c, b"same", ext)
                    .unwrap()
                    .receive(c, &choices)
                    .unwrap()
            },
        )
    };
    let (k0_a, r_a) = session();
    let (k0_b, r_b) = session();
    check_correlation(&k0_a, &r_a, &choices, delta);
    check_correlation(&k0_b, &r_b, &choices, delta);
    for (a, b) in k0_a.iter().zip(&k0_b) {
        assert_ne!(a, b);
    }
}

#[test]
fn both_directions_in_one_process() {
    for ext in EXTENSIONS {
        both_directions(tcp(opts()), ext);
    }
}

#[test]
fn both_directions_in_one_process_in_memory() {
    for ext in EXTENSIONS {
        both_directions(memory(), ext);
    }
}

fn both_directions<T: Transport + Send>(ends: (T, T), ext: Extension) {
    // Each party is sender in one instance and receiver in the other.
    let mut prg = Prg::from_os();
    let (da, db) = (Delta::random(&mut prg), Delta::random(&mut prg));
    let choices_a: Vec<bool> = (0..1000).map(|j| j % 2 == 0).collect();
    let choices_b: Vec<bool> = (0..700).map(|j| j % 5 == 1).collect();
    let ((ka, ra), (kb, rb)) = run_over(
        ends,
        |c| {
            let mut s = CotSender::setup_with(c, da, b"a->b", ext).unwrap();
            let mut r = CotReceiver::setup_with(c, b"b->a", ext).unwrap();
            let k = s.send(c, 700).unwrap();
            let out = r.receive(c, &choices_a).unwrap();
            (k, out)
        },
        |c| {
            let mut r = CotReceiver::setup_with(c, b"a->b", ext).unwrap();
            let mut s = CotSender::setup_with(c, db, b"b->a", ext).unwrap();
            let out = r.receive(c, &choices_b).unwrap();
            let k = s.send(c, 1000).unwrap();
            (k, out)
        },
    );
    check_correlation(&ka, &rb, &choices_b, da);
    check_correlation(&kb, &ra, &choices_a, db);
}

#[test]
fn batch_count_mismatch_is_an_error() {
    for ext in EXTENSIONS {
        batch_count_mismatch_is_an_error_for(ext);
    }
}

fn batch_count_mismatch_is_an_error_for(ext: Extension) {
    let delta = Delta::random(&mut Prg::from_os());
    let (sent, _) = run(
        opts(),
        |c| {
            CotSender::setup_with(c, delta, b"m", ext)
                .unwrap()
                .send(c, 10)
        },
        |c| {
            CotReceiver::setup_with(c, b"m", ext)
                .unwrap()
                .receive(c, &[false; 11])
                .unwrap()
        },
    );
    assert!(
        matches!(
            sent,
            Err(OtError::CountMismatch {
                ours: 10,
                theirs: 11
            })
        ),
        "{sent:?}"
    );
}

#[test]
fn too_small_frame_limit_is_refused() {
    for ext in EXTENSIONS {
        too_small_frame_limit_is_refused_for(ext);
    }
}

fn too_small_frame_limit_is_refused_for(ext: Extension) {
    let small = ChannelOptions {
        max_frame_len: 4096,
        ..opts()
    };
    let delta = Delta::random(&mut Prg::from_os());
    let (s, r) = run(
        small,
        |c| CotSender::setup_with(c, delta, b"f", ext).map(drop),
        |c| CotReceiver::setup_with(c, b"f", ext).map(drop),
    );
    assert!(matches!(s, Err(OtError::FrameLimit { .. })), "{s:?}");
    assert!(matches!(r, Err(OtError::FrameLimit { .. })), "{r:?}");
}

#[test]
fn a_wrong_delta_is_detected_in_every_bit() {
    for ext in EXTENSIONS {
        a_wrong_delta_is_detected_for(ext);
    }
}

/// The correlation check is not vacuous: it holds for Δ, and fails when any
/// one bit of Δ is flipped (so every group of SoftSpoken's Δ is used).
fn a_wrong_delta_is_detected_for(ext: Extension) {
    let delta = Delta::random(&mut Prg::from_os());
    let mut rng = rand::rngs::StdRng::seed_from_u64(13);
    let choices = random_bools(&mut rng, 200);
    let (k0, r) = run_over(
        memory(),
        |c| {
            CotSender::setup_with(c, delta, b"wrong", ext)
                .unwrap()
                .send(c, 200)
                .unwrap()
        },
        |c| {
            CotReceiver::setup_with(c, b"wrong", ext)
                .unwrap()
                .receive(c, &choices)
                .unwrap()
        },
    );
    check_correlation(&k0, &r, &choices, delta);
    for bit in 0..128 {
        let wrong = delta.block().0 ^ (1 << bit);
        let holds = k0
            .iter()
            .zip(&r)
            .zip(&choices)
            .all(|((&k, &r), &b)| r.0 == k.0 ^ if b { wrong } else { 0 });
        assert!(!holds, "{ext:?}: Δ with bit {bit} flipped passed");
    }
    // The receiver's labels are not simply K0 (nor K0 ⊕ Δ) everywhere.
    assert!(k0.iter().zip(&r).any(|(k, r)| k == r));
    assert!(k0.iter().zip(&r).any(|(k, r)| k != r));
}

#[test]
fn mismatched_extensions_are_an_error() {
    let delta = Delta::random(&mut Prg::from_os());
    let pairs = [
        (Extension::Iknp, Extension::SoftSpoken { k: 4 }),
        (Extension::SoftSpoken { k: 4 }, Extension::Iknp),
        (
            Extension::SoftSpoken { k: 8 },
            Extension::SoftSpoken { k: 4 },
        ),
    ];
    for (ours, theirs) in pairs {
        let (sent, _) = run_over(
            memory(),
            |c| CotSender::setup_with(c, delta, b"x", ours).and_then(|mut s| s.send(c, 1000)),
            |c| {
                CotReceiver::setup_with(c, b"x", theirs)
                    .and_then(|mut r| r.receive(c, &[true; 1000]))
            },
        );
        assert!(
            matches!(sent, Err(OtError::Net(_))),
            "sender {ours:?}, receiver {theirs:?}: {sent:?}"
        );
    }
}

#[test]
fn unsupported_softspoken_widths_are_refused_before_sending() {
    let delta = Delta::random(&mut Prg::from_os());
    for k in [0, 1, 9, 128] {
        let ext = Extension::SoftSpoken { k };
        let (mut a, mut b) = memory();
        let s = CotSender::setup_with(&mut a, delta, b"k", ext);
        let r = CotReceiver::setup_with(&mut b, b"k", ext);
        assert!(matches!(s, Err(OtError::BadExtension(_))), "{s:?}");
        assert!(matches!(r, Err(OtError::BadExtension(_))), "{r:?}");
        assert_eq!((a.bytes_sent(), b.bytes_sent()), (0, 0));
    }
}

#[test]
fn the_byte_formulas_match_the_channel() {
    let delta = Delta::random(&mut Prg::from_os());
    let counts = [0usize, 1, 129, 65_536 + 5];
    for ext in EXTENSIONS.into_iter().chain([Extension::DEFAULT]) {
        let (sent, received) = run_over(
            memory(),
            |c| {
                let mut s = CotSender::setup_with(c, delta, b"bytes", ext).unwrap();
                let mut bytes = vec![c.bytes_sent()];
                for &m in &counts {
                    s.send(c, m).unwrap();
                    bytes.push(c.bytes_sent());
                }
                bytes
            },
            |c| {
                let mut r = CotReceiver::setup_with(c, b"bytes", ext).unwrap();
                let mut bytes = vec![c.bytes_sent()];
                for &m in &counts {
                    r.receive(c, &vec![true; m]).unwrap();
                    bytes.push(c.bytes_sent());
                }
                bytes
            },
        );
        let total: Vec<u64> = sent.iter().zip(&received).map(|(s, r)| s + r).collect();
        let deferred = ext.deferred_setup_bytes();
        assert_eq!(total[0], ext.setup_bytes() - deferred, "{ext:?} setup");
        for (i, &m) in counts.iter().enumerate() {
            let batch = total[i + 1] - total[i];
            // (The first batch carries the rest of the setup.)
            let setup = if i == 0 { deferred } else { 0 };
            assert_eq!(batch, ext.batch_bytes(m as u64) + setup, "{ext:?}, {m} OTs");
        }
    }
    // The figures themselves: 16 bytes an OT for IKNP, 4 for SoftSpoken
    // with 4-bit groups.
    let k4 = Extension::SoftSpoken { k: 4 };
    assert_eq!(Extension::Iknp.setup_bytes(), 4_144);
    assert_eq!(
        Extension::Iknp.batch_bytes(1 << 20),
        4 + 8 + 16 * 4 + (16 << 20)
    );
    assert_eq!(k4.setup_bytes(), 4_144 + 4 + 96 * 32);
    assert_eq!(k4.deferred_setup_bytes(), 4 + 96 * 32);
    assert_eq!(Extension::Iknp.deferred_setup_bytes(), 0);
    assert_eq!(k4.batch_bytes(1 << 20), 4 + 8 + 16 * 4 + (4 << 20));
    // An instance's bytes beyond the base OTs: the batches and what the
    // first defers.
    let batches: Vec<u64> = counts.iter().map(|&m| m as u64).collect();
    for ext in [Extension::Iknp, k4] {
        let rest: u64 = batches.iter().map(|&m| ext.batch_bytes(m)).sum();
        let deferred = ext.deferred_setup_bytes();
        assert_eq!(ext.instance_bytes(&batches), rest + deferred);
        assert_eq!(ext.instance_bytes(&[]), 0);
    }
}

#[test]
fn an_instance_runs_the_extension_that_moves_fewer_bytes() {
    // 12 bytes saved an OT (rows padded to 128) against 3,076 bytes of
    // GGM corrections: SoftSpoken pays from 257 OTs on.
    assert_eq!(Extension::DEFAULT, Extension::SoftSpoken { k: 4 });
    for (batches, want) in [
        (vec![], Extension::DEFAULT),
        (vec![1], Extension::Iknp),
        (vec![32], Extension::Iknp),
        (vec![256], Extension::Iknp),
        (vec![257], Extension::DEFAULT),
        (vec![100, 100, 100], Extension::DEFAULT),
        (vec![1 << 20], Extension::DEFAULT),
    ] {
        let got = Extension::cheapest(&batches);
        assert_eq!(got, want, "{batches:?}");
        let other = if got == Extension::Iknp {
            Extension::DEFAULT
        } else {
            Extension::Iknp
        };
        assert!(got.instance_bytes(&batches) <= other.instance_bytes(&batches));
    }
}

/// A peer that connects, optionally writes `bytes` raw, then hangs up.
fn vanishing_peer(bytes: Vec<u8>) -> Channel {
    let listener = Listener::bind("127.0.0.1:0")
        .unwrap()
        .with_options(opts())
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let peer = thread::spawn(move || {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(&bytes).unwrap();
    });
    let chan = listener.accept(DEADLINE).unwrap();
    peer.join().unwrap();
    chan
}

#[test]
fn peer_disconnecting_during_setup_is_an_error() {
    let start = Instant::now();
    let delta = Delta::random(&mut Prg::from_os());

    // Before anything was sent.
    let mut c = vanishing_peer(Vec::new());
    let r = CotSender::setup(&mut c, delta, b"d");
    assert!(
        matches!(r, Err(OtError::Net(NetError::Disconnected))),
        "{r:?}"
    );

    let mut c = vanishing_peer(Vec::new());
    let r = CotReceiver::setup(&mut c, b"d");
    assert!(
        matches!(r, Err(OtError::Net(NetError::Disconnected))),
        "{r:?}"
    );

    // In the middle of the base OT's first message.
    let mut partial = 40u32.to_le_bytes().to_vec();
    partial.extend_from_slice(&128u64.to_le_bytes());
    let mut c = vanishing_peer(partial);
    let r = CotSender::setup(&mut c, delta, b"d");
    assert!(
        matches!(r, Err(OtError::Net(NetError::Disconnected))),
        "{r:?}"
    );

    assert!(
        start.elapsed() < Duration::from_secs(5),
        "must not wait for timeouts"
    );
}

#[test]
fn silent_peer_during_setup_times_out() {
    let short = ChannelOptions {
        read_timeout: Duration::from_millis(200),
        ..opts()
    };
    let listener = Listener::bind("127.0.0.1:0")
        .unwrap()
        .with_options(short)
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let peer = TcpStream::connect(addr).unwrap();
    let mut c = listener.accept(DEADLINE).unwrap();
    let start = Instant::now();
    let r = CotSender::setup(&mut c, Delta::random(&mut Prg::from_os()), b"t");
    assert!(
        matches!(r, Err(OtError::Net(NetError::Timeout(_)))),
        "{r:?}"
    );
    assert!(start.elapsed() < Duration::from_secs(3));
    drop(peer);
}
