//! Asking: each labelled prompt put to a model with the server's tool list, through a provider
//! ([`crate::provider`]), or answered from the committed answer cache.

pub(crate) mod cache;
pub(crate) mod choice;
pub(crate) mod engine;
pub(crate) mod overrides;
pub(crate) mod tools;
