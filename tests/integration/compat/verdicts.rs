//! Both JSON report shapes reduced to one map of (kind, name) → verdict: `check` findings
//! (`tool check` → severity), `test` results and eval `case`s (pass/fail), the `evals` and
//! `bench`/`fuzz` verdicts, and a connection `error`.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

/// (kind, name) → verdict; a name seen twice keeps both verdicts, joined with `+`.
pub type Verdicts = BTreeMap<(String, String), String>;

/// One verdict that is not the same in both reports.
#[derive(Debug)]
pub struct Difference {
    /// `exit`, `report`, `check`, `test`, `case`, `evals`, `bench`, `fuzz`, `error`.
    pub kind: String,
    /// What it is about.
    pub name: String,
    /// The reference's verdict (`None`: it has no such entry).
    pub reference: Option<String>,
    /// toolproof's verdict.
    pub toolproof: Option<String>,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |v: &Option<String>| v.clone().unwrap_or_else(|| "(none)".into());
        write!(
            f,
            "{} `{}`: reference {}, toolproof {}",
            self.kind,
            self.name,
            side(&self.reference),
            side(&self.toolproof)
        )
    }
}

fn add(map: &mut Verdicts, kind: &str, name: &str, verdict: &str) {
    map.entry((kind.to_owned(), name.to_owned()))
        .and_modify(|v| {
            v.push('+');
            v.push_str(verdict);
        })
        .or_insert_with(|| verdict.to_owned());
}

fn pass(ok: bool) -> &'static str {
    if ok { "pass" } else { "fail" }
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

