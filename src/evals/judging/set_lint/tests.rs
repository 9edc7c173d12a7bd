//! Each rule with a planted defect, and a clean set with none.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;
use crate::config::vocab::LINT_RULES;
use crate::config::vocab::set_lint::*;
use crate::evals::judging::history::LastRun;

fn tools() -> Vec<Tool> {
    [
        json!({"name": "get_weather", "description": "Current weather for a city.",
               "inputSchema": {"type": "object",
                   "properties": {"city": {"type": "string"},
                                  "units": {"type": "string", "enum": ["metric", "imperial"]}},
                   "required": ["city"]}}),
        json!({"name": "get_weather_history", "description": "Past weather for a city on a date.",
               "inputSchema": {"type": "object", "additionalProperties": false,
                   "properties": {"city": {"type": "string"},
                                  "days": {"$ref": "#/$defs/days"}},
                   "$defs": {"days": {"type": "integer", "minimum": 1, "maximum": 30}}}}),
        json!({"name": "start_refund", "description": "Start a refund for a damaged order.",
               "inputSchema": {"type": "object", "properties": {"order": {"type": "integer"}},
                   "patternProperties": {"^x-": {"type": "string"}}}}),
    ]
    .into_iter()
    .map(Tool::from_wire)
    .collect()
}

fn case(name: &str, prompt: &str, tool: Option<&str>, why: &str, line: u32) -> EvalCase {
    EvalCase {
        prompt: prompt.into(),
        name: Some(name.into()),
        expect_tool: Some(tool.map(str::to_owned)),
        expect_args: serde_json::Map::new(),
        why: (!why.is_empty()).then(|| why.to_owned()),
        critical: false,
        trials: None,
        min_trials: None,
        max_trials: None,
        context: Vec::new(),
        reviewed: None,
        line: Some(line),
        file: None,
    }
}

fn with_args(mut c: EvalCase, args: Value) -> EvalCase {
    c.expect_args = args.as_object().cloned().unwrap_or_default();
    c
}

/// A set no rule flags: every tool has a genuine case, the similar pair is contrasted, there
/// are filler and ambiguous no-tool cases, every case has a why.
fn clean() -> Vec<EvalCase> {
    vec![
        with_args(
            case(
                "wx-now",
                "Is it raining in Lisbon?",
                Some("get_weather"),
                "canonical",
                10,
            ),
            json!({"city": "lisbon"}),
        ),
        with_args(
            case(
                "wx-past",
                "Was it raining in Lisbon last Tuesday?",
                Some("get_weather_history"),
                "past tense must not hit the live tool",
                14,
            ),
            json!({"city": "Lisbon", "days": 7}),
        ),
        with_args(
            case(
                "refund",
                "Order 55219 arrived smashed, I want my money back",
                Some("start_refund"),
                "complaint, not a lookup",
                18,
            ),
            json!({"order": 55219, "x-channel": "chat"}),
        ),
        case("chit", "thanks, that's all", None, "no tool", 22),
        case("amb-cancel", "cancel it", None, "ambiguous: must ask", 26),
    ]
}

struct Fixture {
    cases: Vec<EvalCase>,
    tools: Vec<Tool>,
    history: History,
    outcomes: Outcomes,
    tool_choice: Option<(ToolChoice, String)>,
    strict: bool,
    disable: Vec<String>,
}

impl Fixture {
    fn of(cases: Vec<EvalCase>) -> Fixture {
        Fixture {
            cases,
            tools: tools(),
            history: History::NotGiven,
            outcomes: Outcomes::default(),
            tool_choice: None,
            strict: false,
            disable: Vec::new(),
        }
    }

    fn run(&self) -> LintResults {
        run(&LintInput {
            cases: &self.cases,
            tools: &self.tools,
            config_file: Path::new("toolproof.yaml"),
            evals_line: Some(5),
            tool_choice: self.tool_choice.clone(),
            similarity_threshold: 0.5,
            history: self.history.clone(),
            outcomes: self.outcomes.clone(),
            strict: self.strict,
            disable: &self.disable,
        })
    }
}

fn ids(r: &LintResults) -> Vec<&str> {
    r.findings.iter().map(|f| f.id.as_str()).collect()
}

