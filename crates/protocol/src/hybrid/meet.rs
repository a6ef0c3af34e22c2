//! How the three computing parties meet. CP1 listens; CP2 listens and
//! connects to CP1; CP3 connects to both. Every connection starts with a
//! [`HybridHello`] from the side that opened it, answered by the other's;
//! CP2 opens one connection to CP1 per garbling thread (CGP), CP3 one to
//! each. Each side checks that the other is the party it expects, on the
//! connection it expects, running the same program on the same terms.

use std::time::Duration;

use twofold_net::{Channel, ChannelOptions, InProcess, Listener, NetError, PublicKey};

use crate::error::ProtocolError;
use crate::handshake::hex;
use crate::messages::{recv_hello, HybridHello, HELLO_SLACK};
use crate::options::{Role, ShareKind};

/// Every connection of one computing party, by the peer's role.
pub(crate) struct Links {
    /// `by_role[r.index()]`: the connections to party `r` (none to itself),
    /// the first one first.
    pub by_role: [Vec<Channel>; 3],
    run_id: crate::hybrid::RunId,
}

impl Links {
    /// The run's identity: a hash of the three parties' nonces.
    pub fn run_id(&self) -> crate::hybrid::RunId {
        self.run_id
    }

    /// The connections to `role`.
    pub fn to(&mut self, role: Role) -> &mut Vec<Channel> {
        &mut self.by_role[role.index()]
    }

    /// Bytes sent and received over every connection.
    pub fn bytes(&self) -> (u64, u64) {
        let all = self.by_role.iter().flatten();
        all.fold((0, 0), |(s, r), c| {
            (s + c.bytes_sent(), r + c.bytes_received())
        })
    }
}

/// How the parties reach each other.
pub(crate) enum Doors<'a> {
    /// Between processes: this party's listener (CP1 and CP2; CP3 accepts
    /// none) and the addresses of CP1 and CP2, which the later parties
    /// connect to.
    Tcp {
        listener: Option<&'a Listener>,
        addrs: [String; 2],
    },
    /// All three in this process: where CP1 and CP2 accept socketpairs.
    Local(&'a [InProcess; 2]),
}

/// Where this party meets the others.
pub(crate) struct Meeting<'a> {
    /// This party's hello (its index is set per connection).
    pub hello: HybridHello,
    /// How this party reaches the others.
    pub doors: Doors<'a>,
    /// How long to wait for each peer.
    pub wait: Duration,
    /// Options of the connections this party opens.
    pub channel: ChannelOptions,
    /// The key each party must hold (see `HybridPeers::keys`).
    pub keys: [Option<PublicKey>; 3],
    /// Connections between CP1 and CP2.
    pub cp12_links: usize,
}

