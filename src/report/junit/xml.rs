//! Writes the JUnit model (quick-junit's types) as XML that the Jenkins xUnit plugin's
//! `junit-10.xsd` accepts; that plugin drops a whole file that does not validate, and every
//! other consumer reads this shape too (it is what pytest writes by default, `xunit2`).
//!
//! quick-junit's own serializer always puts `skipped` (and, when set, `timestamp`) on
//! `<testsuites>`, which the schema forbids, so the report is written here with exactly the
//! attributes and children the schema allows:
//! - `<testsuites name tests failures errors time>`;
//! - `<testsuite name tests failures errors skipped time timestamp>`: `<properties>` first, then
//!   the testcases, then `<system-out>`/`<system-err>`;
//! - `<testcase classname name time>`: at most one of `<skipped>`, `<failure>`, `<error>`
//!   (with `message`, `type` on the last two, and text), then `<system-out>`, `<system-err>`.
//!   Never `<properties>`; `file` and `line` only when asked for (they are outside the schema).
//!
//! Times are seconds with three decimals, the most the schema's time pattern allows.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

/// Four spaces per level, like quick-junit, so the text diffs well.
const INDENT: &str = "    ";

/// The XML text of `report`, with a trailing newline. `file_attrs`: also write the `file` and
/// `line` attributes testcases carry in their `extra` map.
pub(super) fn write(report: &Report, file_attrs: bool) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let mut attrs = Vec::new();
    if let Some(name) = &report.name {
        attrs.push(("name", name.to_string()));
    }
    attrs.extend([
        ("tests", report.tests.to_string()),
        ("failures", report.failures.to_string()),
        ("errors", report.errors.to_string()),
        ("time", seconds(report.time.unwrap_or_default())),
    ]);
    open(
        &mut out,
        0,
        "testsuites",
        &attrs,
        report.test_suites.is_empty(),
    );
    for suite in &report.test_suites {
        write_suite(&mut out, suite, file_attrs);
    }
    if !report.test_suites.is_empty() {
        close(&mut out, 0, "testsuites");
    }
    out
}

fn write_suite(out: &mut String, suite: &TestSuite, file_attrs: bool) {
    let mut attrs = vec![
        ("name", suite.name.to_string()),
        ("tests", suite.tests.to_string()),
        ("failures", suite.failures.to_string()),
        ("errors", suite.errors.to_string()),
        ("skipped", suite.skipped.to_string()),
        ("time", seconds(suite.time.unwrap_or_default())),
    ];
    if let Some(t) = suite.timestamp {
        attrs.push(("timestamp", t.to_rfc3339()));
    }
    let empty = suite.properties.is_empty()
        && suite.test_cases.is_empty()
        && suite.system_out.is_none()
        && suite.system_err.is_none();
    open(out, 1, "testsuite", &attrs, empty);
    if empty {
        return;
    }
    write_properties(out, &suite.properties);
    for case in &suite.test_cases {
        write_case(out, case, file_attrs);
    }
    if let Some(text) = &suite.system_out {
        text_element(out, 2, "system-out", &[], text);
    }
    if let Some(text) = &suite.system_err {
        text_element(out, 2, "system-err", &[], text);
    }
    close(out, 1, "testsuite");
}

fn write_properties(out: &mut String, properties: &[Property]) {
    if properties.is_empty() {
        return;
    }
    open(out, 2, "properties", &[], false);
    for p in properties {
        let attrs = [("name", p.name.to_string()), ("value", p.value.to_string())];
        open(out, 3, "property", &attrs, true);
    }
    close(out, 2, "properties");
}

