//! libFuzzer harness of the `binary` target (see `twofold_fuzz::Target::Binary`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    twofold_fuzz::Target::Binary.run(data);
});
