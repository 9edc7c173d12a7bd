//! console