impl Meeting<'_> {
    /// Opens and accepts every connection of this party.
    pub fn meet(&self) -> Result<Links, ProtocolError> {
        let me = self.hello.role;
        let mut links = Links {
            by_role: Default::default(),
            run_id: Default::default(),
        };
        let mut nonces = Nonces::default();
        for peer in Role::ALL.into_iter().filter(|&r| r < me) {
            for index in 0..self.links_with(peer) as u32 {
                let mut chan = self.connect(peer).map_err(ProtocolError::Meet)?;
                self.send_hello(&mut chan, index)?;
                let theirs = self.recv_hello(&mut chan)?;
                self.check(&theirs, peer, index)?;
                self.check_key(&chan, peer)?;
                nonces.check(&theirs)?;
                links.to(peer).push(chan);
            }
        }
        let expected: usize = Role::ALL
            .into_iter()
            .filter(|&r| r > me)
            .map(|r| self.links_with(r))
            .sum();
        let mut accepted: Vec<(HybridHello, Channel)> = Vec::new();
        while accepted.len() < expected {
            let mut chan = self.accept().map_err(ProtocolError::Meet)?;
            let theirs = self.recv_hello(&mut chan)?;
            if theirs.role <= me
                || theirs.index as usize >= self.links_with(theirs.role)
                || accepted
                    .iter()
                    .any(|(h, _)| h.role == theirs.role && h.index == theirs.index)
            {
                return Err(ProtocolError::Malformed(format!(
                    "{me} did not expect connection {} from {}",
                    theirs.index, theirs.role
                )));
            }
            self.check(&theirs, theirs.role, theirs.index)?;
            self.check_key(&chan, theirs.role)?;
            self.send_hello(&mut chan, theirs.index)?;
            accepted.push((theirs, chan));
        }
        accepted.sort_by_key(|(h, _)| (h.role, h.index));
        for (theirs, chan) in accepted {
            nonces.check(&theirs)?;
            links.to(theirs.role).push(chan);
        }
        nonces.0[me.index()] = Some(self.hello.nonce);
        links.run_id = nonces.run_id();
        Ok(links)
    }

    /// Opens a connection to `peer` (CP1 or CP2).
    fn connect(&self, peer: Role) -> Result<Channel, NetError> {
        match &self.doors {
            Doors::Tcp { addrs, .. } => {
                let addr = addrs[peer.index()].as_str();
                Channel::connect(addr, self.wait, self.channel.clone())
            }
            Doors::Local(doors) => doors[peer.index()].connect(),
        }
    }

    /// Accepts the next connection to this party (CP1 or CP2).
    fn accept(&self) -> Result<Channel, NetError> {
        let me = self.hello.role.index();
        match &self.doors {
            Doors::Tcp { listener, .. } => listener.expect("CP1 and CP2 listen").accept(self.wait),
            Doors::Local(doors) => doors[me].accept(self.wait),
        }
    }

    /// Connections between this party and `peer`.
    fn links_with(&self, peer: Role) -> usize {
        match (self.hello.role, peer) {
            (Role::Cp1, Role::Cp2) | (Role::Cp2, Role::Cp1) => self.cp12_links,
            _ => 1,
        }
    }

    /// Reads the peer's hello, waiting no longer than for a peer to
    /// appear: a party that stopped before answering is not waited for as
    /// long as a busy one.
    fn recv_hello(&self, chan: &mut Channel) -> Result<HybridHello, ProtocolError> {
        let timeout = self.channel.read_timeout;
        chan.set_read_timeout(self.wait.min(timeout))?;
        let mut buf = Vec::new();
        let max = self.hello.encoded_len() + HELLO_SLACK;
        recv_hello(chan, &mut buf, max, "computing party")?;
        chan.set_read_timeout(timeout)?;
        HybridHello::decode(&buf)
    }

    fn send_hello(&self, chan: &mut Channel, index: u32) -> Result<(), ProtocolError> {
        let hello = HybridHello {
            index,
            ..self.hello.clone()
        };
        chan.send_frame(&hello.encode())?;
        Ok(chan.flush()?)
    }

    /// Checks that the peer on `chan` proved it holds `peer`'s key. Fails
    /// closed: an authenticated connection needs a key pinned for the
    /// role, and a pinned key needs an authenticated connection; only a
    /// plain connection (in-process, or --insecure) with no key pinned
    /// passes unchecked.
    fn check_key(&self, chan: &Channel, peer: Role) -> Result<(), ProtocolError> {
        let (expected, proved) = (self.keys[peer.index()], chan.peer_key());
        if expected == proved {
            return Ok(());
        }
        Err(ProtocolError::Mismatch {
            what: "the key of the party on this connection",
            ours: expected.map_or(format!("no key pinned for {peer}"), |k| {
                format!("{peer} holds {k}")
            }),
            theirs: proved.map_or("it proved no key".to_string(), |k| format!("it proved {k}")),
        })
    }

    /// Checks the hello `theirs` from connection `index` to `peer`.
    fn check(&self, theirs: &HybridHello, peer: Role, index: u32) -> Result<(), ProtocolError> {
        let ours = &self.hello;
        let mismatch = |what, ours: String, theirs: String| {
            Err(ProtocolError::Mismatch { what, ours, theirs })
        };
        if theirs.role != peer || theirs.index != index {
            return mismatch(
                "who is on this connection",
                format!("{peer}, connection {index}"),
                format!("{}, connection {}", theirs.role, theirs.index),
            );
        }
        if theirs.program_hash != ours.program_hash {
            return mismatch(
                "the program (hash)",
                hex(&ours.program_hash),
                hex(&theirs.program_hash),
            );
        }
        if theirs.input_kinds != ours.input_kinds {
            let names =
                |kinds: &[ShareKind]| kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join(",");
            return mismatch(
                "the share kinds of the inputs",
                names(&ours.input_kinds),
                names(&theirs.input_kinds),
            );
        }
        if theirs.input_runs != ours.input_runs {
            let first = (0..ours.input_runs.len().max(theirs.input_runs.len()))
                .find(|&k| ours.input_runs.get(k) != theirs.input_runs.get(k))
                .unwrap_or(0);
            let run = |runs: &[[u8; 16]]| {
                runs.get(first)
                    .map_or("no run".to_string(), |r| format!("run {}", hex(r)))
            };
            return mismatch(
                "the run that made the input shares (every party must hold shares of one run: share the value again, or rerun the program that made it)",
                format!("input value {first}: {}", run(&ours.input_runs)),
                format!("input value {first}: {}", run(&theirs.input_runs)),
            );
        }
        if ours.store_id != [0; 16] && theirs.store_id == ours.store_id {
            return mismatch(
                "the share store (each computing party needs its own store)",
                format!("this party's store {}", hex(&ours.store_id)),
                format!("{peer} uses the same store"),
            );
        }
        if theirs.output_kind != ours.output_kind {
            return mismatch(
                "the share kind of the outputs",
                ours.output_kind.to_string(),
                theirs.output_kind.to_string(),
            );
        }
        // Lanes matter to additive shares only (bitwise shares are the same
        // whatever the lane).
        let add_input = |k: usize| ours.input_kinds.get(k) != Some(&ShareKind::Xor);
        let add_output = |_: usize| ours.output_kind == ShareKind::Add;
        let inputs = (&ours.input_lanes, &theirs.input_lanes);
        let outputs = (&ours.output_lanes, &theirs.output_lanes);
        let differences = [
            (
                "input",
                inputs,
                lane_difference(inputs.0, inputs.1, add_input),
            ),
            (
                "output",
                outputs,
                lane_difference(outputs.0, outputs.1, add_output),
            ),
        ];
        for (what, (our_lanes, their_lanes), k) in differences {
            let Some(k) = k else { continue };
            let lane = |lanes: &[u32]| {
                lanes
                    .get(k)
                    .map_or("no lane".to_string(), |l| format!("lanes of {l} bits"))
            };
            return mismatch(
                "the lanes of the additive shares (load the program alike on every party: an array from C source is cut per element, a circuit file's value is one lane)",
                format!("{what} value {k}: {}", lane(our_lanes)),
                format!("{what} value {k}: {}", lane(their_lanes)),
            );
        }
        let how = |h: &HybridHello| {
            format!(
                "{} x{}, {}, FGP from {} AND gates",
                h.schedule.name(),
                h.threads,
                h.scheme.name(),
                h.fgp_min_ands
            )
        };
        if how(theirs) != how(ours) {
            return mismatch(
                "threads, schedule and garbling scheme",
                how(ours),
                how(theirs),
            );
        }
        Ok(())
    }
}

