//! annotations