fn only<'r>(r: &'r LintResults, id: &str) -> &'r LintFinding {
    let found: Vec<&LintFinding> = r.findings.iter().filter(|f| f.id == id).collect();
    assert_eq!(found.len(), 1, "{id}: {:#?}", r.findings);
    found[0]
}

#[test]
fn a_clean_set_has_no_finding_and_a_full_coverage_table() {
    let r = Fixture::of(clean()).run();
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert!(r.not_checked.is_empty());
    assert_eq!(r.cases, 5);
    assert_eq!(r.rules.len(), LINT_RULES.len());
    let c = &r.coverage;
    assert_eq!(c.covered(), 3);
    assert_eq!(c.no_tool, ["chit", "amb-cancel"]);
    assert_eq!(c.ambiguous, ["amb-cancel"]);
    assert_eq!(c.pairs.len(), 1, "{:?}", c.pairs);
    assert!(c.pairs[0].contrasted);
    assert_eq!(c.pairs[0].why, "similar-tools 0.53");
    assert_eq!(
        c.summary(),
        "3 of 3 tools have cases; 2 no-tool cases (1 ambiguous); 1 of 1 pair contrasted"
    );
}

#[test]
fn an_unknown_tool_names_the_nearest_and_asks_about_a_rename_the_history_saw() {
    let mut cases = clean();
    cases[0].expect_tool = Some(Some("get_wether".into()));
    let mut f = Fixture::of(cases);
    let r = f.run();
    let u = only(&r, UNKNOWN_TOOL);
    assert_eq!(u.severity, Severity::Error);
    assert!(u.fails);
    assert_eq!(
        u.message,
        "case \"wx-now\" (toolproof.yaml:10): expect_tool `get_wether` is not a tool of the server, so the case cannot pass"
    );
    assert_eq!(u.hint.as_deref(), Some("did you mean `get_weather`?"));
    assert_eq!((u.line, u.case.as_deref()), (Some(10), Some("wx-now")));
    // The last recorded run listed it: renamed or split?
    f.cases[0].expect_tool = Some(Some("weather_now".into()));
    f.history = History::Run(LastRun {
        time: "2026-11-30T10:00:00Z".into(),
        tools: Some(vec!["weather_now".into(), "start_refund".into()]),
        confused: Some(Vec::new()),
    });
    let r = f.run();
    let hint = only(&r, UNKNOWN_TOOL).hint.clone().unwrap_or_default();
    assert!(hint.contains("was it renamed or split?"), "{hint}");
    assert!(hint.contains("2026-11-30T10:00:00Z"), "{hint}");
    // Not in the history: no such question.
    f.history = History::Run(LastRun {
        tools: Some(vec!["start_refund".into()]),
        ..LastRun::default()
    });
    let r = f.run();
    let hint = only(&r, UNKNOWN_TOOL).hint.clone().unwrap_or_default();
    assert!(!hint.contains("renamed"), "{hint}");
    assert!(hint.starts_with("the server lists get_weather"), "{hint}");
}

#[test]
fn a_repeated_name_is_a_warning_at_its_second_use() {
    let mut cases = clean();
    cases[3].name = Some("wx-now".into());
    let r = Fixture::of(cases).run();
    let d = only(&r, DUPLICATE_CASE_NAME);
    assert_eq!(d.severity, Severity::Warning);
    assert!(!d.fails);
    assert_eq!(
        d.message,
        "case name \"wx-now\" is used by 2 cases (toolproof.yaml:10, toolproof.yaml:22)"
    );
    assert_eq!(d.line, Some(22));
}