/// The first value whose lane differs between `ours` and `theirs`, among
/// those `additive` says are shared additively.
fn lane_difference(
    ours: &[u32],
    theirs: &[u32],
    additive: impl Fn(usize) -> bool,
) -> Option<usize> {
    let count = ours.len().max(theirs.len());
    (0..count).find(|&k| additive(k) && ours.get(k) != theirs.get(k))
}

/// The nonce each peer sent first: all its connections must carry it.
#[derive(Default)]
struct Nonces([Option<[u8; 16]>; 3]);

impl Nonces {
    /// The run id of the nonces of all three parties.
    fn run_id(&self) -> crate::hybrid::RunId {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        hash.update(b"twofold hybrid run id v1");
        for nonce in &self.0 {
            hash.update(nonce.unwrap_or_default());
        }
        hash.finalize()[..16].try_into().expect("16 bytes")
    }

    fn check(&mut self, hello: &HybridHello) -> Result<(), ProtocolError> {
        match self.0[hello.role.index()] {
            Some(first) if first != hello.nonce => Err(ProtocolError::Malformed(format!(
                "connection {} from {} does not belong to this run",
                hello.index, hello.role
            ))),
            Some(_) => Ok(()),
            None => {
                self.0[hello.role.index()] = Some(hello.nonce);
                Ok(())
            }
        }
    }
}
