//! The `peer` target: what a party decodes from its peer after the hello.
//! The fuzz input plays the peer: its first byte picks an exchange, the rest
//! is the run of frames the peer sends (each a 4-byte little-endian length,
//! then that many bytes). Receiving a frame fails as on a connection if its
//! length is over the maximum (refused from the header, before anything is
//! allocated) or if the input ends within it (the peer hung up mid-frame).
//! This party's own messages go nowhere.
//!
//! The exchanges: base OT as sender and as receiver, OT extension as sender
//! and as receiver (base OTs, then one batch), labels and bits, and garbled
//! tables evaluated by both schemes' evaluators.

use std::collections::VecDeque;
use std::sync::OnceLock;

use rand::SeedableRng;
use twofold_circuit::walk::Engine;
use twofold_circuit::Program;
use twofold_crypto::halfgates::ActiveLabel;
use twofold_crypto::{
    Block, Delta, GarblingScheme, HalfGates, MemoryEvaluator, MemoryGarbler, ThreeHalves,
};
use twofold_net::{ChannelOptions, MemoryTransport, NetError, Transport};
use twofold_ot::{base_receive, base_send, CotReceiver, CotSender};
use twofold_protocol::messages::{Bits, Labels};

/// The exchanges, by the input's first byte (modulo their number).
const EXCHANGES: u8 = 7;
/// Base OTs in the base-OT exchanges.
const BASE_OTS: usize = 4;
/// Correlated OTs in the OT-extension exchanges' batch.
const COTS: usize = 100;
/// Labels, then bits, in the labels exchange.
const LABELS: usize = 5;
const BITS: usize = 13;
/// The session id both OT ends use.
const SESSION: &[u8] = b"twofold fuzz";
/// Longest frame the scripted peer may send.
const MAX_FRAME: usize = 1 << 20;

/// Runs `data` as a peer; whether this party accepted everything it read.
pub fn peer(data: &[u8]) -> bool {
    let Some((&which, rest)) = data.split_first() else {
        return false;
    };
    let mut peer = ScriptedPeer::new(rest);
    match which % EXCHANGES {
        5 => evaluate::<HalfGates>(&peer.rest()),
        6 => evaluate::<ThreeHalves>(&peer.rest()),
        which => ours(which, &mut peer).is_ok(),
    }
}

/// This party's side of exchange `which` (0 to 4).
fn ours(which: u8, chan: &mut impl Transport) -> Result<(), String> {
    let done = match which {
        0 => base_send(chan, BASE_OTS, SESSION).map(drop),
        1 => base_receive(chan, &choices(BASE_OTS), SESSION).map(drop),
        2 => {
            CotSender::setup(chan, delta(), SESSION).and_then(|mut s| s.send(chan, COTS).map(drop))
        }
        3 => CotReceiver::setup(chan, SESSION)
            .and_then(|mut r| r.receive(chan, &choices(COTS)).map(drop)),
        _ => {
            return Labels::recv(chan, LABELS, "labels")
                .and_then(|_| Bits::recv(chan, BITS, "bits"))
                .map(drop)
                .map_err(|e| e.to_string())
        }
    };
    done.map_err(|e| e.to_string())
}

/// What an honest peer does in exchange `which` (0 to 4).
fn theirs(which: u8, chan: &mut impl Transport) -> Result<(), String> {
    let done = match which {
        0 => base_receive(chan, &choices(BASE_OTS), SESSION).map(drop),
        1 => base_send(chan, BASE_OTS, SESSION).map(drop),
        2 => CotReceiver::setup(chan, SESSION)
            .and_then(|mut r| r.receive(chan, &choices(COTS)).map(drop)),
        3 => {
            CotSender::setup(chan, delta(), SESSION).and_then(|mut s| s.send(chan, COTS).map(drop))
        }
        _ => {
            return Labels::send(chan, &[Block::default(); LABELS])
                .and_then(|()| Bits::send(chan, (0..BITS).map(|i| i % 2 == 0)))
                .map_err(|e| e.to_string())
        }
    };
    done.map_err(|e| e.to_string())
}

