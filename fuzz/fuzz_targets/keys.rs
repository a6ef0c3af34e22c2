//! libFuzzer harness of the `keys` target (see `twofold_fuzz::Target::Keys`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    twofold_fuzz::Target::Keys.run(data);
});
