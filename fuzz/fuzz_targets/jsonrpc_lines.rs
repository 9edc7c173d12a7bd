//! A server's stdout through the stdio JSON-RPC line reader and the client's first steps.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = toolproof::facade::hostile_input::jsonrpc_lines(data);
});
