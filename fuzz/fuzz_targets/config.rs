//! `toolproof.yaml` bytes through the config loader.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = toolproof::facade::hostile_input::config(data);
});
