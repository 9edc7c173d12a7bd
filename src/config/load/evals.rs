//! `evals:` beyond its types: a usable picker, cases with `expect_tool`, settings that exclude
//! each other, and the files it names (`system_file`, `cases_file`), read and merged in.

use std::path::Path;

use super::ranges::{Unit, at_least_one, duration, fraction, not_negative};
use super::{Ctx, invalid_yaml, lowercase_first, path_of, read_capped};
use crate::config::de::{self, Located};
use crate::config::limits::MAX_STRESS_DISTRACTORS;
use crate::config::node::{self, Node, Step, Value};
use crate::config::vocab::LINT_RULE_IDS;
use crate::config::{
    ConfigError, ContextTurn, EvalCase, EvalConfig, StressConfig, StressOrder, suggest,
};

/// `evals.provider` names one of the providers the loader was given, when it was given them;
/// the command provider has its `evals.command`.
fn check_provider(ctx: &Ctx<'_>, evals: &EvalConfig) {
    let e = Step::Key("evals");
    if let (Some(known), Some(provider)) = (ctx.providers, &evals.provider)
        && !known.contains(&provider.name())
    {
        let list: Vec<String> = known.iter().map(|n| format!("`{n}`")).collect();
        ctx.report(ctx.error(
            ctx.pos(&[e, Step::Key("provider")]),
            format!(
                "`evals.provider` must be one of {}, got string {:?}",
                list.join(", "),
                provider.name()
            ),
            suggest::nearest(provider.name(), known).map(|n| format!("did you mean `{n}`?")),
        ));
    }
    match &evals.command {
        Some(command) if command.first().is_none_or(|p| p.trim().is_empty()) => {
            ctx.report(
                ctx.error(
                    ctx.pos(&[e, Step::Key("command")]),
                    "`evals.command` is empty",
                    Some(
                        "give the picker program and its arguments, e.g. [python, picker.py]"
                            .to_owned(),
                    ),
                ),
            );
        }
        None if evals
            .provider
            .as_ref()
            .is_some_and(|p| p.name() == "command") =>
        {
            ctx.report(ctx.error(
                ctx.pos(&[e, Step::Key("provider")]),
                "`evals.provider` is `command` but `evals.command` is not set",
                Some("add `command: [program, args…]`: the program that picks a tool for each prompt".to_owned()),
            ));
        }
        _ => {}
    }
}

pub(super) fn check_evals(ctx: &Ctx<'_>, evals: &EvalConfig) -> Result<(), ConfigError> {
    let e = Step::Key("evals");
    check_provider(ctx, evals);
    super::crowd::check_crowd(ctx, evals)?;
    fraction(ctx, evals.min_accuracy, &[e, Step::Key("min_accuracy")])?;
    let compare = [e, Step::Key("compare")];
    fraction(
        ctx,
        evals.compare.alpha,
        &[compare[0], compare[1], Step::Key("alpha")],
    )?;
    fraction(
        ctx,
        evals.compare.min_effect,
        &[compare[0], compare[1], Step::Key("min_effect")],
    )?;
    duration(
        ctx,
        evals.timeout_s,
        &[e, Step::Key("timeout_s")],
        Unit::Seconds,
    )?;
    check_cases(ctx, &evals.cases, &[e, Step::Key("cases")])?;
    at_least_one(ctx, evals.concurrency, &[e, Step::Key("concurrency")])?;
    if let Some(n) = evals.trials.fixed() {
        at_least_one(ctx, n, &[e, Step::Key("trials")])?;
    }
    trial_bounds(ctx, Some(evals.min_trials), Some(evals.max_trials), &[e])?;
    for (value, key) in [
        (evals.request_timeout_s, "request_timeout_s"),
        (evals.batch_poll_s, "batch_poll_s"),
        (evals.batch_deadline_s, "batch_deadline_s"),
    ] {
        duration(ctx, value, &[e, Step::Key(key)], Unit::Seconds)?;
    }
    if let Some(v) = evals.min_wilson_lower {
        fraction(ctx, v, &[e, Step::Key("min_wilson_lower")])?;
    }
    if let Some(n) = evals.max_tokens {
        at_least_one(ctx, n, &[e, Step::Key("max_tokens")])?;
    }
    if let Some(usd) = evals.budget.usd {
        not_negative(ctx, usd, &[e, Step::Key("budget"), Step::Key("usd")])?;
    }
    if evals.model.is_some() && !evals.models.is_empty() {
        ctx.report(ctx.error(
            ctx.pos(&[e, Step::Key("models")]),
            "`evals.model` and `evals.models` are both set",
            Some(
                "use `models: [a, b]` alone to ask several models, or `model:` for one".to_owned(),
            ),
        ));
    }
    for (i, m) in evals.models.iter().enumerate() {
        if m.trim().is_empty() {
            ctx.report(ctx.error(
                ctx.pos(&[e, Step::Key("models"), Step::Index(i)]),
                format!("`evals.models[{i}]` is empty"),
                Some("give the model id the provider knows".to_owned()),
            ));
        }
    }
    check_lint_and_choice(ctx, evals);
    check_prices(ctx, evals)?;
    if let Some(stress) = &evals.stress {
        check_stress(ctx, stress);
    }
    if evals.system.is_some() && evals.system_file.is_some() {
        ctx.report(ctx.error(
            ctx.pos(&[e, Step::Key("system_file")]),
            "`evals.system` and `evals.system_file` are both set",
            Some("keep one: `system_file` reads the prompt your client ships".to_owned()),
        ));
    }
    Ok(())
}

