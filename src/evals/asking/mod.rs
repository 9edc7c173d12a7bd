//! Asking: each labelled prompt put to a model with the server's tool list, through a provider
//! ([`crate::provider`]), or answered from the committed answer cache.

pub mod cache;
pub mod choice;
pub mod engine;
pub mod tools;
