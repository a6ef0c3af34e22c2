//! Connections between parties in one process (`--local`): each is a fresh
//! Unix socketpair, made by the side that connects and handed to the side
//! that accepts through a queue in memory. There is no address and no
//! listening socket, so no other user of the machine can connect in a
//! party's place.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::{Channel, ChannelOptions, NetError, Result};

/// Where parties in one process meet: the in-process counterpart of a
/// listening address.
pub struct InProcess {
    opts: ChannelOptions,
    waiting: Mutex<Meeting>,
    ready: Condvar,
}

/// The connections made and not yet accepted, and whether making one
/// failed (the connecting side then gives up: no more will come).
#[derive(Default)]
struct Meeting {
    made: VecDeque<Channel>,
    failed: bool,
}

impl InProcess {
    /// A meeting place whose connections use `opts`.
    pub fn new(opts: ChannelOptions) -> Result<InProcess> {
        opts.validate()?;
        Ok(InProcess {
            opts,
            waiting: Mutex::new(Meeting::default()),
            ready: Condvar::new(),
        })
    }

    /// Opens a connection: this end is returned, the other waits for
    /// [`accept`](InProcess::accept) (in the order connections were made).
    /// If that fails, the side accepting is told at once that the other
    /// gave up, rather than waiting for a connection that will not come.
    pub fn connect(&self) -> Result<Channel> {
        let made = Channel::pair(&self.opts);
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        let near = match made {
            Ok((near, far)) => {
                waiting.made.push_back(far);
                Ok(near)
            }
            Err(e) => {
                waiting.failed = true;
                Err(e)
            }
        };
        self.ready.notify_all();
        near
    }

    /// The next connection made by [`connect`](InProcess::connect), waiting
    /// at most `wait` for one; [`NetError::Disconnected`] once making one
    /// failed (the other side's error says why).
    pub fn accept(&self, wait: Duration) -> Result<Channel> {
        let deadline = Instant::now() + wait;
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(chan) = waiting.made.pop_front() {
                return Ok(chan);
            }
            if waiting.failed {
                return Err(NetError::Disconnected);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(NetError::AcceptTimeout(wait));
            }
            waiting = self
                .ready
                .wait_timeout(waiting, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}
