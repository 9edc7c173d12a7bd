//! The single-file HTML report (`--html PATH`): one page with its CSS inline and no script, no
//! font and no image fetched from anywhere, readable on a phone (tables turn into stacked cards
//! under 640px) and in dark mode. The connection error comes first, then the five phases with
//! their status, then one section per phase; every table lists its failing rows first. Every
//! string that came from a server, a model, a provider or a file is cleaned of terminal escapes,
//! cut to a length and HTML-escaped, and the model's secrets are redacted before any of that.
//!
//! The page holds no time of its own (only the run's start time), so two renders of one report
//! are byte-identical.
//!
//! Hooks for tests and scripts: sections have the ids `connection-error`, `phases`, `checks`,
//! `tests`, `evals`, `bench` and `fuzz`; every table row of a result has a `data-status` (the
//! JSON report's word for it) and one class of `fail`, `warn`, `skip` or `pass`.

use std::borrow::Cow;

use serde_json::Value;

use super::escape::{clean, format_ms, format_secs, plural, tail_lines, truncate_chars};
use super::eval_view::{ARGS_CHARS, CONFUSION_SHOWN, pct};
use super::model::{
    CaseStatus, ChecksResults, EvalCaseResult, EvalsResults, HistoryTrend, Inventory, ModelEval,
    PhaseOverview, PhaseStatus, RunReport, Severity, TestCounts, TestResult, TestStatus,
};

/// Longest name (tool, test, case, model, check), in characters.
const NAME_CHARS: usize = 300;
/// Longest table cell or message line, in characters.
const CELL_CHARS: usize = 2000;
/// Longest result text shown for a test, in characters.
const RESULT_CHARS: usize = 5000;
/// Longest connection or provider error, in characters.
const ERROR_CHARS: usize = 5000;
/// Most server stderr lines shown per block, and their longest total, in characters.
const STDERR_LINES: usize = 200;
const STDERR_CHARS: usize = 20_000;
/// Most non-protocol stdout lines shown.
const NOISE_LINES: usize = 20;
/// Longest raw JSON block (bench and fuzz results), in characters.
const JSON_CHARS: usize = 20_000;

