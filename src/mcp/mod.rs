//! A small blocking MCP client: JSON-RPC over stdio or streamable HTTP, both protocol eras.

pub(crate) mod client;
pub(crate) mod content;
pub(crate) mod error;
pub(crate) mod exact;
pub(crate) mod http;
pub(crate) mod pointer;
pub(crate) mod protocol;
pub(crate) mod requests;
mod server;
pub(crate) mod spec;
pub(crate) mod sse;
pub(crate) mod stdio;
pub(crate) mod types;

pub(crate) use client::CallFailure;
pub use client::{Client, ClientOptions, ServerSpec};
pub use error::McpError;
pub(crate) use server::ToolServer;
