//! What the arithmetic-sharing tests share.

use std::time::Duration;

use twofold_net::{Channel, ChannelOptions};

/// A connected pair of in-process channels, with timeouts long enough for
/// a loaded machine.
pub fn pair() -> (Channel, Channel) {
    let opts = ChannelOptions {
        read_timeout: Duration::from_secs(20),
        write_timeout: Duration::from_secs(20),
        ..ChannelOptions::default()
    };
    Channel::pair(&opts).unwrap()
}
