//! libFuzzer harness of the `value` target (see `twofold_fuzz::Target::Value`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    twofold_fuzz::Target::Value.run(data);
});
