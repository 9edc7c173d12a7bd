//! Tests of the HTML report: snapshots, escaping, ordering, and the evals section.

use super::fixtures;
use crate::outcome::Inventory;
use crate::outcome::RunReport;
use crate::report::html::STYLE;
use crate::report::html::*;

/// The page with its stylesheet left out, so a CSS change does not touch every snapshot.
fn body(report: &RunReport) -> String {
    render(report).replacen(&format!("\n{STYLE}"), "[style]", 1)
}

#[test]
fn snapshots() {
    fixtures::snapshot_settings().bind(|| {
        for (name, report) in fixtures::all() {
            insta::assert_snapshot!(format!("html_{name}"), body(&report));
        }
    });
}

/// The hostile fixture with more hostile text in the fields it leaves alone.
fn more_hostile() -> RunReport {
    let mut r = fixtures::hostile();
    r.config_file = Some("cfg\"onload=alert(1) x=\".yaml".into());
    r.inventory = Some(Inventory {
        tools: vec![crate::outcome::ToolSummary {
            name: "cell</td><td>injected".into(),
            title: Some("<style>body{display:none}</style>".into()),
            summary:
                "x\" onload=\"alert(1)\" ]]> <link rel=stylesheet href=https://evil.example/x.css>"
                    .into(),
            annotations: None,
            has_output_schema: true,
            tokens: None,
            definition: serde_json::Value::Null,
        }],
        resources: None,
        prompts: None,
        errors: Vec::new(),
        tool_list_tokens: None,
    });
    let t = &mut r.phases.tests.results[0];
    t.tags = vec!["zz</span><script>alert(2)</script>".into()];
    t.text = Some(format!(
        "{} sk-live-123456 \u{1b}[2J",
        "]]>zz</pre><script>x</script>"
    ));
    r.phases.bench = crate::outcome::Phase {
        status: crate::outcome::PhaseStatus::Failed,
        reason: None,
        duration_ms: 1.0,
        results: Some(crate::outcome::BenchResults {
            targets: vec![crate::outcome::BenchTargetResult {
                name: "<script>n</script>".into(),
                tool: "<img src=x>".into(),
                failures: vec!["bench said \"onload=<b>x</b>".into()],
                first_error: Some("<script>b</script> sk-live-123456".into()),
                ..Default::default()
            }],
            baseline: None,
        }),
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
        // The badge says SKIPPED; the cell says why, without saying skipped again.
        assert!(
            row.contains(&format!(">no {key} section in toolproof.yaml<")),
            "{row}"
        );
        assert!(!row.to_lowercase().contains("skipped:"), "{row}");
        let section = out
            .split(&format!("<section id=\"{key}\""))
            .nth(1)
            .unwrap_or_default();
        assert!(section.starts_with(" data-status=\"skipped\""), "{section}");
        let section = section.split("</section>").next().unwrap_or_default();
        assert!(
            section.contains(&format!(
                "<p class=\"pre\">No {key} section in toolproof.yaml</p>"
            )),
            "{section}"
        );
    }
    // toolproof's own reasons show their code as code, not as backticks.
    let stress = phase_row(&out, "stress");
    assert!(
        stress.contains(
            ">not asked for: pass --stress or set <code>evals.stress</code> in the config<"
        ),
        "{stress}"
    );
    assert!(!out.contains('`'), "a literal backtick in the page");
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
    assert!(out.contains("No such file or directory (os error 2)\nhint: check `server.command`"));
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
        out.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
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
    assert!(out.contains("<time datetime=\"2026-12-01T10:00:00Z\">2026-12-01 10:00:00 UTC</time>"));
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
    assert!(evals.contains("<td class=\"pre\" data-label=\"Why\">complaint, not a lookup</td>"));
    assert!(evals.contains("<tr class=\"fail\" data-status=\"provider_error\">"));
    assert!(evals.contains("<code>min_wilson_lower</code>"));
    assert!(evals.contains("<h4>Confusion pairs</h4>"));
    assert!(evals.contains("Left out (invalid input schema): search"));
    assert!(evals.contains("Cache: 3 cached, 29 asked (27 answered, 2 failed), 41 requests (12 retries), 1 unreadable cache file asked again"));
    assert!(evals.contains("Miss rate over the last 5 runs: 2% → 2% → 3% → 4% → 75% (rising)"));
    assert!(evals.contains("style=\"height:75%\""));
    assert!(evals.contains("the miss rate is rising: 2% → 75% over the last 5 runs"));
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
    assert!(phase_row(&out, "evals").contains("1 of 2 models failed: claude-sonnet-4-5: 100% accuracy (3/3), minimum 90% · claude-haiku-4-5: 33.3% accuracy (1/3), minimum 90%; 1 case has no cached answer and --offline forbids asking: chit"));
}

#[test]
fn identifiers_break_after_their_underscores_and_dots_not_inside_tags() {
    use crate::report::html::marks::breakable;
    assert_eq!(
        breakable("day_of_week {\"x\": 1.5}"),
        "day_<wbr>of_<wbr>week {\"x\": 1.5}"
    );
    assert_eq!(
        breakable("<code class=\"a_b.c\">admin.tools_list</code> end._"),
        "<code class=\"a_b.c\">admin.<wbr>tools_<wbr>list</code> end._"
    );
    // The evals table of a report holds the picked tools breakable.
    let page = body(&fixtures::evals_failing());
    assert!(
        page.contains("_<wbr>"),
        "no breakable identifier in the evals table"
    );
}
