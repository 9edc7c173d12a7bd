//! Reading the reports to merge, and refusing those that do not make one run: not a toolproof
//! JSON report, another schema version, another toolproof version, command or config, a shard
//! missing or given twice.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::mcp::stdio::lines::{NOISE_LINE_KEEP, NOISE_LINES_KEPT};
use crate::outcome::{RunReport, SCHEMA_VERSION, Shard};

/// A report as read, with the file it came from.
#[derive(Debug)]
pub(super) struct Part {
    /// The file, as given.
    pub file: PathBuf,
    /// The report.
    pub report: RunReport,
}

impl Part {
    /// The file as messages show it.
    pub(super) fn name(&self) -> String {
        self.file.display().to_string()
    }

    /// The models its evals asked (empty when the evals did not run).
    pub(super) fn models(&self) -> Vec<&str> {
        self.report
            .phases
            .evals
            .results
            .as_ref()
            .map(|r| r.models.iter().map(|m| m.model.as_str()).collect())
            .unwrap_or_default()
    }
}

/// Why the reports cannot be merged: a usage error (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub(super) struct MergeError {
    message: String,
    hint: Option<String>,
}

impl MergeError {
    fn new(message: impl Into<String>, hint: &str) -> Self {
        MergeError {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }

    /// What to do about it.
    pub(super) fn hint(&self) -> Option<&str> {
        self.hint.as_deref()
    }
}

/// Reads every file as a toolproof JSON report of this schema version.
pub(super) fn read_all(files: &[PathBuf]) -> Result<Vec<Part>, MergeError> {
    files.iter().map(|f| read_one(f)).collect()
}

fn read_one(file: &Path) -> Result<Part, MergeError> {
    let shown = file.display();
    let unreadable = |why: String| {
        MergeError::new(
            format!("cannot read {shown}: {why}"),
            "give the JSON reports (`--json`) the jobs wrote",
        )
    };
    // A device or a pipe (`/dev/zero`) may never end: only a regular file is read.
    match std::fs::metadata(file) {
        Ok(meta) if !meta.is_file() => {
            return Err(unreadable("it is not a regular file".into()));
        }
        Ok(_) => {}
        Err(e) => return Err(unreadable(e.to_string())),
    }
    let text = crate::evals::read_capped(file, REPORT_LIMIT, "a JSON report")
        .map_err(|e| unreadable(e.to_string()))?;
    let not_report = |why: String| {
        MergeError::new(
            format!("{shown} is not a toolproof JSON report: {why}"),
            "give the files the jobs wrote with `--json`",
        )
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| not_report(e.to_string()))?;
    if value.pointer("/generator/name").and_then(Value::as_str) != Some("toolproof") {
        return Err(not_report("it has no `generator.name: toolproof`".into()));
    }
    match value.get("schema_version").and_then(Value::as_u64) {
        Some(v) if v == u64::from(SCHEMA_VERSION) => {}
        other => {
            let got = other.map_or("none".to_owned(), |v| v.to_string());
            return Err(MergeError::new(
                format!(
                    "{shown} has schema_version {got}; this toolproof reads version {SCHEMA_VERSION}"
                ),
                "merge with the toolproof version that wrote the reports",
            ));
        }
    }
    let mut report: RunReport =
        serde_json::from_value(value).map_err(|e| not_report(e.to_string()))?;
    if let Some(shard) = report.shard
        && let Err(why) = Shard::parse(&shard.to_string())
    {
        return Err(MergeError::new(
            format!("{shown} is not a shard toolproof writes: its `shard` {why}"),
            "give the JSON reports the jobs wrote with `--shard K/N`",
        ));
    }
    bound_noise(&mut report);
    Ok(Part {
        file: file.to_path_buf(),
        report,
    })
}

/// The largest report read. A report holds what the run found, with every server text
/// already shortened, so even a large suite's is a few MiB; a larger file (or a device that
/// never ends) is refused rather than loaded.
pub(super) const REPORT_LIMIT: u64 = 64 << 20;

/// The server's stdout noise held as a live run holds it: the first
/// [`NOISE_LINES_KEPT`] lines, each cut to [`NOISE_LINE_KEEP`] bytes with a note of its
/// length, so that a crafted report cannot make every report of the merge carry megabytes.
fn bound_noise(report: &mut RunReport) {
    let total = report.stdout_noise_total.max(report.stdout_noise.len());
    report.stdout_noise.truncate(NOISE_LINES_KEPT);
    for line in &mut report.stdout_noise {
        if line.len() > NOISE_LINE_KEEP {
            let len = line.len();
            let mut end = NOISE_LINE_KEEP;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            line.truncate(end);
            line.push_str(&format!("… (cut: {len} bytes)"));
        }
    }
    report.stdout_noise_total = total;
}

/// Refuses reports that are not parts of one run: every report must have the same toolproof
/// version, command and config digest.
pub(super) fn check_same_run(parts: &[Part]) -> Result<(), MergeError> {
    if let Some(p) = parts.iter().find(|p| {
        !["run", "eval", "lint", "bench", "fuzz", "protocol"].contains(&p.report.command.as_str())
    }) {
        return Err(MergeError::new(
            format!(
                "{} is the report of `{}`, which runs no phase to merge",
                p.name(),
                p.report.command
            ),
            "merge the reports of `run`, `eval`, `fuzz` or `bench` jobs",
        ));
    }
    type Key = fn(&RunReport) -> String;
    let keys: [(&str, Key, &str); 3] = [
        (
            "toolproof versions",
            |r| r.generator.version.clone(),
            "run every job with the same toolproof version, and merge with it",
        ),
        (
            "commands",
            |r| r.command.clone(),
            "merge the reports of one command (`run`, `eval`, `fuzz`, `bench`) at a time",
        ),
        (
            "configs (config_digest)",
            |r| r.config_digest.clone().unwrap_or_else(|| "none".into()),
            "every job must run the same config file",
        ),
    ];
    for (what, key, hint) in keys {
        let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for p in parts {
            seen.entry(key(&p.report)).or_default().push(p.name());
        }
        if seen.len() > 1 {
            let each: Vec<String> = seen
                .iter()
                .map(|(value, files)| format!("{value} in {}", files.join(", ")))
                .collect();
            return Err(MergeError::new(
                format!("the reports are of different {what}: {}", each.join("; ")),
                hint,
            ));
        }
    }
    Ok(())
}

/// Groups the reports by shard (one group when none is sharded), in shard order; refuses a
/// mix of sharded and unsharded reports, shards of different counts, missing shards, and
/// the same shard and model in two reports.
pub(super) fn group(parts: Vec<Part>) -> Result<Vec<Vec<Part>>, MergeError> {
    let sharded = parts.iter().filter(|p| p.report.shard.is_some()).count();
    if sharded > 0 && sharded < parts.len() {
        let plain: Vec<String> = parts
            .iter()
            .filter(|p| p.report.shard.is_none())
            .map(Part::name)
            .collect();
        return Err(MergeError::new(
            format!(
                "some reports are shards and some are not: {} ran without --shard",
                plain.join(", ")
            ),
            "merge the shards of one run: every job runs with --shard K/N",
        ));
    }
    let mut groups: BTreeMap<u32, Vec<Part>> = BTreeMap::new();
    let mut count = None;
    for p in parts {
        let Shard { index, count: n } = p.report.shard.unwrap_or(Shard { index: 1, count: 1 });
        if *count.get_or_insert(n) != n || index == 0 || index > n {
            return Err(MergeError::new(
                format!(
                    "{} is shard {index}/{n}, which does not fit the other reports' {}",
                    p.name(),
                    count.map_or(String::new(), |c| format!("{c} shards"))
                ),
                "merge the shards of one run: every job uses the same N in --shard K/N",
            ));
        }
        groups.entry(index).or_default().push(p);
    }
    let n = count.unwrap_or(1);
    let missing: Vec<String> = (1..=n)
        .filter(|k| !groups.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::new(
            format!(
                "shard{} {} {} missing",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", "),
                if missing.len() == 1 { "is" } else { "are" },
            ),
            "give the JSON report of every shard (a job that failed to upload its report must be run again)",
        ));
    }
    for group in groups.values() {
        no_model_twice(group)?;
    }
    Ok(groups.into_values().collect())
}

