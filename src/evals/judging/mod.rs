//! Judging: what the answers are worth. [`grade`] weighs one answer against its label;
//! [`tally`] a whole run (rates, gates, the verdict); [`set_lint`] checks the labelled set itself
//! with no model; [`stress`] the curve over longer tool lists; [`crowd`] the list with the
//! neighbour servers' tools, as a host builds it; [`history`] the miss-rate file;
//! [`stats`] the intervals and the paired test.

pub(crate) mod crowd;
pub(crate) mod grade;
pub(crate) mod history;
pub(crate) mod set_lint;
pub(crate) mod stats;
pub(crate) mod stress;
pub(crate) mod tally;