/// `evals.prices`: every price is a number of dollars, 0 or more.
fn check_prices(ctx: &Ctx<'_>, evals: &EvalConfig) -> Result<(), ConfigError> {
    let e = Step::Key("evals");
    for (model, p) in &evals.prices {
        let at = |field| [e, Step::Key("prices"), Step::Key(model), Step::Key(field)];
        not_negative(ctx, p.input, &at("input"))?;
        not_negative(ctx, p.output, &at("output"))?;
        if let Some(v) = p.cache_write {
            not_negative(ctx, v, &at("cache_write"))?;
        }
        if let Some(v) = p.cache_read {
            not_negative(ctx, v, &at("cache_read"))?;
        }
    }
    Ok(())
}

/// `evals.stress: true` (or `false`) becomes `{enabled: true}` where it stands, so the
/// mapping form's checks and messages serve both.
pub(super) fn stress_shorthand(root: &mut Node) {
    let Value::Map(top) = &mut root.value else {
        return;
    };
    let Some((_, evals)) = top
        .iter_mut()
        .find(|(k, _)| matches!(&k.value, Value::Str(s) if s == "evals"))
    else {
        return;
    };
    let Value::Map(entries) = &mut evals.value else {
        return;
    };
    let Some((_, stress)) = entries
        .iter_mut()
        .find(|(k, _)| matches!(&k.value, Value::Str(s) if s == "stress"))
    else {
        return;
    };
    if let Value::Bool(on) = stress.value {
        let key = Node {
            value: Value::Str("enabled".to_owned()),
            ..stress.clone()
        };
        let value = Node {
            value: Value::Bool(on),
            ..stress.clone()
        };
        stress.value = Value::Map(vec![(key, value)]);
    }
}

/// The hint for `evals.stress` of the wrong type: both forms it takes.
pub(super) fn stress_type_hint(message: &str) -> Option<String> {
    message.starts_with("`evals.stress` must be").then(|| {
        "write `stress: true` for the defaults, or a mapping such as `stress: {distractors: [0, 10, 25]}`".to_owned()
    })
}

/// `evals.stress`: counts that exist in the corpus, each once; `orders_at` among them; a
/// `must_hold` the curve reaches.
fn check_stress(ctx: &Ctx<'_>, stress: &StressConfig) {
    let at = |key: &'static str| [Step::Key("evals"), Step::Key("stress"), Step::Key(key)];
    if stress.distractors.is_empty() {
        ctx.report(ctx.error(
            ctx.pos(&at("distractors")),
            "`evals.stress.distractors` is empty",
            Some("list the distractor counts to measure, e.g. [0, 10, 25, 50, 100]".to_owned()),
        ));
    }
    counts(ctx, &stress.distractors, "distractors", &[]);
    if let Some(orders_at) = &stress.orders_at {
        counts(ctx, orders_at, "orders_at", &stress.distractors);
    }
    for (i, order) in stress.orders.iter().enumerate() {
        if stress.orders[..i].contains(order) {
            let steps = [Step::Key("evals"), Step::Key("stress"), Step::Key("orders")];
            ctx.report(ctx.error(
                ctx.pos(&[steps[0], steps[1], steps[2], Step::Index(i)]),
                format!("`evals.stress.orders` lists `{}` twice", order_word(*order)),
                Some("list each order once".to_owned()),
            ));
        }
    }
    let largest = stress.distractors.iter().copied().max().unwrap_or(0);
    if let Some(n) = stress.must_hold.filter(|n| *n > largest) {
        ctx.report(ctx.error(
            ctx.pos(&at("must_hold")),
            format!(
                "`evals.stress.must_hold` is {n}, more distractors than the curve measures ({largest})"
            ),
            Some(format!(
                "add {n} to `evals.stress.distractors`, or lower `must_hold`"
            )),
        ));
    }
}

