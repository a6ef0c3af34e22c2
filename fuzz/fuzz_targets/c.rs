//! libFuzzer harness of the `c` target (see `twofold_fuzz::Target::C`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    twofold_fuzz::Target::C.run(data);
});
