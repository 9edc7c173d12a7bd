//! The tune's stages: the evals, the tools to rewrite, the split, the rewriter, the
//! candidates judged on the held-out rows, the accepted ones checked together, the file.

use std::collections::BTreeMap;

use super::Stop;
use super::judge::{self, Judged, RowOutcome};
use super::report::{
    self, CandidateReport, RowReport, SplitNames, TogetherReport, ToolReport, TuneReport,
};
use super::rewriter::{Miss, Rewriter};
use super::split::{Split, split};
use super::stage::Ctx;
use crate::checks::gaming;
use crate::cli::TuneArgs;
use crate::config::{EvalConfig, Overrides, ToolOverride};
use crate::evals::asking::engine::case_name;
use crate::evals::asking::overrides;
use crate::evals::asking::tools::api_tools;
use crate::interrupt::Interrupt;
use crate::mcp::Client;
use crate::mcp::types::Tool;
use crate::outcome::{CaseStatus, EvalCaseResult, EvalsResults, NO_TOOL};
use crate::settings::Settings;

/// Runs the tune.
pub(super) fn tune(
    s: &Settings,
    args: &TuneArgs,
    interrupt: &Interrupt,
) -> Result<TuneReport, Stop> {
    let cfg = s.eval_config().ok_or_else(|| {
        Stop::Usage(
            "`tune` needs an `evals:` section with labelled cases".into(),
            None,
        )
    })?;
    let es = s
        .evals()
        .ok_or_else(|| Stop::Usage("`tune` needs an `evals:` section".into(), None))?;
    let target = es.target().map_err(|e| Stop::Failed(e.to_string()))?;
    let server = list_tools(s, interrupt)?;
    let tools =
        overrides::apply(&server, &cfg.overrides).map_err(|e| Stop::Usage(e.join("; "), None))?;
    let mut ctx = Ctx::new(s, es, cfg, interrupt);
    let base = ctx.eval(cfg, &tools, es, true)?;
    let plan = base.plan.clone().unwrap_or_default();
    if es.dry_run() {
        return Ok(dry_run(
            cfg,
            &tools,
            args,
            target.models.len(),
            plan.requests(),
        ));
    }
    if plan.budget.as_ref().is_some_and(|b| b.over_plan) {
        ctx.afford(plan.requests(), "the evals")?;
    }
    ctx.spent += plan.requests();
    ctx.spent_usd += plan.cost_usd().unwrap_or(0.0);
    let split = split(&cfg.cases, args.holdout, args.seed);
    let mut names = pick_tools(&tools, &base, args)?;
    let note = judge::why_nothing(&names, &split, &base, es.compare().alpha);
    if note.is_some() {
        names.clear();
    }
    let rewriter = Rewriter::new(
        cfg,
        s.loaded().config.tune.as_ref(),
        target.provider,
        target.models.first().map_or("", String::as_str),
        &s.loaded().base_dir,
        es.offline(),
        es.no_cache(),
    )
    .map_err(|e| Stop::Usage(e, None))?;
    let asked = ask_rewriter(
        &mut ctx,
        &rewriter,
        &tools,
        &base,
        &split,
        &names,
        args.candidates,
    )?;
    let mut reports = judge_all(&mut ctx, &tools, &base, &split, asked)?;
    let together = check_together(&mut ctx, &tools, &base, &split, &mut reports)?;
    let accepted = write_overrides(cfg, &reports, args)?;
    Ok(TuneReport {
        split: names_of(cfg, &split),
        tools: reports,
        overrides_file: Some(accepted),
        models: target
            .models
            .iter()
            .map(|m| model_label(m, target.provider.name()))
            .collect(),
        rewriter: super::rewriter::name(s, target.provider.name()),
        requests: ctx.spent,
        cost_usd: ctx.cost().map(|usd| (usd * 1e6).round() / 1e6),
        together,
        note,
        error: None,
        dry_run: None,
    })
}

/// The split by case name.
fn names_of(cfg: &EvalConfig, split: &Split) -> SplitNames {
    let names = |rows: &[usize]| rows.iter().map(|&i| case_name(&cfg.cases[i])).collect();
    SplitNames {
        seen: names(&split.seen),
        held_out: names(&split.held_out),
    }
}

/// A model as the reports name it: a command's unnamed model by its provider.
fn model_label(model: &str, provider: &str) -> String {
    if model.is_empty() {
        provider.to_owned()
    } else {
        model.to_owned()
    }
}

/// The server's tools.
fn list_tools(s: &Settings, interrupt: &Interrupt) -> Result<Vec<Tool>, Stop> {
    let (spec, opts) = crate::mcp::spec::server_spec(s.loaded());
    let mut client = Client::connect(spec, opts)
        .map_err(|e| Stop::Failed(format!("could not connect to the server: {}", e.error)))?;
    client.stop_on(interrupt.clone());
    let tools = client
        .list_tools()
        .map_err(|e| Stop::Failed(format!("could not list the server's tools: {e}")));
    client.close();
    tools
}