fn write_case(out: &mut String, case: &TestCase, file_attrs: bool) {
    let mut attrs = Vec::new();
    if let Some(classname) = &case.classname {
        attrs.push(("classname", classname.to_string()));
    }
    attrs.push(("name", case.name.to_string()));
    attrs.push(("time", seconds(case.time.unwrap_or_default())));
    if file_attrs {
        for key in ["file", "line"] {
            if let Some(value) = case.extra.get(key) {
                attrs.push((key, value.to_string()));
            }
        }
    }
    let status = match &case.status {
        TestCaseStatus::Success { .. } => None,
        TestCaseStatus::NonSuccess {
            kind,
            message,
            ty,
            description,
            ..
        } => {
            let tag = match kind {
                NonSuccessKind::Failure => "failure",
                NonSuccessKind::Error => "error",
            };
            Some((tag, message, ty.as_ref(), description))
        }
        TestCaseStatus::Skipped {
            message,
            description,
            ..
        } => Some(("skipped", message, None, description)),
    };
    let empty = status.is_none() && case.system_out.is_none() && case.system_err.is_none();
    open(out, 2, "testcase", &attrs, empty);
    if empty {
        return;
    }
    if let Some((tag, message, ty, description)) = status {
        let mut attrs = Vec::new();
        if let Some(m) = message {
            attrs.push(("message", m.to_string()));
        }
        // `skipped` takes no `type` in the schema's strictest reading; failures and errors do.
        if let Some(t) = ty {
            attrs.push(("type", t.to_string()));
        }
        match description {
            Some(text) => text_element(out, 3, tag, &attrs, text),
            None => open(out, 3, tag, &attrs, true),
        }
    }
    if let Some(text) = &case.system_out {
        text_element(out, 3, "system-out", &[], text);
    }
    if let Some(text) = &case.system_err {
        text_element(out, 3, "system-err", &[], text);
    }
    close(out, 2, "testcase");
}

/// `<name attrs>` (or `<name attrs/>` when `empty`) on a line of its own.
fn open(out: &mut String, depth: usize, name: &str, attrs: &[(&str, String)], empty: bool) {
    out.push_str(&INDENT.repeat(depth));
    out.push('<');
    out.push_str(name);
    for (key, value) in attrs {
        out.push(' ');
        out.push_str(key);
        out.push_str("=\"");
        escape(out, value, true);
        out.push('"');
    }
    out.push_str(if empty { "/>\n" } else { ">\n" });
}

fn close(out: &mut String, depth: usize, name: &str) {
    out.push_str(&INDENT.repeat(depth));
    out.push_str("</");
    out.push_str(name);
    out.push_str(">\n");
}

/// `<name attrs>text</name>`, the text exactly as given (escaped).
fn text_element(out: &mut String, depth: usize, name: &str, attrs: &[(&str, String)], text: &str) {
    open(out, depth, name, attrs, false);
    // `open` ended the line; the text starts right after the tag instead.
    out.pop();
    escape(out, text, false);
    out.push_str("</");
    out.push_str(name);
    out.push_str(">\n");
}

/// Escapes `text` for an attribute value (`attr`) or element text, dropping characters XML 1.0
/// cannot hold. In attributes, line breaks and tabs become character references so a parser
/// gives them back instead of turning them into spaces.
fn escape(out: &mut String, text: &str, attr: bool) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attr => out.push_str("&quot;"),
            '\n' if attr => out.push_str("&#10;"),
            '\t' if attr => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            '\n' | '\t' => out.push(c),
            '\0'..='\x1f' | '\u{fffe}' | '\u{ffff}' => {}
            c => out.push(c),
        }
    }
}

/// Seconds with three decimals: `0.012`.
fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &str, attr: bool) -> String {
        let mut out = String::new();
        escape(&mut out, text, attr);
        out
    }

    #[test]
    fn markup_and_invalid_characters_never_reach_the_xml() {
        assert_eq!(
            escaped("a<b>&\"c\"\n\td\r\u{1}\u{ffff}", true),
            "a&lt;b&gt;&amp;&quot;c&quot;&#10;&#9;d&#13;"
        );
        assert_eq!(escaped("]]> \"x\"\n\ty", false), "]]&gt; \"x\"\n\ty");
    }

    #[test]
    fn times_have_three_decimals() {
        assert_eq!(seconds(Duration::from_micros(12_345)), "0.012");
        assert_eq!(seconds(Duration::ZERO), "0.000");
        assert_eq!(seconds(Duration::from_secs(1234)), "1234.000");
    }
}