#[test]
fn one_prompt_labelled_two_ways_conflicts_whatever_its_case_and_spacing() {
    let mut cases = clean();
    cases.push(case(
        "again",
        "is it  RAINING in lisbon?",
        Some("get_weather_history"),
        "x",
        30,
    ));
    let r = Fixture::of(cases.clone()).run();
    let c = only(&r, CONFLICTING_LABELS);
    assert_eq!(c.severity, Severity::Error);
    assert!(
        c.message
            .contains("has the prompt of case \"wx-now\" (toolproof.yaml:10)"),
        "{}",
        c.message
    );
    assert!(
        c.message
            .contains("expects `get_weather_history` where the other expects `get_weather`")
    );
    // The same tool with another value for an argument both set.
    cases[5] = with_args(
        case(
            "again",
            "Is it raining in Lisbon?",
            Some("get_weather"),
            "x",
            30,
        ),
        json!({"city": "Porto"}),
    );
    let r = Fixture::of(cases.clone()).run();
    assert!(
        only(&r, CONFLICTING_LABELS)
            .message
            .contains("expects `city` to be \"Porto\"")
    );
    // The same label (strings compare as the scorer does) and a compatible subset: no finding.
    cases[5] = with_args(
        case(
            "again",
            "Is it raining in Lisbon?",
            Some("get_weather"),
            "x",
            30,
        ),
        json!({"city": " LISBON ", "units": "metric"}),
    );
    assert!(!ids(&Fixture::of(cases).run()).contains(&CONFLICTING_LABELS));
}

#[test]
fn an_unknown_key_is_an_error_where_the_schema_forbids_it_and_a_warning_elsewhere() {
    let mut cases = clean();
    cases[0] = with_args(cases[0].clone(), json!({"citty": "Lisbon"}));
    cases[1] = with_args(
        cases[1].clone(),
        json!({"city": "Lisbon", "when": "tuesday"}),
    );
    let r = Fixture::of(cases).run();
    let unknown: Vec<&LintFinding> = r.findings.iter().filter(|f| f.id == UNKNOWN_ARG).collect();
    assert_eq!(unknown.len(), 2, "{unknown:#?}");
    assert_eq!(unknown[0].severity, Severity::Warning);
    assert_eq!(unknown[0].hint.as_deref(), Some("did you mean `city`?"));
    assert!(unknown[0].message.contains("never told about it"));
    assert_eq!(unknown[1].severity, Severity::Error);
    assert!(unknown[1].message.contains("additionalProperties: false"));
    assert_eq!(
        unknown[1].hint.as_deref(),
        Some("the properties are city, days")
    );
    // A key a `patternProperties` pattern matches is known (the clean set has `x-channel`).
}

#[test]
fn a_value_the_property_rejects_is_an_error_and_a_case_variant_of_an_enum_is_not() {
    let mut cases = clean();
    cases[1] = with_args(cases[1].clone(), json!({"days": 90}));
    cases[0] = with_args(cases[0].clone(), json!({"units": "METRIC", "city": 3}));
    let r = Fixture::of(cases).run();
    let bad: Vec<&LintFinding> = r.findings.iter().filter(|f| f.id == INVALID_ARG).collect();
    assert_eq!(bad.len(), 2, "{bad:#?}");
    assert!(bad[0].message.contains("`city` is 3"), "{}", bad[0].message);
    assert!(
        bad[1].message.contains("`days` is 90"),
        "{}",
        bad[1].message
    );
    assert!(
        bad[1].message.contains("maximum of 30"),
        "{}",
        bad[1].message
    );
    assert!(bad.iter().all(|f| f.severity == Severity::Error && f.fails));
}

#[test]
fn arguments_on_a_no_tool_case_are_a_warning() {
    let mut cases = clean();
    cases[3] = with_args(cases[3].clone(), json!({"city": "x"}));
    let r = Fixture::of(cases).run();
    let a = only(&r, ARGS_ON_NO_TOOL);
    assert_eq!(a.severity, Severity::Warning);
    assert!(
        a.message
            .contains("sets expect_args (city), which are never checked")
    );
}

#[test]
fn a_tool_without_a_case_is_uncovered_and_points_at_the_evals_key() {
    let cases: Vec<EvalCase> = clean()
        .into_iter()
        .filter(|c| c.name.as_deref() != Some("refund"))
        .collect();
    let r = Fixture::of(cases).run();
    let u = only(&r, UNCOVERED_TOOL);
    assert_eq!(u.tool.as_deref(), Some("start_refund"));
    assert_eq!((u.line, u.case.as_deref()), (Some(5), None));
    assert_eq!(r.coverage.tools[2].cases.len(), 0);
}

