//! Tests of `similar-tools`: scores, thresholds, and the words a pair shares.

use super::super::tests::tools;
use super::super::{CheckContext, run};
use super::*;
use crate::config::ChecksConfig;
use crate::outcome::Finding;
use serde_json::{Value, json};

fn tool(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    })
}

fn similar(raw: Vec<Value>, threshold: f64) -> Vec<Finding> {
    let cfg = ChecksConfig {
        similarity_threshold: threshold,
        ..Default::default()
    };
    run(&tools(raw), &cfg, &CheckContext::default())
        .findings
        .into_iter()
        .filter(|f| f.check == SIMILAR_TOOLS)
        .collect()
}

fn pair_score(a: (&str, &str), b: (&str, &str)) -> f64 {
    let mut w = Words::default();
    let pa = w.tool(a.0, a.1);
    let pb = w.tool(b.0, b.1);
    assert!(bound(&pa, &pb) >= score(&pa, &pb));
    score(&pa, &pb)
}

#[test]
fn splits_names_the_way_people_write_them() {
    assert_eq!(split("getHTTPStatus"), vec!["get", "HTTP", "Status"]);
    assert_eq!(
        split("list_files-v2.json"),
        vec!["list", "files", "v", "2", "json"]
    );
    assert_eq!(
        words("Fetches the weather for cities"),
        vec!["get", "weather", "city"]
    );
    assert_eq!(words("searches indexes"), vec!["search", "index"]);
    assert_eq!(
        words("status analysis class"),
        vec!["status", "analysis", "class"]
    );
}

#[test]
fn near_duplicates_are_flagged_with_score_and_shared_words() {
    let got = similar(
        vec![
            tool("get_weather", "Get the current weather for a city"),
            tool("fetch_weather", "Fetch the current weather for a city"),
            tool("send_email", "Send an email to a recipient"),
        ],
        0.8,
    );
    assert_eq!(got.len(), 1);
    let f = &got[0];
    assert_eq!(f.tool, "get_weather + fetch_weather");
    assert_eq!(f.severity, Severity::Warning);
    assert!(!f.fails);
    assert!(
        f.message.starts_with(
            "names and descriptions are 1.00 similar (threshold 0.80); a model may call one \
             when it means the other; shared words: get/fetch, weather, current, city (x/y: \
             different words read as one)"
        ),
        "{}",
        f.message
    );
}

#[test]
fn the_same_description_under_different_names_is_flagged() {
    let got = similar(
        vec![
            tool("list_notes", "List every saved note with its id and title."),
            tool("show_notes", "List every saved note with its id and title."),
        ],
        0.8,
    );
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].tool, "list_notes + show_notes");
    // Short descriptions alone do not decide: `echo` vs `shout` share little but a word.
    assert!(pair_score(("echo", "Echo text"), ("shout", "Shout text")) < 0.8);
}

#[test]
fn shared_words_are_shown_as_written_with_the_folding_said() {
    // Neither tool writes `update`, the head of the group `set` and `change` fold to.
    let got = similar(
        vec![
            tool(
                "set_column_width",
                "Set the width of a table column in pixels",
            ),
            tool(
                "change_column_width",
                "Change the width of a column of the table in pixels",
            ),
        ],
        0.8,
    );
    assert_eq!(got.len(), 1, "{got:?}");
    let m = &got[0].message;
    assert!(
        m.ends_with(
            "shared words: set/change, column, width, table, pixels (x/y: different words read \
             as one)"
        ),
        "{m}"
    );
    assert!(!m.contains("update"), "{m}");
    // Words written the same need no note; a plural is shown as the first tool wrote it.
    let got = similar(
        vec![
            tool("get_pods", "Get the pods of a Kubernetes namespace"),
            tool("get_pod", "Get the pods of a Kubernetes namespace by name"),
        ],
        0.8,
    );
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].message.ends_with(
            "shared words: get, pods/pod, kubernetes, namespace (x/y: different words read as one)"
        ),
        "{}",
        got[0].message
    );
}

#[test]
fn different_actions_in_names_and_descriptions_tell_tools_apart() {
    // kubernetes-mcp-server: the same long description but for its verb.
    let tail = "a Kubernetes resource in the current cluster by providing its apiVersion, kind, \
                optionally the namespace, and its name (common apiVersion and kind include: v1 \
                Pod, v1 Service, apps/v1 Deployment)";
    let got = similar(
        vec![
            tool("resources_get", &format!("Get {tail}")),
            tool("resources_delete", &format!("Delete {tail}")),
        ],
        0.8,
    );
    assert_eq!(got, vec![]);
    // The same verb in both descriptions is no difference to a model reading them.
    let got = similar(
        vec![
            tool("resources_get", &format!("Get {tail}")),
            tool("resources_delete", &format!("Get {tail}")),
        ],
        0.8,
    );
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0]
            .hint
            .as_deref()
            .is_some_and(|h| h.starts_with("the descriptions are the same text")),
        "{got:?}"
    );
}

#[test]
fn more_near_duplicates_score_high() {
    let pairs = [
        (
            ("delete_user", "Delete a user account by its id"),
            ("remove_user", "Remove a user account by id"),
        ),
        (
            ("searchDocuments", "Search the documents for a query string"),
            ("find_documents", "Find documents matching a query string"),
        ),
        (
            ("create_issue", "Create a new issue in a GitHub repository"),
            ("add_issue", "Add a new issue to a GitHub repository"),
        ),
    ];
    for (a, b) in pairs {
        let s = pair_score(a, b);
        assert!(s >= 0.8, "{a:?} {b:?} {s}");
    }
}

