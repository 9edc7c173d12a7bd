//! The miss-rate history: one JSON line per model per run, appended to a file CI keeps as an
//! artifact, and the trend of the last runs read back from it. An append rewrites the file
//! through a temp file and a rename, so a crash never leaves it half written; a line that
//! cannot be read is skipped and counted.

use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

use super::stats;
use crate::report::model::{CaseStatus, EvalsResults, HistoryPoint, HistoryTrend};
use crate::settings::Revision;

/// Runs shown in the trend (this one included).
pub const WINDOW: usize = 8;

/// One line of the history file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// RFC 3339 time of the run.
    pub time: String,
    /// Commit the run tested, when known.
    #[serde(default)]
    pub commit: Option<String>,
    /// Branch or ref, when known.
    #[serde(default, rename = "ref")]
    pub git_ref: Option<String>,
    /// Provider.
    pub provider: String,
    /// Model.
    pub model: String,
    /// Cases.
    pub cases: usize,
    /// Correct cases.
    pub correct: usize,
    /// 1 - correct / cases.
    pub miss_rate: f64,
    /// Critical cases missed.
    #[serde(default)]
    pub critical_misses: usize,
    /// Names of the missed cases.
    #[serde(default)]
    pub missed: Vec<String>,
    /// sha256 of the tool list sent to the model.
    #[serde(default)]
    pub tool_list_hash: String,
}

/// Commit and ref: as the CI environment says (`known`), else from git in `dir`.
pub fn revision(dir: &Path, known: &Revision) -> (Option<String>, Option<String>) {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .filter(|s| !s.is_empty())
    };
    let commit = known.commit.clone().or_else(|| git(&["rev-parse", "HEAD"]));
    let git_ref = known
        .git_ref
        .clone()
        .or_else(|| git(&["rev-parse", "--abbrev-ref", "HEAD"]));
    (commit, git_ref)
}

/// The entries this run adds, one per model that ran.
pub fn entries(results: &EvalsResults, time: &str, dir: &Path, known: &Revision) -> Vec<Entry> {
    let (commit, git_ref) = revision(dir, known);
    results
        .models
        .iter()
        .filter(|m| m.error.is_none() && m.total > 0)
        .map(|m| Entry {
            time: time.to_owned(),
            commit: commit.clone(),
            git_ref: git_ref.clone(),
            provider: results.provider.clone(),
            model: m.model.clone(),
            cases: m.total,
            correct: m.correct,
            miss_rate: 1.0 - m.correct as f64 / m.total as f64,
            critical_misses: m.critical_misses.len(),
            missed: m
                .cases
                .iter()
                .filter(|c| c.status != CaseStatus::Correct)
                .map(|c| c.name.clone())
                .collect(),
            tool_list_hash: results.tool_list_hash.clone(),
        })
        .collect()
}

/// Reads the history; unreadable lines are skipped and counted.
pub fn read(path: &Path) -> std::io::Result<(Vec<Entry>, usize)> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(e),
    };
    let mut skipped = 0;
    let entries = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| match serde_json::from_str::<Entry>(l) {
            Ok(e) => Some(e),
            Err(_) => {
                skipped += 1;
                None
            }
        })
        .collect();
    Ok((entries, skipped))
}

/// Appends `new` to the file (whole-file rewrite through a temp file and a rename).
pub fn append(path: &Path, new: &[Entry]) -> std::io::Result<()> {
    let mut text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for e in new {
        text.push_str(&serde_json::to_string(e).map_err(std::io::Error::other)?);
        text.push('\n');
    }
    crate::report::write::write_atomic(path, text.as_bytes())
}

/// Appends this run and returns the trend of the first model over the last [`WINDOW`] runs
/// of the same provider and model.
pub fn record(
    path: &Path,
    results: &EvalsResults,
    time: &str,
    dir: &Path,
    known: &Revision,
) -> std::io::Result<HistoryTrend> {
    let new = entries(results, time, dir, known);
    append(path, &new)?;
    let (all, skipped_lines) = read(path)?;
    let model = new
        .first()
        .map(|e| e.model.clone())
        .or_else(|| results.models.first().map(|m| m.model.clone()))
        .unwrap_or_default();
    let same: Vec<&Entry> = all
        .iter()
        .filter(|e| e.provider == results.provider && e.model == model)
        .collect();
    let points: Vec<HistoryPoint> = same
        .iter()
        .skip(same.len().saturating_sub(WINDOW))
        .map(|e| HistoryPoint {
            time: e.time.clone(),
            commit: e.commit.as_ref().map(|c| c.chars().take(12).collect()),
            model: e.model.clone(),
            miss_rate: e.miss_rate,
        })
        .collect();
    let rates: Vec<f64> = points.iter().map(|p| p.miss_rate).collect();
    Ok(HistoryTrend {
        path: path.display().to_string(),
        rising: stats::rising(&rates),
        points,
        skipped_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::ModelEval;

    fn results(correct: usize, total: usize) -> EvalsResults {
        EvalsResults {
            provider: "anthropic".into(),
            models: vec![ModelEval {
                model: "m".into(),
                total,
                correct,
                ..ModelEval::default()
            }],
            tool_list_hash: "abc".into(),
            ..EvalsResults::default()
        }
    }

    fn temp(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("toolproof-history-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::create_dir_all(&dir);
        dir
    }

    #[test]
    fn appends_skip_bad_lines_and_see_a_rising_trend() {
        let dir = temp("rise");
        let path = dir.join("history.jsonl");
        std::fs::write(&path, "{not json\n").unwrap_or_default();
        let mut last = HistoryTrend::default();
        for (i, correct) in [98, 98, 97, 96].iter().enumerate() {
            last = record(
                &path,
                &results(*correct, 100),
                &format!("t{i}"),
                &dir,
                &Revision::default(),
            )
            .unwrap_or_default();
        }
        assert_eq!(last.points.len(), 4);
        assert_eq!(last.skipped_lines, 1);
        assert!(last.rising, "{last:?}");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(text.lines().count(), 5);
        assert!(
            text.starts_with("{not json\n"),
            "the bad line is kept, not rewritten away"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_steady_rate_is_not_rising_and_the_window_is_bounded() {
        let dir = temp("steady");
        let path = dir.join("h.jsonl");
        let mut last = HistoryTrend::default();
        for i in 0..12 {
            last = record(
                &path,
                &results(95, 100),
                &format!("t{i}"),
                &dir,
                &Revision::default(),
            )
            .unwrap_or_default();
        }
        assert_eq!(last.points.len(), WINDOW);
        assert!(!last.rising);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