/// The stylesheet, inlined in `<head>`. Light and dark colours come from custom properties;
/// under 640px every `table.cards` becomes a stack of cards labelled by `data-label`.
const STYLE: &str = r#"
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;--link:#0969da;
--pass:#1a7f37;--pass-bg:#dafbe1;--fail:#cf222e;--fail-bg:#ffebe9;--warn:#9a6700;--warn-bg:#fff8c5;--skip:#59636e;--skip-bg:#eff2f5}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;--link:#4493f8;
--pass:#3fb950;--pass-bg:#12261e;--fail:#f85149;--fail-bg:#301417;--warn:#d29922;--warn-bg:#2b2111;--skip:#9198a1;--skip-bg:#212830}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.wrap{max-width:75rem;margin:0 auto;padding:1rem}
a{color:var(--link)}
h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0;overflow-wrap:anywhere}
h2{font-size:1.25rem;margin:2rem 0 .5rem;padding-bottom:.25rem;border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
main>section:first-child>h2{margin-top:.5rem}
h3{font-size:1.1rem;margin:1.5rem 0 .5rem;overflow-wrap:anywhere}
p{margin:.5rem 0}
code,pre{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace;font-size:.875em}
code{overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem;margin:.5rem 0;max-height:32rem;overflow:auto}
header.top dl.meta{padding-bottom:1rem;border-bottom:1px solid var(--line)}
.verdict-line{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:0;color:var(--muted)}
dl.meta{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,10rem),1fr));gap:.25rem 1rem;margin:.75rem 0 0}
dl.meta div{min-width:0}
dl.meta dt{font-size:.75rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
dl.meta dd{margin:0;overflow-wrap:anywhere}
.badge{display:inline-block;font-size:.75rem;font-weight:700;letter-spacing:.04em;line-height:1.2;padding:.2em .55em;border-radius:999px;border:1px solid currentColor;white-space:nowrap}
.badge.big{font-size:1rem;padding:.3em .8em}
.badge.fail{color:var(--fail);background:var(--fail-bg)}
.badge.warn{color:var(--warn);background:var(--warn-bg)}
.badge.pass{color:var(--pass);background:var(--pass-bg)}
.badge.skip{color:var(--skip);background:var(--skip-bg)}
.alert{border:1px solid var(--line);border-left:4px solid var(--skip);border-radius:6px;padding:.5rem .75rem;margin:1rem 0;background:var(--panel)}
.alert.fail{border-color:var(--fail);background:var(--fail-bg)}
.alert.warn{border-color:var(--warn);background:var(--warn-bg)}
.alert h2,.alert h3,.alert h4{margin:.25rem 0;border:0;padding:0;font-size:1.05rem}
.alert pre{background:var(--bg)}
.muted,.sub{color:var(--muted)}
.sub{display:block;font-size:.8125rem;font-weight:400}
.tag{display:inline-block;font-size:.75rem;font-weight:400;padding:0 .4em;margin:.1rem .2rem 0 0;border-radius:4px;background:var(--skip-bg);color:var(--muted)}
.tag.critical{background:var(--fail-bg);color:var(--fail);font-weight:700}
.table-wrap{overflow-x:auto;margin:.5rem 0}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:.5rem;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
thead th{font-size:.8125rem;color:var(--muted);border-bottom-width:2px;white-space:nowrap}
tbody th{font-weight:600;min-width:10rem}
td.num,th.num{text-align:right;white-space:nowrap}
td.st{width:1%;white-space:nowrap}
td[data-label=Details],td[data-label=Problem]{min-width:14rem}
td[data-label=Why],td[data-label=Expected],td[data-label=Picked]{min-width:9rem}
tr.fail>:first-child{box-shadow:inset 4px 0 var(--fail)}
tr.warn>:first-child{box-shadow:inset 4px 0 var(--warn)}
tr.fail{background:color-mix(in srgb,var(--fail-bg) 45%,transparent)}
.pre{white-space:pre-wrap}
ul.lines{margin:0;padding-left:1.1rem}
ul.gates{list-style:none;padding:0;margin:.5rem 0}
ul.gates li{margin:.25rem 0}
details{margin:.25rem 0}
summary{cursor:pointer;color:var(--link)}
.trend{margin:.5rem 0}
.trend ol{display:flex;align-items:flex-end;gap:.25rem;list-style:none;padding:0;margin:.5rem 0;height:6rem;overflow-x:auto}
.trend li{display:flex;flex-direction:column;justify-content:flex-end;align-items:center;min-width:2.5rem;height:100%;font-size:.75rem;color:var(--muted)}
.trend .bar{display:block;width:1.5rem;min-height:2px;background:var(--link);border-radius:2px 2px 0 0}
.trend .rising .bar{background:var(--warn)}
footer{color:var(--muted);font-size:.8125rem;border-top:1px solid var(--line);margin-top:2rem}
@media (max-width:640px){
.wrap{padding:.75rem}
table.cards,table.cards tbody,table.cards tr,table.cards th,table.cards td{display:block;width:100%}
table.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table.cards tr{border:1px solid var(--line);border-left:4px solid var(--line);border-radius:6px;margin:0 0 .75rem;padding:.5rem .75rem;box-shadow:none}
table.cards tr.fail{border-left-color:var(--fail)}
table.cards tr.warn{border-left-color:var(--warn)}
table.cards tr.pass{border-left-color:var(--pass)}
table.cards tr>:first-child{box-shadow:none}
table.cards th,table.cards td{border:0;padding:.2rem 0;text-align:left;min-width:0}
table.cards td.st{display:inline-block;width:auto;margin-right:.5rem}
table.cards td.st+th{display:inline;font-size:1.05rem}
table.cards td:empty{display:none}
table.cards td.inl{display:inline-block;width:auto;margin-right:1.5rem}
table.cards td[data-label]::before{content:attr(data-label);display:block;font-size:.6875rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
table.phases td[data-label]::before{content:none}
table.phases td.num{color:var(--muted);font-size:.875rem}
}
"#;

/// The HTML report of `report`, secrets redacted: a complete page ending with a newline.
pub fn render(report: &RunReport) -> String {
    let report = report.redacted();
    let r = &*report;
    let mut out = String::with_capacity(32 * 1024);

    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    out.push_str(&format!(
        "<meta name=\"generator\" content=\"{} {}\">\n",
        esc(&r.generator.name),
        esc(&r.generator.version)
    ));
    out.push_str(&format!(
        "<title>toolproof {}: {}</title>\n",
        if r.passed { "passed" } else { "failed" },
        one_line(&server_title(r), NAME_CHARS)
    ));
    out.push_str("<style>");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");

    header(&mut out, r);
    out.push_str("<main class=\"wrap\">\n");
    connection_error(&mut out, r);
    stdout_noise(&mut out, r);
    phases_table(&mut out, r);
    let [checks, tests, evals, bench, fuzz] = r.phases.overview();
    checks_section(
        &mut out,
        &checks,
        &r.phases.checks.results,
        r.inventory.as_ref(),
    );
    tests_section(
        &mut out,
        &tests,
        &r.phases.tests.results,
        r.config_file.as_deref(),
    );
    evals_section(
        &mut out,
        &evals,
        r.phases.evals.results.as_ref(),
        r.config_file.as_deref(),
    );
    other_section(&mut out, &bench, r.phases.bench.results.as_ref());
    other_section(&mut out, &fuzz, r.phases.fuzz.results.as_ref());
    out.push_str("</main>\n");

    out.push_str(&format!(
        "<footer class=\"wrap\"><p>Written by {} {} for the run started {}.</p></footer>\n",
        esc(&r.generator.name),
        esc(&r.generator.version),
        started(&r.started_at)
    ));
    out.push_str("</body>\n</html>\n");
    out
}

// ---- Text --------------------------------------------------------------------------------

/// Escapes the five HTML special characters, for text and attribute values alike.
fn esc(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Untrusted text made safe to place in HTML: cut to `max_chars` (with `…`), terminal escapes
/// removed and control characters made visible, trimmed, escaped. Newlines are kept; cells
/// that can hold several lines have the `pre` class.
fn text(raw: &str, max_chars: usize) -> String {
    // Cutting before cleaning keeps megabyte-long strings cheap; cleaning only shrinks text.
    let rough = truncate_chars(raw, max_chars.saturating_mul(4));
    let cleaned = clean(&rough);
    let cut = truncate_chars(cleaned.trim(), max_chars);
    esc(&cut).into_owned()
}

/// [`text`] on one line: newlines and tabs become spaces.
fn one_line(raw: &str, max_chars: usize) -> String {
    text(raw, max_chars).replace(['\n', '\t'], " ")
}

/// Untrusted multi-line output (stderr, result text) in a `<pre>`: the last lines, cut, cleaned
/// and escaped.
fn pre_block(raw: &str, max_lines: usize, max_chars: usize) -> String {
    // The end of the output is what explains a failure: keep the last bytes of a huge one.
    let mut start = raw.len().saturating_sub(max_chars.saturating_mul(4));
    while !raw.is_char_boundary(start) {
        start += 1;
    }
    let tail = tail_lines(&raw[start..], max_lines);
    let cleaned = clean(&tail);
    format!("<pre>{}</pre>", esc(&last_chars(&cleaned, max_chars)))
}

/// The last `max_chars` characters of `text`, starting with `…` when cut.
fn last_chars(text: &str, max_chars: usize) -> Cow<'_, str> {
    let total = text.chars().count();
    if total <= max_chars {
        return Cow::Borrowed(text);
    }
    let skip = total - max_chars.saturating_sub(1);
    let start = text.char_indices().nth(skip).map_or(text.len(), |(i, _)| i);
    Cow::Owned(format!("…{}", &text[start..]))
}

/// A collapsible block of untrusted output.
fn details_pre(summary: &str, body: &str, open: bool) -> String {
    format!(
        "<details{}><summary>{summary}</summary>{body}</details>",
        if open { " open" } else { "" }
    )
}

/// A phase's wall time: `4ms` under a second, `2.76s` from there.
fn duration(ms: f64) -> String {
    if ms < 1000.0 {
        format_ms(ms)
    } else {
        format_secs(ms)
    }
}

/// The run's start time as `<time>`: `2026-12-01 10:00:00 UTC` for an RFC 3339 UTC stamp,
/// otherwise as given.
fn started(at: &str) -> String {
    let shown = match at.strip_suffix('Z') {
        Some(rest) if rest.len() >= 19 && rest.as_bytes().get(10) == Some(&b'T') => {
            let no_fraction = rest.split('.').next().unwrap_or(rest);
            format!("{} UTC", no_fraction.replacen('T', " ", 1))
        }
        _ => at.to_string(),
    };
    format!("<time datetime=\"{}\">{}</time>", esc(at), text(&shown, 64))
}

// ---- Status marks ------------------------------------------------------------------------

/// How a row or badge is coloured; each is also the row's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tone {
    Fail,
    Warn,
    Skip,
    Pass,
}

impl Tone {
    fn class(self) -> &'static str {
        match self {
            Tone::Fail => "fail",
            Tone::Warn => "warn",
            Tone::Skip => "skip",
            Tone::Pass => "pass",
        }
    }
}

fn badge(tone: Tone, word: &str) -> String {
    format!("<span class=\"badge {}\">{word}</span>", tone.class())
}

/// Opens a result row: its tone as the class, its status word as `data-status`, and the status
/// badge as the first cell.
fn row_open(tone: Tone, status: &str, word: &str) -> String {
    format!(
        "<tr class=\"{}\" data-status=\"{status}\"><td class=\"st\">{}</td>",
        tone.class(),
        badge(tone, word)
    )
}

/// A labelled cell (the label shows above the value when the table is stacked into cards).
fn cell(label: &str, class: &str, html: &str) -> String {
    if class.is_empty() {
        format!("<td data-label=\"{label}\">{html}</td>")
    } else {
        format!("<td class=\"{class}\" data-label=\"{label}\">{html}</td>")
    }
}

