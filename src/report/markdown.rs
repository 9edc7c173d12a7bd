//! markdown
