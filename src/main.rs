//! The `toolproof` binary: parse arguments, run, exit with the code the run decided.

fn main() {
    std::process::exit(toolproof::main_entry(std::env::args_os()));
}