/// `--dry-run`: the evals' plan and the most the candidates would ask.
fn dry_run(
    cfg: &EvalConfig,
    tools: &[Tool],
    args: &TuneArgs,
    models: usize,
    evals: u64,
) -> TuneReport {
    let held = split(&cfg.cases, args.holdout, args.seed).held_out;
    let trials: u64 = held
        .iter()
        .map(|&i| u64::from(cfg.trials_of(&cfg.cases[i]).max))
        .sum();
    let most = trials * models as u64 * u64::from(args.candidates);
    TuneReport {
        dry_run: Some(format!(
            "dry run: the evals send {evals} requests (the rest is cached); then one rewriter request per tool rewritten (at most {} tools), and each candidate is judged on {} held-out rows: at most {most} requests per tool for {} candidates. Nothing was asked.",
            tools.len(),
            held.len(),
            args.candidates
        )),
        ..TuneReport::default()
    }
}

/// The tools to rewrite, in the server's order: `--tool`, else the expected and picked tools
/// of the missed rows (the confused pairs).
fn pick_tools(tools: &[Tool], base: &EvalsResults, args: &TuneArgs) -> Result<Vec<String>, Stop> {
    let listed: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    if let Some(bad) = args.tools.iter().find(|t| !listed.contains(&t.as_str())) {
        return Err(Stop::Usage(
            format!("--tool {bad}: the server lists no such tool"),
            Some(format!("the server lists {}", listed.join(", "))),
        ));
    }
    let mut wanted: Vec<String> = args.tools.clone();
    if wanted.is_empty() {
        for m in &base.models {
            for c in m.cases.iter().filter(|c| c.status == CaseStatus::Miss) {
                wanted.extend(c.expect_tool.clone());
                for t in c.trials.iter().filter(|t| !t.passed) {
                    wanted.extend(t.calls.first().map(|call| call.tool.clone()));
                }
            }
        }
    }
    Ok(listed
        .iter()
        .filter(|n| wanted.iter().any(|w| w == *n))
        .map(|n| (*n).to_owned())
        .collect())
}

/// The seen rows some model missed that involve `tool` (expected or picked).
fn misses_of(tool: &str, base: &EvalsResults, split: &Split, cfg: &EvalConfig) -> Vec<Miss> {
    let mut out: Vec<Miss> = Vec::new();
    for &i in &split.seen {
        let missed = base.models.iter().find_map(|m| {
            let c = m.cases.get(i)?;
            let t = c.trials.iter().find(|t| !t.passed)?;
            Some((c, t))
        });
        let Some((c, t)) = missed else { continue };
        let expected = c.expect_tool.clone().unwrap_or_else(|| NO_TOOL.to_owned());
        let picked = t
            .calls
            .first()
            .map_or_else(|| NO_TOOL.to_owned(), |call| call.tool.clone());
        if expected == tool || picked == tool {
            out.push(Miss {
                prompt: cfg.cases[i].prompt.clone(),
                expected,
                picked,
                why: c.why.clone(),
            });
        }
    }
    out
}

/// Each tool's candidates from the rewriter (cached or asked), within the budget.
fn ask_rewriter(
    ctx: &mut Ctx<'_>,
    rewriter: &Rewriter,
    tools: &[Tool],
    base: &EvalsResults,
    split: &Split,
    names: &[String],
    k: u32,
) -> Result<Vec<Asked>, Stop> {
    let api = api_tools(tools);
    let mut requests = Vec::new();
    for name in names {
        let api_name = api.api_name(name);
        let Some(tool) = api.tools.iter().find(|t| t.name == api_name) else {
            continue;
        };
        let misses = misses_of(name, base, split, ctx.cfg);
        requests.push((
            name.clone(),
            tool.description.clone(),
            Rewriter::request(tool, &api.tools, &misses, k),
        ));
    }
    let uncached = requests
        .iter()
        .filter(|(_, _, r)| !rewriter.cached(r))
        .count() as u64;
    ctx.afford(uncached, "the rewriter")?;
    let mut out = Vec::new();
    for (name, original, request) in requests {
        // A failed answer is that tool's; the other tools are still asked.
        let (candidates, error) = match rewriter.ask(&request) {
            Ok(answered) => {
                if !answered.cached {
                    ctx.spent += 1;
                }
                let mut candidates = answered.candidates;
                candidates.truncate(k as usize);
                (candidates, None)
            }
            Err(e) => {
                ctx.spent += 1;
                (Vec::new(), Some(e))
            }
        };
        out.push(Asked {
            tool: name,
            original,
            candidates,
            error,
        });
    }
    Ok(out)
}

