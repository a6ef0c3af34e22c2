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
    waiting: Mutex<VecDeque<Channel>>,
    ready: Condvar,
}

impl InProcess {
    /// A meeting place whose connections use `opts`.
    pub fn new(opts: ChannelOptions) -> Result<InProcess> {
        opts.validate()?;
        Ok(InProcess {
            opts,
            waiting: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
        })
    }

    /// Opens a connection: this end is returned, the other waits for
    /// [`accept`](InProcess::accept) (in the order connections were made).
    pub fn connect(&self) -> Result<Channel> {
        let (near, far) = Channel::pair(&self.opts)?;
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(far);
        self.ready.notify_one();
        Ok(near)
    }

    /// The next connection made by [`connect`](InProcess::connect), waiting
    /// at most `wait` for one.
    pub fn accept(&self, wait: Duration) -> Result<Channel> {
        let deadline = Instant::now() + wait;
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(chan) = waiting.pop_front() {
                return Ok(chan);
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
