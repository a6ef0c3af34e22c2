//! One party of a session on this machine, the peer on another: the way
//! twofold runs between two machines.

use std::time::Duration;

use twofold_circuit::{Party, Program};
use twofold_net::{ChannelOptions, Listener};

use crate::error::ProtocolError;
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
    let first = peer.open().map_err(ProtocolError::Meet)?;
    run_session(first, &peer, party, program, inputs, opts)
}
