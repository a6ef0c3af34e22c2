//! libFuzzer harness of the `bristol` target (see `twofold_fuzz::Target::Bristol`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    twofold_fuzz::Target::Bristol.run(data);
});
