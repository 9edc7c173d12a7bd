//! This run against the base branch's last recorded run: per model the accuracy then and now
//! and the cases that changed, the failing findings and failed tests that appeared or went
//! away. Each part is compared with the latest base-branch line that recorded that part, so a
//! base run that skipped the evals still gives the checks, and an earlier one the accuracy.

use super::{Entry, RunFacts};
use crate::outcome::{
    BaseComparison, BaseRun, CaseStatus, FindingChanges, ModelChange, TestChanges,
};

/// Compares `facts` with the lines of `before` recorded on `base_ref`.
pub(crate) fn compare(before: &[Entry], base_ref: &str, facts: RunFacts<'_>) -> BaseComparison {
    let base: Vec<&Entry> = before
        .iter()
        .filter(|e| e.git_ref.as_deref() == Some(base_ref))
        .collect();
    let latest = |keep: &dyn Fn(&Entry) -> bool| base.iter().rev().copied().find(|e| keep(e));
    let models = facts.evals.map_or_else(Vec::new, |results| {
        results
            .models
            .iter()
            .filter(|m| m.error.is_none() && m.tools_unseen.is_none() && m.total > 0)
            .map(|m| {
                let then = latest(&|e| {
                    e.is_eval() && e.provider == results.provider && e.model == m.model
                });
                let missed: Vec<&str> = m
                    .cases
                    .iter()
                    .filter(|c| c.status != CaseStatus::Correct)
                    .map(|c| c.name.as_str())
                    .collect();
                let right: Vec<&str> = m
                    .cases
                    .iter()
                    .filter(|c| c.status == CaseStatus::Correct)
                    .map(|c| c.name.as_str())
                    .collect();
                ModelChange {
                    model: m.model.clone(),
                    accuracy: m.correct as f64 / m.total as f64,
                    base_accuracy: then.and_then(Entry::accuracy),
                    newly_missed: then.map_or_else(Vec::new, |e| {
                        missing_from(missed.iter().copied(), &e.missed)
                    }),
                    newly_passing: then.map_or_else(Vec::new, |e| {
                        e.missed
                            .iter()
                            .filter(|name| right.contains(&name.as_str()))
                            .cloned()
                            .collect()
                    }),
                }
            })
            .collect()
    });
    let checks = facts.findings.and_then(|now| {
        let then = latest(&|e| e.findings.is_some())?.findings.as_deref()?;
        Some(FindingChanges {
            new: only_in(now, then),
            fixed: only_in(then, now),
        })
    });
    let tests = facts.failed_tests.and_then(|now| {
        let then = latest(&|e| e.failed_tests.is_some())?
            .failed_tests
            .as_deref()?;
        Some(TestChanges {
            newly_failing: only_in(now, then),
            fixed: only_in(then, now),
        })
    });
    BaseComparison {
        base_ref: base_ref.to_owned(),
        run: base.last().map(|e| BaseRun {
            time: e.time.clone(),
            commit: e.commit.clone(),
        }),
        models,
        checks,
        tests,
    }
}

/// The names of `now` that `then` lacks, each once, in order.
fn missing_from<'a>(now: impl Iterator<Item = &'a str>, then: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in now {
        if !then.iter().any(|t| t == name) && !out.iter().any(|o| o == name) {
            out.push(name.to_owned());
        }
    }
    out
}