#[test]
fn distinct_tools_score_low() {
    let pairs = [
        (
            ("echo", "Echoes back the input string"),
            ("get-sum", "Returns the sum of two numbers"),
        ),
        (
            ("get_user", "Get a user by id"),
            ("list_users", "List all users in the organisation"),
        ),
        (
            (
                "create_entities",
                "Create multiple new entities in the knowledge graph",
            ),
            (
                "delete_entities",
                "Delete multiple entities and their associated relations from the knowledge graph",
            ),
        ),
        (
            ("get_weather", "Get the current weather for a city"),
            ("get_forecast", "Get the 7-day weather forecast for a city"),
        ),
    ];
    for (a, b) in pairs {
        let s = pair_score(a, b);
        assert!(s < 0.8, "{a:?} {b:?} {s}");
    }
    assert_eq!(
        pair_score(
            ("echo", "Echoes back the input string"),
            ("get-sum", "Returns the sum of two numbers")
        ),
        0.0
    );
}

#[test]
fn reference_servers_have_no_similar_tools() {
    for (server, text) in [
        (
            "everything",
            include_str!("../fixtures/server-everything.json"),
        ),
        ("memory", include_str!("../fixtures/server-memory.json")),
        (
            "filesystem",
            include_str!("../fixtures/server-filesystem.json"),
        ),
    ] {
        let raw: Vec<Value> = serde_json::from_str(text).unwrap_or_default();
        assert!(raw.len() > 8, "{server}");
        assert_eq!(similar(raw, 0.8), vec![], "{server}");
    }
}

#[test]
fn the_closest_reference_pair_is_found_below_the_default() {
    // list_directory and list_directory_with_sizes share all but two words (0.75).
    let raw: Vec<Value> = serde_json::from_str(include_str!("../fixtures/server-filesystem.json"))
        .unwrap_or_default();
    let got: Vec<String> = similar(raw, 0.7).into_iter().map(|f| f.tool).collect();
    assert_eq!(got, vec!["list_directory + list_directory_with_sizes"]);
}

#[test]
fn many_similar_pairs_are_capped() {
    let raw: Vec<Value> = (0..10)
        .map(|i| tool(&format!("get_item_v{i}"), "Get an item from the store"))
        .collect();
    let got = similar(raw, 0.8);
    // 10 tools, 45 pairs: 25 listed, then one finding for the other 20.
    assert_eq!(got.len(), MAX_PAIRS + 1);
    let last = &got[MAX_PAIRS];
    assert_eq!(last.tool, "*");
    assert!(
        last.message
            .starts_with("20 more pairs of tools are at least 0.80 similar (45 in all"),
        "{}",
        last.message
    );
    assert!(similar(vec![tool("a_b", "x y"), tool("a_c", "x y")], f64::NAN).is_empty());
}

#[test]
fn threshold_decides() {
    let raw = vec![
        tool("get_weather", "Get the current weather for a city"),
        tool("get_forecast", "Get the weather forecast for a city"),
    ];
    let s = pair_score(
        ("get_weather", "Get the current weather for a city"),
        ("get_forecast", "Get the weather forecast for a city"),
    );
    assert_eq!(similar(raw.clone(), s).len(), 1);
    assert_eq!(similar(raw, s + 0.01).len(), 0);
}

#[test]
fn tools_without_descriptions_compare_by_name() {
    let raw = vec![
        json!({"name": "user_get", "inputSchema": {"type": "object"}}),
        json!({"name": "getUser", "inputSchema": {"type": "object"}}),
        json!({"name": "x", "inputSchema": {"type": "object"}}),
        json!({"name": "y", "inputSchema": {"type": "object"}}),
    ];
    let got: Vec<String> = similar(raw, 0.8).into_iter().map(|f| f.tool).collect();
    assert_eq!(got, vec!["user_get + getUser"]);
}

#[test]
fn two_thousand_tools_are_checked_quickly() {
    let verbs = [
        "get", "list", "create", "update", "delete", "search", "sync", "export",
    ];
    let nouns: Vec<&str> = "user invoice order ticket project file report team repo comment \
                             label event alert metric dashboard page note task deal lead"
        .split_whitespace()
        .collect();
    let mut raw: Vec<Value> = (0..2000)
        .map(|i| {
            let verb = verbs[i % verbs.len()];
            let noun = nouns[(i / verbs.len()) % nouns.len()];
            tool(
                &format!("{verb}_{noun}_{i}"),
                &format!(
                    "{verb} the {noun} number {i} in workspace {} and return its fields as JSON",
                    i % 13
                ),
            )
        })
        .collect();
    raw.insert(
        700,
        tool("get_weather", "Get the current weather for a city"),
    );
    raw.push(tool(
        "fetch_weather",
        "Fetch the current weather for a city",
    ));
    let list = tools(raw);
    let got = run(&list, &ChecksConfig::default(), &CheckContext::default());
    let found: Vec<(&str, &str)> = got
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .map(|f| (f.check.as_str(), f.tool.as_str()))
        .collect();
    assert_eq!(
        found,
        vec![
            (SIMILAR_TOOLS, "get_weather + fetch_weather"),
            ("tool-list-size", "*")
        ]
    );
}