/// `<table class="cards">` with a status column and `headers` (`(label, class)`).
fn table_open(class: &str, headers: &[(&str, &str)]) -> String {
    let mut s = format!("<div class=\"table-wrap\"><table class=\"cards {class}\">");
    s.push_str("<thead><tr><th scope=\"col\"><span class=\"sub\">Status</span></th>");
    for (label, class) in headers {
        if class.is_empty() {
            s.push_str(&format!("<th scope=\"col\">{label}</th>"));
        } else {
            s.push_str(&format!("<th scope=\"col\" class=\"{class}\">{label}</th>"));
        }
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    s
}

const TABLE_CLOSE: &str = "</tbody></table></div>\n";

/// `items` in the order given by `rank` (lowest first), keeping their order within a rank.
fn by_rank<T>(items: &[T], rank: impl Fn(&T) -> u8) -> Vec<&T> {
    let mut sorted: Vec<&T> = items.iter().collect();
    sorted.sort_by_key(|item| rank(item));
    sorted
}

/// Whether a phase ran (passed or failed).
fn ran(phase: &PhaseOverview<'_>) -> bool {
    matches!(phase.status, PhaseStatus::Passed | PhaseStatus::Failed)
}

fn phase_mark(status: PhaseStatus) -> (Tone, &'static str) {
    match status {
        PhaseStatus::Passed => (Tone::Pass, "PASSED"),
        PhaseStatus::Failed => (Tone::Fail, "FAILED"),
        PhaseStatus::Error => (Tone::Fail, "ERROR"),
        PhaseStatus::Skipped => (Tone::Skip, "SKIPPED"),
    }
}

/// A phase section's opening: `<section id=key>` and its heading with the status badge.
fn section_open(out: &mut String, phase: &PhaseOverview<'_>, title: &str) {
    let (tone, word) = phase_mark(phase.status);
    out.push_str(&format!(
        "<section id=\"{}\" data-status=\"{}\">\n<h2>{} {title}",
        phase.key,
        phase.status.as_str(),
        badge(tone, word)
    ));
    if ran(phase) && phase.duration_ms > 0.0 {
        out.push_str(&format!(
            " <span class=\"sub\">{}</span>",
            duration(phase.duration_ms)
        ));
    }
    out.push_str("</h2>\n");
}

/// The sentence for a phase that did not run: `Skipped: <reason>.` or `Could not run: <reason>.`
fn not_run_line(phase: &PhaseOverview<'_>) -> String {
    let (lead, fallback) = match phase.status {
        PhaseStatus::Error => ("Could not run", "no reason recorded"),
        _ => ("Skipped", "not run"),
    };
    let reason = phase
        .reason
        .map_or_else(|| fallback.to_string(), |reason| text(reason, CELL_CHARS));
    format!("<p class=\"pre\">{lead}: {reason}</p>\n")
}

// ---- Header, errors, phases ----------------------------------------------------------------

/// `name version` of the server, or the target when the server never introduced itself.
fn server_title(r: &RunReport) -> String {
    match &r.server {
        Some(s) => {
            let name = s.name.as_deref().filter(|n| !n.trim().is_empty());
            match (name, s.version.as_deref()) {
                (Some(n), Some(v)) => format!("{n} {v}"),
                (Some(n), None) => n.to_string(),
                (None, _) => r.target.clone(),
            }
        }
        None => r.target.clone(),
    }
}

fn header(out: &mut String, r: &RunReport) {
    let (tone, word) = if r.passed {
        (Tone::Pass, "PASSED")
    } else {
        (Tone::Fail, "FAILED")
    };
    out.push_str("<header class=\"top wrap\" id=\"top\">\n");
    out.push_str(&format!(
        "<p class=\"verdict-line\"><span class=\"badge big {}\" id=\"verdict\" data-status=\"{}\">{word}</span> <span>toolproof {} · exit code {}</span></p>\n",
        tone.class(),
        if r.passed { "passed" } else { "failed" },
        one_line(&r.command, NAME_CHARS),
        r.exit_code
    ));
    out.push_str(&format!(
        "<h1>{}</h1>\n",
        one_line(&server_title(r), NAME_CHARS)
    ));
    let mut meta: Vec<(&str, String)> = Vec::new();
    meta.push((
        "Target",
        format!("<code>{}</code>", one_line(&r.target, CELL_CHARS)),
    ));
    if let Some(s) = &r.server {
        if let Some(title) = s.title.as_deref().filter(|t| !t.trim().is_empty()) {
            meta.push(("Server title", one_line(title, NAME_CHARS)));
        }
        meta.push(("Transport", one_line(&s.transport, 40)));
        let era = match s.era.as_str() {
            "legacy" => "initialize handshake".to_string(),
            "modern" => "server/discover".to_string(),
            other => one_line(other, 40),
        };
        meta.push((
            "Protocol",
            format!("{} ({era})", one_line(&s.protocol_version, 40)),
        ));
    }
    if let Some(config) = &r.config_file {
        meta.push((
            "Config",
            format!("<code>{}</code>", one_line(config, CELL_CHARS)),
        ));
    }
    meta.push(("Started", started(&r.started_at)));
    meta.push(("Duration", format_secs(r.duration_ms)));
    meta.push((
        "toolproof",
        format!(
            "{} {}",
            one_line(&r.generator.name, 40),
            one_line(&r.generator.version, 40)
        ),
    ));
    out.push_str("<dl class=\"meta\">\n");
    for (label, value) in meta {
        out.push_str(&format!("<div><dt>{label}</dt><dd>{value}</dd></div>\n"));
    }
    out.push_str("</dl>\n</header>\n");
}

fn connection_error(out: &mut String, r: &RunReport) {
    let Some(err) = &r.error else {
        return;
    };
    out.push_str("<section id=\"connection-error\" class=\"alert fail\" data-status=\"error\">\n");
    out.push_str("<h2>The server could not be used</h2>\n");
    out.push_str(&format!(
        "<pre class=\"message\">{}</pre>\n",
        text(&err.message, ERROR_CHARS)
    ));
    if let Some(stderr) = err.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
        out.push_str(&details_pre(
            "Server stderr",
            &pre_block(stderr, STDERR_LINES, STDERR_CHARS),
            true,
        ));
        out.push('\n');
    }
    out.push_str("</section>\n");
}

fn stdout_noise(out: &mut String, r: &RunReport) {
    let n = r.stdout_noise.len();
    if n == 0 {
        return;
    }
    out.push_str("<section id=\"stdout-noise\" class=\"alert warn\">\n");
    out.push_str(&format!(
        "<h2>The server printed {n} non-protocol line{} on stdout</h2>\n<p>Strict MCP clients fail on them: stdout is for JSON-RPC messages only; log to stderr.</p>\n",
        plural(n)
    ));
    let shown: Vec<&str> = r
        .stdout_noise
        .iter()
        .take(NOISE_LINES)
        .map(String::as_str)
        .collect();
    out.push_str(&pre_block(&shown.join("\n"), NOISE_LINES, STDERR_CHARS));
    if n > NOISE_LINES {
        out.push_str(&format!("<p class=\"sub\">… {} more</p>", n - NOISE_LINES));
    }
    out.push_str("\n</section>\n");
}

/// The five phases, failed and errored first, then passed, then skipped; each links to its
/// section.
fn phases_table(out: &mut String, r: &RunReport) {
    out.push_str("<section id=\"phases\">\n<h2>Phases</h2>\n");
    out.push_str(&table_open(
        "phases",
        &[("Phase", ""), ("Result", ""), ("Time", "num")],
    ));
    let phases = r.phases.overview();
    let rank = |p: &PhaseOverview<'_>| match p.status {
        PhaseStatus::Failed | PhaseStatus::Error => 0,
        PhaseStatus::Passed => 1,
        PhaseStatus::Skipped => 2,
    };
    for phase in by_rank(&phases, rank) {
        let (tone, word) = phase_mark(phase.status);
        out.push_str(&row_open(tone, phase.status.as_str(), word));
        out.push_str(&format!(
            "<th scope=\"row\"><a href=\"#{}\">{}</a></th>",
            phase.key, phase.title
        ));
        out.push_str(&cell("Result", "pre", &phase_result(r, phase)));
        let time = if ran(phase) {
            duration(phase.duration_ms)
        } else {
            String::new()
        };
        out.push_str(&cell("Time", "num", &time));
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
    out.push_str("</section>\n");
}