/// Within one shard, each report must be a different model's job.
fn no_model_twice(group: &[Part]) -> Result<(), MergeError> {
    let mut owner: BTreeMap<&str, &Part> = BTreeMap::new();
    let shard = |p: &Part| {
        p.report.shard.map_or(String::new(), |s| {
            format!(" of shard {}/{}", s.index, s.count)
        })
    };
    for (i, p) in group.iter().enumerate() {
        let models: BTreeSet<&str> = p.models().into_iter().collect();
        if models.is_empty()
            && let Some(other) = group[..i].iter().find(|o| o.models().is_empty())
        {
            return Err(duplicate(format!(
                "{} and {} are the same job{}",
                other.name(),
                p.name(),
                shard(p)
            )));
        }
        for m in models {
            if let Some(other) = owner.insert(m, p) {
                return Err(duplicate(format!(
                    "{} and {} both hold model `{m}`{}",
                    other.name(),
                    p.name(),
                    shard(p)
                )));
            }
        }
    }
    Ok(())
}

/// A part given twice.
pub(super) fn duplicate(what: String) -> MergeError {
    MergeError::new(
        format!("duplicated shard: {what}"),
        "give each job's report once",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::fixtures;

    fn part(file: &str, shard: Option<(u32, u32)>, models: &[&str]) -> Part {
        let mut report = fixtures::evals_models();
        report.shard = shard.map(|(index, count)| Shard { index, count });
        let results = report.phases.evals.results.as_mut();
        if let Some(r) = results {
            let template = r.models[0].clone();
            r.models = models
                .iter()
                .map(|m| crate::outcome::ModelEval {
                    model: (*m).into(),
                    ..template.clone()
                })
                .collect();
        }
        Part {
            file: file.into(),
            report,
        }
    }

    fn refused(parts: Vec<Part>) -> String {
        group(parts)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn shards_are_grouped_in_order_with_their_model_jobs() {
        let groups = group(vec![
            part("b2", Some((2, 2)), &["b"]),
            part("a1", Some((1, 2)), &["a"]),
            part("b1", Some((1, 2)), &["b"]),
            part("a2", Some((2, 2)), &["a"]),
        ]);
        let names: Vec<Vec<String>> = groups
            .unwrap_or_default()
            .iter()
            .map(|g| g.iter().map(Part::name).collect())
            .collect();
        assert_eq!(names, [["a1", "b1"], ["b2", "a2"]]);
    }

    #[test]
    fn missing_mixed_and_miscounted_shards_are_named() {
        let e = refused(vec![part("x", Some((1, 3)), &["a"])]);
        assert_eq!(e, "shards 2/3, 3/3 are missing");
        let e = refused(vec![
            part("x", Some((1, 2)), &["a"]),
            part("y", None, &["b"]),
        ]);
        assert!(e.contains("y ran without --shard"), "{e}");
        let e = refused(vec![
            part("x", Some((1, 2)), &["a"]),
            part("y", Some((2, 3)), &["a"]),
        ]);
        assert!(e.starts_with("y is shard 2/3"), "{e}");
        let e = refused(vec![part("x", Some((0, 2)), &["a"])]);
        assert!(e.starts_with("x is shard 0/2"), "{e}");
    }

    #[test]
    fn the_same_model_or_job_twice_in_a_shard_is_a_duplicate() {
        let e = refused(vec![part("x", None, &["a", "b"]), part("y", None, &["b"])]);
        assert_eq!(e, "duplicated shard: x and y both hold model `b`");
        let e = refused(vec![
            part("x", Some((1, 1)), &[]),
            part("y", Some((1, 1)), &[]),
        ]);
        assert_eq!(e, "duplicated shard: x and y are the same job of shard 1/1");
    }
}
