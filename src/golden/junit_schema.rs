//! The JUnit report against the rules of `tests/fixtures/junit/junit-jenkins.xsd` (the Jenkins
//! xUnit plugin's schema, which drops a file that breaks it), for every fixture, with and
//! without `file`/`line`. Plain `cargo test` checks the rules here with a small tag walker;
//! with the `interop` feature the same files also go through the XSD itself (Python
//! `xmlschema`) and junitparser.

use regex::Regex;

use super::fixtures;
use crate::report::junit::*;
use crate::report::places::Places;

/// What one element may carry: its attributes (required ones first, `required` of them), its
/// children in the order they must come (`None`: no element children), and which children may
/// appear only once.
struct Rule {
    attrs: &'static [&'static str],
    required: usize,
    children: Option<&'static [&'static [&'static str]]>,
    once: &'static [&'static str],
}

fn rule(name: &str) -> Option<Rule> {
    let leaf = |attrs, required| Rule {
        attrs,
        required,
        children: None,
        once: &[],
    };
    Some(match name {
        "testsuites" => Rule {
            attrs: &["name", "tests", "failures", "errors", "time"],
            required: 0,
            children: Some(&[&["testsuite"]]),
            once: &[],
        },
        "testsuite" => Rule {
            attrs: &[
                "name",
                "tests",
                "failures",
                "errors",
                "skipped",
                "time",
                "timestamp",
                "hostname",
                "id",
                "package",
            ],
            required: 4,
            children: Some(&[
                &["properties"],
                &["testcase"],
                &["system-out"],
                &["system-err"],
            ]),
            once: &["properties", "system-out", "system-err"],
        },
        "properties" => Rule {
            attrs: &[],
            required: 0,
            children: Some(&[&["property"]]),
            once: &[],
        },
        "property" => leaf(&["name", "value"], 2),
        "testcase" => Rule {
            attrs: &["name", "classname", "time"],
            required: 1,
            children: Some(&[
                &["skipped", "failure", "error"],
                &["system-out"],
                &["system-err"],
            ]),
            once: &["skipped", "failure", "error", "system-out", "system-err"],
        },
        "failure" | "error" => leaf(&["message", "type"], 0),
        "skipped" => leaf(&["message"], 0),
        "system-out" | "system-err" => leaf(&[], 0),
        _ => return None,
    })
}

/// An open element: its name, its rule, the position of its last child's group, and the
/// children seen so far.
struct Open {
    name: String,
    rule: Rule,
    group: usize,
    seen: Vec<String>,
}

