//! One model's answers judged and scored, with each case's conversation and what its answers
//! say about the tool order.

use super::*;

/// One trial as reported: the answer judged against the case's label, or why there is none.
pub(super) fn trial_of(ctx: &Ctx<'_>, case: &EvalCase, got: &Got) -> TrialResult {
    let ms = |took: Duration| took.as_secs_f64() * 1000.0;
    let (choice, cached, took) = match got {
        Got::Cached(c, _) => (c, true, Duration::ZERO),
        Got::Asked(c, took, _, _) => (c, false, *took),
        Got::Failed(message, took) => return tally::provider_failed(message.clone(), ms(*took)),
        Got::NotAsked => return tally::not_asked(),
    };
    let expected = case.expect_tool.clone().flatten();
    let judged = grade::judge(
        Label {
            tool: expected.as_deref(),
            args: &case.expect_args,
        },
        choice,
        ctx.by_name,
        ctx.cfg.multiple_calls,
    );
    tally::answered(choice, judged, cached, ms(took))
}

/// Scores one model's answers (see [`tally::score_model`]); `judged` holds the trials
/// progress already judged, and any other answer is judged here.
pub(super) fn score_model(
    ctx: &Ctx<'_>,
    model: &str,
    items: &[Item],
    (got, judged): (Vec<Got>, Vec<Option<TrialResult>>),
    fatal: Option<String>,
    min_accuracy: f64,
    offline: bool,
) -> ModelEval {
    let cfg = ctx.cfg;
    let cost = cost::of_model(&got, ctx.prices.lookup(model));
    // A model API renders the tools into the prompt it counts; a command's usage is whatever
    // the command says, and proves nothing about a tool list.
    // An API without a `none` tool choice is sent no tools at all under it.
    let no_tools_sent = ctx.params.get("tool_choice").and_then(Value::as_str) == Some("none")
        && !ctx.kind.lists_tools_under_none();
    let unseen = (ctx.kind.caches_answers() && !ctx.api.tools.is_empty() && !no_tools_sent)
        .then(|| cost::tools_unseen(&got, tool_tokens(ctx.api).total))
        .flatten();
    let mut trials: Vec<Vec<TrialResult>> = cfg.cases.iter().map(|_| Vec::new()).collect();
    // Where each trial's list put the expected tool (shuffled lists only).
    let mut positions: Vec<Vec<Option<usize>>> = cfg.cases.iter().map(|_| Vec::new()).collect();
    for ((item, g), judged) in items.iter().zip(&got).zip(judged) {
        let case = &cfg.cases[item.case];
        trials[item.case].push(judged.unwrap_or_else(|| trial_of(ctx, case, g)));
        let expected = case.expect_tool.clone().flatten();
        positions[item.case].push(item.tools.as_ref().and_then(|tools| {
            let expected = expected.as_deref()?;
            tools
                .iter()
                .position(|t| ctx.api.map_back(&t.name) == expected)
        }));
    }
    if cfg.tool_order == ToolOrderMode::Shuffled {
        for ((case, trials), positions) in cfg.cases.iter().zip(&mut trials).zip(&positions) {
            let expected = case.expect_tool.clone().flatten();
            let note = order_note(expected.as_deref(), trials, positions, ctx.api.tools.len());
            if let (Some(note), Some(first)) = (note, trials.first_mut()) {
                first.notes.push(note);
            }
        }
    }
    let cases = cfg
        .cases
        .iter()
        .zip(trials)
        .map(|(case, trials)| LabelledCase {
            name: case_name(case),
            prompt: case.prompt.clone(),
            why: case.why.clone(),
            critical: case.critical,
            line: case.line,
            file: case.file.as_ref().map(|f| f.display().to_string()),
            expect_tool: case.expect_tool.clone().flatten(),
            expect_args: Value::Object(case.expect_args.clone()),
            trials,
        })
        .collect();
    let rules = Rules {
        min_accuracy,
        min_wilson_lower: cfg.min_wilson_lower,
        offline,
        trials: cfg.trials.at_most(cfg.max_trials),
    };
    let mut eval = tally::score_model(model, &rules, fatal, cases);
    for (result, case) in eval.cases.iter_mut().zip(&cfg.cases) {
        result.context = context_entries(&case.turns());
    }
    eval.cost = Some(cost);
    tally::tools_unseen(&mut eval, unseen);
    eval
}

/// With `tool_order: shuffled`, a case right under some orders and wrong under others says
/// so, with where the expected tool stood in the list each time: `right and wrong under
/// different tool orders: right with `add` at position 1, 1 of 5 in the list, wrong at 3, 5`.
/// `None` when every answered trial agrees.
pub(super) fn order_note(
    expected: Option<&str>,
    trials: &[TrialResult],
    positions: &[Option<usize>],
    tools: usize,
) -> Option<String> {
    use crate::outcome::AnswerKind;
    let answered: Vec<(bool, Option<usize>)> = trials
        .iter()
        .zip(positions)
        .filter(|(t, _)| !matches!(t.kind, AnswerKind::ProviderError | AnswerKind::NotAsked))
        .map(|(t, p)| (t.passed, *p))
        .collect();
    let right = answered.iter().filter(|a| a.0).count();
    if right == 0 || right == answered.len() {
        return None;
    }
    let at = |ok: bool| {
        answered
            .iter()
            .filter(|a| a.0 == ok)
            .filter_map(|a| a.1.map(|p| (p + 1).to_string()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let lead = "right and wrong under different tool orders";
    Some(match expected {
        Some(tool) if answered.iter().all(|a| a.1.is_some()) => format!(
            "{lead}: right with `{tool}` at position {} of {tools} in the list, wrong at {}",
            at(true),
            at(false)
        ),
        _ => format!(
            "{lead}: right under {right} of {} shuffled lists",
            answered.len()
        ),
    })
}

/// A case's context as the report records it.
pub(super) fn context_entries(turns: &[Turn]) -> Vec<ContextEntry> {
    turns
        .iter()
        .map(|turn| match turn {
            Turn::User(text) => ContextEntry {
                user: Some(text.clone()),
                ..ContextEntry::default()
            },
            Turn::Assistant(text) => ContextEntry {
                assistant: Some(text.clone()),
                ..ContextEntry::default()
            },
            Turn::Call { tool, args, result } => ContextEntry {
                call: Some(tool.clone()),
                args: Some(Value::Object(args.clone())),
                result: Some(result.clone()),
                ..ContextEntry::default()
            },
        })
        .collect()
}
