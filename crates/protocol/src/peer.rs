//! Meeting the peer: every connection a party opens, the first one
//! (listening or connecting) and the extra ones a multi-threaded or IPP
//! session asks for, is opened here.

use std::time::Duration;

use twofold_circuit::{Party, Program};
use twofold_net::{Channel, ChannelOptions, Listener, NetError};

use crate::error::ProtocolError;
use crate::session::{run_session, PartyInputs, SessionOptions, SessionReport};

/// Where this party meets its peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// Wait for the peer on this address (e.g. `0.0.0.0:7766`).
    Listen(String),
    /// Connect to the peer at this address (retried until the wait ends).
    Connect(String),
}

/// Where the peer is, for every connection of a session.
pub enum Peer<'l> {
    /// Accept connections on this listener, waiting at most the duration.
    Listen(&'l Listener, Duration),
    /// Connect to this address, retrying for at most the duration.
    Connect(String, Duration, ChannelOptions),
}

impl Peer<'_> {
    /// Opens one connection to the peer.
    pub fn open(&self) -> Result<Channel, NetError> {
        match self {
            Peer::Listen(listener, wait) => listener.accept(*wait),
            Peer::Connect(addr, wait, opts) => Channel::connect(addr.as_str(), *wait, opts.clone()),
        }
    }
}

/// Runs `party`'s side of a session of `program` with the peer at
/// `endpoint`: opens the first connection (waiting at most `wait` for the
/// peer), then [`run_session`] over it, which opens the extra connections
/// the same way. Every connection has the options `channel`.
pub fn run_remote(
    endpoint: &Endpoint,
    wait: Duration,
    channel: &ChannelOptions,
    party: Party,
    program: &Program,
    inputs: &PartyInputs,
    opts: &SessionOptions,
) -> Result<SessionReport, ProtocolError> {
    let listener;
    let peer = match endpoint {
        Endpoint::Listen(addr) => {
            listener = Listener::bind(addr.as_str())
                .map_err(|source| ProtocolError::Listen {
                    addr: addr.clone(),
                    source,
                })?
                .with_options(channel.clone())
                .map_err(ProtocolError::Meet)?;
            Peer::Listen(&listener, wait)
        }
        Endpoint::Connect(addr) => Peer::Connect(addr.clone(), wait, channel.clone()),
    };
    let first = peer.open().map_err(ProtocolError::Meet)?;
    run_session(first, &peer, party, program, inputs, opts)
}
