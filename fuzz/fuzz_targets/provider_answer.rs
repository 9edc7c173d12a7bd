//! A model API's 2xx body through the Anthropic and OpenAI answer readers, and a command
//! provider's stdout through its parser: the same bytes to all three.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = toolproof::facade::hostile_input::anthropic_answer(data);
    let _ = toolproof::facade::hostile_input::openai_answer(data);
    let _ = toolproof::facade::hostile_input::command_answer(data);
});