fn items(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

/// The verdicts of an mcp-toolproof 0.3.1 JSON report (`run`/`eval --json`, or the
/// `inspect --json` listing).
pub fn reference(report: &Value) -> Verdicts {
    let mut map = Verdicts::new();
    if !report["error"].is_null() {
        add(&mut map, "error", "connect", "error");
    }
    for c in items(&report["checks"]) {
        let name = format!("{} {}", text(&c["tool"]), text(&c["check"]));
        add(&mut map, "check", &name, text(&c["severity"]));
    }
    for t in items(&report["tests"]) {
        add(
            &mut map,
            "test",
            text(&t["name"]),
            pass(t["passed"] == true),
        );
    }
    let evals = &report["evals"];
    if evals.is_object() {
        add(&mut map, "evals", "phase", pass(evals["passed"] == true));
        let asked = format!("{}/{}", text(&evals["provider"]), text(&evals["model"]));
        add(&mut map, "evals", "provider/model", &asked);
        for c in items(&evals["cases"]) {
            let name = c["name"].as_str().unwrap_or_else(|| text(&c["prompt"]));
            add(&mut map, "case", name, pass(c["passed"] == true));
        }
    }
    for b in items(&report["bench"]) {
        add(
            &mut map,
            "bench",
            text(&b["name"]),
            pass(b["passed"] == true),
        );
    }
    for t in items(&report["fuzz"]["tools"]) {
        let verdict = if t["skipped"].is_string() {
            "skip"
        } else {
            pass(t["passed"] == true)
        };
        add(&mut map, "fuzz", text(&t["tool"]), verdict);
    }
    map
}

/// The verdicts of a toolproof JSON report (schema version 1).
pub fn toolproof(report: &Value) -> Verdicts {
    let mut map = Verdicts::new();
    if !report["error"].is_null() {
        add(&mut map, "error", "connect", "error");
    }
    let phases = &report["phases"];
    for c in items(&phases["checks"]["results"]["findings"]) {
        let name = format!("{} {}", text(&c["tool"]), text(&c["check"]));
        add(&mut map, "check", &name, text(&c["severity"]));
    }
    for t in items(&phases["tests"]["results"]) {
        let ok = matches!(text(&t["status"]), "passed" | "flaky");
        add(&mut map, "test", text(&t["name"]), pass(ok));
    }
    let evals = &phases["evals"];
    if matches!(text(&evals["status"]), "passed" | "failed" | "error") {
        add(
            &mut map,
            "evals",
            "phase",
            pass(evals["status"] == "passed"),
        );
        let first = &evals["results"]["models"][0];
        let asked = format!(
            "{}/{}",
            text(&evals["results"]["provider"]),
            text(&first["model"])
        );
        add(&mut map, "evals", "provider/model", &asked);
        for c in items(&first["cases"]) {
            add(
                &mut map,
                "case",
                text(&c["name"]),
                pass(c["status"] == "correct"),
            );
        }
    }
    for b in items(&phases["bench"]["results"]["targets"]) {
        add(
            &mut map,
            "bench",
            text(&b["name"]),
            pass(b["passed"] == true),
        );
    }
    map
}

/// What differs between the two: a missing report is one difference (`report`), else every
/// (kind, name) whose verdict is not the same.
pub fn differences(reference: Option<&Verdicts>, toolproof: Option<&Verdicts>) -> Vec<Difference> {
    let (Some(r), Some(t)) = (reference, toolproof) else {
        if reference.is_none() && toolproof.is_none() {
            return Vec::new();
        }
        let written =
            |v: Option<&Verdicts>| Some(if v.is_some() { "written" } else { "none" }.to_owned());
        return vec![Difference {
            kind: "report".into(),
            name: "json".into(),
            reference: written(reference),
            toolproof: written(toolproof),
        }];
    };
    let mut keys: Vec<&(String, String)> = r.keys().chain(t.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| r.get(*k) != t.get(*k))
        .map(|k| Difference {
            kind: k.0.clone(),
            name: k.1.clone(),
            reference: r.get(k).cloned(),
            toolproof: t.get(k).cloned(),
        })
        .collect()
}

/// The members of the reference's JSON report that toolproof's keeps beside its own.
pub const MEMBERS: [&str; 7] = [
    "duration_s",
    "checks",
    "tests",
    "bench",
    "fuzz",
    "evals",
    "summary",
];

/// Where toolproof's copies of the reference's [`MEMBERS`] do not have the shape of the
/// reference's: a key one has and the other lacks, or a value of another JSON type (`null`
/// stands for any type; values a model, a user or the fuzzer chose are not compared inside).
pub fn member_shapes(reference: &Value, toolproof: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    for key in MEMBERS {
        match (reference.get(key), toolproof.get(key)) {
            (Some(r), Some(t)) => shape(key, r, t, &mut out),
            (r, t) => out.push(Difference {
                kind: "shape".into(),
                name: key.into(),
                reference: r.map(|_| "present".into()),
                toolproof: t.map(|_| "present".into()),
            }),
        }
    }
    out
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn shape(path: &str, r: &Value, t: &Value, out: &mut Vec<Difference>) {
    let opaque = ["expect_args", "picked_args", "input"];
    if r.is_null() || t.is_null() || opaque.iter().any(|k| path.ends_with(&format!(".{k}"))) {
        return;
    }
    let differ = |out: &mut Vec<Difference>, name: String, r: Option<&str>, t: Option<&str>| {
        out.push(Difference {
            kind: "shape".into(),
            name,
            reference: r.map(str::to_owned),
            toolproof: t.map(str::to_owned),
        });
    };
    match (r, t) {
        (Value::Object(r), Value::Object(t)) => {
            for (k, rv) in r {
                let at = format!("{path}.{k}");
                match t.get(k) {
                    Some(tv) => shape(&at, rv, tv, out),
                    None => differ(out, at, Some(json_type(rv)), None),
                }
            }
            for (k, tv) in t {
                if !r.contains_key(k) {
                    differ(out, format!("{path}.{k}"), None, Some(json_type(tv)));
                }
            }
        }
        (Value::Array(r), Value::Array(t)) => {
            if let (Some(r), Some(t)) = (r.first(), t.first()) {
                shape(&format!("{path}[]"), r, t, out);
            }
        }
        _ if json_type(r) != json_type(t) => {
            differ(out, path.to_owned(), Some(json_type(r)), Some(json_type(t)));
        }
        _ => {}
    }
}

/// Where the reference's members of toolproof's report tell another verdict than toolproof's
/// own members of the same report (fuzz aside: toolproof's reader does not read it).
pub fn members_agree(toolproof_report: &Value) -> Vec<Difference> {
    let mut as_reference = reference(toolproof_report);
    as_reference.retain(|(kind, _), _| kind != "fuzz");
    differences(Some(&toolproof(toolproof_report)), Some(&as_reference))
        .into_iter()
        .map(|d| Difference {
            kind: "members".into(),
            name: format!("{} {}", d.kind, d.name),
            reference: d.reference.map(|v| format!("{v} (phases)")),
            toolproof: d.toolproof.map(|v| format!("{v} (reference members)")),
        })
        .collect()
}
