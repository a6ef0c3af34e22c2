//! libFuzzer harness of the `store` target (see `twofold_fuzz::Target::Store`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    twofold_fuzz::Target::Store.run(data);
});
