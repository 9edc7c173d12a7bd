//! The run history: one JSON line per model per run (or one line for a run without eval
//! results), appended to a file CI keeps as an artifact. Read back, it gives the miss-rate trend
//! of the last runs and, under a pull request, the comparison with the base branch's last
//! recorded run ([`compare`]). An append rewrites the file through a temp file and a rename, so
//! a crash never leaves it half written; a line that cannot be read is skipped and counted.
//!
//! Compatibility: fields added after the first version (`findings`, `failed_tests`, `tools`,
//! `confusion`, `requests`, `tokens`, `cost_usd`, `rows`, `fingerprint`) are optional, so older lines still read; older toolproof versions ignore the fields they do not
//! know, and skip nothing of a run line (it has every field they require).

mod compare;
mod facts;
pub(crate) mod verdict;

use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

use super::stats;
use crate::outcome::{
    BaseComparison, CaseStatus, EvalsResults, FindingKey, HistoryPoint, HistoryTrend, Tokens,
};
use crate::settings::Revision;

pub(crate) use compare::compare;
pub(crate) use facts::{Gathered, outcome};

/// Runs shown in the trend (this one included).
pub(crate) const WINDOW: usize = 8;

/// One line of the history file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// RFC 3339 time of the run.
    pub time: String,
    /// Commit the run tested, when known.
    #[serde(default)]
    pub commit: Option<String>,
    /// Branch or ref, when known.
    #[serde(default, rename = "ref")]
    pub git_ref: Option<String>,
    /// Provider (empty on a run line).
    pub provider: String,
    /// Model (empty on a run line).
    pub model: String,
    /// Cases (0 on a run line).
    pub cases: usize,
    /// Correct cases.
    pub correct: usize,
    /// 1 - correct / cases (0 on a run line).
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
    /// The failing static-check findings of the run; absent when the checks did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub findings: Option<Vec<FindingKey>>,
    /// The tests that failed or errored; absent when the tests did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_tests: Option<Vec<String>>,
    /// The names of the tools the server listed in this run (the set lint asks whether a
    /// tool a case expects was renamed or split since).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// The model's confusion pairs (expected → picked, tools only) on an eval line; the set
    /// lint wants contrastive cases for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confusion: Option<Vec<ConfusedPair>>,
    /// Each tool's digest (MCP name → 16 hex digits), on an eval line: a later run gives the
    /// rows of tools changed since this one their extra trials first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_digests: Option<std::collections::BTreeMap<String, String>>,
    /// Requests made for the model in this run, on an eval line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<usize>,
    /// The tokens of the run's fresh answers (those that reported usage), on an eval line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// Their estimated cost in USD; absent when the model has no price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Each asked case's `[correct, trials]` by its identity, on an eval line: a later run
    /// compares itself with these row by row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<std::collections::BTreeMap<String, [u32; 2]>>,
    /// What the run measured beyond the tool list, on an eval line: runs compare only when
    /// these agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<crate::outcome::Fingerprint>,
}

/// One confusion pair of a recorded run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ConfusedPair {
    /// The tool the case expected.
    pub expected: String,
    /// The tool the model picked instead.
    pub picked: String,
    /// How many trials went this way.
    pub count: usize,
}

/// What the set lint reads from the last recorded run: the lines that share the time of the
/// file's last line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LastRun {
    /// When it ran.
    pub time: String,
    /// The tools the server listed then; `None` when those lines predate the field.
    pub tools: Option<Vec<String>>,
    /// The tool pairs the models confused then (both tools named, in either order); `None`
    /// when no line of that run records confusion (no model was scored, or older lines).
    pub confused: Option<Vec<(String, String)>>,
}

impl Entry {
    /// Whether this line carries a model's eval result (not a run line).
    pub(crate) fn is_eval(&self) -> bool {
        self.cases > 0
    }

    /// correct / cases, for an eval line.
    pub(crate) fn accuracy(&self) -> Option<f64> {
        self.is_eval()
            .then(|| self.correct as f64 / self.cases as f64)
    }
}