/// The items of `a` not in `b`, each once, in order.
fn only_in<T: PartialEq + Clone>(a: &[T], b: &[T]) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for item in a {
        if !b.contains(item) && !out.contains(item) {
            out.push(item.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{EvalCaseResult, EvalsResults, FindingKey, ModelEval};

    fn case(name: &str, ok: bool) -> EvalCaseResult {
        EvalCaseResult {
            name: name.into(),
            prompt: name.into(),
            why: None,
            critical: false,
            line: None,
            file: None,
            expect_tool: None,
            expect_args: serde_json::Value::Null,
            context: Vec::new(),
            status: if ok {
                CaseStatus::Correct
            } else {
                CaseStatus::Miss
            },
            pass_rate: if ok { 1.0 } else { 0.0 },
            ambiguous: false,
            trials: Vec::new(),
        }
    }

    fn line(git_ref: &str, time: &str, model: &str, correct: usize, missed: &[&str]) -> Entry {
        Entry {
            time: time.into(),
            commit: Some(format!("c-{time}")),
            git_ref: Some(git_ref.into()),
            provider: "openai".into(),
            model: model.into(),
            cases: 4,
            correct,
            missed: missed.iter().map(|s| s.to_string()).collect(),
            ..Entry::default()
        }
    }

    fn key(check: &str, tool: &str) -> FindingKey {
        FindingKey {
            check: check.into(),
            tool: tool.into(),
        }
    }

    #[test]
    fn accuracy_and_cases_are_compared_with_the_latest_base_line_of_the_model() {
        let before = vec![
            line("main", "t1", "m", 2, &["a", "b"]),
            line("main", "t2", "m", 3, &["b"]),
            line("feature", "t3", "m", 0, &["a", "b", "c", "d"]),
        ];
        let results = EvalsResults {
            provider: "openai".into(),
            models: vec![ModelEval {
                model: "m".into(),
                total: 4,
                correct: 3,
                cases: vec![
                    case("a", false),
                    case("b", true),
                    case("c", true),
                    case("d", true),
                ],
                ..ModelEval::default()
            }],
            ..EvalsResults::default()
        };
        let facts = RunFacts {
            evals: Some(&results),
            ..RunFacts::default()
        };
        let c = compare(&before, "main", facts);
        let run = c.run.as_ref().map(|r| r.time.as_str());
        assert_eq!(
            run,
            Some("t2"),
            "the feature branch's own line is not the base"
        );
        let m = &c.models[0];
        assert_eq!(m.base_accuracy, Some(0.75));
        assert_eq!(m.accuracy, 0.75);
        assert_eq!(m.newly_missed, vec!["a"]);
        assert_eq!(m.newly_passing, vec!["b"]);
        assert!(
            c.changed(),
            "the same accuracy with other cases is a change"
        );
        assert!(c.checks.is_none() && c.tests.is_none());
        let none = compare(&before, "release", facts);
        assert!(none.run.is_none() && none.models[0].base_accuracy.is_none());
        assert!(!none.changed());
    }

    #[test]
    fn findings_and_tests_come_from_the_latest_base_line_that_recorded_them() {
        let mut with_checks = line("main", "t1", "", 0, &[]);
        with_checks.cases = 0;
        with_checks.findings = Some(vec![key("description-length", "a"), key("x", "b")]);
        with_checks.failed_tests = Some(vec!["old failure".into()]);
        // A later `eval` run on main recorded neither.
        let evals_only = line("main", "t2", "m", 4, &[]);
        let now_findings = [key("x", "b"), key("schema-valid", "c")];
        let now_failed = ["new failure".to_string()];
        let facts = RunFacts {
            evals: None,
            findings: Some(&now_findings),
            failed_tests: Some(&now_failed),
            tools: None,
        };
        let c = compare(&[with_checks, evals_only], "main", facts);
        let checks = c.checks.clone().unwrap_or_default();
        assert_eq!(checks.new, vec![key("schema-valid", "c")]);
        assert_eq!(checks.fixed, vec![key("description-length", "a")]);
        let tests = c.tests.clone().unwrap_or_default();
        assert_eq!(tests.newly_failing, vec!["new failure"]);
        assert_eq!(tests.fixed, vec!["old failure"]);
        assert_eq!(c.run.map(|r| r.time), Some("t2".into()));
    }

    #[test]
    fn a_base_without_checks_compares_nothing_about_them() {
        let facts = RunFacts {
            findings: Some(&[]),
            failed_tests: Some(&[]),
            ..RunFacts::default()
        };
        let c = compare(&[line("main", "t1", "m", 4, &[])], "main", facts);
        assert!(c.checks.is_none() && c.tests.is_none());
    }
}
