//! The tune's report: its data model (the JSON report of `tune --json`) and its renderings
//! (console, Markdown, HTML, JUnit), and the overrides file it writes. Every text that came from the
//! server, the rewriter or a config is escaped for the format it lands in.

use serde::Serialize;

use crate::config::Overrides;
use crate::report::escape::{clean, markup};
use crate::report::markdown::md;

/// The split, by case name.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct SplitNames {
    /// Rows the rewriter was shown (when missed).
    pub seen: Vec<String>,
    /// Rows it never saw: the candidates were judged on these.
    pub held_out: Vec<String>,
}

/// One held-out row of one model, before and after a candidate.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RowReport {
    /// The case's name.
    pub case: String,
    /// The model.
    pub model: String,
    /// A `critical` row.
    pub critical: bool,
    /// `correct/trials` with the original description.
    pub before: String,
    /// `correct/trials` with the candidate.
    pub after: String,
}

/// One candidate description.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CandidateReport {
    /// The description proposed.
    pub text: String,
    /// Accepted (written to the overrides file).
    pub accepted: bool,
    /// Why accepted or rejected.
    pub reason: String,
    /// Held-out accuracy with the original, on the model that decided; `None` when it was
    /// rejected before it was evaluated.
    pub held_out_before: Option<f64>,
    /// Held-out accuracy with the candidate, on that model.
    pub held_out_after: Option<f64>,
    /// One-sided p-value that it is better, on that model.
    pub p_value: Option<f64>,
    /// Every held-out row of every model, before and after (empty when not evaluated).
    pub rows: Vec<RowReport>,
}

/// One tool rewritten.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ToolReport {
    /// The tool's MCP name.
    pub tool: String,
    /// Its description as the models were sent it before the tune.
    pub original: String,
    /// Every candidate, in the rewriter's order.
    pub candidates: Vec<CandidateReport>,
    /// Why the rewriter gave no candidate for it: it failed or answered nonsense.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The accepted rewrites of two or more tools, judged together on the held-out rows.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TogetherReport {
    /// The tools whose rewrites were put together.
    pub tools: Vec<String>,
    /// Whether they hold together; when not, only `kept` keeps its rewrite.
    pub accepted: bool,
    /// The verdict, as for a candidate.
    pub reason: String,
    /// Held-out accuracy with the original descriptions, on the model that decided.
    pub held_out_before: f64,
    /// Held-out accuracy with all the rewrites, on that model.
    pub held_out_after: f64,
    /// One-sided p-value that it is better, on that model.
    pub p_value: f64,
    /// The tool that kept its rewrite when together they failed (the largest gain alone).
    pub kept: Option<String>,
}

/// The whole tune.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct TuneReport {
    /// Which rows the rewriter saw and which it never saw.
    pub split: SplitNames,
    /// The tools rewritten.
    pub tools: Vec<ToolReport>,
    /// The overrides file written (accepted rewrites), when one was.
    pub overrides_file: Option<String>,
    /// The models the candidates were judged on.
    pub models: Vec<String>,
    /// The rewriter: provider and model.
    pub rewriter: String,
    /// Requests sent in all (evals, rewriter, candidates); cached answers are free.
    pub requests: u64,
    /// The estimated cost of the answers asked for the evals and the candidates, from the
    /// usage the models reported and `evals.prices`; `None` when a model has no price. The
    /// rewriter's cost is not known.
    pub cost_usd: Option<f64>,
    /// The accepted rewrites judged together, when two or more tools had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub together: Option<TogetherReport>,
    /// Why the rewriter was not asked: no tool to rewrite, or held-out rows on which no
    /// rewrite could show a significant gain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Why the tune stopped before its end (the server, the evals, the budget), when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The plan, for `--dry-run` (nothing was asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<String>,
}

impl TuneReport {
    /// The rewriter's failures, one per tool it failed for.
    pub(crate) fn errors(&self) -> Vec<&str> {
        self.tools
            .iter()
            .filter_map(|t| t.error.as_deref())
            .collect()
    }

    /// How many candidates were accepted.
    pub(crate) fn accepted(&self) -> usize {
        self.tools
            .iter()
            .flat_map(|t| &t.candidates)
            .filter(|c| c.accepted)
            .count()
    }
}