/// What the rewriter gave for one tool: its candidates, or why it gave none.
struct Asked {
    tool: String,
    original: String,
    candidates: Vec<String>,
    error: Option<String>,
}

/// The held-out rows of `results` against the base's, per model.
fn rows(
    cfg: &EvalConfig,
    split: &Split,
    base: &EvalsResults,
    after: &EvalsResults,
) -> Vec<RowOutcome> {
    let mut out = Vec::new();
    for (m_before, m_after) in base.models.iter().zip(&after.models) {
        for (j, &i) in split.held_out.iter().enumerate() {
            // Counted as the comparison counts them: a row without a scored trial on either
            // side says nothing.
            let counts = (m_before.cases.get(i), m_after.cases.get(j));
            let (Some(before), Some(after)) = (
                counts.0.and_then(EvalCaseResult::scored),
                counts.1.and_then(EvalCaseResult::scored),
            ) else {
                continue;
            };
            out.push(RowOutcome {
                case: case_name(&cfg.cases[i]),
                model: model_label(&m_before.model, &base.provider),
                critical: cfg.cases[i].critical,
                before,
                after,
            });
        }
    }
    out
}

/// The held-out rows' config: `cfg` with only those cases and `extra` over its overrides.
fn held_config(cfg: &EvalConfig, split: &Split, extra: &Overrides) -> EvalConfig {
    let mut held = cfg.clone();
    held.cases = split
        .held_out
        .iter()
        .map(|&i| cfg.cases[i].clone())
        .collect();
    for (tool, o) in extra {
        held.overrides.insert(tool.clone(), o.clone());
    }
    held
}

/// One tool's new description as an override.
fn description(text: &str) -> ToolOverride {
    ToolOverride {
        description: Some(text.to_owned()),
        properties: BTreeMap::new(),
    }
}

/// Every candidate judged: the length budget and the lint first, then the held-out rows.
fn judge_all(
    ctx: &mut Ctx<'_>,
    tools: &[Tool],
    base: &EvalsResults,
    split: &Split,
    asked: Vec<Asked>,
) -> Result<Vec<ToolReport>, Stop> {
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let max_chars = ctx
        .s
        .loaded()
        .config
        .tune
        .as_ref()
        .and_then(|t| t.max_chars);
    let mut reports = Vec::new();
    let mut pending = Vec::new();
    for (t, asked) in asked.into_iter().enumerate() {
        let Asked {
            tool,
            original,
            candidates,
            error,
        } = asked;
        let budget = judge::budget(&original, max_chars);
        let mut list = Vec::new();
        for (c, text) in candidates.into_iter().enumerate() {
            let length = text.chars().count();
            let found = gaming::scan(&text, &tool, &names);
            let reason = if length > budget {
                Some(format!(
                    "rejected: {length} characters, over the budget of {budget}"
                ))
            } else {
                gaming::reason(&found).map(|g| format!("rejected: {g}"))
            };
            if reason.is_none() {
                pending.push((t, c));
            }
            list.push(unjudged(text, reason));
        }
        reports.push(ToolReport {
            tool,
            original,
            candidates: list,
            error,
        });
    }
    let candidate_cfg = |t: usize, c: usize, reports: &[ToolReport]| {
        let mut extra = Overrides::new();
        extra.insert(
            reports[t].tool.clone(),
            description(&reports[t].candidates[c].text),
        );
        held_config(ctx.cfg, split, &extra)
    };
    let mut planned = (0, Some(0.0));
    for &(t, c) in &pending {
        let cfg = candidate_cfg(t, c, &reports);
        let (n, usd) = ctx.planned(&cfg, &patched(tools, &cfg)?)?;
        planned = (planned.0 + n, planned.1.zip(usd).map(|(a, b)| a + b));
    }
    ctx.spend(planned, "the candidates")?;
    let models: Vec<String> = base
        .models
        .iter()
        .map(|m| model_label(&m.model, &base.provider))
        .collect();
    let tried: Vec<usize> = pending.iter().map(|&(t, _)| t).collect();
    for (t, c) in pending {
        let cfg = candidate_cfg(t, c, &reports);
        let after = ctx.eval(&cfg, &patched(tools, &cfg)?, ctx.es, false)?;
        let outcome = rows(ctx.cfg, split, base, &after);
        let tried = tried.iter().filter(|&&x| x == t).count();
        let verdict = judge::judge(&outcome, &models, ctx.es.compare().alpha, tried);
        record(&mut reports[t].candidates[c], &verdict, &outcome);
    }
    for r in &mut reports {
        judge::choose_best(&mut r.candidates);
    }
    Ok(reports)
}

/// `tools` with `cfg`'s overrides applied.
fn patched(tools: &[Tool], cfg: &EvalConfig) -> Result<Vec<Tool>, Stop> {
    overrides::apply(tools, &cfg.overrides).map_err(|e| Stop::Failed(e.join("; ")))
}

