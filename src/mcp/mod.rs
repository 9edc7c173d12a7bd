//! A small blocking MCP client: JSON-RPC over stdio or streamable HTTP, both protocol eras.

pub mod client;
pub mod content;
pub mod error;
pub mod exact;
pub mod http;
pub(crate) mod pointer;
pub mod protocol;
pub mod requests;
mod server;
pub mod spec;
pub mod sse;
pub mod stdio;
pub mod types;

pub use client::{CallFailure, Client, ClientOptions, ServerSpec};
pub use error::McpError;
pub use server::ToolServer;
