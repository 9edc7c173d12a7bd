//! Judging: what the answers are worth. [`grade`] weighs one answer against its label;
//! [`tally`] a whole run (rates, gates, the verdict); [`set_lint`] checks the labelled set itself
//! with no model; [`stress`] the curve over longer tool lists; [`history`] the miss-rate file;
//! [`stats`] the intervals.

pub mod grade;
pub mod history;
pub mod set_lint;
pub mod stats;
pub mod stress;
pub mod tally;
