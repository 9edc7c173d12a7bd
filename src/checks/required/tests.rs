//! Tests of `required-fields`: one pair per rule, a schema that is flagged and one that is not,
//! most of them shaped after tools of the real-server corpus (`tests/corpus/`).

use serde_json::{Value, json};

use super::super::tests::{good, of};
use super::super::{ARGUMENT_DESCRIPTION, REQUIRED_FIELDS};
use crate::outcome::Severity;

/// The `required-fields` findings of a tool named `name` with this description and input
/// schema, as `(severity, message)`.
fn findings(name: &str, description: &str, schema: Value) -> Vec<(Severity, String)> {
    let mut raw = good(name);
    raw["description"] = json!(description);
    raw["inputSchema"] = schema;
    of(REQUIRED_FIELDS, vec![raw])
        .into_iter()
        .map(|(_, s, m)| (s, m))
        .collect()
}

/// An object schema with these properties and nothing required.
fn props(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

fn warns(got: &[(Severity, String)]) -> bool {
    got.len() == 1 && got[0].0 == Severity::Warning
}

const NOTHING: &str = "input schema has properties but none are marked required";

#[test]
fn required_names_missing_from_properties_are_an_error() {
    let got = findings(
        "t",
        "Looks things up",
        json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a", "b", "c"]
        }),
    );
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, Severity::Error);
    assert!(
        got[0]
            .1
            .starts_with("required fields not listed in properties: \"b\", \"c\";")
    );
    let declared_in_branches = json!({
        "type": "object",
        "allOf": [{"properties": {"a": {"type": "string"}}}, {"$ref": "#/$defs/more"}],
        "$defs": {"more": {"properties": {"b": {"type": "string"}}}},
        "required": ["a", "b"]
    });
    assert!(findings("t", "Looks things up", declared_in_branches).is_empty());
}

#[test]
fn an_argument_nothing_marks_optional_is_flagged_and_an_empty_schema_is_not() {
    let got = findings(
        "fetch",
        "Fetches a page",
        props(json!({"url": {"type": "string"}})),
    );
    assert!(warns(&got), "{got:?}");
    assert!(got[0].1.starts_with(NOTHING), "{got:?}");
    let empty = json!({"type": "object", "additionalProperties": false});
    assert!(findings("ping", "Pings", empty).is_empty());
}

#[test]
fn arguments_with_defaults_are_optional() {
    // git-mcp-server's git_status: every argument has a default.
    let all = props(json!({
        "path": {"type": "string", "default": "."},
        "includeUntracked": {"type": "boolean", "default": true}
    }));
    assert!(findings("git_status", "Show the working tree status", all).is_empty());
    let one_without = props(json!({
        "path": {"type": "string", "default": "."},
        "message": {"type": "string", "description": "The commit message"}
    }));
    assert!(warns(&findings(
        "git_commit",
        "Record changes",
        one_without
    )));
}

#[test]
fn arguments_that_accept_null_are_optional() {
    // playwright-mcp's browser_emulate_media: every feature may be null.
    let nullable = props(json!({
        "colorScheme": {"anyOf": [{"type": "string", "enum": ["light", "dark"]}, {"type": "null"}]},
        "media": {"type": ["string", "null"]},
        "contrast": {"type": "string", "nullable": true}
    }));
    assert!(findings("browser_emulate_media", "Emulate media", nullable).is_empty());
    let not_nullable = props(json!({"colorScheme": {"type": "string", "enum": ["light", "dark"]}}));
    assert!(warns(&findings(
        "browser_emulate_media",
        "Emulate media",
        not_nullable
    )));
}

#[test]
fn descriptions_that_say_optional_make_an_argument_optional() {
    // kubernetes-mcp-server and playwright-mcp descriptions.
    for text in [
        "Optional Kubernetes field selector to filter events by field values",
        "Return a minified version of the configuration. (Optional, default true)",
        "The absolute paths to the files to upload. If omitted, file chooser is cancelled.",
        "Namespace to read from. If not provided, will list events from all namespaces",
        "Remote name (default: origin).",
        "Branch to push to, unless the upstream is set",
    ] {
        let schema = props(json!({"arg": {"type": "string", "description": text}}));
        assert!(findings("t", "A tool", schema).is_empty(), "{text}");
    }
    let silent = props(json!({"arg": {"type": "string", "description": "Name of the pod"}}));
    assert!(warns(&findings("t", "A tool", silent)));
}

#[test]
fn arguments_tied_to_one_case_or_mode_are_optional() {
    // ea-playwright's playwright_resize and git-mcp-server's git_branch.
    let tied = props(json!({
        "width": {"type": "number", "description": "Viewport width in pixels (for manual resize without device preset)"},
        "orientation": {"type": "string", "description": "Device orientation (only applies when using device preset)"},
        "branchName": {"type": "string", "description": "Branch name for create/delete/rename operations."},
        "upstream": {"type": "string", "description": "Upstream branch to rebase onto (required for start mode)."}
    }));
    assert!(findings("t", "A tool", tied).is_empty());
    let untied = props(json!({
        "width": {"type": "number", "description": "Viewport width in pixels"}
    }));
    assert!(warns(&findings("t", "A tool", untied)));
}

