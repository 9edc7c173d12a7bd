//! The server's surface pinned: `toolproof.lock` ([`lock`]), the difference between the lock
//! and the server classified as an API reviewer would ([`diff`], by the rules of [`rules`]),
//! the `surface` phase of `run`, and `toolproof lock` ([`command`]).

pub(crate) mod command;
mod diff;
pub(crate) mod lock;
pub(crate) use crate::config::vocab::surface as rules;

use crate::checks::security;
use crate::mcp::Client;
use crate::mcp::McpError;
use crate::mcp::types::Tool;
use crate::outcome::{
    AffectedRow, ChangeKind, EvalsResults, Phase, PhaseStatus, SurfaceChange, SurfaceResults,
};
use crate::settings::SurfaceSettings;

pub(crate) use diff::diff;
pub(crate) use lock::Surface;

/// Everything the server lists, as the lock holds it. Resources, prompts and templates are
/// asked for only when the server declares them.
pub(crate) fn snapshot(client: &mut Client, tools: &[Tool]) -> Result<Surface, McpError> {
    let raw: Vec<serde_json::Value> = tools.iter().map(|t| t.raw.clone()).collect();
    let prompts = client.list_prompts()?;
    let resources = client.list_resources()?;
    let templates = client.list_resource_templates()?;
    let info = client.info();
    Ok(Surface::of(
        info.name.clone(),
        info.version.clone(),
        &raw,
        prompts.as_deref(),
        resources.as_deref(),
        templates.as_deref(),
    ))
}

/// The lock as read: its text and surface. `Ok(None)`: there is no lock file.
pub(crate) fn read_lock(path: &std::path::Path) -> Result<Option<(String, Surface)>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let surface = Surface::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some((text, surface)))
}

/// The changes from the lock to the server, each with the lock's line for its item and, for
/// a tool whose text changed, the security checks it now trips that its locked text did not.
pub(crate) fn compare(lock_text: &str, locked: &Surface, now: &Surface) -> Vec<SurfaceChange> {
    let mut changes = diff(locked, now);
    for change in &mut changes {
        let (prefix, key) = change.item.split_once(':').unwrap_or(("", ""));
        change.lock_line = [lock::TOOLS, lock::PROMPTS, lock::RESOURCES, lock::TEMPLATES]
            .into_iter()
            .filter(|c| c.prefix == prefix)
            .find_map(|c| lock::line_of(lock_text, c, key));
        if prefix == "tool"
            && (change.rule == rules::DESCRIPTION_CHANGED || change.rule == rules::TITLE_CHANGED)
        {
            change.rug_pull = rug_pull(locked, now, key);
        }
    }
    changes
}

/// The `security-*` checks the server's tool trips that the locked one did not.
fn rug_pull(locked: &Surface, now: &Surface, name: &str) -> Vec<String> {
    let tool_in = |s: &Surface| {
        let item = s
            .tools
            .iter()
            .find(|t| lock::key_of(lock::TOOLS, t) == name)?;
        Some(Tool::from_wire(serde_json::Value::Object(item.clone())))
    };
    let names: Vec<&str> = now
        .tools
        .iter()
        .map(|t| lock::key_of(lock::TOOLS, t))
        .collect();
    let trips = |t: Option<Tool>| -> Vec<&'static str> {
        t.map(|t| security::tripped(&t, &names)).unwrap_or_default()
    };
    let before = trips(tool_in(locked));
    trips(tool_in(now))
        .into_iter()
        .filter(|id| !before.contains(id))
        .map(str::to_owned)
        .collect()
}

/// The surface phase of `run` on a connected server: `None` (nothing listed beyond the tools)
/// when there is no lock and the run is not `--locked`.
pub(crate) fn run_phase(
    client: &mut Client,
    tools: &[Tool],
    settings: &SurfaceSettings,
) -> Option<Phase<SurfaceResults>> {
    if !settings.locked && !settings.path.exists() {
        return None;
    }
    match snapshot(client, tools) {
        Ok(now) => phase(settings, &now),
        Err(e) => Some(Phase::error(format!(
            "could not list the server's prompts or resources: {e}"
        ))),
    }
}

/// The surface phase of a run: `None` when there is no lock and the run is not `--locked`.
pub(crate) fn phase(settings: &SurfaceSettings, now: &Surface) -> Option<Phase<SurfaceResults>> {
    let started = std::time::Instant::now();
    let (text, locked) = match read_lock(&settings.path) {
        Ok(Some(found)) => found,
        Ok(None) if settings.locked => {
            return Some(Phase::error(format!(
                "--locked, but there is no {}: run `toolproof lock` and commit it",
                settings.shown
            )));
        }
        Ok(None) => return None,
        Err(e) => return Some(Phase::error(e)),
    };
    let results = SurfaceResults {
        locked: settings.locked,
        lock_file: settings.shown.clone(),
        changes: compare(&text, &locked, now),
        lock_lines: lock::lines(&text, &locked),
    };
    let (status, reason) = if results.changes.is_empty() {
        (PhaseStatus::Passed, format!("matches {}", settings.shown))
    } else if settings.locked {
        (
            PhaseStatus::Failed,
            format!("{} against {}", results.counts_text(), settings.shown),
        )
    } else {
        (
            PhaseStatus::Passed,
            format!(
                "{} against {} (reported; --locked fails on them)",
                results.counts_text(),
                settings.shown
            ),
        )
    };
    Some(Phase {
        status,
        reason: Some(reason),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        results,
    })
}

/// Lists, under each change to a tool that is not merely compatible, the eval rows that expect
/// the tool or picked it in this run.
pub(crate) fn attach_rows(results: &mut SurfaceResults, evals: Option<&EvalsResults>) {
    let Some(evals) = evals else { return };
    for change in &mut results.changes {
        let Some(name) = change.item.strip_prefix("tool:") else {
            continue;
        };
        if change.kind == ChangeKind::Compatible {
            continue;
        }
        for model in &evals.models {
            for case in &model.cases {
                let mut picked: Vec<String> = Vec::new();
                for call in case.trials.iter().flat_map(|t| &t.calls) {
                    if !picked.contains(&call.tool) {
                        picked.push(call.tool.clone());
                    }
                }
                let touches =
                    case.expect_tool.as_deref() == Some(name) || picked.iter().any(|p| p == name);
                if touches {
                    change.rows.push(AffectedRow {
                        model: model.model.clone(),
                        case: case.name.clone(),
                        expected: case.expect_tool.clone(),
                        picked,
                        status: case.status,
                    });
                }
            }
        }
    }
}