/// The first `most` names, then how many more.
fn names(all: &[String], most: usize) -> String {
    let mut text = all
        .iter()
        .take(most)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if all.len() > most {
        text.push_str(&format!(
            " and {} more (the JSON report lists them)",
            all.len() - most
        ));
    }
    text
}

/// `together (a + b): held-out 43% → 100% on m (p < 0.001), no critical row worse`, or the
/// rejection and which tool kept its rewrite.
fn together_line(t: &TogetherReport) -> String {
    let tools = t.tools.join(" + ");
    match &t.kept {
        Some(kept) => format!(
            "together ({tools}): {}; only {kept} keeps its rewrite",
            t.reason
        ),
        None => format!("together ({tools}): {}", t.reason),
    }
}

/// `163 requests sent (cached answers are free); est. $0.0123 for the evals and candidates`.
fn spent_line(r: &TuneReport) -> String {
    let cost = match r.cost_usd {
        _ if r.requests == 0 => String::new(),
        Some(usd) => format!("; est. ${usd:.4} for the evals and the candidates"),
        None => "; cost unknown (a model has no price in evals.prices)".into(),
    };
    format!(
        "{} requests sent (cached answers are free){cost}",
        r.requests
    )
}

/// The report as JUnit XML: a suite per tool rewritten, a testcase per candidate; an accepted
/// candidate passes, a rejected one is skipped with its reason (a rejection fails nothing).
pub(crate) fn junit(r: &TuneReport) -> String {
    use quick_junit::{Property, Report, TestCase, TestCaseStatus, TestSuite};
    let line = |text: &str| clean(text).replace('\n', " ");
    let mut xml = Report::new("toolproof tune");
    if let Some(error) = &r.error {
        let mut status = TestCaseStatus::non_success(quick_junit::NonSuccessKind::Error);
        status.set_message(line(error));
        let mut suite = TestSuite::new("tune");
        suite.add_test_case(TestCase::new("tune", status));
        xml.add_test_suite(suite);
    }
    for tool in &r.tools {
        let mut suite = TestSuite::new(format!("tune {}", line(&tool.tool)));
        suite.add_property(Property::new("original", line(&tool.original)));
        for (i, c) in tool.candidates.iter().enumerate() {
            let status = if c.accepted {
                TestCaseStatus::success()
            } else {
                let mut skipped = TestCaseStatus::skipped();
                skipped.set_message(line(&c.reason));
                skipped
            };
            let mut case = TestCase::new(format!("candidate {}", i + 1), status);
            case.set_classname(format!(
                "toolproof.tune.{}",
                line(&tool.tool).replace('.', "_")
            ));
            case.set_system_out(format!("{}\n{}", line(&c.reason), line(&c.text)));
            suite.add_test_case(case);
        }
        xml.add_test_suite(suite);
    }
    if let Some(t) = &r.together {
        let status = if t.accepted {
            TestCaseStatus::success()
        } else {
            let mut skipped = TestCaseStatus::skipped();
            skipped.set_message(line(&together_line(t)));
            skipped
        };
        let mut case = TestCase::new(line(&t.tools.join(" + ")), status);
        case.set_classname("toolproof.tune.together");
        case.set_system_out(line(&together_line(t)));
        let mut suite = TestSuite::new("tune together");
        suite.add_test_case(case);
        xml.add_test_suite(suite);
    }
    crate::report::junit::xml_of(&xml)
}