#[test]
fn a_tool_covered_only_by_quotes_or_copies_of_its_description_is_flagged() {
    let mut cases = clean();
    cases[2].prompt = "please start_refund for order 55219".into();
    let r = Fixture::of(cases.clone()).run();
    let q = only(&r, QUOTED_ONLY);
    assert_eq!(q.tool.as_deref(), Some("start_refund"));
    assert_eq!(q.line, Some(18));
    assert_eq!(r.coverage.tools[2].quoting, ["refund"]);
    // A copy of the description proves as little.
    cases[2].prompt = "Start a refund for a damaged order".into();
    assert!(ids(&Fixture::of(cases.clone()).run()).contains(&QUOTED_ONLY));
    // One genuine case is enough.
    cases.push(case(
        "refund-2",
        "The parcel came broken, money back please",
        Some("start_refund"),
        "x",
        40,
    ));
    let r = Fixture::of(cases).run();
    assert!(!ids(&r).contains(&QUOTED_ONLY), "{:#?}", r.findings);
    assert_eq!(r.coverage.tools[2].genuine(), 1);
}

#[test]
fn a_similar_or_confused_pair_wants_a_genuine_case_on_both_sides() {
    let cases: Vec<EvalCase> = clean()
        .into_iter()
        .filter(|c| c.name.as_deref() != Some("wx-past"))
        .collect();
    let mut f = Fixture::of(cases);
    let r = f.run();
    let n = only(&r, NO_CONTRAST);
    assert!(
        n.message
            .contains("`get_weather_history` has no genuine case"),
        "{}",
        n.message
    );
    assert_eq!(n.tool.as_deref(), Some("get_weather + get_weather_history"));
    // A pair the model confused in the last run, though the names differ.
    f.cases = clean();
    f.history = History::Run(LastRun {
        time: "t0".into(),
        tools: None,
        confused: Some(vec![("get_weather".into(), "start_refund".into())]),
    });
    f.cases.retain(|c| c.name.as_deref() != Some("refund"));
    let r = f.run();
    let n: Vec<&LintFinding> = r.findings.iter().filter(|x| x.id == NO_CONTRAST).collect();
    assert_eq!(n.len(), 1, "{n:#?}");
    assert!(
        n[0].message.contains("confused in the last run (t0)"),
        "{}",
        n[0].message
    );
    // A history without confusion pairs is said, not silently taken as none.
    f.cases = clean();
    f.history = History::Run(LastRun {
        time: "t1".into(),
        ..LastRun::default()
    });
    let r = f.run();
    assert!(r.findings.is_empty());
    assert_eq!(r.not_checked.len(), 1);
    assert_eq!(r.not_checked[0].id, NO_CONTRAST);
}

#[test]
fn a_set_without_no_tool_or_ambiguous_cases_is_told_and_strict_raises_the_advice() {
    let cases: Vec<EvalCase> = clean()
        .into_iter()
        .filter(|c| c.name.as_deref() != Some("amb-cancel"))
        .collect();
    let mut f = Fixture::of(cases);
    let r = f.run();
    let a = only(&r, NO_AMBIGUOUS_CASES);
    assert_eq!((a.severity, a.fails), (Severity::Info, false));
    assert!(!r.fails(), "an info never fails");
    f.strict = true;
    let r = f.run();
    let a = only(&r, NO_AMBIGUOUS_CASES);
    assert_eq!((a.severity, a.fails), (Severity::Warning, true));
    // No no-tool case at all: one warning, the ambiguous advice is implied.
    f.strict = false;
    f.cases.retain(|c| c.expect_tool != Some(None));
    let r = f.run();
    assert_eq!(ids(&r), [NO_NO_TOOL_CASES]);
    f.disable = vec![NO_NO_TOOL_CASES.into()];
    assert_eq!(ids(&f.run()), [NO_AMBIGUOUS_CASES]);
}