/// One phase's result in a sentence, escaped.
fn phase_result(r: &RunReport, phase: &PhaseOverview<'_>) -> String {
    let reason = phase.reason.map(|s| text(s, CELL_CHARS));
    let evals = r
        .phases
        .evals
        .results
        .as_ref()
        .filter(|ev| phase.key == "evals" && !ev.models.is_empty());
    if !ran(phase) && evals.is_none() {
        let lead = if phase.status == PhaseStatus::Error {
            "could not run"
        } else {
            "skipped"
        };
        return match reason {
            Some(reason) => format!("{lead}: {reason}"),
            None => lead.to_string(),
        };
    }
    let what = match phase.key {
        "checks" => Some(esc(&r.phases.checks.results.counts_text()).into_owned()),
        "tests" => Some(esc(&TestCounts::of(&r.phases.tests.results).out_of_text()).into_owned()),
        "evals" => evals.map(evals_verdict),
        _ => None,
    };
    match (what, reason) {
        (Some(what), Some(reason)) if !what.starts_with(&reason) => format!("{what}: {reason}"),
        (Some(what), _) => what,
        (None, Some(reason)) => reason,
        (None, None) => phase.status.as_str().to_string(),
    }
}

/// The evals verdict, escaped: the one model's, or how many models failed.
fn evals_verdict(ev: &EvalsResults) -> String {
    match ev.models.as_slice() {
        [m] => text(&m.verdict_text(), CELL_CHARS),
        models => {
            let failed = models.iter().filter(|m| m.fails()).count();
            let each: Vec<String> = models
                .iter()
                .map(|m| {
                    let result = match &m.error {
                        Some(_) => "provider error".to_string(),
                        None => format!("{} ({}/{})", pct(m.accuracy), m.correct, m.total),
                    };
                    format!("{} {result}", one_line(&m.model, NAME_CHARS))
                })
                .collect();
            format!(
                "{failed} of {} models failed: {}",
                models.len(),
                each.join(" · ")
            )
        }
    }
}

// ---- Static checks -----------------------------------------------------------------------

fn checks_section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    c: &ChecksResults,
    inventory: Option<&Inventory>,
) {
    section_open(out, phase, "Static checks");
    if !ran(phase) {
        out.push_str(&not_run_line(phase));
    } else {
        let mut line = c.counts_text();
        if c.strict {
            line.push_str("; strict: warnings fail the run");
        }
        if !c.disabled.is_empty() {
            line.push_str("; turned off: ");
            line.push_str(&c.disabled.join(", "));
        }
        out.push_str(&format!("<p>{}</p>\n", text(&line, CELL_CHARS)));
        if let Some(reason) = phase.reason {
            out.push_str(&format!(
                "<p class=\"pre\">{}</p>\n",
                text(reason, CELL_CHARS)
            ));
        }
    }
    if c.findings.is_empty() {
        if ran(phase) {
            out.push_str("<p>No problems found.</p>\n");
        }
    } else {
        out.push_str(&table_open(
            "findings",
            &[("Tool", ""), ("Check", ""), ("Problem", "")],
        ));
        for f in by_rank(&c.findings, |f| if f.fails { 0 } else { 1 }) {
            let (tone, word) = match (f.severity, f.fails) {
                (Severity::Error, _) => (Tone::Fail, "ERROR"),
                (Severity::Warning, true) => (Tone::Fail, "WARNING"),
                (Severity::Warning, false) => (Tone::Warn, "WARNING"),
            };
            let status = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            out.push_str(&row_open(tone, status, word));
            out.push_str(&format!(
                "<th scope=\"row\">{}</th>",
                one_line(&f.tool, NAME_CHARS)
            ));
            out.push_str(&cell(
                "Check",
                "",
                &format!("<code>{}</code>", one_line(&f.check, NAME_CHARS)),
            ));
            out.push_str(&cell("Problem", "pre", &text(&f.text(), CELL_CHARS)));
            out.push_str("</tr>\n");
        }
        out.push_str(TABLE_CLOSE);
    }
    if let Some(inv) = inventory.filter(|inv| !inv.tools.is_empty()) {
        tools_list(out, inv);
    }
    out.push_str("</section>\n");
}

/// The tools the server listed, collapsed.
fn tools_list(out: &mut String, inv: &Inventory) {
    let n = inv.tools.len();
    out.push_str(&format!(
        "<details class=\"tools\"><summary>{n} tool{} listed by the server</summary>\n",
        plural(n)
    ));
    out.push_str("<div class=\"table-wrap\"><table class=\"cards tools\"><thead><tr><th scope=\"col\">Tool</th><th scope=\"col\">Description</th><th scope=\"col\">Output schema</th></tr></thead>\n<tbody>\n");
    for t in &inv.tools {
        let mut name = one_line(&t.name, NAME_CHARS);
        if let Some(title) = t.title.as_deref().filter(|s| !s.trim().is_empty()) {
            name.push_str(&format!(
                "<span class=\"sub\">{}</span>",
                one_line(title, NAME_CHARS)
            ));
        }
        out.push_str(&format!(
            "<tr><th scope=\"row\">{name}</th>{}{}</tr>\n",
            cell("Description", "pre", &text(&t.summary, CELL_CHARS)),
            cell(
                "Output schema",
                "",
                if t.has_output_schema { "yes" } else { "no" }
            )
        ));
    }
    out.push_str("</tbody></table></div></details>\n");
}

// ---- Tests -------------------------------------------------------------------------------

fn test_mark(status: TestStatus) -> (Tone, &'static str, &'static str) {
    match status {
        TestStatus::Failed => (Tone::Fail, "failed", "FAIL"),
        TestStatus::Error => (Tone::Fail, "error", "ERROR"),
        TestStatus::NotRun => (Tone::Skip, "not_run", "NOT RUN"),
        TestStatus::Flaky => (Tone::Warn, "flaky", "FLAKY"),
        TestStatus::Passed => (Tone::Pass, "passed", "PASS"),
    }
}

fn tests_section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    tests: &[TestResult],
    config: Option<&str>,
) {
    section_open(out, phase, "Tests");
    if !ran(phase) {
        out.push_str(&not_run_line(phase));
    } else {
        let mut line = esc(&TestCounts::of(tests).out_of_text()).into_owned();
        if let Some(reason) = phase.reason {
            line = format!("{}; {line}", text(reason, CELL_CHARS));
        }
        out.push_str(&format!("<p class=\"pre\">{line}</p>\n"));
    }
    if !tests.is_empty() {
        out.push_str(&table_open(
            "tests",
            &[("Test", ""), ("Tool", ""), ("Time", "num"), ("Details", "")],
        ));
        let rank = |t: &TestResult| match t.status {
            TestStatus::Failed | TestStatus::Error => 0,
            TestStatus::NotRun => 1,
            TestStatus::Flaky => 2,
            TestStatus::Passed => 3,
        };
        for t in by_rank(tests, rank) {
            test_row(out, t, config);
        }
        out.push_str(TABLE_CLOSE);
    }
    out.push_str("</section>\n");
}