#[test]
fn filters_sorting_paging_and_limits_are_optional() {
    let narrowing = props(json!({
        "apiGroup": {"type": "string", "description": "API group to filter by"},
        "selector": {"type": "string", "description": "CSS selector to limit the HTML to a specific container"},
        "namespaced": {"type": "boolean", "description": "If true, only show namespaced resources"},
        "count": {"type": "number", "description": "Maximum number of logs to return"},
        "page_size": {"type": "integer"},
        "sort": {},
        "maxResults": {"type": "integer"},
        "since": {"type": "string", "description": "Show commits more recent than a date"}
    }));
    assert!(findings("describe", "Describes things", narrowing).is_empty());
    let plain = props(json!({"query": {"type": "string", "description": "The text to look for"}}));
    assert!(warns(&findings("describe", "Describes things", plain)));
}

#[test]
fn a_listing_or_snapshot_tool_takes_only_filters() {
    // playwright-mcp's browser_snapshot and mcp-server-kubernetes' list_api_resources.
    let args = props(json!({
        "target": {"type": "string", "description": "Exact target element reference"},
        "boxes": {"type": "boolean", "description": "Include each element's bounding box"}
    }));
    for name in [
        "browser_snapshot",
        "list_api_resources",
        "git_log",
        "listWorkbooks",
    ] {
        assert!(findings(name, "A tool", args.clone()).is_empty(), "{name}");
    }
    assert!(warns(&findings("browser_click", "A tool", args)));
}

#[test]
fn a_mode_selector_with_a_default_decides_a_call_without_arguments() {
    // git-mcp-server's git_tag: `mode` defaults to `list`; the message is for `create`.
    let with_default = props(json!({
        "mode": {"type": "string", "enum": ["list", "create", "delete"], "default": "list"},
        "message": {"type": "string", "description": "Tag message"}
    }));
    assert!(findings("git_tag", "Manage tags", with_default).is_empty());
    let without_default = props(json!({
        "mode": {"type": "string", "enum": ["list", "create", "delete"]},
        "message": {"type": "string", "description": "Tag message"}
    }));
    assert!(warns(&findings("git_tag", "Manage tags", without_default)));
}

#[test]
fn needs_stated_outside_the_root_required_are_enough() {
    let base = |extra: Value| {
        let mut schema = props(json!({"a": {"type": "string"}, "b": {"type": "string"}}));
        if let (Some(s), Some(e)) = (schema.as_object_mut(), extra.as_object()) {
            s.extend(e.clone());
        }
        schema
    };
    for extra in [
        json!({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}),
        json!({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}),
        json!({"if": {"properties": {"a": {"const": "x"}}}, "then": {"required": ["b"]}}),
        json!({"minProperties": 1}),
    ] {
        assert!(
            findings("t", "A tool", base(extra.clone())).is_empty(),
            "{extra}"
        );
    }
    assert!(warns(&findings(
        "t",
        "A tool",
        base(json!({"anyOf": [{"maxLength": 3}]}))
    )));
}

#[test]
fn alternatives_in_descriptions_get_an_any_of_hint() {
    // mcp-server-kubernetes' kubectl_apply: optional each, but one of the two is needed.
    let mut raw = good("kubectl_apply");
    raw["description"] = json!("Apply a Kubernetes YAML manifest from a string or file");
    raw["inputSchema"] = props(json!({
        "manifest": {"type": "string", "description": "YAML manifest to apply"},
        "filename": {"type": "string", "description": "Path to a YAML file to apply (optional - use either manifest or filename)"},
        "namespace": {"type": "string", "default": "default"}
    }));
    let found: Vec<_> = super::super::tests::findings(vec![raw])
        .into_iter()
        .filter(|f| f.check != ARGUMENT_DESCRIPTION)
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    assert_eq!(
        (f.check.as_str(), f.severity),
        (REQUIRED_FIELDS, Severity::Warning)
    );
    assert_eq!(
        f.message,
        "input schema marks nothing required, but its descriptions offer \"manifest\" or \
         \"filename\" as alternatives; a model may send none of them"
    );
    let hint = f.hint.as_deref().unwrap_or_default();
    assert!(
        hint.starts_with(
            "state it as \"anyOf\": [{\"required\": [\"manifest\"]}, {\"required\": [\"filename\"]}]"
        ),
        "{hint}"
    );
    // Without an alternative word the two arguments are just two arguments.
    let plain = props(json!({
        "manifest": {"type": "string", "description": "YAML manifest to apply"},
        "filename": {"type": "string", "description": "Path to a YAML file with the manifest"}
    }));
    let got = findings("kubectl_apply", "Apply a manifest", plain);
    assert!(warns(&got) && got[0].1.starts_with(NOTHING), "{got:?}");
}

