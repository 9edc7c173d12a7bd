//! The plan: for each phase, run it or skip it and why, decided from the settings before
//! anything connects. `inspect` plans only what it shows; `eval` only the evals, their set lint
//! (and the stress curve when asked); `lint` only the set lint; `cache` commands only the cache
//! audit.

use crate::settings::{CommandKind, Settings};

/// The phases, in run order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum PhaseKey {
    /// Static checks on the tool list.
    Checks,
    /// YAML tool-call tests.
    Tests,
    /// Tool-selection evals.
    Evals,
    /// The set lint (the labelled eval cases against the tool list).
    Lint,
    /// The evals again with distractor tools and reordered tool lists.
    Stress,
    /// Latency benchmarks.
    Bench,
    /// Schema fuzzing.
    Fuzz,
    /// The server's protocol behaviour.
    Protocol,
}

impl PhaseKey {
    /// All phases in run order.
    pub(crate) const ALL: [PhaseKey; 8] = [
        PhaseKey::Checks,
        PhaseKey::Tests,
        PhaseKey::Evals,
        PhaseKey::Lint,
        PhaseKey::Stress,
        PhaseKey::Bench,
        PhaseKey::Fuzz,
        PhaseKey::Protocol,
    ];

    /// The key in the JSON report: `checks`, `tests`, `evals`, `lint`, `stress`, `bench`, `fuzz`,
    /// `protocol`.
    pub(crate) fn key(self) -> &'static str {
        match self {
            PhaseKey::Checks => "checks",
            PhaseKey::Tests => "tests",
            PhaseKey::Evals => "evals",
            PhaseKey::Lint => "lint",
            PhaseKey::Stress => "stress",
            PhaseKey::Bench => "bench",
            PhaseKey::Fuzz => "fuzz",
            PhaseKey::Protocol => "protocol",
        }
    }
}

/// What happens to one phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// It runs (once the server is reached).
    Run,
    /// It does not run, for this reason: turned off, or nothing of it can run.
    Skip(String),
    /// It is no part of this run, for this reason: the config has no section for it, or the
    /// command does not run it. Reports that list testcases leave it out.
    Absent(String),
}

impl Step {
    /// Whether the phase runs.
    pub(crate) fn runs(&self) -> bool {
        matches!(self, Step::Run)
    }
}

/// What the cache commands do after listing the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CacheAction {
    /// Show which cases have a cached answer.
    Status,
    /// List (or, with `apply`, remove) files no current case can hit.
    Prune {
        /// Remove them.
        apply: bool,
    },
}

/// Every phase's step, plus the extras a command asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The static checks.
    pub checks: Step,
    /// The tool-call tests.
    pub tests: Step,
    /// The evals.
    pub evals: Step,
    /// The set lint.
    pub lint: Step,
    /// The stress curve (after the evals, on their answers where it can).
    pub stress: Step,
    /// The bench.
    pub bench: Step,
    /// The fuzz.
    pub fuzz: Step,
    /// The protocol checks.
    pub protocol: Step,
    /// List resources and prompts too (`inspect`).
    pub inventory: bool,
    /// The cache audit (`cache status`/`cache prune`).
    pub cache: Option<CacheAction>,
}

impl Plan {
    /// Decides every phase from the settings.
    pub(crate) fn new(settings: &Settings) -> Plan {
        let mut plan = Plan::unsharded(settings);
        if let Some(shard) = settings.shard() {
            plan.shard(settings, shard);
        }
        plan
    }

    /// One shard of several: what is not split runs in shard 1 only (static checks, set lint,
    /// protocol checks, stress curve, and the tool-call tests, which share one session in
    /// order and may build on each other's effects), and a phase with nothing in this shard is
    /// skipped with that reason rather than passing on nothing.
    /// A flag asks for the static checks, set lint or protocol checks in another shard too
    /// (`--checks`, `--no-skip-lint`, `--no-skip-protocol`): a job of the matrix of its own.
    fn shard(&mut self, settings: &Settings, shard: crate::shard::Shard) {
        if !shard.is_first() {
            let skips = settings.skips();
            let asked = [
                settings.checks().asked(),
                false,
                skips.lint_asked(),
                skips.protocol_asked(),
                false,
            ];
            let steps = [
                &mut self.checks,
                &mut self.tests,
                &mut self.lint,
                &mut self.protocol,
                &mut self.stress,
            ];
            for (step, asked) in steps.into_iter().zip(asked) {
                if step.runs() && !asked {
                    *step = Step::Skip(shard.not_here());
                }
            }
        }
        let none_here = |what: &str| {
            Step::Skip(format!(
                "no {what} in shard {} of {}",
                shard.index, shard.count
            ))
        };
        if self.evals.runs() && settings.eval_config().is_some_and(|e| e.cases.is_empty()) {
            self.evals = none_here("eval case");
        }
        if self.bench.runs() && settings.bench().is_some_and(|b| b.targets.is_empty()) {
            self.bench = none_here("bench target");
        }
    }

