//! Meeting the peer: every connection a party opens, the first one
//! (listening or connecting) and the extra ones a multi-threaded or IPP
//! session asks for, is opened through a [`Peer`].

use std::time::Duration;

use twofold_net::{Channel, ChannelOptions, InProcess, Listener, NetError};

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
    /// Both parties in this process: accept the connections the other
    /// makes, waiting at most the duration.
    LocalAccept(&'l InProcess, Duration),
    /// Both parties in this process: make each connection (a socketpair).
    LocalConnect(&'l InProcess),
    /// No other connection: the session has only the one its caller opened,
    /// so it must run on one thread, sequentially, without IPP.
    Single,
}

impl Peer<'_> {
    /// Opens one connection to the peer.
    pub fn open(&self) -> Result<Channel, NetError> {
        match self {
            Peer::Listen(listener, wait) => listener.accept(*wait),
            Peer::Connect(addr, wait, opts) => Channel::connect(addr.as_str(), *wait, opts.clone()),
            Peer::LocalAccept(door, wait) => door.accept(*wait),
            Peer::LocalConnect(door) => door.connect(),
            Peer::Single => Err(NetError::InvalidOptions(
                "a session on one connection needs one thread, the sequential schedule and no IPP",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_on_one_connection_opens_no_other() {
        let err = Peer::Single.open().unwrap_err().to_string();
        assert!(err.contains("needs one thread"), "{err}");
    }
}