/// Every way `xml` breaks the rules; `file_attrs`: testcases may also carry `file` and `line`.
fn problems(xml: &str, file_attrs: bool) -> Vec<String> {
    let tag = Regex::new(r#"<(/?)([A-Za-z][\w-]*)((?:\s+[\w-]+="[^"]*")*)\s*(/?)>"#).ok();
    let attr = Regex::new(r#"([\w-]+)="([^"]*)""#).ok();
    let seconds = Regex::new(r"^[0-9]+(\.[0-9]{1,3})?$").ok();
    let (Some(tag), Some(attr), Some(seconds)) = (tag, attr, seconds) else {
        return vec!["bad pattern".into()];
    };
    let mut out = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut roots = 0;
    for t in tag.captures_iter(xml) {
        let name = &t[2];
        if &t[1] == "/" {
            if stack.pop().map(|o| o.name).as_deref() != Some(name) {
                out.push(format!("</{name}> closes nothing open"));
            }
            continue;
        }
        let Some(rule) = rule(name) else {
            out.push(format!("<{name}> is not in the schema"));
            continue;
        };
        let attrs: Vec<(String, String)> = attr
            .captures_iter(&t[3])
            .map(|a| (a[1].to_string(), a[2].to_string()))
            .collect();
        for (key, value) in &attrs {
            let extra = file_attrs && name == "testcase" && (key == "file" || key == "line");
            if !rule.attrs.contains(&key.as_str()) && !extra {
                out.push(format!("<{name}> may not carry `{key}`"));
            }
            if key == "time" && !seconds.is_match(value) {
                out.push(format!("<{name} time=\"{value}\"> is not seconds"));
            }
        }
        for needed in &rule.attrs[..rule.required] {
            if !attrs.iter().any(|(k, _)| k == needed) {
                out.push(format!("<{name}> lacks `{needed}`"));
            }
        }
        match stack.last_mut() {
            None => {
                roots += 1;
                if name != "testsuites" {
                    out.push(format!("the root is <{name}>"));
                }
            }
            Some(parent) => out.extend(child_problem(parent, name)),
        }
        if t[4].is_empty() {
            stack.push(Open {
                name: name.to_string(),
                rule,
                group: 0,
                seen: Vec::new(),
            });
        }
    }
    if roots != 1 || !stack.is_empty() {
        out.push(format!("{roots} roots, {} elements left open", stack.len()));
    }
    out
}

/// Whether `name` may come next inside `parent`; records it.
fn child_problem(parent: &mut Open, name: &str) -> Option<String> {
    let place = format!("<{name}> inside <{}>", parent.name);
    let Some(groups) = parent.rule.children else {
        return Some(format!("{place}: no elements allowed"));
    };
    let Some(group) = groups.iter().position(|g| g.contains(&name)) else {
        return Some(format!("{place}: not allowed"));
    };
    if group < parent.group {
        return Some(format!("{place}: out of order"));
    }
    let again = parent.rule.once.contains(&name)
        && parent
            .seen
            .iter()
            .any(|s| groups[group].contains(&s.as_str()));
    parent.group = group;
    parent.seen.push(name.to_string());
    again.then(|| format!("{place}: more than one"))
}

fn with_file_attrs() -> JunitOptions {
    JunitOptions {
        file_attrs: true,
        places: Places::default(),
    }
}

#[test]
fn every_fixture_keeps_to_the_schema_with_and_without_file_attributes() {
    for (name, report) in fixtures::all() {
        let plain = render(&report);
        assert_eq!(
            problems(&plain, false),
            Vec::<String>::new(),
            "{name}\n{plain}"
        );
        let located = render_with(&report, &with_file_attrs());
        assert_eq!(problems(&located, true), Vec::<String>::new(), "{name}");
        assert!(
            !plain.contains(" file=\"") && !plain.contains(" line=\""),
            "{name}"
        );
    }
}

#[test]
fn the_checker_catches_what_jenkins_rejects() {
    let broken = [
        (
            "<testsuites skipped=\"0\"></testsuites>",
            "may not carry `skipped`",
        ),
        (
            "<testsuites timestamp=\"x\"></testsuites>",
            "may not carry `timestamp`",
        ),
        (
            "<testsuites><testsuite name=\"s\" tests=\"1\" failures=\"0\" errors=\"0\"><testcase name=\"c\" file=\"a\" line=\"1\"/></testsuite></testsuites>",
            "may not carry `file`",
        ),
        (
            "<testsuites><testsuite name=\"s\" tests=\"1\" failures=\"0\" errors=\"0\"><testcase name=\"c\"><properties></properties></testcase></testsuite></testsuites>",
            "<properties> inside <testcase>: not allowed",
        ),
        (
            "<testsuites><testsuite name=\"s\" tests=\"1\"></testsuite></testsuites>",
            "lacks `failures`",
        ),
        (
            "<testsuites><testsuite name=\"s\" tests=\"1\" failures=\"0\" errors=\"0\"><testcase name=\"c\"/><properties></properties></testsuite></testsuites>",
            "out of order",
        ),
        (
            "<testsuites time=\"0.0123\"></testsuites>",
            "is not seconds",
        ),
    ];
    for (xml, want) in broken {
        let found = problems(xml, false);
        assert!(found.iter().any(|p| p.contains(want)), "{xml}: {found:?}");
    }
}

#[test]
fn file_attributes_are_the_only_difference() {
    let attrs = Regex::new(r#" file="[^"]*"( line="[0-9]+")?"#).ok();
    for (name, report) in fixtures::all() {
        let located = render_with(&report, &with_file_attrs());
        let stripped = attrs
            .as_ref()
            .map(|a| a.replace_all(&located, "").into_owned());
        assert_eq!(stripped, Some(render(&report)), "{name}");
    }
    let located = render_with(&fixtures::failing(), &with_file_attrs());
    assert!(located.contains(
        "<testcase classname=\"toolproof.tests.add\" name=\"wrong expectation retried\" time=\"0.012\" file=\"toolproof.yaml\" line=\"30\">"
    ), "{located}");
}

/// With the interop tools installed (`scripts/test.sh`), every fixture's XML goes through the
/// XSD (Python `xmlschema`) and junitparser, as written and with `file`/`line`.
#[cfg(feature = "interop")]
#[test]
fn every_fixture_passes_the_xsd_and_junitparser() {
    let interop = std::env::var_os("TOOLPROOF_INTEROP_DIR").map(std::path::PathBuf::from);
    let Some(interop) = interop else {
        panic!("TOOLPROOF_INTEROP_DIR is not set: run the interop tests through scripts/test.sh");
    };
    let dir = std::env::temp_dir().join(format!("toolproof-junit-xsd-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::create_dir_all(&dir);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut args = vec![
        root.join("tests/junit_check.py").display().to_string(),
        root.join("tests/fixtures/junit/junit-jenkins.xsd")
            .display()
            .to_string(),
    ];
    for (flag, options) in [
        ("--plain", JunitOptions::default()),
        ("--file-attrs", with_file_attrs()),
    ] {
        args.push(flag.to_string());
        for (name, report) in fixtures::all() {
            let path = dir.join(format!("{name}{flag}.xml"));
            std::fs::write(&path, render_with(&report, &options)).ok();
            args.push(path.display().to_string());
        }
    }
    let out = std::process::Command::new(interop.join("py-junit/bin/python"))
        .args(&args)
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let out = out.map(|o| {
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.success(), text)
    });
    let (ok, text) = out.unwrap_or_else(|e| (false, e.to_string()));
    assert!(ok, "{text}");
    assert!(
        text.contains(&format!("ok: {} files", 2 * fixtures::all().len())),
        "{text}"
    );
}
