//! The report destinations and how the console and the live progress look.

use std::path::PathBuf;

use super::resolve::{Flags, env_value, pick};
use super::{CommandKind, Env, Github, JunitOptions, LiveMode, Outputs, Target};
use crate::cli::Cli;
use crate::config::ConfigError;
use crate::report::console::ColorFlag;
use crate::report::places::Places;

/// Longest `TOOLPROOF_HEARTBEAT_S`: the promise is a line at least every 30 s.
const MAX_HEARTBEAT_S: u64 = 30;

pub(super) fn resolve_outputs(
    cli: &Cli,
    command: CommandKind,
    flags: &Flags<'_>,
    env: &Env,
) -> Result<Outputs, ConfigError> {
    let color_flag = pick(
        cli.color.map(|c| (c, "--color")),
        env_value(env, "TOOLPROOF_COLOR", |s| match s {
            "auto" => Ok(ColorFlag::Auto),
            "always" => Ok(ColorFlag::Always),
            "never" => Ok(ColorFlag::Never),
            _ => Err("use auto, always or never".to_owned()),
        })?,
        None,
        ColorFlag::Auto,
    )
    .value;
    let heartbeat = env_value(env, "TOOLPROOF_HEARTBEAT_S", |s| match s.parse::<u64>() {
        Ok(n) if (1..=MAX_HEARTBEAT_S).contains(&n) => Ok(std::time::Duration::from_secs(n)),
        _ => Err(format!(
            "must be a whole number of seconds from 1 to {MAX_HEARTBEAT_S}, got `{s}`"
        )),
    })?
    .map_or(super::DEFAULT_HEARTBEAT, |(d, _, _)| d);
    let github = env.get("GITHUB_ACTIONS") == Some("true");
    let quiet = !matches!(
        command,
        CommandKind::Run
            | CommandKind::Eval
            | CommandKind::Lint
            | CommandKind::Bench
            | CommandKind::Fuzz
            | CommandKind::Protocol
    );
    let live_color = color_choice(color_flag, env.stderr_tty(), env);
    let mut outputs = Outputs {
        color: color_choice(color_flag, env.stdout_tty(), env),
        width: console_width(env),
        junit: None,
        junit_file_attrs: false,
        json: None,
        html: None,
        badge: None,
        sarif: None,
        summary: None,
        annotations: github && !quiet,
        places: Places::default(),
        live: LiveMode {
            bar: env.stderr_tty() && !env.truthy("CI") && env.get("TERM") != Some("dumb"),
            color: live_color,
            groups: github,
            quiet,
            width: live_width(env),
            heartbeat,
        },
        save_tools: None,
        history: flags.eval.and_then(|f| {
            f.history
                .clone()
                .or_else(|| env.get("TOOLPROOF_HISTORY").map(PathBuf::from))
        }),
        github: super::Github::default(),
    };
    if let Some(r) = flags.reports {
        report_targets(&mut outputs, r, env)?;
    }
    outputs.save_tools = flags.save_tools.map(|p| Target::Path(p.to_path_buf()));
    Ok(outputs)
}

/// Columns of the console report: the terminal's own width, else `COLUMNS` (which shells set
/// but seldom export), else 100 on a terminal and 140 in a log, which has no width. Never below
/// 40, where nothing fits.
fn console_width(env: &Env) -> usize {
    let columns = env
        .get("COLUMNS")
        .and_then(|c| c.trim().parse::<usize>().ok());
    env.stdout_columns()
        .filter(|w| *w > 0)
        .or(columns)
        .map(|w| w.max(40))
        .unwrap_or(if env.stdout_tty() { 100 } else { 140 })
}

/// Columns of the live lines on stderr: its terminal's width, else `COLUMNS` when it is a
/// terminal; `None` in a log, where a line is never cut.
fn live_width(env: &Env) -> Option<usize> {
    let columns = || {
        env.get("COLUMNS")
            .and_then(|c| c.trim().parse::<usize>().ok())
    };
    env.stderr_columns()
        .filter(|w| *w > 0)
        .or_else(|| columns().filter(|_| env.stderr_tty()))
        .map(|w| w.max(40))
}

