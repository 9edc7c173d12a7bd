//! junit