/// The report for a terminal.
pub(crate) fn console(r: &TuneReport) -> String {
    if let Some(plan) = &r.dry_run {
        return format!("{}\n", clean(plan));
    }
    let mut out = format!(
        "toolproof tune: {} rows ({} seen by the rewriter, {} held out), judged on {}; rewriter {}\n",
        r.split.seen.len() + r.split.held_out.len(),
        r.split.seen.len(),
        r.split.held_out.len(),
        clean(&r.models.join(", ")),
        clean(&r.rewriter)
    );
    if !r.split.held_out.is_empty() {
        out.push_str(&format!(
            "held out: {}\n",
            clean(&names(&r.split.held_out, 12))
        ));
    }
    if let Some(note) = &r.note {
        out.push_str(&format!("\n{}\n", clean(note)));
    }
    for t in &r.tools {
        out.push_str(&format!(
            "\n{}\n  original: {:?}\n",
            clean(&t.tool),
            clean(&t.original)
        ));
        match &t.error {
            Some(e) => out.push_str(&format!("  error: {}\n", clean(e))),
            None if t.candidates.is_empty() => out.push_str("  the rewriter proposed nothing\n"),
            None => {}
        }
        for (i, c) in t.candidates.iter().enumerate() {
            let mark = if c.accepted { "accepted" } else { "rejected" };
            let reason = c.reason.strip_prefix("rejected: ").unwrap_or(&c.reason);
            out.push_str(&format!(
                "  {}. {mark}: {}\n     {:?}\n",
                i + 1,
                clean(reason),
                clean(&c.text)
            ));
            // The rows that moved; the JSON and Markdown reports list every row.
            for row in c.rows.iter().filter(|r| r.before != r.after) {
                let flag = if row.critical { " (critical)" } else { "" };
                out.push_str(&format!(
                    "       {} on {}{flag}: {} → {}\n",
                    clean(&row.case),
                    clean(&row.model),
                    row.before,
                    row.after
                ));
            }
            let same = c.rows.iter().filter(|r| r.before == r.after).count();
            if same > 0 {
                let results = if same == 1 { "result" } else { "results" };
                out.push_str(&format!(
                    "       {same} more held-out {results} unchanged\n"
                ));
            }
        }
    }
    if let Some(t) = &r.together {
        out.push_str(&format!("\n{}\n", clean(&together_line(t))));
    }
    out.push_str(&format!("\n{}\n", spent_line(r)));
    match &r.overrides_file {
        Some(path) if r.accepted() > 0 => out.push_str(&format!(
            "{} accepted; overrides written to {}; replay: toolproof eval --overrides {}\n",
            r.accepted(),
            clean(path),
            clean(path)
        )),
        Some(path) => out.push_str(&format!(
            "no rewrite accepted; {} holds no new description\n",
            clean(path)
        )),
        None => {}
    }
    out
}

/// The report as Markdown (a step summary, a pull-request comment).
pub(crate) fn markdown(r: &TuneReport) -> String {
    if let Some(error) = &r.error {
        return format!(
            "## toolproof tune\n\n❌ The tune stopped: {}\n",
            md(error, 1000)
        );
    }
    if let Some(plan) = &r.dry_run {
        return format!("## toolproof tune (dry run)\n\n{}\n", md(plan, 2000));
    }
    let mut out = format!(
        "## toolproof tune\n\n{} rows: {} seen by the rewriter, {} held out. Judged on {}; rewriter {}.\n",
        r.split.seen.len() + r.split.held_out.len(),
        r.split.seen.len(),
        r.split.held_out.len(),
        md(&r.models.join(", "), 200),
        md(&r.rewriter, 200)
    );
    if let Some(note) = &r.note {
        out.push_str(&format!("\n> {}\n", md(note, 600)));
    }
    for t in &r.tools {
        out.push_str(&format!(
            "\n### {}\n\nOriginal: {}\n\n",
            md(&t.tool, 100),
            md(&t.original, 1000)
        ));
        if let Some(e) = &t.error {
            out.push_str(&format!("❌ {}\n\n", md(e, 500)));
        }
        if !t.candidates.is_empty() {
            out.push_str("| # | description | verdict |\n|---|---|---|\n");
        }
        for (i, c) in t.candidates.iter().enumerate() {
            let mark = if c.accepted { "✅" } else { "❌" };
            out.push_str(&format!(
                "| {} | {} | {mark} {} |\n",
                i + 1,
                md(&c.text, 1000),
                md(&c.reason, 300)
            ));
        }
        for (i, c) in t
            .candidates
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.rows.is_empty())
        {
            out.push_str(&format!(
                "\n<details><summary>Candidate {}: held-out rows</summary>\n\n| row | model | before | after |\n|---|---|---|---|\n",
                i + 1
            ));
            for row in &c.rows {
                let flag = if row.critical { " (critical)" } else { "" };
                out.push_str(&format!(
                    "| {}{flag} | {} | {} | {} |\n",
                    md(&row.case, 100),
                    md(&row.model, 100),
                    row.before,
                    row.after
                ));
            }
            out.push_str("\n</details>\n");
        }
    }
    if let Some(t) = &r.together {
        out.push_str(&format!("\n**{}**\n", md(&together_line(t), 500)));
    }
    out.push_str(&format!("\n{}\n", md(&spent_line(r), 300)));
    if let Some(path) = &r.overrides_file {
        out.push_str(&format!(
            "\n{} accepted; replay with `toolproof eval --overrides {}`.\n",
            r.accepted(),
            md(path, 200).replace('`', "")
        ));
    }
    out
}