/// What one run recorded: the eval results when the evals ran, the failing findings when the
/// checks ran, the failed tests when the tests ran.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RunFacts<'a> {
    /// The evals' results.
    pub evals: Option<&'a EvalsResults>,
    /// Failing static-check findings.
    pub findings: Option<&'a [FindingKey]>,
    /// Names of the failed and errored tests.
    pub failed_tests: Option<&'a [String]>,
    /// Names of the tools the server listed.
    pub tools: Option<&'a [String]>,
}

/// What recording a run gives back.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recorded {
    /// The miss-rate trend, when the run has eval results.
    pub trend: Option<HistoryTrend>,
    /// The comparison with the base branch, when one is known.
    pub base: Option<BaseComparison>,
}

/// Commit and ref: as the CI environment says (`known`), else from git in `dir`.
pub(crate) fn revision(dir: &Path, known: &Revision) -> (Option<String>, Option<String>) {
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

/// The entries this run adds: one per model that ran, else one run line; each carries the
/// run's findings and failed tests.
pub(crate) fn entries(
    facts: RunFacts<'_>,
    time: &str,
    commit: Option<&str>,
    git_ref: Option<&str>,
) -> Vec<Entry> {
    let base = Entry {
        time: time.to_owned(),
        commit: commit.map(str::to_owned),
        git_ref: git_ref.map(str::to_owned),
        findings: facts.findings.map(<[FindingKey]>::to_vec),
        failed_tests: facts.failed_tests.map(<[String]>::to_vec),
        tools: facts.tools.map(<[String]>::to_vec),
        ..Entry::default()
    };
    let models: Vec<Entry> = facts
        .evals
        .iter()
        .flat_map(|results| {
            results
                .models
                .iter()
                // A model that could not be used or of which nothing was asked measured
                // nothing: it has no miss rate to record.
                .filter(|m| {
                    m.error.is_none()
                        && m.tools_unseen.is_none()
                        && m.total > 0
                        && !m.asked_nothing()
                })
                .map(|m| Entry {
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
                    confusion: Some(confused_tools(m)),
                    requests: m.cost.as_ref().map(|c| c.requests),
                    tokens: m.cost.as_ref().map(|c| c.tokens),
                    cost_usd: m
                        .cost
                        .as_ref()
                        .and_then(|c| c.cost_usd)
                        .map(crate::provider::usage::round_usd),
                    rows: Some(verdict::row_map(m)),
                    fingerprint: results.fingerprint.clone(),
                    tool_digests: (!results.tool_digests.is_empty())
                        .then(|| results.tool_digests.clone()),
                    ..base.clone()
                })
        })
        .collect();
    if models.is_empty() {
        vec![base]
    } else {
        models
    }
}

/// The confusion pairs between two tools (not "no tool") of one model.
fn confused_tools(m: &crate::outcome::ModelEval) -> Vec<ConfusedPair> {
    use crate::outcome::NO_TOOL;
    m.confusion
        .iter()
        .filter(|c| c.expected != NO_TOOL && c.picked != NO_TOOL)
        .map(|c| ConfusedPair {
            expected: c.expected.clone(),
            picked: c.picked.clone(),
            count: c.count,
        })
        .collect()
}

/// The last recorded run of the history file, or `None` when the file is missing or empty.
pub(crate) fn last_run(path: &Path) -> std::io::Result<Option<LastRun>> {
    let (entries, _) = read(path)?;
    let Some(last) = entries.last() else {
        return Ok(None);
    };
    let run: Vec<&Entry> = entries
        .iter()
        .rev()
        .take_while(|e| e.time == last.time && e.commit == last.commit)
        .collect();
    let tools = run.iter().find_map(|e| e.tools.clone());
    let mut confused: Option<Vec<(String, String)>> = None;
    for e in run.iter().rev() {
        for c in e.confusion.iter().flatten() {
            let pair = (c.expected.clone(), c.picked.clone());
            let list = confused.get_or_insert_with(Vec::new);
            if !list.contains(&pair) {
                list.push(pair);
            }
        }
        if e.confusion.is_some() {
            confused.get_or_insert_with(Vec::new);
        }
    }
    Ok(Some(LastRun {
        time: last.time.clone(),
        tools,
        confused,
    }))
}

/// The largest history file read. A line is about 1 KiB per model per run, so this holds tens
/// of thousands of runs; a larger file (or a device such as /dev/zero that never ends) is
/// refused rather than loaded.
pub(crate) const HISTORY_LIMIT: u64 = 64 << 20;

/// Reads the history; unreadable lines are skipped and counted.
pub(crate) fn read(path: &Path) -> std::io::Result<(Vec<Entry>, usize)> {
    let text = match crate::evals::read_capped(path, HISTORY_LIMIT, "a history file") {
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
pub(crate) fn append(path: &Path, new: &[Entry]) -> std::io::Result<()> {
    let mut text = match crate::evals::read_capped(path, HISTORY_LIMIT, "a history file") {
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

/// Compares this run with the base branch's last recorded run (when `known` names a base),
/// appends it, and returns the trend of the first model over the last [`WINDOW`] runs of the
/// same provider and model.
pub(crate) fn record(
    path: &Path,
    facts: RunFacts<'_>,
    time: &str,
    dir: &Path,
    known: &Revision,
) -> std::io::Result<Recorded> {
    let (before, _) = read(path)?;
    let base = known
        .base_ref
        .as_deref()
        .map(|base_ref| compare(&before, base_ref, facts));
    let (commit, git_ref) = revision(dir, known);
    let new = entries(facts, time, commit.as_deref(), git_ref.as_deref());
    append(path, &new)?;
    let trend = match facts.evals {
        Some(results) => Some(trend(path, results, &new)?),
        None => None,
    };
    Ok(Recorded { trend, base })
}

fn trend(path: &Path, results: &EvalsResults, new: &[Entry]) -> std::io::Result<HistoryTrend> {
    let (all, skipped_lines) = read(path)?;
    let model = new
        .iter()
        .find(|e| e.is_eval())
        .map(|e| e.model.clone())
        .or_else(|| results.models.first().map(|m| m.model.clone()))
        .unwrap_or_default();
    let same: Vec<&Entry> = all
        .iter()
        .filter(|e| e.is_eval() && e.provider == results.provider && e.model == model)
        .collect();
    let points: Vec<HistoryPoint> = same
        .iter()
        .skip(same.len().saturating_sub(WINDOW))
        .map(|e| HistoryPoint {
            time: e.time.clone(),
            commit: e.commit.as_ref().map(|c| c.chars().take(12).collect()),
            model: e.model.clone(),
            miss_rate: e.miss_rate,
            cost_usd: e.cost_usd,
            replayed: e.requests == Some(0),
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
    use crate::outcome::ModelEval;

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

    fn facts(results: &EvalsResults) -> RunFacts<'_> {
        RunFacts {
            evals: Some(results),
            ..RunFacts::default()
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
    fn a_history_file_larger_than_the_limit_is_refused_not_loaded() {
        // Sparse: 100 GiB that take no disk.
        let path = temp("huge").join("history.jsonl");
        let made = std::fs::File::create(&path).and_then(|f| f.set_len(100 << 30));
        assert!(made.is_ok(), "{made:?}");
        let refused = read(&path).map(|(e, _)| e.len()).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "it is larger than the 64 MiB limit for a history file"
        );
        let appended = append(&path, &[Entry::default()]).unwrap_err();
        assert_eq!(appended.to_string(), refused.to_string());
        let _ = std::fs::remove_file(&path);
        // A device that never ends.
        let endless = read(Path::new("/dev/zero"))
            .map(|(e, _)| e.len())
            .unwrap_err();
        assert_eq!(endless.to_string(), refused.to_string());
    }

    #[test]
    fn a_model_that_never_saw_the_tools_adds_no_miss_rate() {
        let mut r = results(1, 4);
        r.models[0].tools_unseen = Some(crate::outcome::ToolsUnseen {
            answers: 4,
            reported: 4,
            min_prompt_tokens: 37,
            max_prompt_tokens: 37,
            tool_list_tokens: 400,
        });
        let added = entries(facts(&r), "t", None, None);
        assert!(added.iter().all(|e| !e.is_eval()), "{added:?}");
        assert_eq!(entries(facts(&results(1, 4)), "t", None, None)[0].cases, 4);
    }

    #[test]
    fn a_line_carries_the_runs_tokens_and_cost_and_old_lines_still_read() {
        let dir = temp("cost");
        let path = dir.join("history.jsonl");
        // A line of an earlier version: no requests, tokens or cost.
        let old = r#"{"time":"t0","commit":null,"ref":null,"provider":"anthropic","model":"m","cases":100,"correct":98,"miss_rate":0.02,"critical_misses":0,"missed":[],"tool_list_hash":"abc"}"#;
        std::fs::write(&path, format!("{old}\n")).unwrap_or_default();
        let mut r = results(97, 100);
        r.models[0].cost = Some(crate::outcome::ModelCost {
            requests: 100,
            reported: 100,
            tokens: Tokens {
                input: 1_000,
                output: 200,
                cache_write: 0,
                cache_read: 9_000,
            },
            cost_usd: Some(0.005_700_4),
            ..Default::default()
        });
        let trend = record(&path, facts(&r), "t1", &dir, &Revision::default())
            .ok()
            .and_then(|r| r.trend)
            .unwrap_or_default();
        let costs: Vec<Option<f64>> = trend.points.iter().map(|p| p.cost_usd).collect();
        assert_eq!(costs, [None, Some(0.0057)]);
        let (entries, skipped) = read(&path).unwrap_or_default();
        assert_eq!((entries.len(), skipped), (2, 0));
        assert_eq!(entries[1].requests, Some(100));
        assert_eq!(entries[1].tokens.map(|t| t.cache_read), Some(9_000));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(text.starts_with(old), "the old line is kept as it was");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn appends_skip_bad_lines_and_see_a_rising_trend() {
        let dir = temp("rise");
        let path = dir.join("history.jsonl");
        std::fs::write(&path, "{not json\n").unwrap_or_default();
        let mut last = HistoryTrend::default();
        for (i, correct) in [98, 98, 97, 96].iter().enumerate() {
            let r = results(*correct, 100);
            last = record(
                &path,
                facts(&r),
                &format!("t{i}"),
                &dir,
                &Revision::default(),
            )
            .ok()
            .and_then(|r| r.trend)
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
            let r = results(95, 100);
            last = record(
                &path,
                facts(&r),
                &format!("t{i}"),
                &dir,
                &Revision::default(),
            )
            .ok()
            .and_then(|r| r.trend)
            .unwrap_or_default();
        }
        assert_eq!(last.points.len(), WINDOW);
        assert!(!last.rising);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_run_without_evals_is_one_run_line_and_older_lines_still_read() {
        let dir = temp("runline");
        let path = dir.join("h.jsonl");
        // A line as toolproof wrote it before findings and failed tests were recorded.
        let old = r#"{"time":"t0","commit":"abc","ref":"main","provider":"command","model":"","cases":2,"correct":1,"miss_rate":0.5,"critical_misses":0,"missed":["x"],"tool_list_hash":"h"}"#;
        std::fs::write(&path, format!("{old}\n")).unwrap_or_default();
        let findings = [FindingKey {
            check: "description-length".into(),
            tool: "add".into(),
        }];
        let facts = RunFacts {
            evals: None,
            findings: Some(&findings),
            failed_tests: Some(&[]),
            tools: None,
        };
        let known = Revision {
            commit: Some("def".into()),
            git_ref: Some("feature".into()),
            base_ref: Some("main".into()),
        };
        let recorded = record(&path, facts, "t1", &dir, &known).unwrap_or_default();
        assert!(recorded.trend.is_none());
        let base = recorded.base.unwrap_or_default();
        assert_eq!(base.run.map(|r| r.time), Some("t0".into()));
        assert!(base.checks.is_none(), "the old line recorded no checks");
        let (all, skipped) = read(&path).unwrap_or_default();
        assert_eq!((all.len(), skipped), (2, 0));
        assert!(all[0].findings.is_none() && all[0].is_eval());
        assert!(!all[1].is_eval());
        assert_eq!(all[1].findings.as_deref(), Some(&findings[..]));
        // The run line has every field older versions require, so they read it too.
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let last: serde_json::Value =
            serde_json::from_str(text.lines().last().unwrap_or("")).unwrap_or_default();
        for key in ["time", "provider", "model", "cases", "correct", "miss_rate"] {
            assert!(last.get(key).is_some(), "{key} missing in {last}");
        }
        assert_eq!(last["ref"], "feature");
        assert_eq!(last["failed_tests"], serde_json::json!([]));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
