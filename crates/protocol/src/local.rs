//! Both parties in one process, talking over socketpairs (no listening
//! socket, no address another local user could connect to): the default
//! way to try twofold, and what the tests use.

use std::time::Duration;

use twofold_circuit::{Party, Program};
use twofold_net::{ChannelOptions, InProcess, NetError};

use crate::error::ProtocolError;
use crate::options::{PartyInputs, SessionOptions};
use crate::peer::Peer;
use crate::session::{run_session, SessionReport};

/// Runs party A (accepting connections) and party B (making them, each a
/// socketpair) on two threads; returns both reports, A's first.
/// Progress, if any, is reported by party A.
pub fn run_local(
    program: &Program,
    inputs_a: &PartyInputs,
    inputs_b: &PartyInputs,
    opts: &SessionOptions,
    channel: &ChannelOptions,
) -> Result<(SessionReport, SessionReport), ProtocolError> {
    let door = InProcess::new(channel.clone())?;
    let deadline = Duration::from_secs(10);
    let b_opts = SessionOptions {
        progress: None,
        ..opts.clone()
    };
    // Prepared once for both parties (each would otherwise make its own).
    let prepared = twofold_circuit::prepare::prepared(program);
    let program = &*prepared;
    std::thread::scope(|scope| {
        let b = scope.spawn(|| -> Result<SessionReport, ProtocolError> {
            let peer = Peer::LocalConnect(&door);
            run_session(peer.open()?, &peer, Party::B, program, inputs_b, &b_opts)
        });
        let a = (|| -> Result<SessionReport, ProtocolError> {
            let peer = Peer::LocalAccept(&door, deadline);
            run_session(peer.open()?, &peer, Party::A, program, inputs_a, opts)
        })();
        let b = b.join().expect("party B's thread does not panic");
        // Report the first cause: a party that failed on its own makes the
        // other see a closed connection.
        match (a, b) {
            (Ok(a), Ok(b)) => Ok((a, b)),
            (Err(ProtocolError::Net(_)), Err(e)) if !matches!(e, ProtocolError::Net(_)) => Err(e),
            (Err(ProtocolError::Net(NetError::Disconnected)), Err(e)) => Err(e),
            (Err(e), _) | (_, Err(e)) => Err(e),
        }
    })
}