/// The report as one HTML page.
pub(crate) fn html(r: &TuneReport) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>toolproof tune</title></head><body>\n<h1>toolproof tune</h1>\n",
    );
    if let Some(error) = &r.error {
        out.push_str(&format!(
            "<p class=\"error\">The tune stopped: {}</p>\n</body></html>\n",
            markup(&clean(error))
        ));
        return out;
    }
    if let Some(plan) = &r.dry_run {
        out.push_str(&format!(
            "<pre>{}</pre>\n</body></html>\n",
            markup(&clean(plan))
        ));
        return out;
    }
    out.push_str(&format!(
        "<p>{} rows: {} seen by the rewriter, {} held out. Judged on {}; rewriter {}.</p>\n",
        r.split.seen.len() + r.split.held_out.len(),
        r.split.seen.len(),
        r.split.held_out.len(),
        markup(&clean(&r.models.join(", "))),
        markup(&clean(&r.rewriter))
    ));
    if let Some(note) = &r.note {
        out.push_str(&format!("<p>{}</p>\n", markup(&clean(note))));
    }
    for t in &r.tools {
        out.push_str(&format!(
            "<h2>{}</h2>\n<p>Original: {}</p>\n<table>\n<tr><th>#</th><th>description</th><th>verdict</th><th>held-out rows</th></tr>\n",
            markup(&clean(&t.tool)),
            markup(&clean(&t.original))
        ));
        if let Some(e) = &t.error {
            out.push_str(&format!(
                "<tr class=\"error\"><td colspan=\"4\">{}</td></tr>\n",
                markup(&clean(e))
            ));
        }
        for (i, c) in t.candidates.iter().enumerate() {
            let rows: Vec<String> = c
                .rows
                .iter()
                .map(|row| {
                    format!(
                        "{} on {}: {} → {}",
                        markup(&clean(&row.case)),
                        markup(&clean(&row.model)),
                        row.before,
                        row.after
                    )
                })
                .collect();
            out.push_str(&format!(
                "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                if c.accepted { "accepted" } else { "rejected" },
                i + 1,
                markup(&clean(&c.text)),
                markup(&clean(&c.reason)),
                rows.join("<br>")
            ));
        }
        out.push_str("</table>\n");
    }
    if let Some(t) = &r.together {
        out.push_str(&format!("<p>{}</p>\n", markup(&clean(&together_line(t)))));
    }
    out.push_str(&format!("<p>{}</p>\n", markup(&spent_line(r))));
    out.push_str("</body></html>\n");
    out
}

/// The overrides file: `overrides:` with each tool's description (and its property
/// descriptions), strings written as JSON strings, which YAML reads as they are.
pub(crate) fn overrides_yaml(overrides: &Overrides, note: &str) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut out = String::new();
    for line in note.lines() {
        out.push_str(&format!("# {line}\n"));
    }
    if overrides.is_empty() {
        out.push_str("overrides: {}\n");
        return out;
    }
    out.push_str("overrides:\n");
    for (tool, o) in overrides {
        out.push_str(&format!("  {}:\n", q(tool)));
        if let Some(d) = &o.description {
            out.push_str(&format!("    description: {}\n", q(d)));
        }
        if !o.properties.is_empty() {
            out.push_str("    properties:\n");
            for (k, v) in &o.properties {
                out.push_str(&format!("      {}: {}\n", q(k), q(v)));
            }
        }
    }
    out
}

/// `c/n`.
pub(crate) fn fraction((c, n): (u32, u32)) -> String {
    format!("{c}/{n}")
}
