//! `name-format` and `name-clients`: whether a tool's name fits MCP's naming rule and what model
//! APIs and clients accept.
//!
//! `name-format` is a warning, not an error: MCP states its rule (1–128 characters of
//! `A-Z a-z 0-9 _ - .`) as a SHOULD, so a server outside it is not broken, only at risk with
//! some clients. `name-clients` is a warning for the same reason: a client may rename the tool
//! for the model, but then the model sees a name the server author did not choose.

use crate::mcp::types::Tool;
use crate::outcome::Severity;

use super::{NAME_CLIENTS, NAME_FORMAT, Problem, Sink, quote};

/// Longest name MCP recommends.
const MCP_MAX: usize = 128;
/// Longest tool name the Anthropic and OpenAI APIs accept.
const MODEL_MAX: usize = 64;

/// Runs both name checks on a tool whose name is not blank.
pub(super) fn check(tool: &Tool, shown: &str, server: Option<&str>, out: &mut Sink) {
    let name = tool.name.as_str();
    let length = name.chars().count();

    let mut format = Vec::new();
    if length > MCP_MAX {
        format.push(format!("is {length} characters (MCP: at most {MCP_MAX})"));
    }
    let bad = odd_chars(name, |c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    if !bad.is_empty() {
        format.push(format!("contains {bad} (MCP allows A-Z a-z 0-9 _ - .)"));
    }
    if !format.is_empty() {
        out.add(
            shown,
            NAME_FORMAT,
            Severity::Warning,
            format!(
                "name {}; clients may reject or rename the tool",
                format.join(" and ")
            ),
        );
    }

    let mut clients = Vec::new();
    let bad = odd_chars(name, |c| c.is_ascii_alphanumeric() || "_-".contains(c));
    if !bad.is_empty() {
        clients.push(format!(
            "model APIs (Anthropic, OpenAI) reject names with {bad}: they allow A-Z a-z 0-9 _ -"
        ));
    }
    if length > MODEL_MAX {
        clients.push(format!(
            "name is {length} characters; model APIs (Anthropic, OpenAI) accept at most {MODEL_MAX}"
        ));
    } else if let Some(server) = server {
        let prefixed = format!("mcp__{server}__{name}");
        let prefixed_length = prefixed.chars().count();
        if prefixed_length > MODEL_MAX {
            clients.push(format!(
                "name becomes {prefixed_length} characters as {} (the mcp__<server>__<tool> \
                 prefix clients such as Claude Code add); model APIs accept at most {MODEL_MAX}",
                quote(&prefixed, 100)
            ));
        }
    }
    if !clients.is_empty() {
        out.add(
            shown,
            NAME_CLIENTS,
            Severity::Warning,
            Problem::new(
                format!(
                    "{}; clients must rename or drop the tool",
                    clients.join("; ")
                ),
                "use a short name of letters, digits, _ and -",
            ),
        );
    }
}

/// The distinct characters of `name` that `allowed` rejects, quoted, at most five.
fn odd_chars(name: &str, allowed: impl Fn(char) -> bool) -> String {
    let mut odd: Vec<char> = Vec::new();
    for c in name.chars().filter(|c| !allowed(*c)) {
        if !odd.contains(&c) {
            odd.push(c);
        }
    }
    let mut shown: Vec<String> = odd.iter().take(5).map(|c| format!("{c:?}")).collect();
    if odd.len() > 5 {
        shown.push(format!("{} more", odd.len() - 5));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::super::tests::{good, tools};
    use super::super::{CheckContext, run};
    use super::*;
    use crate::config::ChecksConfig;

    fn check_of(id: &str, name: &str, server: Option<&str>) -> Vec<(Severity, String)> {
        let ctx = CheckContext {
            server_name: server,
            ..Default::default()
        };
        run(&tools(vec![good(name)]), &ChecksConfig::default(), &ctx)
            .findings
            .into_iter()
            .filter(|f| f.check == id)
            .map(|f| (f.severity, f.message))
            .collect()
    }

    #[test]
    fn name_format_passes_mcp_names_including_dots() {
        for name in ["get_weather", "files.read", "a-b-c", "X1", &"a".repeat(128)] {
            assert!(check_of(NAME_FORMAT, name, None).is_empty(), "{name}");
        }
    }

    #[test]
    fn name_format_trips_on_characters_and_length() {
        let got = check_of(NAME_FORMAT, "get weather/now", None);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, Severity::Warning);
        assert!(
            got[0].1.starts_with("name contains ' ', '/' (MCP allows"),
            "{}",
            got[0].1
        );

        let got = check_of(NAME_FORMAT, &"a".repeat(129), None);
        assert!(
            got[0]
                .1
                .starts_with("name is 129 characters (MCP: at most 128)")
        );
    }

    #[test]
    fn name_format_shows_at_most_five_odd_characters() {
        let got = check_of(NAME_FORMAT, "a!b@c#d$e%f^g", None);
        assert!(got[0].1.contains("'%', 1 more"), "{}", got[0].1);
    }

    #[test]
    fn name_clients_trips_on_dot_and_length() {
        let got = check_of(NAME_CLIENTS, "files.read", None);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, Severity::Warning);
        assert!(got[0].1.contains("reject names with '.'"), "{}", got[0].1);

        let got = check_of(NAME_CLIENTS, &"a".repeat(65), None);
        assert!(
            got[0].1.starts_with("name is 65 characters; model APIs"),
            "{}",
            got[0].1
        );
        assert!(check_of(NAME_CLIENTS, &"a".repeat(64), None).is_empty());
    }

    #[test]
    fn name_clients_counts_the_client_prefix_when_the_server_is_known() {
        // mcp__ (5) + weather (7) + __ (2) = 14, so a 50-character name fits and 51 does not.
        let fits = "a".repeat(50);
        let over = "a".repeat(51);
        assert!(check_of(NAME_CLIENTS, &fits, Some("weather")).is_empty());
        let got = check_of(NAME_CLIENTS, &over, Some("weather"));
        assert_eq!(got.len(), 1);
        assert!(
            got[0]
                .1
                .starts_with("name becomes 65 characters as \"mcp__weather__aaa"),
            "{}",
            got[0].1
        );
        assert!(check_of(NAME_CLIENTS, &over, None).is_empty());
    }

    #[test]
    fn name_checks_skip_unnamed_tools() {
        let mut raw = good("x");
        raw["name"] = serde_json::json!("");
        let got = run(
            &tools(vec![raw]),
            &ChecksConfig::default(),
            &CheckContext::default(),
        );
        assert!(got.findings.iter().all(|f| f.check == "name"));
    }
}
