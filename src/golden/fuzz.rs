//! The fuzz phase in every renderer, from one report whose finding is full of hostile text: a
//! tool name with markup and a pipe, an input that closes tags, a detail with terminal escapes
//! and a workflow command. Each format shows the finding, escapes it, and agrees with the exit
//! code.

use serde_json::json;

use super::fixtures;
use crate::outcome::{FuzzFinding, FuzzResults, FuzzTool, Phase, PhaseStatus, RunReport};
use crate::report::{console, html, json as json_report, junit, markdown};

const TOOL: &str = "<script>alert(1)</script>|x";

fn report() -> RunReport {
    let mut r = fixtures::all_passed();
    let finding = FuzzFinding {
        kind: "crash".into(),
        mode: "valid".into(),
        input: json!({"q": "</pre><b>|`x`"}),
        defect: None,
        detail: "no result\u{1b}[31m from the server\n::error::injected".into(),
        stderr: Some("boom <img src=x>".into()),
        found_input: json!({"q": "</pre><b>|`x` and more"}),
        shrink_calls: 3,
        test: "- name: \"fuzz x crash (valid)\"\n  tool: \"x\"\n  args: {}\n  expect:\n    is_error: false\n".into(),
    };
    r.phases.fuzz = Phase {
        status: PhaseStatus::Failed,
        reason: None,
        duration_ms: 12.0,
        results: Some(FuzzResults {
            seed: 7,
            max_examples: 5,
            tools: vec![
                FuzzTool {
                    tool: TOOL.into(),
                    status: "failed".into(),
                    calls: 9,
                    valid_inputs: 5,
                    invalid_inputs: 4,
                    findings: vec![finding],
                    ..FuzzTool::default()
                },
                FuzzTool {
                    tool: "wipe".into(),
                    status: "skipped".into(),
                    skipped: Some("marked destructive".into()),
                    ..FuzzTool::default()
                },
            ],
            warning: None,
        }),
    };
    r.passed = false;
    r.exit_code = 1;
    r
}

#[test]
fn every_renderer_shows_the_finding_escaped() {
    let r = report();
    let text = console::render(
        &r,
        &console::ConsoleOptions {
            color: false,
            width: 120,
        },
    );
    assert!(text.contains("Repeat this run with --seed 7"), "{text}");
    assert!(text.contains("crash (valid)"));
    assert!(text.contains("fuzz: 1 finding in 1 tool"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(!text.contains("\n::error::"), "{text}");
    assert!(
        text.contains("  │ - name: \"fuzz x crash (valid)\""),
        "{text}"
    );

    let page = html::render(&r);
    assert!(
        !page.contains("<script>alert"),
        "markup leaked into the HTML"
    );
    assert!(!page.contains("<img src=x>"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;|x"));
    assert!(page.contains("--seed 7"));

    let md = markdown::render(&r);
    assert!(!md.contains("<script>"), "{md}");
    assert!(md.contains("crash (valid)"), "{md}");
    assert!(
        md.contains("\\|x"),
        "the pipe must not split the cell: {md}"
    );
    assert!(md.contains("1 finding in 1 tool (seed 7)"), "{md}");

    let xml = junit::render(&r);
    let doc = roxmltree::Document::parse(&xml).expect("JUnit parses");
    let suite = doc
        .descendants()
        .find(|n| n.attribute("name") == Some("fuzz"))
        .expect("fuzz suite");
    assert_eq!(suite.attribute("tests"), Some("2"));
    assert_eq!(suite.attribute("failures"), Some("1"));
    assert_eq!(suite.attribute("skipped"), Some("1"));
    let case = suite
        .children()
        .find(|c| c.attribute("name") == Some(TOOL))
        .expect("tool case");
    let failure = case
        .children()
        .find(|c| c.has_tag_name("failure"))
        .expect("failure");
    assert!(failure.text().unwrap_or("").contains("(seed 7)"));

    let back: serde_json::Value = serde_json::from_str(&json_report::render(&r)).expect("JSON");
    let f = &back["phases"]["fuzz"]["results"]["tools"][0]["findings"][0];
    assert_eq!(f["input"], json!({"q": "</pre><b>|`x`"}));
    assert_eq!(back["exit_code"], 1);
}

/// Without a finding, the console table leaves out the Finding and Smallest input columns
/// (empty in every row) and gives their width to why a tool was skipped: at 80 columns a
/// skip reason takes a few lines, not one word a line.
#[test]
fn a_table_without_findings_gives_the_details_the_width() {
    let mut r = report();
    let why = "may be destructive: marked neither readOnlyHint: true nor with a destructiveHint, and MCP counts such a tool as destructive; set fuzz.include_destructive or pass --include-destructive to fuzz it";
    if let Some(results) = r.phases.fuzz.results.as_mut() {
        results.tools = vec![
            FuzzTool {
                tool: "read_query".into(),
                status: "passed".into(),
                calls: 5,
                ..FuzzTool::default()
            },
            FuzzTool {
                tool: "write_query".into(),
                status: "skipped".into(),
                skipped: Some(why.into()),
                ..FuzzTool::default()
            },
        ];
    }
    r.phases.fuzz.status = PhaseStatus::Passed;
    let text = console::render(
        &r,
        &console::ConsoleOptions {
            color: false,
            width: 80,
        },
    );
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Fuzz:"))
        .skip_while(|l| !l.contains("│ Tool"))
        .take_while(|l| !l.starts_with('└'))
        .collect();
    assert!(!table.is_empty(), "{text}");
    assert!(
        !table[0].contains("Finding") && !table[0].contains("Smallest input"),
        "{text}"
    );
    assert!(table[0].contains("Details"), "{text}");
    let skip_lines = table
        .iter()
        .skip_while(|l| !l.contains("write_query"))
        .count();
    assert!(
        skip_lines <= 5,
        "the reason takes {skip_lines} lines:\n{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
}