/// The reports `run` and `eval` write: flag, else variable; `-` is stdout, for one of them.
fn report_targets(
    outputs: &mut Outputs,
    r: &crate::cli::ReportArgs,
    env: &Env,
) -> Result<(), ConfigError> {
    let target = |flag: &Option<PathBuf>, var: &str| {
        flag.clone()
            .or_else(|| env.get(var).map(PathBuf::from))
            .map(|p| {
                if p.as_os_str() == "-" {
                    Target::Stdout
                } else {
                    Target::Path(p)
                }
            })
    };
    outputs.junit = target(&r.junit, "TOOLPROOF_JUNIT");
    outputs.junit_file_attrs =
        r.junit_file_attrs || env.switch("TOOLPROOF_JUNIT_FILE_ATTRS")?.unwrap_or(false);
    outputs.json = target(&r.json, "TOOLPROOF_JSON");
    outputs.html = target(&r.html, "TOOLPROOF_HTML");
    outputs.sarif = target(&r.sarif, "TOOLPROOF_SARIF");
    outputs.badge = badge_target(r.badge.as_ref(), env)?;
    outputs.github = super::github::resolve_github(r, env)?;
    let no_summary = r.no_summary || env.switch("TOOLPROOF_NO_SUMMARY")?.unwrap_or(false);
    outputs.summary = target(&r.summary, "TOOLPROOF_SUMMARY").or_else(|| {
        (!no_summary)
            .then(|| env.get("GITHUB_STEP_SUMMARY"))
            .flatten()
            .map(|p| Target::Path(PathBuf::from(p)))
    });
    let to_stdout = [
        &outputs.junit,
        &outputs.json,
        &outputs.html,
        &outputs.sarif,
        &outputs.summary,
    ]
    .into_iter()
    .filter(|t| matches!(t, Some(Target::Stdout)))
    .count();
    if to_stdout > 1 {
        return Err(
            ConfigError::new(format!("{to_stdout} reports are sent to stdout (`-`)"))
                .hint("send at most one report to stdout and the others to files"),
        );
    }
    Ok(())
}

/// `--badge`, else `TOOLPROOF_BADGE`: a file whose name ends in `.svg` (the badge) or `.json`
/// (a shields.io endpoint), never stdout.
fn badge_target(flag: Option<&PathBuf>, env: &Env) -> Result<Option<Target>, ConfigError> {
    let (path, source) = match (flag, env.get("TOOLPROOF_BADGE")) {
        (Some(p), _) => (p.clone(), "--badge"),
        (None, Some(p)) if !p.is_empty() => (PathBuf::from(p), "TOOLPROOF_BADGE"),
        _ => return Ok(None),
    };
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("svg" | "json") if path.as_os_str() != "-" => Ok(Some(Target::Path(path))),
        _ => Err(ConfigError::new(format!(
            "{source}: `{}` names neither an SVG nor a JSON file",
            path.display()
        ))
        .hint("write the badge to a file ending in .svg (the badge) or .json (a shields.io endpoint), e.g. --badge reports/badge.svg")),
    }
}

/// Whether to colour a stream. `--color always`/`never` win. Under `auto`: `NO_COLOR`
/// (non-empty) means no colour; `CLICOLOR_FORCE` (non-empty, not `0`) means colour;
/// `CLICOLOR=0`, `TERM=dumb` or `CI` (set, not `false`/`0`) mean no colour; otherwise colour
/// exactly when the stream is a terminal.
pub(super) fn color_choice(flag: ColorFlag, is_tty: bool, env: &Env) -> bool {
    match flag {
        ColorFlag::Always => true,
        ColorFlag::Never => false,
        ColorFlag::Auto => {
            if env.raw("NO_COLOR").is_some_and(|v| !v.is_empty()) {
                false
            } else if env
                .raw("CLICOLOR_FORCE")
                .is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
            {
                true
            } else if env.raw("CLICOLOR") == Some("0")
                || env.raw("TERM") == Some("dumb")
                || env
                    .raw("CI")
                    .is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
            {
                false
            } else {
                is_tty
            }
        }
    }
}