fn test_row(out: &mut String, t: &TestResult, config: Option<&str>) {
    let (tone, status, word) = test_mark(t.status);
    out.push_str(&row_open(tone, status, word));

    let mut name = one_line(&t.name, NAME_CHARS);
    let place = match (config, t.line) {
        (Some(file), Some(line)) => Some(format!("{file}:{line}")),
        (None, Some(line)) => Some(format!("line {line}")),
        _ => None,
    };
    if let Some(place) = place {
        name.push_str(&format!(
            "<span class=\"sub\"><code>{}</code></span>",
            one_line(&place, CELL_CHARS)
        ));
    }
    if !t.tags.is_empty() {
        name.push_str("<span class=\"sub\">");
        for tag in &t.tags {
            name.push_str(&format!(
                "<span class=\"tag\">{}</span>",
                one_line(tag, NAME_CHARS)
            ));
        }
        name.push_str("</span>");
    }
    out.push_str(&format!("<th scope=\"row\">{name}</th>"));
    out.push_str(&cell(
        "Tool",
        "inl",
        &format!("<code>{}</code>", one_line(&t.tool, NAME_CHARS)),
    ));
    let time = if t.status == TestStatus::NotRun {
        "–".to_string()
    } else {
        format_ms(t.latency_ms)
    };
    out.push_str(&cell("Time", "num inl", &time));

    let mut details = String::new();
    if !t.failures.is_empty() {
        details.push_str("<ul class=\"lines pre\">");
        for f in &t.failures {
            details.push_str(&format!("<li>{}</li>", text(f, CELL_CHARS)));
        }
        details.push_str("</ul>");
    }
    match t.status {
        TestStatus::Flaky => details.push_str(&format!(
            "<p>flaky: passed on attempt {} after failing</p>",
            t.attempts
        )),
        TestStatus::Failed | TestStatus::Error if t.attempts > 1 => {
            details.push_str(&format!("<p>after {} attempts</p>", t.attempts));
        }
        TestStatus::NotRun if t.failures.is_empty() => details.push_str("<p>not run</p>"),
        _ => {}
    }
    if let Some(result) = &t.text {
        let failing = matches!(t.status, TestStatus::Failed | TestStatus::Error);
        let rough = truncate_chars(result, RESULT_CHARS.saturating_mul(4));
        let cleaned = clean(&rough);
        let chars = cleaned.chars().take(RESULT_CHARS + 1).count();
        let size = if chars > RESULT_CHARS {
            format!("first {RESULT_CHARS} characters")
        } else {
            format!("{chars} character{}", plural(chars))
        };
        let flag = match t.is_error {
            Some(true) => ", isError: true",
            _ => "",
        };
        details.push_str(&details_pre(
            &format!("Result text ({size}{flag})"),
            &format!(
                "<pre>{}</pre>",
                esc(&truncate_chars(&cleaned, RESULT_CHARS))
            ),
            failing && chars <= 400,
        ));
    }
    if let Some(stderr) = t.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
        details.push_str(&details_pre(
            "Server stderr during the call",
            &pre_block(stderr, STDERR_LINES, STDERR_CHARS),
            t.status != TestStatus::Passed,
        ));
    }
    out.push_str(&cell("Details", "", &details));
    out.push_str("</tr>\n");
}

// ---- Evals -------------------------------------------------------------------------------

fn evals_section(
    out: &mut String,
    phase: &PhaseOverview<'_>,
    results: Option<&EvalsResults>,
    config: Option<&str>,
) {
    section_open(out, phase, "Tool-selection evals");
    let Some(ev) = results.filter(|ev| !ev.models.is_empty()) else {
        if ran(phase) {
            let reason = phase.reason.unwrap_or("no model was asked");
            out.push_str(&format!(
                "<p class=\"pre\">{}</p>\n",
                text(reason, CELL_CHARS)
            ));
        } else {
            out.push_str(&not_run_line(phase));
        }
        out.push_str("</section>\n");
        return;
    };
    let mut line = format!("Provider: {}", one_line(&ev.provider, NAME_CHARS));
    if let Some(reason) = phase.reason {
        line.push_str(&format!(" · {}", one_line(reason, CELL_CHARS)));
    }
    out.push_str(&format!("<p>{line}</p>\n"));
    if let Some(left_out) = ev.left_out_line() {
        out.push_str(&format!(
            "<div class=\"alert warn\" id=\"left-out\"><p>{}</p><p>The model never saw these tools; fix their input schema to evaluate them.</p></div>\n",
            text(&left_out, CELL_CHARS)
        ));
    }
    let several = ev.models.len() > 1;
    if several {
        models_table(out, ev);
    }
    for (index, m) in ranked_models(ev) {
        model_block(out, ev, m, index, config);
    }

    out.push_str(if several {
        "<h3>Cache and history (every model)</h3>\n"
    } else {
        "<h3>Cache and history</h3>\n"
    });
    let mut cache = ev.cache_line();
    if let Some(dir) = &ev.cache.dir {
        cache.push_str(&format!(" · folder {dir}"));
    }
    out.push_str(&format!("<p>{}</p>\n", text(&cache, CELL_CHARS)));
    if let Some(h) = &ev.history {
        let passing = ev.models.iter().all(|m| !m.fails());
        history_block(out, h, passing);
    }
    out.push_str("</section>\n");
}

/// The models with their position in the report, failing ones first.
fn ranked_models(ev: &EvalsResults) -> Vec<(usize, &ModelEval)> {
    let mut models: Vec<(usize, &ModelEval)> = ev.models.iter().enumerate().collect();
    models.sort_by_key(|(_, m)| !m.fails());
    models
}

/// Several models side by side, failing ones first.
fn models_table(out: &mut String, ev: &EvalsResults) {
    out.push_str(&table_open(
        "models",
        &[
            ("Model", ""),
            ("Accuracy", "num"),
            ("Correct", "num"),
            ("Critical misses", ""),
            ("Provider errors", "num"),
        ],
    ));
    for (index, m) in ranked_models(ev) {
        let (tone, status, word) = match (&m.error, m.fails()) {
            (Some(_), _) => (Tone::Fail, "error", "ERROR"),
            (None, true) => (Tone::Fail, "failed", "FAIL"),
            (None, false) => (Tone::Pass, "passed", "PASS"),
        };
        let (accuracy, correct) = match m.error {
            Some(_) => ("–".to_string(), "–".to_string()),
            None => (pct(m.accuracy), format!("{}/{}", m.correct, m.total)),
        };
        out.push_str(&row_open(tone, status, word));
        out.push_str(&format!(
            "<th scope=\"row\"><a href=\"#model-{}\">{}</a></th>",
            index + 1,
            one_line(&m.model, NAME_CHARS)
        ));
        out.push_str(&cell("Accuracy", "num", &accuracy));
        out.push_str(&cell("Correct", "num", &correct));
        out.push_str(&cell(
            "Critical misses",
            "",
            &text(&m.critical_misses.join(", "), CELL_CHARS),
        ));
        out.push_str(&cell(
            "Provider errors",
            "num",
            &m.count(CaseStatus::ProviderError).to_string(),
        ));
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
}

fn model_block(
    out: &mut String,
    ev: &EvalsResults,
    m: &ModelEval,
    index: usize,
    config: Option<&str>,
) {
    let (tone, status, word) = match (&m.error, m.fails()) {
        (Some(_), _) => (Tone::Fail, "error", "ERROR"),
        (None, true) => (Tone::Fail, "failed", "FAILED"),
        (None, false) => (Tone::Pass, "passed", "PASSED"),
    };
    let title = if m.model.trim().is_empty() {
        "(no model named)".to_string()
    } else {
        one_line(&m.model, NAME_CHARS)
    };
    out.push_str(&format!(
        "<article class=\"model\" id=\"model-{}\" data-status=\"{status}\">\n<h3>{} {title}</h3>\n",
        index + 1,
        badge(tone, word)
    ));
    if let Some(error) = &m.error {
        out.push_str(
            "<div class=\"alert fail provider-error\">\n<h4>The provider could not be used</h4>\n",
        );
        out.push_str(&format!(
            "<pre class=\"message\">{}</pre>\n",
            text(error, ERROR_CHARS)
        ));
        out.push_str(&format!(
            "<p>No case was scored: {} case{} not run or not counted.</p>\n</div>\n",
            m.cases.len(),
            plural(m.cases.len())
        ));
    }
    let mut lines = vec![m.accuracy_line()];
    lines.extend(m.trials_line());
    lines.extend(m.counts_line().filter(|_| m.error.is_none()));
    out.push_str("<p>");
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str("<br>");
        }
        let line = text(line, CELL_CHARS);
        if i == 0 {
            out.push_str(&format!("<strong>{line}</strong>"));
        } else {
            out.push_str(&line);
        }
    }
    out.push_str("</p>\n");

    let gates: Vec<_> = by_rank(&m.gates, |g| u8::from(g.passed))
        .into_iter()
        .filter(|g| m.error.is_none() || g.name != "provider")
        .collect();
    if !gates.is_empty() {
        out.push_str("<ul class=\"gates\">");
        for g in gates {
            let (tone, word, status) = if g.passed {
                (Tone::Pass, "PASS", "passed")
            } else {
                (Tone::Fail, "FAIL", "failed")
            };
            out.push_str(&format!(
                "<li class=\"{}\" data-status=\"{status}\">{} <code>{}</code>: {}</li>",
                tone.class(),
                badge(tone, word),
                one_line(&g.name, NAME_CHARS),
                text(&g.detail, CELL_CHARS)
            ));
        }
        out.push_str("</ul>\n");
    }
    if !m.uncached.is_empty() {
        out.push_str(&format!(
            "<div class=\"alert warn\"><p><strong>Not in the cache (--offline):</strong> {}</p><p>{}</p></div>\n",
            text(&m.uncached.join(", "), CELL_CHARS),
            text(&ev.offline_hint(), CELL_CHARS)
        ));
    }
    if m.cases.is_empty() {
        out.push_str("<p>No cases.</p>\n");
    } else {
        cases_table(out, m, config);
    }
    if !m.confusion.is_empty() {
        confusion_table(out, m);
    }
    out.push_str("</article>\n");
}