/// A list of distractor counts: each at most [`MAX_STRESS_DISTRACTORS`], each once, and (for
/// `orders_at`) each one of `among` when that is not empty.
fn counts(ctx: &Ctx<'_>, list: &[u32], key: &'static str, among: &[u32]) {
    for (i, n) in list.iter().enumerate() {
        let steps = [
            Step::Key("evals"),
            Step::Key("stress"),
            Step::Key(key),
            Step::Index(i),
        ];
        let problem = if *n > MAX_STRESS_DISTRACTORS {
            Some((
                format!(
                    "`evals.stress.{key}[{i}]` is {n}, more than the {MAX_STRESS_DISTRACTORS} distractors toolproof can add"
                ),
                format!("use at most {MAX_STRESS_DISTRACTORS}"),
            ))
        } else if list[..i].contains(n) {
            Some((
                format!("`evals.stress.{key}` lists {n} twice"),
                "list each count once".to_owned(),
            ))
        } else if key == "orders_at" && !among.contains(n) {
            Some((
                format!(
                    "`evals.stress.orders_at` has {n}, which is not one of `evals.stress.distractors`"
                ),
                "the other orders run at counts the curve measures; add it to `distractors`"
                    .to_owned(),
            ))
        } else {
            None
        };
        if let Some((message, hint)) = problem {
            ctx.report(ctx.error(ctx.pos(&steps), message, Some(hint)));
        }
    }
}

fn order_word(order: StressOrder) -> &'static str {
    match order {
        StressOrder::Server => "server",
        StressOrder::Shuffled => "shuffled",
        StressOrder::Reversed => "reversed",
    }
}

/// `evals.lint.disable` names known rules; `tool_choice` is set in one place only.
fn check_lint_and_choice(ctx: &Ctx<'_>, evals: &EvalConfig) {
    let e = Step::Key("evals");
    let ids = LINT_RULE_IDS;
    for (i, id) in evals.lint.disable.iter().enumerate() {
        if ids.contains(&id.as_str()) {
            continue;
        }
        let steps = [e, Step::Key("lint"), Step::Key("disable"), Step::Index(i)];
        let message = match suggest::nearest(id, ids) {
            Some(n) => {
                format!("unknown lint rule `{id}` in evals.lint.disable, did you mean `{n}`?")
            }
            None => format!("unknown lint rule `{id}` in evals.lint.disable"),
        };
        ctx.report(ctx.error(
            ctx.pos(&steps),
            message,
            Some(format!("lint rules are {}", suggest::list(ids))),
        ));
    }
    if evals.tool_choice.is_some()
        && let Some(key) = evals.params_tool_choice()
    {
        ctx.report(ctx.error(
            ctx.pos(&[e, Step::Key("tool_choice")]),
            format!("`evals.tool_choice` and `evals.{key}` are both set"),
            Some(
                "keep `tool_choice`: toolproof sends it in each provider's format, and the lint knows what it forces"
                    .to_owned(),
            ),
        ));
    }
}

