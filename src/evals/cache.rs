//! Answer cache.