/// A candidate before (or without) the held-out rows.
fn unjudged(text: String, reason: Option<String>) -> CandidateReport {
    CandidateReport {
        text,
        accepted: false,
        reason: reason.unwrap_or_default(),
        held_out_before: None,
        held_out_after: None,
        p_value: None,
        rows: Vec::new(),
    }
}

/// Records the held-out verdict on a candidate.
fn record(c: &mut CandidateReport, v: &Judged, outcome: &[RowOutcome]) {
    c.accepted = v.accepted;
    c.reason = v.reason.clone();
    c.held_out_before = Some(v.before);
    c.held_out_after = Some(v.after);
    c.p_value = Some(v.p_value);
    c.rows = outcome
        .iter()
        .map(|r| RowReport {
            case: r.case.clone(),
            model: r.model.clone(),
            critical: r.critical,
            before: report::fraction(r.before),
            after: report::fraction(r.after),
        })
        .collect();
}

/// With two or more tools rewritten, the accepted rewrites judged together; when together
/// they fail, only the tool with the largest gain keeps its rewrite.
fn check_together(
    ctx: &mut Ctx<'_>,
    tools: &[Tool],
    base: &EvalsResults,
    split: &Split,
    reports: &mut [ToolReport],
) -> Result<Option<TogetherReport>, Stop> {
    let chosen: Vec<(usize, usize)> = reports
        .iter()
        .enumerate()
        .filter_map(|(t, r)| r.candidates.iter().position(|c| c.accepted).map(|c| (t, c)))
        .collect();
    if chosen.len() < 2 {
        return Ok(None);
    }
    let mut extra = Overrides::new();
    for &(t, c) in &chosen {
        extra.insert(
            reports[t].tool.clone(),
            description(&reports[t].candidates[c].text),
        );
    }
    let cfg = held_config(ctx.cfg, split, &extra);
    let list = patched(tools, &cfg)?;
    let planned = ctx.planned(&cfg, &list)?;
    ctx.spend(planned, "the accepted rewrites together")?;
    let after = ctx.eval(&cfg, &list, ctx.es, false)?;
    let models: Vec<String> = base
        .models
        .iter()
        .map(|m| model_label(&m.model, &base.provider))
        .collect();
    let verdict = judge::judge(
        &rows(ctx.cfg, split, base, &after),
        &models,
        ctx.es.compare().alpha,
        1,
    );
    let mut together = TogetherReport {
        tools: chosen
            .iter()
            .map(|&(t, _)| reports[t].tool.clone())
            .collect(),
        accepted: verdict.accepted,
        reason: verdict.reason.clone(),
        held_out_before: verdict.before,
        held_out_after: verdict.after,
        p_value: verdict.p_value,
        kept: None,
    };
    if verdict.accepted {
        return Ok(Some(together));
    }
    let gain = |&(t, c): &(usize, usize)| {
        let cand: &CandidateReport = &reports[t].candidates[c];
        cand.held_out_after.unwrap_or(0.0) - cand.held_out_before.unwrap_or(0.0)
    };
    let keep = chosen
        .iter()
        .copied()
        .max_by(|a, b| gain(a).total_cmp(&gain(b)))
        .unwrap_or(chosen[0]);
    let kept_tool = reports[keep.0].tool.clone();
    for &(t, c) in chosen.iter().filter(|x| **x != keep) {
        let cand = &mut reports[t].candidates[c];
        cand.accepted = false;
        cand.reason = format!(
            "rejected together with {kept_tool}'s rewrite: {}",
            verdict.reason.trim_start_matches("rejected: ")
        );
    }
    together.kept = Some(kept_tool);
    Ok(Some(together))
}

/// Writes the overrides file: the config's own overrides with the accepted rewrites over
/// them. Returns its path as given.
fn write_overrides(
    cfg: &EvalConfig,
    reports: &[ToolReport],
    args: &TuneArgs,
) -> Result<String, Stop> {
    let mut all = cfg.overrides.clone();
    for r in reports {
        if let Some(c) = r.candidates.iter().find(|c| c.accepted) {
            all.entry(r.tool.clone()).or_default().description = Some(c.text.clone());
        }
    }
    let text = report::overrides_yaml(
        &all,
        "Written by `toolproof tune`: descriptions accepted on held-out rows.\nReplay: toolproof eval --overrides FILE",
    );
    crate::report::write::write_atomic(&args.out, text.as_bytes())
        .map_err(|e| Stop::Failed(format!("the overrides file could not be written: {e}")))?;
    Ok(args.out.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unnamed_model_is_named_by_its_provider() {
        assert_eq!(model_label("", "command"), "command");
        assert_eq!(model_label("m1", "command"), "m1");
    }
}
