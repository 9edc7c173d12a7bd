//! Static checks on a tool list: one rule, one stable id.
