//! `flipped-critical`: a `critical` case right on some trials and wrong on others. The trial
//! outcomes come from this run's eval results ([`run_outcomes`]) or, for `toolproof lint` and a
//! run whose evals did not run, from the committed answer cache ([`cached_outcomes`]: the keys
//! are computed offline, exactly as the evals compute them, and each cached answer is judged by
//! the scorer). A case without an answer for every trial is not checked, and the report says so.

use std::collections::HashMap;

use super::{At, LintInput, Sink, listed, named};
use crate::config::EvalConfig;
use crate::config::vocab::set_lint::FLIPPED_CRITICAL;
use crate::evals::asking::cache::{Cache, Keyer, Lookup};
use crate::evals::asking::engine::{self, case_name};
use crate::evals::asking::tools::api_tools;
use crate::evals::judging::grade::{self, Label};
use crate::mcp::types::Tool;
use crate::outcome::{AnswerKind, EvalsResults, Severity};
use crate::settings::EvalSettings;

/// How one case of one model did over its trials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tally {
    /// The model.
    pub model: String,
    /// The case's index in the cases.
    pub case: usize,
    /// Trials answered right.
    pub passed: usize,
    /// Trials with an answer (provider errors and unasked trials left out).
    pub answered: usize,
}

/// The trial outcomes of the critical cases, and what could not be known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Outcomes {
    /// Per model and critical case.
    pub tallies: Vec<Tally>,
    /// Why some (or all) critical cases could not be checked.
    pub not_checked: Option<String>,
}

/// The critical cases' outcomes in this run's results (cases are in config order).
pub(crate) fn run_outcomes(results: &EvalsResults) -> Outcomes {
    let mut tallies = Vec::new();
    let mut short = Vec::new();
    for m in &results.models {
        for (i, c) in m.cases.iter().enumerate().filter(|(_, c)| c.critical) {
            let answered: Vec<bool> = c
                .trials
                .iter()
                .filter(|t| !matches!(t.kind, AnswerKind::ProviderError | AnswerKind::NotAsked))
                .map(|t| t.passed)
                .collect();
            if c.trials.len() >= 2 && answered.len() < c.trials.len() && !short.contains(&c.name) {
                short.push(c.name.clone());
            }
            tallies.push(Tally {
                model: m.model.clone(),
                case: i,
                passed: answered.iter().filter(|p| **p).count(),
                answered: answered.len(),
            });
        }
    }
    Outcomes {
        tallies,
        not_checked: (!short.is_empty()).then(|| {
            format!(
                "trials of the critical case{} {} got no answer (a provider error, or not asked): they are left out",
                if short.len() == 1 { "" } else { "s" },
                listed(&short, 5)
            )
        }),
    }
}

/// The target's provider, when its answers are cached; else why there is nothing to read.
fn cached_kind(
    target: &crate::settings::EvalTarget,
) -> Result<&'static dyn crate::provider::Kind, String> {
    match target.provider {
        k if k.caches_answers() => Ok(k),
        k => Err(format!(
            "the {} provider is never cached, and the evals did not run",
            k.name()
        )),
    }
}

/// The critical cases' outcomes read from the answer cache, for every model the settings name.
pub(crate) fn cached_outcomes(
    cfg: &EvalConfig,
    settings: &EvalSettings,
    tools: &[Tool],
) -> Outcomes {
    let several = |c: &&crate::config::EvalCase| cfg.trials_of(c).max >= 2;
    if !cfg.cases.iter().any(|c| c.critical && several(&c)) {
        return Outcomes::default(); // nothing can flip
    }
    let not = |why: String| Outcomes {
        tallies: Vec::new(),
        not_checked: Some(why),
    };
    let target = match settings.target() {
        Ok(t) => t,
        Err(e) => return not(format!("no cached answers to read: {e}")),
    };
    let kind = match cached_kind(target) {
        Ok(k) => k,
        Err(e) => return not(e),
    };
    if !cfg.cache {
        return not("evals.cache is false, and the evals did not run".into());
    }
    let api = api_tools(tools);
    let choice = match engine::offered_choice(settings, &api) {
        Ok(c) => c,
        Err(e) => return not(e),
    };
    let params =
        engine::request_params(cfg, kind, choice.as_ref(), settings.openai_max_tokens_key());
    let cache = Cache::new(&cfg.cache_dir);
    let by_name: HashMap<&str, &Tool> = tools.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut out = Outcomes::default();
    let mut missing = Vec::new();
    for model in &target.models {
        let keyer = Keyer::new(
            &kind.cache_name(cfg),
            model,
            cfg.system.as_deref(),
            &api.tools,
            &params,
        );
        for (i, case) in cfg.cases.iter().enumerate() {
            if !case.critical || !several(&case) {
                continue;
            }
            let n = cfg.trials_of(case).max;
            let expected = case.expect_tool.clone().flatten();
            let mut passed = Vec::new();
            for trial in 1..=n {
                let key = keyer.key_in(&case.turns(), &case.prompt, trial);
                if let Lookup::Hit(choice) = cache.read(&key) {
                    let label = Label {
                        tool: expected.as_deref(),
                        args: &case.expect_args,
                    };
                    let judged = grade::judge(label, &choice, &by_name, cfg.multiple_calls);
                    passed.push(judged.failures.is_empty());
                }
            }
            if passed.len() as u32 == n {
                out.tallies.push(Tally {
                    model: model.clone(),
                    case: i,
                    passed: passed.iter().filter(|p| **p).count(),
                    answered: passed.len(),
                });
            } else {
                missing.push(case_name(case));
            }
        }
    }
    if !missing.is_empty() {
        out.not_checked = Some(format!(
            "the answer cache lacks trials of the critical case{} {}: run the evals to record them",
            if missing.len() == 1 { "" } else { "s" },
            listed(&missing, 5)
        ));
    }
    out
}

pub(super) fn check(input: &LintInput<'_>, out: &mut Sink) {
    if let Some(why) = &input.outcomes.not_checked {
        out.not_checked(FLIPPED_CRITICAL, why.clone());
    }
    for t in &input.outcomes.tallies {
        let Some(case) = input.cases.get(t.case) else {
            continue;
        };
        if t.passed == 0 || t.passed == t.answered {
            continue;
        }
        let model = if t.model.is_empty() {
            String::new()
        } else {
            format!(" of {}", t.model)
        };
        out.add(
            FLIPPED_CRITICAL,
            Severity::Warning,
            format!(
                "critical {} was right on {} of {} trials{model}: a case that flips is ambiguous, not exact",
                named(case, input),
                t.passed,
                t.answered
            ),
            "reword the prompt so one tool is plainly right, or move the case to the ambiguous set (expect_tool: null, why: \"ambiguous: …\") and drop critical"
                .to_owned(),
            At::case(case),
        );
    }
}
