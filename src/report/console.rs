//! console (stub until the renderer lands)
#![allow(missing_docs)]
use super::model::RunReport;
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorFlag { Auto, Always, Never }
pub struct ConsoleOptions { pub color: bool, pub width: usize }
pub fn color_choice(flag: ColorFlag, is_tty: bool) -> bool { match flag { ColorFlag::Always => true, ColorFlag::Never => false, ColorFlag::Auto => is_tty } }
pub fn render(report: &RunReport, _o: &ConsoleOptions) -> String { format!("{}\n", if report.passed {"PASSED"} else {"FAILED"}) }