/// `min_trials` and `max_trials` (where set) are at least 1, and the least is not above the
/// most.
fn trial_bounds(
    ctx: &Ctx<'_>,
    min: Option<u32>,
    max: Option<u32>,
    at: &[Step<'_>],
) -> Result<(), ConfigError> {
    let key = |k| -> Vec<Step<'_>> { at.iter().copied().chain([Step::Key(k)]).collect() };
    for (v, k) in [(min, "min_trials"), (max, "max_trials")] {
        if let Some(v) = v {
            at_least_one(ctx, v, &key(k))?;
        }
    }
    if let (Some(lo), Some(hi)) = (min, max)
        && lo > hi
    {
        ctx.report(ctx.bad_value(&key("min_trials"), "at most `max_trials`"));
    }
    Ok(())
}

/// Every case has `expect_tool`, and sane `trials`.
fn check_cases(ctx: &Ctx<'_>, cases: &[EvalCase], at: &[Step<'_>]) -> Result<(), ConfigError> {
    for (i, case) in cases.iter().enumerate() {
        let here: Vec<Step<'_>> = at.iter().copied().chain([Step::Index(i)]).collect();
        if case.expect_tool.is_none() {
            ctx.report(ctx.error(
                ctx.pos(&here),
                format!("`{}` has no `expect_tool`", path_of(&here)),
                Some("set expect_tool (use null when no tool should be called)".to_owned()),
            ));
        }
        if let Some(t) = case.trials.and_then(|t| t.fixed()) {
            let mut steps = here.clone();
            steps.push(Step::Key("trials"));
            at_least_one(ctx, t, &steps)?;
        }
        trial_bounds(ctx, case.min_trials, case.max_trials, &here)?;
        for (j, turn) in case.context.iter().enumerate() {
            let mut steps = here.clone();
            steps.extend([Step::Key("context"), Step::Index(j)]);
            check_turn(ctx, turn, &steps);
        }
    }
    Ok(())
}

/// One entry of a case's `context`: exactly one of `user`, `assistant` or `call`; a call
/// named, with its `result`; `args` and `result` only on a call; no empty message.
fn check_turn(ctx: &Ctx<'_>, turn: &ContextTurn, here: &[Step<'_>]) {
    let at = |key: &'static str| {
        let mut steps = here.to_vec();
        steps.push(Step::Key(key));
        steps
    };
    let kinds: Vec<&'static str> = [
        ("user", turn.user.is_some()),
        ("assistant", turn.assistant.is_some()),
        ("call", turn.call.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, set)| set.then_some(k))
    .collect();
    let name = path_of(here);
    let problem = match kinds.as_slice() {
        [] if turn.args.is_some() || turn.result.is_some() => {
            let key = if turn.result.is_some() {
                "result"
            } else {
                "args"
            };
            Some((
                at(key),
                format!("`{name}` has `{key}` but no `call`"),
                "name the tool the earlier call used: `call: TOOL`, with its `args` and `result`",
            ))
        }
        [] => Some((
            here.to_vec(),
            format!("`{name}` is not a turn: it needs `user`, `assistant` or `call`"),
            TURN_FORMS,
        )),
        [_, second, ..] => Some((
            at(second),
            format!(
                "`{name}` has both `{}` and `{second}`: one entry is one turn",
                kinds[0]
            ),
            "split it into two entries of the list, in the order they happened",
        )),
        ["call"] if turn.call.as_deref().is_some_and(|c| c.trim().is_empty()) => Some((
            at("call"),
            format!("`{name}.call` is empty"),
            "name the MCP tool the earlier call used",
        )),
        ["call"] if turn.result.is_none() => Some((
            here.to_vec(),
            format!("`{name}` is a call without its `result`"),
            "add `result:` with the text the tool returned (a model always sees the result of its call; '' for none)",
        )),
        [kind @ ("user" | "assistant")] if turn.args.is_some() || turn.result.is_some() => {
            let key = if turn.args.is_some() {
                "args"
            } else {
                "result"
            };
            Some((
                at(key),
                format!("`{name}` is a `{kind}` message with `{key}`: only a `call` has it"),
                "write the earlier call as its own entry: `call: TOOL`, `args:` and `result:`",
            ))
        }
        [kind]
            if turn
                .user
                .iter()
                .chain(&turn.assistant)
                .any(|t| t.trim().is_empty()) =>
        {
            Some((
                at(kind),
                format!("`{name}.{kind}` is empty"),
                "give the message's text, or leave the entry out",
            ))
        }
        _ => None,
    };
    if let Some((steps, message, hint)) = problem {
        ctx.report(ctx.error(ctx.pos(&steps), message, Some(hint.to_owned())));
    }
}

/// The forms of a `context` entry, for hints.
const TURN_FORMS: &str =
    "write `- user: …`, `- assistant: …`, or `- call: TOOL` with `args:` and `result:`";