/// One input per exchange: the frames an honest peer sends, recorded from
/// a real run of both ends in memory, and the tables of a real garbling.
pub fn peer_seeds() -> Vec<Vec<u8>> {
    let seed = |which: u8, frames: Vec<Vec<u8>>| {
        let mut data = vec![which];
        data.extend(script(frames));
        data
    };
    let mut seeds: Vec<Vec<u8>> = (0..5).map(|which| seed(which, recorded(which))).collect();
    seeds.push(seed(5, vec![garbled::<HalfGates>()]));
    seeds.push(seed(6, vec![garbled::<ThreeHalves>()]));
    seeds
}

/// The frames an honest peer sends in exchange `which`, against this
/// party's side on the other end of an in-memory pair.
fn recorded(which: u8) -> Vec<Vec<u8>> {
    let (mut mine, other) =
        MemoryTransport::pair(ChannelOptions::default()).expect("the default options are valid");
    let mut recorder = Recorder {
        inner: other,
        frames: Vec::new(),
    };
    std::thread::scope(|s| {
        let mine = s.spawn(move || ours(which, &mut mine));
        theirs(which, &mut recorder).expect("an honest exchange succeeds");
        mine.join()
            .expect("no panic")
            .expect("an honest exchange succeeds");
    });
    recorder.frames
}

/// A transport that records the frames it sends.
struct Recorder {
    inner: MemoryTransport,
    frames: Vec<Vec<u8>>,
}

impl Transport for Recorder {
    fn max_frame_len(&self) -> usize {
        self.inner.max_frame_len()
    }
    fn send_frame(&mut self, payload: &[u8]) -> twofold_net::Result<()> {
        self.frames.push(payload.to_vec());
        self.inner.send_frame(payload)
    }
    fn flush(&mut self) -> twofold_net::Result<()> {
        self.inner.flush()
    }
    fn recv_frame(&mut self, buf: &mut Vec<u8>) -> twofold_net::Result<()> {
        self.inner.recv_frame(buf)
    }
    fn recv_frame_exact(&mut self, out: &mut [u8]) -> twofold_net::Result<()> {
        self.inner.recv_frame_exact(out)
    }
    fn bytes_sent(&self) -> u64 {
        self.inner.bytes_sent()
    }
    fn bytes_received(&self) -> u64 {
        self.inner.bytes_received()
    }
}

/// Alternating choice bits.
fn choices(n: usize) -> Vec<bool> {
    (0..n).map(|i| i % 3 == 0).collect()
}

fn delta() -> Delta {
    Delta::from_block(Block(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210))
}

/// The small program whose tables the table exchanges evaluate.
fn program() -> &'static Program {
    static PROGRAM: OnceLock<Program> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let shape = twofold_testkit::RandomShape {
            inputs: 2,
            max_width: 16,
            gates: 600,
            outputs: 2,
        };
        Program::from(twofold_testkit::random_circuit(&mut rng, &shape))
    })
}

/// The program's tables garbled by scheme `S` (for the seeds).
fn garbled<S: GarblingScheme>() -> Vec<u8> {
    let mut garbler = MemoryGarbler::<S>::new(delta(), 0).expect("the OS supplies randomness");
    let inputs = vec![Default::default(); program().main.input_bits()];
    program()
        .run(&mut garbler, &inputs)
        .expect("garbling a valid program succeeds");
    garbler.tables().to_vec()
}

/// Evaluates the program on `tables` (the frames' bytes, concatenated).
fn evaluate<S: GarblingScheme>(tables: &[u8]) -> bool
where
    for<'t> MemoryEvaluator<'t, S>: Engine<Label = ActiveLabel>,
{
    let mut evaluator = MemoryEvaluator::<S>::new(0, tables);
    let inputs = vec![ActiveLabel::default(); program().main.input_bits()];
    program().run(&mut evaluator, &inputs).is_ok() && evaluator.unused_tables().is_empty()
}

