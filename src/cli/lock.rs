//! `toolproof lock`: its flags.

use clap::Args;

use super::ServerArgs;

/// `toolproof lock`.
#[derive(Debug, Args)]
pub(crate) struct LockArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Compare the server with toolproof.lock instead of writing it.
    #[arg(long)]
    pub check: bool,
}