#[test]
fn a_case_without_why_is_an_info_that_strict_makes_a_failing_warning() {
    let mut cases = clean();
    cases[2].why = Some("  ".into());
    let mut f = Fixture::of(cases);
    let r = f.run();
    let w = only(&r, MISSING_WHY);
    assert_eq!((w.severity, w.fails), (Severity::Info, false));
    assert_eq!(
        w.message,
        "case \"refund\" (toolproof.yaml:18) has no `why`"
    );
    f.strict = true;
    assert!(only(&f.run(), MISSING_WHY).fails);
    f.disable = vec![MISSING_WHY.into()];
    assert!(f.run().findings.is_empty());
}

#[test]
fn a_critical_case_that_flips_is_a_warning_and_a_steady_one_is_not() {
    let mut cases = clean();
    cases[2].critical = true;
    let mut f = Fixture::of(cases);
    f.outcomes = Outcomes {
        tallies: vec![
            trials::Tally {
                model: "m".into(),
                case: 2,
                passed: 2,
                answered: 4,
            },
            trials::Tally {
                model: "n".into(),
                case: 2,
                passed: 4,
                answered: 4,
            },
            trials::Tally {
                model: "o".into(),
                case: 2,
                passed: 0,
                answered: 4,
            },
        ],
        not_checked: None,
    };
    let r = f.run();
    let flip = only(&r, FLIPPED_CRITICAL);
    assert_eq!(
        flip.message,
        "critical case \"refund\" (toolproof.yaml:18) was right on 2 of 4 trials of m: a case that flips is ambiguous, not exact"
    );
    f.outcomes = Outcomes {
        tallies: Vec::new(),
        not_checked: Some("the answer cache lacks trials".into()),
    };
    let r = f.run();
    assert!(r.findings.is_empty());
    assert_eq!(r.not_checked[0].id, FLIPPED_CRITICAL);
}

#[test]
fn a_forced_tool_choice_fails_the_cases_it_keeps_from_passing() {
    let mut f = Fixture::of(clean());
    f.tool_choice = Some((ToolChoice::Any, "evals.tool_choice".into()));
    let r = f.run();
    let conflicts: Vec<&LintFinding> = r
        .findings
        .iter()
        .filter(|x| x.id == TOOL_CHOICE_CONFLICT)
        .collect();
    assert_eq!(conflicts.len(), 2, "the two no-tool cases");
    assert_eq!(
        conflicts[0].message,
        "case \"chit\" (toolproof.yaml:22) expects no tool, but tool_choice `any` (evals.tool_choice) forces a call: it cannot pass"
    );
    assert!(
        conflicts
            .iter()
            .all(|x| x.fails && x.severity == Severity::Error)
    );
    f.tool_choice = Some((ToolChoice::None, "--tool-choice".into()));
    assert_eq!(
        f.run().findings.len(),
        3,
        "the three cases expecting a tool"
    );
    f.tool_choice = Some((ToolChoice::Tool("start_refund".into()), "x".into()));
    assert_eq!(
        f.run().findings.len(),
        4,
        "two other tools, two no-tool cases"
    );
    f.tool_choice = Some((ToolChoice::Auto, "x".into()));
    assert!(f.run().findings.is_empty());
    f.tool_choice = Some((ToolChoice::Tool("start_refnd".into()), "x".into()));
    let r = f.run();
    assert_eq!(ids(&r), [UNKNOWN_TOOL_CHOICE]);
    assert_eq!(
        r.findings[0].hint.as_deref(),
        Some("did you mean `start_refund`?")
    );
}

#[test]
fn every_finding_has_the_severity_its_rule_documents() {
    let mut cases = clean();
    cases[0].expect_tool = Some(Some("nope".into()));
    cases[1] = with_args(cases[1].clone(), json!({"when": 1, "days": 0}));
    cases[3] = with_args(cases[3].clone(), json!({"a": 1}));
    cases[3].why = None;
    cases[4].why = None;
    cases[4].name = Some("chit".into());
    cases[2].prompt = "start_refund".into();
    cases.push(case(
        "x",
        "thanks, THAT's all",
        Some("start_refund"),
        "",
        50,
    ));
    let mut f = Fixture::of(cases);
    f.tool_choice = Some((ToolChoice::Any, "x".into()));
    let r = f.run();
    let mut seen: Vec<&str> = ids(&r);
    seen.dedup();
    assert!(seen.len() >= 11, "{seen:?}");
    for finding in &r.findings {
        let rule = LINT_RULES
            .iter()
            .find(|x| x.id == finding.id)
            .expect("a known rule");
        let word = finding.severity.as_str();
        assert!(
            rule.summary.starts_with(word) || rule.summary.contains(&format!("; {word}:")),
            "{} is {word}: {}",
            finding.id,
            rule.summary
        );
        assert!(finding.message.contains("toolproof.yaml") || finding.case.is_none());
    }
    // Findings come in rule order.
    let order: Vec<usize> = r
        .findings
        .iter()
        .map(|x| LINT_RULES.iter().position(|y| y.id == x.id).unwrap_or(0))
        .collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
}

