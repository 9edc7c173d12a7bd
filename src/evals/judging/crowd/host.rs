//! The tool list a host builds from several servers, pure: each tool under the name the host
//! gives it (a prefix naming the server), duplicates dropped or renamed, the list capped; the
//! way back from a sent name to its server and tool; and the names that clash.

use std::collections::{HashMap, HashSet};

use crate::config::{HostRules, OnDuplicate};
use crate::mcp::types::Tool;
use crate::outcome::Collision;

/// One server of the crowd: its name and tools (the server under test first).
pub(crate) struct Member<'a> {
    /// The name the host knows it by.
    pub server: &'a str,
    /// Its tools, in its order.
    pub tools: &'a [Tool],
}

/// The list as the host sends it.
#[derive(Debug, Default)]
pub(crate) struct HostList {
    /// The tools under their sent names, in list order.
    pub tools: Vec<Tool>,
    /// Sent name → (server, tool as listed).
    pub origin: HashMap<String, (String, String)>,
    /// (server, tool as listed) → sent name.
    pub sent: HashMap<(String, String), String>,
    /// Names several servers list, with what the host does.
    pub collisions: Vec<Collision>,
    /// Tools the cap left out, as `server/tool`.
    pub capped: Vec<String>,
}

/// A server's name as a tool-name part: characters outside `[A-Za-z0-9_-]` become `_`.
pub(crate) fn safe(server: &str) -> String {
    server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Builds the list `rules` make of `members`.
pub(crate) fn build(rules: &HostRules, members: &[Member<'_>]) -> HostList {
    let mut out = HostList::default();
    let mut taken: HashSet<String> = HashSet::new();
    // What happened to each (server, tool) that lost its name: dropped, or renamed to.
    let mut fate: HashMap<(String, String), Option<String>> = HashMap::new();
    for m in members {
        let prefix = rules.prefix.replace("{server}", &safe(m.server));
        for tool in m.tools {
            let key = (m.server.to_owned(), tool.name.clone());
            let mut name = format!("{prefix}{}", tool.name);
            if taken.contains(&name) {
                match rules.on_duplicate {
                    OnDuplicate::Drop => {
                        fate.insert(key, None);
                        continue;
                    }
                    OnDuplicate::Rename => {
                        name = format!("{}_{name}", safe(m.server));
                        if taken.contains(&name) {
                            fate.insert(key, None);
                            continue;
                        }
                        fate.insert(key.clone(), Some(name.clone()));
                    }
                }
            }
            if rules
                .max_tools
                .is_some_and(|max| out.tools.len() >= max as usize)
            {
                out.capped.push(format!("{}/{}", m.server, tool.name));
                continue;
            }
            taken.insert(name.clone());
            let mut sent = tool.clone();
            sent.name.clone_from(&name);
            if let Some(obj) = sent.raw.as_object_mut() {
                obj.insert("name".into(), name.clone().into());
            }
            out.origin.insert(name.clone(), key.clone());
            out.sent.insert(key, name);
            out.tools.push(sent);
        }
    }
    out.collisions = collisions(members, &out, &fate);
    out
}

/// Every tool name listed by more than one server, in first-listed order, with the outcome.
fn collisions(
    members: &[Member<'_>],
    list: &HostList,
    fate: &HashMap<(String, String), Option<String>>,
) -> Vec<Collision> {
    let mut order: Vec<&str> = Vec::new();
    let mut servers: HashMap<&str, Vec<&str>> = HashMap::new();
    for m in members {
        for tool in m.tools {
            let entry = servers.entry(tool.name.as_str()).or_default();
            if entry.is_empty() {
                order.push(tool.name.as_str());
            }
            if !entry.contains(&m.server) {
                entry.push(m.server);
            }
        }
    }
    order
        .into_iter()
        .filter(|name| servers[name].len() > 1)
        .map(|name| {
            let who = &servers[name];
            let mut said = Vec::new();
            for server in &who[1..] {
                match fate.get(&((*server).to_owned(), name.to_owned())) {
                    Some(None) => said.push(format!(
                        "{server}'s `{name}` is dropped: the host sends {}'s",
                        who[0]
                    )),
                    Some(Some(to)) => said.push(format!("{server}'s is sent as `{to}`")),
                    None => {}
                }
            }
            let outcome = if said.is_empty() {
                let names: Vec<&str> = who
                    .iter()
                    .filter_map(|s| list.sent.get(&((*s).to_owned(), name.to_owned())))
                    .map(String::as_str)
                    .collect();
                format!("resolved by the prefix: {}", names.join(", "))
            } else {
                said.join("; ")
            };
            Collision {
                name: name.to_owned(),
                servers: who.iter().map(|s| (*s).to_owned()).collect(),
                outcome,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::config::HostConfig;

    fn tools(names: &[&str]) -> Vec<Tool> {
        names
            .iter()
            .map(|n| Tool::from_wire(json!({"name": n, "inputSchema": {"type": "object"}})))
            .collect()
    }

    fn names(list: &HostList) -> Vec<&str> {
        list.tools.iter().map(|t| t.name.as_str()).collect()
    }

    #[test]
    fn claude_code_prefixes_every_name_and_the_prefix_resolves_a_clash() {
        let ours = tools(&["search", "add"]);
        let theirs = tools(&["search"]);
        let members = [
            Member {
                server: "demo",
                tools: &ours,
            },
            Member {
                server: "my kb",
                tools: &theirs,
            },
        ];
        let list = build(&HostConfig::ClaudeCode.rules(), &members);
        assert_eq!(
            names(&list),
            ["mcp__demo__search", "mcp__demo__add", "mcp__my_kb__search"]
        );
        assert_eq!(
            list.origin["mcp__my_kb__search"],
            ("my kb".to_owned(), "search".to_owned())
        );
        assert_eq!(list.tools[2].raw["name"], "mcp__my_kb__search");
        assert_eq!(list.collisions.len(), 1);
        assert_eq!(list.collisions[0].servers, ["demo", "my kb"]);
        assert_eq!(
            list.collisions[0].outcome,
            "resolved by the prefix: mcp__demo__search, mcp__my_kb__search"
        );
    }

    #[test]
    fn without_a_prefix_the_later_server_loses_the_name_and_the_finding_says_so() {
        let ours = tools(&["read"]);
        let a = tools(&["read_graph", "open"]);
        let b = tools(&["open"]);
        let members = [
            Member {
                server: "demo",
                tools: &ours,
            },
            Member {
                server: "a",
                tools: &a,
            },
            Member {
                server: "b",
                tools: &b,
            },
        ];
        let list = build(&HostConfig::None.rules(), &members);
        assert_eq!(names(&list), ["read", "read_graph", "open"]);
        assert_eq!(list.collisions[0].name, "open");
        assert_eq!(
            list.collisions[0].outcome,
            "b's `open` is dropped: the host sends a's"
        );
        let renamed = HostRules {
            on_duplicate: OnDuplicate::Rename,
            ..HostConfig::None.rules()
        };
        let list = build(&renamed, &members);
        assert_eq!(names(&list), ["read", "read_graph", "open", "b_open"]);
        assert_eq!(list.collisions[0].outcome, "b's is sent as `b_open`");
    }

    #[test]
    fn a_cap_keeps_the_first_tools_and_names_those_left_out() {
        let ours = tools(&["x", "y"]);
        let a = tools(&["p", "q", "r"]);
        let members = [
            Member {
                server: "demo",
                tools: &ours,
            },
            Member {
                server: "a",
                tools: &a,
            },
        ];
        let rules = HostRules {
            max_tools: Some(3),
            ..HostConfig::None.rules()
        };
        let list = build(&rules, &members);
        assert_eq!(names(&list), ["x", "y", "p"]);
        assert_eq!(list.capped, ["a/q", "a/r"]);
        assert_eq!(HostConfig::Cursor.rules().max_tools, Some(40));
        assert_eq!(HostConfig::Vscode.rules().max_tools, Some(128));
    }
}
