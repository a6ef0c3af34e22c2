//! libFuzzer harness of the `hello` target (see `twofold_fuzz::Target::Hello`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    twofold_fuzz::Target::Hello.run(data);
});
