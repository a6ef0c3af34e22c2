//! libFuzzer harness of the `peer` target (see `twofold_fuzz::Target::Peer`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    twofold_fuzz::Target::Peer.run(data);
});
