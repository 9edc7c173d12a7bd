//! A cache file through the entry parser; what reads must write back and read the same.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = toolproof::facade::hostile_input::cache_entry(data);
});