impl Outputs {
    /// Colour the console report.
    pub(crate) fn color(&self) -> bool {
        self.color
    }
    /// Width tables are wrapped to.
    pub(crate) fn width(&self) -> usize {
        self.width
    }
    /// `--junit`.
    pub(crate) fn junit(&self) -> Option<&Target> {
        self.junit.as_ref()
    }
    /// How the JUnit report is shaped: `--junit-file-attrs`, and the repository paths.
    pub(crate) fn junit_options(&self) -> JunitOptions {
        JunitOptions {
            file_attrs: self.junit_file_attrs,
            places: self.places.clone(),
        }
    }
    /// `--json`.
    pub(crate) fn json(&self) -> Option<&Target> {
        self.json.as_ref()
    }
    /// `--html`.
    pub(crate) fn html(&self) -> Option<&Target> {
        self.html.as_ref()
    }
    /// `--badge`: a file ending in `.svg` or `.json`.
    pub(crate) fn badge(&self) -> Option<&Target> {
        self.badge.as_ref()
    }
    /// `inspect --save-tools FILE`.
    pub(crate) fn save_tools(&self) -> Option<&Target> {
        self.save_tools.as_ref()
    }
    /// `--summary`, else `$GITHUB_STEP_SUMMARY` unless `--no-summary`.
    pub(crate) fn summary(&self) -> Option<&Target> {
        self.summary.as_ref()
    }
    /// Print GitHub workflow annotations (`GITHUB_ACTIONS=true`).
    pub(crate) fn annotations(&self) -> bool {
        self.annotations
    }
    /// Where the config's files and sections are in the repository (annotations point there).
    pub(crate) fn places(&self) -> &Places {
        &self.places
    }
    /// How progress is shown while the run works.
    pub(crate) fn live(&self) -> LiveMode {
        self.live
    }
    /// `--history PATH`: the run history file (`run` and `eval`).
    pub(crate) fn history(&self) -> Option<&PathBuf> {
        self.history.as_ref()
    }
    /// Step outputs and the pull-request comment.
    pub(crate) fn github(&self) -> &Github {
        &self.github
    }
}

#[cfg(test)]
mod color_tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> Env {
        Env::from_pairs(pairs.iter().copied())
    }

    fn pick(flag: ColorFlag, is_tty: bool, env: Env) -> bool {
        color_choice(flag, is_tty, &env)
    }

    #[test]
    fn color_follows_the_flag_and_the_environment() {
        use ColorFlag::*;
        assert!(pick(Auto, true, env(&[])));
        assert!(!pick(Auto, false, env(&[])));
        assert!(!pick(Auto, true, env(&[("NO_COLOR", "1")])));
        assert!(pick(Auto, true, env(&[("NO_COLOR", "")])));
        assert!(!pick(Auto, true, env(&[("CI", "true")])));
        assert!(pick(Auto, true, env(&[("CI", "false")])));
        assert!(pick(Auto, false, env(&[("CLICOLOR_FORCE", "1")])));
        assert!(pick(
            Auto,
            false,
            env(&[("CI", "1"), ("CLICOLOR_FORCE", "1")])
        ));
        assert!(!pick(Auto, false, env(&[("CLICOLOR_FORCE", "0")])));
        assert!(!pick(
            Auto,
            false,
            env(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")])
        ));
        assert!(!pick(Auto, true, env(&[("TERM", "dumb")])));
        assert!(pick(Always, false, env(&[("NO_COLOR", "1"), ("CI", "1")])));
        assert!(!pick(Never, true, env(&[("CLICOLOR_FORCE", "1")])));
    }
}