    /// [`Plan::new`] before the shard has its say.
    fn unsharded(settings: &Settings) -> Plan {
        match settings.command() {
            CommandKind::Inspect { .. } => Plan::only(
                settings,
                PhaseKey::Checks,
                "inspect runs only the static checks",
            ),
            CommandKind::Eval => Plan {
                lint: lint_step(settings),
                ..Plan::only(settings, PhaseKey::Evals, "eval runs only the evals")
            },
            CommandKind::Lint => {
                Plan::only(settings, PhaseKey::Lint, "lint runs only the set lint")
            }
            CommandKind::Bench => {
                Plan::only(settings, PhaseKey::Bench, "bench runs only the bench")
            }
            CommandKind::Fuzz => Plan::only(settings, PhaseKey::Fuzz, "fuzz runs only the fuzzing"),
            CommandKind::Protocol => Plan::only(
                settings,
                PhaseKey::Protocol,
                "protocol runs only the protocol checks",
            ),
            CommandKind::CacheStatus => Plan::cache(CacheAction::Status),
            CommandKind::CachePrune { apply } => Plan::cache(CacheAction::Prune { apply }),
            CommandKind::Run => Plan {
                checks: checks_step(settings),
                tests: tests_step(settings),
                evals: evals_step(settings),
                lint: lint_step(settings),
                stress: match evals_step(settings) {
                    Step::Skip(_) | Step::Absent(_) if settings.eval_config().is_some() => {
                        Step::Skip("the evals phase does not run".into())
                    }
                    _ => stress_step(settings),
                },
                bench: bench_step(settings),
                fuzz: fuzz_step(settings),
                protocol: protocol_step(settings),
                inventory: false,
                cache: None,
            },
        }
    }

    /// The step of `phase`.
    pub(crate) fn step(&self, phase: PhaseKey) -> &Step {
        match phase {
            PhaseKey::Checks => &self.checks,
            PhaseKey::Tests => &self.tests,
            PhaseKey::Evals => &self.evals,
            PhaseKey::Lint => &self.lint,
            PhaseKey::Stress => &self.stress,
            PhaseKey::Bench => &self.bench,
            PhaseKey::Fuzz => &self.fuzz,
            PhaseKey::Protocol => &self.protocol,
        }
    }

    /// Whether anything needs the server at all.
    pub(crate) fn needs_server(&self) -> bool {
        PhaseKey::ALL.iter().any(|p| self.step(*p).runs()) || self.cache.is_some() || self.inventory
    }

    /// A plan running `phase` (as the config allows) and skipping the others with `why`.
    fn only(settings: &Settings, phase: PhaseKey, why: &str) -> Plan {
        let mut plan = Plan::none(why);
        match phase {
            PhaseKey::Checks => {
                plan.checks = checks_step(settings);
                plan.inventory = true;
            }
            // `eval` runs the section even when `enabled: false` keeps it out of `run`.
            PhaseKey::Evals => {
                plan.evals = Step::Run;
                plan.stress = stress_step(settings);
            }
            // `bench` and `fuzz` run their section whatever `enabled` says.
            PhaseKey::Bench => plan.bench = Step::Run,
            PhaseKey::Fuzz => plan.fuzz = Step::Run,
            PhaseKey::Protocol => plan.protocol = Step::Run,
            // `lint` lints the cases whatever `evals.lint.enabled` says.
            PhaseKey::Lint => plan.lint = Step::Run,
            PhaseKey::Tests | PhaseKey::Stress => {}
        }
        plan
    }

    fn cache(action: CacheAction) -> Plan {
        Plan {
            cache: Some(action),
            ..Plan::none("cache commands run no phase")
        }
    }

    /// Every phase skipped for `why`, nothing else to do.
    fn none(why: &str) -> Plan {
        let skip = || Step::Absent(why.to_owned());
        Plan {
            checks: skip(),
            tests: skip(),
            evals: skip(),
            lint: skip(),
            stress: skip(),
            bench: skip(),
            fuzz: skip(),
            protocol: skip(),
            inventory: false,
            cache: None,
        }
    }
}

fn checks_step(settings: &Settings) -> Step {
    let enabled = settings.checks().enabled();
    if enabled.value {
        Step::Run
    } else {
        Step::Skip(format!("turned off with {}", enabled.origin))
    }
}

fn tests_step(settings: &Settings) -> Step {
    if settings.tests_list().is_empty() {
        Step::Absent("no `tests:` in the config".into())
    } else {
        Step::Run
    }
}

fn evals_step(settings: &Settings) -> Step {
    if let Some(origin) = settings.skips().evals() {
        return Step::Skip(turned_off(origin));
    }
    match settings.eval_config() {
        None => Step::Absent("no `evals:` section in the config".into()),
        Some(_) => Step::Run,
    }
}

