//! A `text/event-stream` body through the SSE reader.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = toolproof::facade::hostile_input::sse(data);
});