#[test]
fn cases_from_a_cases_file_name_that_file() {
    let mut cases = clean();
    cases[3].file = Some(PathBuf::from("evals/cases.yaml"));
    cases[3].why = None;
    let r = Fixture::of(cases).run();
    let w = only(&r, MISSING_WHY);
    assert_eq!(w.file.as_deref(), Some("evals/cases.yaml"));
    assert!(w.message.contains("(evals/cases.yaml:22)"));
}

#[test]
fn this_runs_trials_count_only_answered_ones_and_say_which_were_missing() {
    use crate::evals::judging::grade::Judged;
    use crate::evals::judging::tally::{answered, not_asked, provider_failed};
    use crate::evals::{Choice, Stop};
    use crate::outcome::{CaseStatus, EvalCaseResult, EvalsResults, ModelEval};
    let right = answered(
        &Choice {
            calls: Vec::new(),
            text: String::new(),
            stop: Stop::EndTurn,
        },
        Judged::default(),
        false,
        1.0,
    );
    let wrong = {
        let mut t = right.clone();
        t.passed = false;
        t
    };
    let case =
        |name: &str, critical: bool, trials: Vec<crate::outcome::TrialResult>| EvalCaseResult {
            name: name.into(),
            prompt: name.into(),
            why: None,
            critical,
            line: None,
            file: None,
            expect_tool: None,
            expect_args: json!({}),
            context: Vec::new(),
            status: CaseStatus::Miss,
            pass_rate: 0.0,
            ambiguous: false,
            trials,
        };
    let results = EvalsResults {
        models: vec![ModelEval {
            model: "m".into(),
            cases: vec![
                case("steady", false, vec![right.clone(), wrong.clone()]),
                case(
                    "flips",
                    true,
                    vec![right.clone(), wrong, provider_failed("529".into(), 0.0)],
                ),
                case("short", true, vec![right.clone(), not_asked()]),
            ],
            ..ModelEval::default()
        }],
        ..EvalsResults::default()
    };
    let out = run_outcomes(&results);
    let tallies: Vec<(usize, usize, usize)> = out
        .tallies
        .iter()
        .map(|t| (t.case, t.passed, t.answered))
        .collect();
    assert_eq!(
        tallies,
        [(1, 1, 2), (2, 1, 1)],
        "only critical cases, answered trials"
    );
    assert_eq!(
        out.not_checked.as_deref(),
        Some(
            "trials of the critical cases flips, short got no answer (a provider error, or not asked): they are left out"
        )
    );
}

mod context;

#[test]
fn an_unreviewed_row_warns_and_fails_only_under_strict() {
    let mut cases = clean();
    let mut proposed = case(
        "from-traffic",
        "is it windy in Porto?",
        Some("get_weather"),
        "from s.jsonl:4",
        30,
    );
    proposed.reviewed = Some(false);
    let mut read = case(
        "read",
        "was it windy in Porto?",
        Some("get_weather_history"),
        "read",
        34,
    );
    read.reviewed = Some(true);
    cases.extend([proposed, read]);
    let mut fixture = Fixture::of(cases);
    let r = fixture.run();
    let f = only(&r, "unreviewed-row");
    assert_eq!(f.severity, Severity::Warning);
    assert!(!f.fails);
    assert_eq!(f.line, Some(30));
    assert!(f.message.contains("from-traffic"), "{}", f.message);
    fixture.strict = true;
    let r = fixture.run();
    assert!(only(&r, "unreviewed-row").fails);
    assert!(r.fails());
}