fn case_mark(status: CaseStatus) -> (Tone, &'static str, &'static str) {
    match status {
        CaseStatus::Miss => (Tone::Fail, "miss", "MISS"),
        CaseStatus::ProviderError => (Tone::Fail, "provider_error", "ERROR"),
        CaseStatus::NotRun => (Tone::Skip, "not_run", "NOT RUN"),
        CaseStatus::Correct => (Tone::Pass, "correct", "PASS"),
    }
}

/// Every case: critical misses, misses, provider errors, not run, then correct.
fn cases_table(out: &mut String, m: &ModelEval, config: Option<&str>) {
    out.push_str(&table_open(
        "cases",
        &[
            ("Case", ""),
            ("Expected", ""),
            ("Picked", ""),
            ("Why", ""),
            ("Details", ""),
        ],
    ));
    let rank = |c: &EvalCaseResult| match (m.row_status(c), c.critical) {
        (CaseStatus::Miss, true) => 0,
        (CaseStatus::Miss, false) => 1,
        (CaseStatus::ProviderError, _) => 2,
        (CaseStatus::NotRun, _) => 3,
        (CaseStatus::Correct, _) => 4,
    };
    for c in by_rank(&m.cases, rank) {
        let (tone, status, word) = case_mark(m.row_status(c));
        out.push_str(&row_open(tone, status, word));
        let mut name = one_line(&c.name, NAME_CHARS);
        if c.critical {
            name.push_str(" <span class=\"tag critical\">critical</span>");
        }
        let place = match (c.file.as_deref().or(config), c.line) {
            (Some(file), Some(line)) => Some(format!("{file}:{line}")),
            (Some(file), None) => Some(file.to_string()),
            (None, Some(line)) => Some(format!("line {line}")),
            (None, None) => None,
        };
        if let Some(place) = place {
            name.push_str(&format!(
                "<span class=\"sub\"><code>{}</code></span>",
                one_line(&place, CELL_CHARS)
            ));
        }
        if c.name != c.prompt {
            name.push_str(&format!(
                "<span class=\"sub pre\">{}</span>",
                text(&c.prompt, CELL_CHARS)
            ));
        }
        out.push_str(&format!("<th scope=\"row\">{name}</th>"));
        out.push_str(&cell(
            "Expected",
            "pre",
            &text(&c.expected_text(ARGS_CHARS), CELL_CHARS),
        ));
        out.push_str(&cell(
            "Picked",
            "pre",
            &text(&c.picked_lines(ARGS_CHARS).join("\n"), CELL_CHARS),
        ));
        out.push_str(&cell(
            "Why",
            "pre",
            &text(c.why.as_deref().unwrap_or(""), CELL_CHARS),
        ));
        let details = m.case_details(c, false);
        let details = if details.is_empty() {
            String::new()
        } else {
            let items: Vec<String> = details
                .iter()
                .map(|d| format!("<li>{}</li>", text(d, CELL_CHARS)))
                .collect();
            format!("<ul class=\"lines pre\">{}</ul>", items.concat())
        };
        out.push_str(&cell("Details", "", &details));
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
}

/// Expected → picked pairs of the misses, most frequent first.
fn confusion_table(out: &mut String, m: &ModelEval) {
    out.push_str("<h4>Confusion pairs</h4>\n<div class=\"table-wrap\"><table class=\"cards confusion\"><thead><tr><th scope=\"col\">Expected</th><th scope=\"col\">Picked</th><th scope=\"col\" class=\"num\">Times</th><th scope=\"col\">Cases</th></tr></thead>\n<tbody>\n");
    for p in m.confusion.iter().take(CONFUSION_SHOWN) {
        out.push_str(&format!(
            "<tr class=\"fail\" data-status=\"miss\"><th scope=\"row\">{}</th>{}{}{}</tr>\n",
            one_line(&p.expected, NAME_CHARS),
            cell("Picked", "", &one_line(&p.picked, NAME_CHARS)),
            cell("Times", "num", &p.count.to_string()),
            cell("Cases", "", &text(&p.cases.join(", "), CELL_CHARS))
        ));
    }
    out.push_str(TABLE_CLOSE);
    if m.confusion.len() > CONFUSION_SHOWN {
        let more = m.confusion.len() - CONFUSION_SHOWN;
        out.push_str(&format!(
            "<p class=\"sub\">… {more} more pair{}</p>\n",
            plural(more)
        ));
    }
}

/// The miss-rate trend: a line and a small bar chart per model, then the warnings.
fn history_block(out: &mut String, h: &HistoryTrend, passing: bool) {
    out.push_str(&format!(
        "<h4>Miss-rate history <span class=\"sub\"><code>{}</code></span></h4>\n",
        one_line(&h.path, CELL_CHARS)
    ));
    for warning in [h.rising_warning(passing), h.skipped_warning()]
        .into_iter()
        .flatten()
    {
        out.push_str(&format!(
            "<div class=\"alert warn\"><p>{}</p></div>\n",
            text(&warning, CELL_CHARS)
        ));
    }
    let groups = h.by_model();
    let lines = h.lines(" → ");
    for ((_, points), line) in groups.iter().zip(lines) {
        let rising = h.rising && groups.len() == 1;
        out.push_str(&format!(
            "<figure class=\"trend\"><figcaption>{}</figcaption><ol{}>",
            text(&line, CELL_CHARS),
            if rising { " class=\"rising\"" } else { "" }
        ));
        for p in points {
            let height = (p.miss_rate.clamp(0.0, 1.0) * 100.0).round();
            let height = if height.is_finite() { height } else { 0.0 };
            let label = match &p.commit {
                Some(commit) => format!("<span class=\"sub\">{}</span>", one_line(commit, 12)),
                None => String::new(),
            };
            out.push_str(&format!(
                "<li><span>{}</span><span class=\"bar\" style=\"height:{height:.0}%\"></span>{label}</li>",
                pct(p.miss_rate)
            ));
        }
        out.push_str("</ol></figure>\n");
    }
}

// ---- Bench and fuzz ----------------------------------------------------------------------

fn other_section(out: &mut String, phase: &PhaseOverview<'_>, results: Option<&Value>) {
    section_open(out, phase, phase.title);
    if ran(phase) {
        let reason = phase.reason.unwrap_or(phase.status.as_str());
        out.push_str(&format!(
            "<p class=\"pre\">{}</p>\n",
            text(reason, CELL_CHARS)
        ));
    } else {
        out.push_str(&not_run_line(phase));
    }
    if let Some(value) = results {
        let json = serde_json::to_string_pretty(value).unwrap_or_default();
        out.push_str(&details_pre(
            "Results (JSON)",
            &format!("<pre>{}</pre>", text(&json, JSON_CHARS)),
            false,
        ));
        out.push('\n');
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

    /// The page with its stylesheet left out, so a CSS change does not touch every snapshot.
    fn body(report: &RunReport) -> String {
        render(report).replacen(STYLE, "[style]", 1)
    }

    #[test]
    fn snapshots() {
        fixtures::snapshot_settings().bind(|| {
            for (name, report) in fixtures::all() {
                insta::assert_snapshot!(format!("html_{name}"), body(&report));
            }
        });
    }

    #[test]
    fn escaping_covers_text_and_attributes() {
        assert_eq!(
            esc("<a href=\"x\" onload='y'>&</a>"),
            "&lt;a href=&quot;x&quot; onload=&#39;y&#39;&gt;&amp;&lt;/a&gt;"
        );
        assert!(matches!(esc("plain"), Cow::Borrowed(_)));
        assert_eq!(
            text("\x1b[31m<b>red</b>\x1b[0m\u{7}", 100),
            "&lt;b&gt;red&lt;/b&gt;␇"
        );
        assert_eq!(text("abcdef", 4), "abc…");
        assert_eq!(one_line("a\nb\tc", 10), "a b c");
        assert_eq!(last_chars("héllo wörld", 5), "…örld");
        assert_eq!(last_chars("short", 5), "short");
    }

    /// The hostile fixture with more hostile text in the fields it leaves alone.
    fn more_hostile() -> RunReport {
        let mut r = fixtures::hostile();
        r.config_file = Some("cfg\"onload=alert(1) x=\".yaml".into());
        r.inventory = Some(Inventory {
            tools: vec![crate::report::model::ToolSummary {
                name: "cell</td><td>injected".into(),
                title: Some("<style>body{display:none}</style>".into()),
                summary: "x\" onload=\"alert(1)\" ]]> <link rel=stylesheet href=https://evil.example/x.css>".into(),
                annotations: None,
                has_output_schema: true,
            }],
            resources: None,
            prompts: None,
        });
        let t = &mut r.phases.tests.results[0];
        t.tags = vec!["zz</span><script>alert(2)</script>".into()];
        t.text = Some(format!(
            "{} sk-live-123456 \u{1b}[2J",
            "]]>zz</pre><script>x</script>"
        ));
        r.phases.bench = crate::report::model::Phase {
            results: Some(serde_json::json!({"first_error": "<script>b</script> sk-live-123456"})),
            ..crate::report::model::Phase::error("bench said \"onload=<b>x</b>")
        };
        r
    }

    #[test]
    fn hostile_text_never_appears_raw() {
        let out = render(&more_hostile());
        for raw in [
            "<script",
            "<img",
            "<link",
            "<b>",
            "<style>body",
            "\"onload=",
            "onload=\"",
            "cell</td>",
            "]]>",
            "zz</pre>",
            "</testcase>",
            "zz</span>",
            "sk-live-123456",
        ] {
            assert!(!out.contains(raw), "{raw} appears raw");
        }
        assert!(out.contains("***"), "secrets are masked, not dropped");
        assert!(out.contains("cell&lt;/td&gt;&lt;td&gt;injected"));
        assert!(out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(
            !out.chars().any(|c| c.is_control() && c != '\n'),
            "control characters reach the page"
        );
        // The markup stays balanced: hostile text opened or closed nothing.
        for tag in [
            "tr", "td", "th", "table", "pre", "details", "section", "li", "ul",
        ] {
            let opens =
                out.matches(&format!("<{tag}>")).count() + out.matches(&format!("<{tag} ")).count();
            let closes = out.matches(&format!("</{tag}>")).count();
            assert_eq!(opens, closes, "<{tag}> is unbalanced");
        }
        assert_eq!(out.matches("<style>").count(), 1);
    }

    /// The row classes of every `<tbody>` of `html`, in order.
    fn row_classes(html: &str) -> Vec<Vec<String>> {
        html.split("<tbody>")
            .skip(1)
            .map(|body| {
                let body = body.split("</tbody>").next().unwrap_or_default();
                body.split("<tr class=\"")
                    .skip(1)
                    .map(|row| row.split('"').next().unwrap_or_default().to_string())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn failing_rows_come_first_in_every_table() {
        let mut seen_fail_before_pass = 0;
        for (name, report) in fixtures::all() {
            let out = render(&report);
            for classes in row_classes(&out) {
                let first_other = classes.iter().position(|c| c != "fail");
                let last_fail = classes.iter().rposition(|c| c == "fail");
                if let (Some(other), Some(fail)) = (first_other, last_fail) {
                    assert!(
                        fail < other,
                        "{name}: a failing row after another: {classes:?}"
                    );
                    seen_fail_before_pass += 1;
                }
                let first_pass = classes.iter().position(|c| c == "pass");
                let last_warn = classes.iter().rposition(|c| c == "warn");
                if let (Some(pass), Some(warn)) = (first_pass, last_warn) {
                    assert!(
                        warn < pass,
                        "{name}: a warning row after a pass: {classes:?}"
                    );
                }
            }
        }
        assert!(
            seen_fail_before_pass >= 5,
            "the fixtures mix failing and other rows"
        );

        // The failing fixture lists its tests failed, failed, error, not run, then passed,
        // though the YAML has the passing test first.
        let out = render(&fixtures::failing());
        let tests = out
            .split("<section id=\"tests\"")
            .nth(1)
            .unwrap_or_default();
        let order: Vec<usize> = [
            "wrong expectation retried",
            "echo contains and regex",
            "echo crash kills the server",
            "server restarted after crash",
            "add small numbers",
        ]
        .iter()
        .map(|name| tests.find(name).unwrap_or(usize::MAX))
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    }

    /// The row of the phases table that links to `key`.
    fn phase_row<'a>(html: &'a str, key: &str) -> &'a str {
        let phases = html
            .split("<section id=\"phases\">")
            .nth(1)
            .unwrap_or_default();
        phases
            .split("<tr ")
            .map(|row| row.split("</tr>").next().unwrap_or_default())
            .find(|row| row.contains(&format!("href=\"#{key}\"")))
            .unwrap_or_default()
    }

    #[test]
    fn skipped_and_errored_phases_are_never_shown_as_passed() {
        let out = render(&fixtures::all_passed());
        for key in ["bench", "fuzz"] {
            let row = phase_row(&out, key);
            assert!(
                row.starts_with("class=\"skip\" data-status=\"skipped\""),
                "{row}"
            );
            assert!(row.contains(">SKIPPED<") && !row.contains("PASS"), "{row}");
            assert!(row.contains(&format!("skipped: no {key} section in toolproof.yaml")));
            let section = out
                .split(&format!("<section id=\"{key}\""))
                .nth(1)
                .unwrap_or_default();
            assert!(section.starts_with(" data-status=\"skipped\""), "{section}");
        }
        assert!(phase_row(&out, "tests").contains(">PASSED<"));

        let out = render(&fixtures::unreachable());
        for key in ["checks", "tests", "evals"] {
            let row = phase_row(&out, key);
            assert!(
                row.starts_with("class=\"fail\" data-status=\"error\""),
                "{row}"
            );
            assert!(row.contains("could not run: the server could not be reached"));
        }
        assert!(
            !out.contains("PASS"),
            "nothing passed in an unreachable run"
        );
        assert!(!out.contains("class=\"pass\""));
    }

    #[test]
    fn the_connection_error_comes_first() {
        let out = render(&fixtures::unreachable());
        let error = out.find("id=\"connection-error\"").unwrap_or(usize::MAX);
        let phases = out.find("id=\"phases\"").unwrap_or(0);
        assert!(error < phases);
        assert!(
            out.contains("No such file or directory (os error 2)\nhint: check `server.command`")
        );
        assert!(!render(&fixtures::all_passed()).contains("connection-error"));
    }

    #[test]
    fn nothing_is_fetched_from_anywhere() {
        for (name, report) in fixtures::all()
            .into_iter()
            .chain([("more_hostile", more_hostile())])
        {
            let out = render(&report);
            for needle in [
                "<link",
                "<script",
                "url(",
                "@import",
                "<img",
                "<iframe",
                "href=\"http",
                "href=\"//",
            ] {
                assert!(!out.contains(needle), "{name}: {needle}");
            }
            if name != "hostile" && name != "more_hostile" {
                assert!(
                    !out.contains("http://") && !out.contains("https://"),
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn the_page_is_self_contained_and_fits_a_phone() {
        let out = render(&fixtures::failing());
        assert!(out.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
        assert!(out.ends_with("</html>\n"));
        assert!(
            out.contains(
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            )
        );
        assert!(STYLE.contains("@media (prefers-color-scheme:dark)"));
        assert!(STYLE.contains("@media (max-width:640px)"));
        assert!(STYLE.contains("table.cards td[data-label]::before{content:attr(data-label)"));
        assert!(out.contains("<th scope=\"col\">Test</th>"));
        assert!(out.contains("<th scope=\"row\">wrong expectation retried"));
        // Every result row says what it is.
        for row in out.split("<tr class=\"").skip(1) {
            assert!(
                row.split('>')
                    .next()
                    .unwrap_or_default()
                    .contains("data-status=\""),
                "{row}"
            );
        }
    }

    #[test]
    fn two_renders_are_identical() {
        for (name, report) in fixtures::all() {
            assert_eq!(render(&report), render(&report), "{name}");
        }
        let out = render(&fixtures::all_passed());
        assert!(
            out.contains("<time datetime=\"2026-12-01T10:00:00Z\">2026-12-01 10:00:00 UTC</time>")
        );
    }

    #[test]
    fn tests_show_their_evidence() {
        let out = render(&fixtures::failing());
        assert!(out.contains("<li>$.result: expected 3, got 2</li>"));
        assert!(out.contains("<p>after 2 attempts</p>"));
        assert!(out.contains("<details open><summary>Server stderr during the call</summary><pre>Traceback (most recent call last):"));
        assert!(out.contains("<code>toolproof.yaml:30</code>"));
        assert!(out.contains("<tr class=\"skip\" data-status=\"not_run\">"));
        let out = render(&fixtures::all_passed());
        assert!(out.contains("<tr class=\"warn\" data-status=\"flaky\">"));
        assert!(out.contains("flaky: passed on attempt 2"));
    }

    #[test]
    fn huge_strings_are_cut() {
        let mut report = fixtures::failing();
        let huge = "x".repeat(5_000_000);
        report.target = huge.clone();
        report.phases.tests.results[1].text = Some(huge.clone());
        report.phases.tests.results[3].stderr = Some(format!("{huge}\nthe last line\n"));
        if let Some(e) = report.error.as_mut() {
            e.message = huge.clone();
        }
        let out = render(&report);
        assert!(out.len() < 150 * 1024, "{} bytes", out.len());
        assert!(out.contains("Result text (first 5000 characters)"));
        assert!(out.contains("the last line</pre>"), "stderr keeps its end");
    }

    #[test]
    fn evals_show_misses_critical_cases_and_the_trend() {
        let out = render(&fixtures::evals_failing());
        let evals = out
            .split("<section id=\"evals\"")
            .nth(1)
            .unwrap_or_default();
        // The critical miss leads the cases table.
        let first_row = evals.split("<tbody>").nth(1).unwrap_or_default();
        let first_row = first_row.split("</tr>").next().unwrap_or_default();
        assert!(
            first_row.contains("ord-refund <span class=\"tag critical\">critical</span>"),
            "{first_row}"
        );
        assert!(first_row.contains("data-status=\"miss\""));
        assert!(
            evals.contains("<td class=\"pre\" data-label=\"Why\">complaint, not a lookup</td>")
        );
        assert!(evals.contains("<tr class=\"fail\" data-status=\"provider_error\">"));
        assert!(evals.contains("<code>min_wilson_lower</code>"));
        assert!(evals.contains("<h4>Confusion pairs</h4>"));
        assert!(evals.contains("Left out (invalid input schema): search"));
        assert!(evals.contains("Cache: 3 cached, 25 asked, 1 unreadable cache file asked again"));
        assert!(evals.contains("Miss rate over the last 5 runs: 2% → 2% → 3% → 4% → 70% (rising)"));
        assert!(evals.contains("style=\"height:70%\""));
        assert!(evals.contains("the miss rate is rising: 2% → 70% over the last 5 runs"));
    }

    #[test]
    fn a_provider_error_is_prominent_and_no_case_passes() {
        let out = render(&fixtures::evals_abort());
        let evals = out
            .split("<section id=\"evals\"")
            .nth(1)
            .unwrap_or_default();
        assert!(evals.starts_with(" data-status=\"error\""));
        assert!(evals.contains("<div class=\"alert fail provider-error\">\n<h4>The provider could not be used</h4>\n<pre class=\"message\">the provider rejected the request: 401 Unauthorized: Incorrect API key provided\nhint: set OPENAI_API_KEY to a valid key</pre>"));
        assert!(
            !evals.contains("class=\"pass\""),
            "no case counts when the provider failed"
        );
        assert!(phase_row(&out, "evals").contains(
            "the provider could not be used: the provider rejected the request: 401 Unauthorized"
        ));
    }

    #[test]
    fn several_models_failing_first() {
        let out = render(&fixtures::evals_models());
        let evals = out
            .split("<section id=\"evals\"")
            .nth(1)
            .unwrap_or_default();
        let haiku = evals
            .find("<article class=\"model\" id=\"model-2\"")
            .unwrap_or(usize::MAX);
        let sonnet = evals
            .find("<article class=\"model\" id=\"model-1\"")
            .unwrap_or(0);
        assert!(haiku < sonnet, "the failing model comes first");
        assert!(evals.contains("<a href=\"#model-2\">claude-haiku-4-5</a>"));
        assert!(evals.contains("Not in the cache (--offline):</strong> chit"));
        assert!(phase_row(&out, "evals").contains(
            "1 of 2 models failed: claude-sonnet-4-5 100% (3/3) · claude-haiku-4-5 33.3% (1/3)"
        ));
    }
}