/// The set lint of `run` and `eval`: on whenever the config has eval cases, unless turned off
/// (`--skip-lint`, `TOOLPROOF_SKIP_LINT`, `evals.lint.enabled: false`). `--skip-evals` leaves
/// it on: it asks no model.
fn lint_step(settings: &Settings) -> Step {
    if let Some(origin) = settings.skips().lint() {
        return Step::Skip(turned_off(origin));
    }
    match settings.whole_eval_config() {
        Some(e) if !e.cases.is_empty() => Step::Run,
        _ => Step::Absent("no eval cases in the config".into()),
    }
}

/// The stress curve: on when `--stress`, `TOOLPROOF_EVAL_STRESS` or `evals.stress` say so.
fn stress_step(settings: &Settings) -> Step {
    match settings.evals() {
        None => Step::Absent("no `evals:` section in the config".into()),
        Some(e) if e.stress().is_some() && e.dry_run() => {
            Step::Skip("dry run: the stress curve asks nothing".into())
        }
        Some(e) if e.stress().is_some() => Step::Run,
        Some(e) => Step::Absent(e.stress_off_reason()),
    }
}

/// `turned off with --skip-evals`, `… with TOOLPROOF_SKIP_EVALS=1`, `… with evals.enabled: false`.
fn turned_off(origin: &crate::settings::Origin) -> String {
    match origin {
        crate::settings::Origin::Yaml(key) => format!("turned off with {key}"),
        other => format!("turned off with {other}"),
    }
}

/// The bench in `run`: turned off, not configured, or with nothing to call.
fn bench_step(settings: &Settings) -> Step {
    if let Some(origin) = settings.skips().bench() {
        return Step::Skip(turned_off(origin));
    }
    match settings.bench() {
        None => Step::Absent("no `bench:` section in the config".into()),
        Some(b) if b.targets.is_empty() => Step::Skip(
            "nothing to benchmark: no `bench.targets` and no test that expects success".into(),
        ),
        Some(_) => Step::Run,
    }
}

/// The fuzz phase of `run`: skipped when turned off, or when the config has no `fuzz:`.
fn fuzz_step(settings: &Settings) -> Step {
    if let Some(origin) = settings.skips().fuzz() {
        return Step::Skip(turned_off(origin));
    }
    if settings.fuzz().is_some() {
        Step::Run
    } else {
        Step::Absent("no `fuzz:` section in the config".into())
    }
}

/// The protocol phase of `run`: off unless the config has a `protocol:` section.
fn protocol_step(settings: &Settings) -> Step {
    if let Some(origin) = settings.skips().protocol() {
        return Step::Skip(turned_off(origin));
    }
    if settings.protocol().is_some() {
        Step::Run
    } else {
        Step::Absent("no `protocol:` section in the config".into())
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::Cli;
    use crate::settings::Env;

    /// The plan of `toolproof run CONFIG <flags>` with `env`, for a config holding `yaml`.
    fn plan(name: &str, yaml: &str, flags: &[&str], env: &[(&str, &str)]) -> Plan {
        let dir = std::env::temp_dir().join(format!("toolproof-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(format!("{name}.yaml"));
        let text = format!(
            "server:\n  command: [\"true\"]\ntests:\n  - {{name: alpha, tool: echo}}\n{yaml}"
        );
        std::fs::write(&path, text).expect("write config");
        let mut args = vec![
            "toolproof".to_owned(),
            "run".into(),
            path.display().to_string(),
        ];
        args.extend(flags.iter().map(|f| (*f).to_owned()));
        let cli = Cli::try_parse_from(&args).expect("arguments parse");
        let env = Env::from_pairs(env.iter().copied());
        let loaded =
            crate::config::load_with(&path, &|_: &str| None, &crate::provider::registry::names())
                .expect("config loads");
        Plan::new(&Settings::resolve(&cli, &env, loaded).expect("settings resolve"))
    }

    #[test]
    fn a_phase_turned_off_says_by_what_and_a_missing_section_says_so() {
        let bench = "bench:\n  targets: [{tool: echo}]\n";
        let off = "bench:\n  enabled: false\n  targets: [{tool: echo}]\n";
        let steps = [
            plan("on", bench, &[], &[]).bench,
            plan("flag", bench, &["--skip-bench"], &[]).bench,
            plan("env", bench, &[], &[("TOOLPROOF_SKIP_BENCH", "true")]).bench,
            plan("yaml", off, &[], &[]).bench,
            plan("absent", "", &[], &[]).bench,
            plan("checks", "checks:\n  enabled: false\n", &[], &[]).checks,
            plan("evals", "", &["--skip-evals"], &[]).evals,
        ];
        assert_eq!(
            steps.map(|s| format!("{s:?}")),
            [
                "Run",
                "Skip(\"turned off with --skip-bench\")",
                "Skip(\"turned off with TOOLPROOF_SKIP_BENCH=true\")",
                "Skip(\"turned off with bench.enabled: false\")",
                "Absent(\"no `bench:` section in the config\")",
                "Skip(\"turned off with checks.enabled: false in the config\")",
                "Skip(\"turned off with --skip-evals\")",
            ]
        );
    }
}