#[test]
fn alternatives_in_the_tool_description_count_too() {
    // playwright-mcp's browser_run_code_unsafe says it in one argument; a tool may say it once.
    let schema = props(json!({
        "code": {"type": "string", "description": "A JavaScript function"},
        "file": {"type": "string", "description": "A file to load code from"}
    }));
    let got = findings(
        "run_code",
        "Runs either code or the code in a file.",
        schema.clone(),
    );
    assert!(
        warns(&got) && got[0].1.contains("\"code\" or \"file\""),
        "{got:?}"
    );
    let got = findings("run_code", "Runs code.", schema);
    assert!(warns(&got) && got[0].1.starts_with(NOTHING), "{got:?}");
}

#[test]
fn alternatives_with_a_default_or_for_one_mode_are_not_offered() {
    // git-mcp-server's git_worktree: `branch` or `commitish`, but only for the add operation.
    let for_one_mode = props(json!({
        "mode": {"type": "string", "default": "list"},
        "branch": {"type": "string", "description": "For add operation: create a new branch. Use `commitish` instead to check out an existing one."},
        "commitish": {"type": "string", "description": "For add operation: check out this commit."}
    }));
    assert!(findings("git_worktree", "Manage worktrees", for_one_mode).is_empty());
    let defaulted = props(json!({
        "remote": {"type": "string", "default": "origin", "description": "Remote, or use url instead"},
        "url": {"type": "string", "description": "Remote URL (optional)"}
    }));
    assert!(findings("git_fetch", "Fetch", defaulted).is_empty());
}

#[test]
fn sentences_and_mentions_follow_word_boundaries() {
    let s: Vec<&str> = super::sentences("one. two; three\nfour e.g.x").collect();
    assert_eq!(s, ["one.", " two;", " three\n", "four e.g.x"]);
    assert!(super::mentions("use 'manifest' instead", "manifest"));
    assert!(!super::mentions("use manifests instead", "manifest"));
    assert!(!super::mentions("a text_gone value", "text"));
    assert!(!super::mentions("x y", "x"));
}

/// The `anyOf` a hint suggests accepts every call the tool takes now: mcp-server-kubernetes'
/// kubectl_delete offers `manifest` or `filename`, and deletes by `resourceType` and `name` or
/// `labelSelector` too, which an `anyOf` of the two alternatives alone would refuse.
#[test]
fn the_any_of_a_hint_suggests_accepts_every_call_the_tool_takes() {
    let mut raw = good("kubectl_delete");
    raw["description"] = json!(
        "Delete Kubernetes resources by resource type, name, labels, or from a manifest file"
    );
    let schema = props(json!({
        "resourceType": {"type": "string", "description": "Type of resource to delete (e.g., pods, deployments, services, etc.)"},
        "name": {"type": "string", "description": "Name of the resource to delete"},
        "namespace": {"type": "string", "description": "Kubernetes namespace", "default": "default"},
        "labelSelector": {"type": "string", "description": "Delete resources matching this label selector (e.g. 'app=nginx')"},
        "manifest": {"type": "string", "description": "YAML manifest defining resources to delete (optional)"},
        "filename": {"type": "string", "description": "Path to a YAML file to delete resources from (optional). The path is read on the machine running the MCP server, so it is rejected when the server runs over a remote (SSE/Streamable HTTP) transport; use 'manifest' to pass the file's contents instead."},
        "allNamespaces": {"type": "boolean", "default": false},
        "force": {"type": "boolean", "default": false},
        "gracePeriodSeconds": {"type": "number", "description": "Period of time in seconds given to the resource to terminate gracefully"},
        "context": {"type": "string", "description": "Kubeconfig Context to use for the command (optional - defaults to null)", "default": ""}
    }));
    raw["inputSchema"] = schema.clone();
    let found: Vec<_> = super::super::tests::findings(vec![raw])
        .into_iter()
        .filter(|f| f.check == "required-fields")
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].message.contains("\"manifest\" or \"filename\""),
        "{}",
        found[0].message
    );
    let hint = found[0].hint.clone().unwrap_or_default();
    // The suggested `anyOf`, merged into the schema as the hint says: a branch for each name.
    let names = hint
        .split_once("branch for each of ")
        .and_then(|(_, rest)| rest.split_once(" ("))
        .map(|(names, _)| names)
        .expect("the hint names the branches");
    let any_of: Vec<Value> = names
        .split(", ")
        .map(|n| json!({"required": [serde_json::from_str::<String>(n).expect("a JSON string")]}))
        .collect();
    let mut fixed = schema;
    fixed["anyOf"] = json!(any_of);
    let validator = jsonschema::validator_for(&fixed).expect("the fixed schema compiles");
    for call in [
        json!({"resourceType": "pods", "name": "web"}),
        json!({"resourceType": "pods", "labelSelector": "app=web"}),
        json!({"manifest": "kind: Pod"}),
        json!({"filename": "pod.yaml", "namespace": "prod"}),
    ] {
        assert!(validator.is_valid(&call), "{call} refused by {hint}");
    }
    // And it still refuses the call the finding is about: one with none of them.
    assert!(!validator.is_valid(&json!({"namespace": "prod", "force": true})));
    assert!(hint.contains("\"resourceType\""), "{hint}");
}
