//! One party of a session on this machine, the peer on another: the way
//! twofold runs between two machines.

use std::time::Duration;

use twofold_circuit::{MixedProgram, Party, Program};
use twofold_net::{ChannelOptions, Listener};

use crate::error::ProtocolError;
use crate::mixed::{run_mixed, MixedOptions, MixedReport};
use crate::options::{PartyInputs, SessionOptions};
use crate::peer::{Endpoint, Peer};
use crate::session::{run_session, SessionReport};

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
    with_peer(endpoint, wait, channel, |peer| {
        let first = peer.open().map_err(ProtocolError::Meet)?;
        run_session(first, peer, party, program, inputs, opts)
    })
}

/// Runs `party`'s side of the mixed program `program` with the peer at
/// `endpoint` over one connection (see [`run_remote`]).
pub fn run_mixed_remote(
    endpoint: &Endpoint,
    wait: Duration,
    channel: &ChannelOptions,
    party: Party,
    program: &MixedProgram,
    inputs: &PartyInputs,
    opts: &MixedOptions,
) -> Result<MixedReport, ProtocolError> {
    with_peer(endpoint, wait, channel, |peer| {
        let chan = peer.open().map_err(ProtocolError::Meet)?;
        run_mixed(chan, party, program, inputs, opts)
    })
}

/// `f` of the peer at `endpoint`: a bound listener that waits at most
/// `wait`, or an address to connect to within `wait`.
fn with_peer<T>(
    endpoint: &Endpoint,
    wait: Duration,
    channel: &ChannelOptions,
    f: impl FnOnce(&Peer) -> Result<T, ProtocolError>,
) -> Result<T, ProtocolError> {
    let listener;
    let peer = match endpoint {
        Endpoint::Listen(addr) => {
            listener = Listener::bind(addr.as_str())
                .map_err(|cause| ProtocolError::Listen {
                    addr: addr.clone(),
                    cause,
                })?
                .with_options(channel.clone())
                .map_err(ProtocolError::Meet)?;
            Peer::Listen(&listener, wait)
        }
        Endpoint::Connect(addr) => Peer::Connect(addr.clone(), wait, channel.clone()),
    };
    f(&peer)
}