/// The script of a peer sending `frames`: each as a 4-byte little-endian
/// length and its bytes.
pub(crate) fn script<F: AsRef<[u8]>>(frames: impl IntoIterator<Item = F>) -> Vec<u8> {
    let mut data = Vec::new();
    for frame in frames {
        let frame = frame.as_ref();
        data.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        data.extend_from_slice(frame);
    }
    data
}

/// The peer as a script: the frames it sends, in order; it accepts and
/// forgets whatever this party sends.
pub(crate) struct ScriptedPeer {
    incoming: VecDeque<Frame>,
    sent: u64,
    received: u64,
}

/// One frame of a script.
struct Frame {
    /// The length its header gives (`None`: the script ends within the
    /// header).
    header: Option<usize>,
    /// Its bytes (fewer than the header gives if the script ends first).
    bytes: Vec<u8>,
}

impl Frame {
    /// The frame's bytes, or the error a connection gives receiving it.
    fn arrive(&self) -> twofold_net::Result<&[u8]> {
        match self.header {
            Some(len) if len > MAX_FRAME => Err(NetError::FrameTooLarge {
                len: len as u64,
                max: MAX_FRAME,
            }),
            Some(len) if len == self.bytes.len() => Ok(&self.bytes),
            _ => Err(NetError::Disconnected),
        }
    }
}

impl ScriptedPeer {
    /// The peer sending the frames of `data` (see the module's doc).
    pub(crate) fn new(mut data: &[u8]) -> ScriptedPeer {
        let mut incoming = VecDeque::new();
        while !data.is_empty() {
            let (header, rest) = match data.split_first_chunk::<4>() {
                Some((len, rest)) => (Some(u32::from_le_bytes(*len) as usize), rest),
                None => (None, data),
            };
            let (bytes, rest) = rest.split_at(header.unwrap_or(usize::MAX).min(rest.len()));
            incoming.push_back(Frame {
                header,
                bytes: bytes.to_vec(),
            });
            data = rest;
        }
        ScriptedPeer {
            incoming,
            sent: 0,
            received: 0,
        }
    }

    /// The frames this party can receive, in order: those before the first
    /// whose receiving fails.
    pub(crate) fn frames(&self) -> impl Iterator<Item = &[u8]> {
        self.incoming.iter().map_while(|f| f.arrive().ok())
    }

    /// Whether every frame was read.
    pub(crate) fn done(&self) -> bool {
        self.incoming.is_empty()
    }

    /// The bytes of every frame not read yet, concatenated.
    fn rest(&self) -> Vec<u8> {
        self.incoming
            .iter()
            .flat_map(|f| &f.bytes)
            .copied()
            .collect()
    }

    fn next(&mut self) -> twofold_net::Result<Vec<u8>> {
        let frame = self.incoming.pop_front().ok_or(NetError::Disconnected)?;
        frame.arrive()?;
        self.received += frame.bytes.len() as u64;
        Ok(frame.bytes)
    }
}

impl Transport for ScriptedPeer {
    fn max_frame_len(&self) -> usize {
        MAX_FRAME
    }
    fn send_frame(&mut self, payload: &[u8]) -> twofold_net::Result<()> {
        self.sent += payload.len() as u64;
        Ok(())
    }
    fn flush(&mut self) -> twofold_net::Result<()> {
        Ok(())
    }
    fn recv_frame(&mut self, buf: &mut Vec<u8>) -> twofold_net::Result<()> {
        *buf = self.next()?;
        Ok(())
    }
    fn recv_frame_exact(&mut self, out: &mut [u8]) -> twofold_net::Result<()> {
        let frame = self.next()?;
        if frame.len() != out.len() {
            return Err(NetError::UnexpectedLength {
                expected: out.len(),
                got: frame.len(),
            });
        }
        out.copy_from_slice(&frame);
        Ok(())
    }
    fn bytes_sent(&self) -> u64 {
        self.sent
    }
    fn bytes_received(&self) -> u64 {
        self.received
    }
}
