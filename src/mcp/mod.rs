//! A small blocking MCP client: JSON-RPC over stdio or streamable HTTP, both protocol eras.

pub mod types;