/// Reads `evals.system_file` and `evals.cases_file` (paths already resolved).
pub(super) fn read_eval_files(
    file: &Path,
    root: &Node,
    evals: &mut EvalConfig,
) -> Result<(), ConfigError> {
    let ctx = Ctx::new(file, root);
    if let Some(path) = &evals.system_file {
        let bytes = read_capped(path).map_err(|err| {
            err.into_config_error(path, |err| unreadable(&ctx, "system_file", path, &err))
        })?;
        let text = String::from_utf8(bytes).map_err(|_| not_utf8(path))?;
        evals.system = Some(text);
    }
    let Some(path) = evals.cases_file.clone() else {
        return Ok(());
    };
    let cases = read_cases_file(&path, |err| unreadable(&ctx, "cases_file", &path, &err))?;
    evals.cases.extend(cases);
    Ok(())
}

/// The cases of a cases file, each with its line and file; `unreadable` words the error of a
/// file that cannot be read.
pub(super) fn read_cases_file(
    path: &Path,
    unreadable: impl FnOnce(std::io::Error) -> ConfigError,
) -> Result<Vec<EvalCase>, ConfigError> {
    let path = path.to_path_buf();
    let bytes = read_capped(&path).map_err(|err| err.into_config_error(&path, unreadable))?;
    let text = String::from_utf8(bytes).map_err(|_| not_utf8(&path))?;
    let cases_root = match node::parse(&text) {
        Ok(Some(r)) => r,
        Ok(None) => return Ok(Vec::new()),
        Err(err) => return Err(invalid_yaml(err, &path)),
    };
    let cctx = Ctx::new(&path, &cases_root);
    let (list, prefix) = case_list(&cctx)?;
    let (cases, errors) = de::from_node_all::<Vec<EvalCase>>(list, path_of(&prefix));
    let typing: Vec<ConfigError> = errors
        .into_iter()
        .map(|Located { message, hint, pos }| cctx.error(pos, message, hint))
        .collect();
    let Some(mut cases) = cases.filter(|_| typing.is_empty()) else {
        return Err(
            ConfigError::all(typing).unwrap_or_else(|| cctx.error(list.pos, "invalid cases", None))
        );
    };
    check_cases(&cctx, &cases, &prefix)?;
    if let Some(all) = ConfigError::all(cctx.errors.take()) {
        return Err(all);
    }
    for (i, case) in cases.iter_mut().enumerate() {
        let mut steps = prefix.clone();
        steps.push(Step::Index(i));
        case.line = cases_root
            .at(&steps)
            .and_then(|n| u32::try_from(n.pos.line).ok());
        case.file = Some(path.clone());
    }
    if let Some(list) = cases_root.at(&prefix) {
        super::exact::keep_in_cases(&mut cases, list);
    }
    Ok(cases)
}

/// A file of `evals` that is not UTF-8.
fn not_utf8(path: &Path) -> ConfigError {
    ConfigError::new("the file is not valid UTF-8")
        .in_file(path)
        .hint("save the file as UTF-8")
}

/// `evals.<key>` names a file that cannot be read.
pub(super) fn unreadable(
    ctx: &Ctx<'_>,
    key: &str,
    path: &Path,
    err: &std::io::Error,
) -> ConfigError {
    ctx.error(
        ctx.pos(&[Step::Key("evals"), Step::Key(key)]),
        format!(
            "cannot read `evals.{key}` {}: {}",
            path.display(),
            lowercase_first(&err.to_string())
        ),
        Some("the path is relative to this config file".to_owned()),
    )
}

/// The list of cases in a cases file (a bare list, or a mapping with only `cases:`) and the
/// steps to it.
fn case_list<'n>(cctx: &Ctx<'n>) -> Result<(&'n Node, Vec<Step<'static>>), ConfigError> {
    let root = cctx.root;
    let example = || Some("e.g. `- {prompt: …, expect_tool: …}` on each line".to_owned());
    let found = match &root.value {
        Value::Seq(_) => (root, Vec::new()),
        Value::Map(entries) => match root.get("cases") {
            Some(_) if entries.len() > 1 => {
                return Err(cctx.error(
                    root.pos,
                    "a cases file mapping may hold only `cases:`".to_owned(),
                    None,
                ));
            }
            Some(n) => (n, vec![Step::Key("cases")]),
            None => {
                return Err(cctx.error(
                    root.pos,
                    "a cases file holds a list of cases, or a mapping with `cases:`".to_owned(),
                    example(),
                ));
            }
        },
        other => {
            return Err(cctx.error(
                root.pos,
                format!(
                    "a cases file holds a list of cases, got {}",
                    other.describe()
                ),
                example(),
            ));
        }
    };
    Ok(found)
}
