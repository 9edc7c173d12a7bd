//! From conversations to proposed rows: each user request with the tool the model called for
//! it (or none), and first the requests that went wrong: a call the user corrected ("no, I
//! meant…", or the same request again), a call the user rejected or interrupted, a call whose
//! result was an error followed by another tool. A corrected row expects the tool the user
//! wanted, not the one called. Calls of tools the server does not list (another server's, the
//! client's own) are not this server's rows: their requests are counted and left out.

use serde_json::Value;

use super::traffic::{Conversation, Event};

/// Why a row was proposed, most useful first (the order of the output and of `--limit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// The user corrected the call, or asked again.
    Corrected,
    /// The user rejected or interrupted the call.
    Rejected,
    /// The call's result was an error and another tool followed.
    ErrorThenOther,
    /// The same request got different tools on a retry.
    Retried,
    /// What the model did, with nothing said against it.
    Observed,
}

impl Kind {
    /// Its words in the summary.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::Corrected => "corrected",
            Kind::Rejected => "rejected",
            Kind::ErrorThenOther => "error then another tool",
            Kind::Retried => "retried",
            Kind::Observed => "as called",
        }
    }
}

/// One earlier turn of a row's `context`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Turn {
    /// A user message.
    User(String),
    /// An assistant message.
    Assistant(String),
    /// A call of a server tool with its result.
    Call {
        /// The tool's MCP name.
        tool: String,
        /// Its arguments.
        args: Value,
        /// Its result's text.
        result: String,
    },
}

/// One proposed row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Proposal {
    /// The user's request.
    pub prompt: String,
    /// The tool it should call (MCP name), `None` for no tool.
    pub expect: Option<String>,
    /// Why it was proposed: `from FILE:LINE: …`.
    pub why: String,
    /// Its kind.
    pub kind: Kind,
    /// The turns before the request, when the request leans on them.
    pub context: Vec<Turn>,
    /// The tool the model called (for a retry, corrections and the summary).
    pub called: Option<String>,
}

/// The server's tool names, and how a logged name maps to one.
pub(crate) struct ToolNames<'a> {
    /// The tools the server lists.
    pub names: &'a [String],
    /// Only `mcp__SERVER__tool` names of this server count (`--mcp-server`).
    pub mcp_server: Option<&'a str>,
}

impl ToolNames<'_> {
    /// The server tool `logged` is, or `None` for another server's or the client's own tool.
    pub(crate) fn map(&self, logged: &str) -> Option<String> {
        let safe = |n: &str| -> String {
            n.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        let find = |name: &str| {
            self.names
                .iter()
                .find(|n| n.as_str() == name)
                .or_else(|| self.names.iter().find(|n| safe(n) == safe(name)))
                .cloned()
        };
        if let Some(rest) = logged.strip_prefix("mcp__") {
            let (server, tool) = rest.split_once("__")?;
            if self.mcp_server.is_some_and(|s| safe(s) != server) {
                return None;
            }
            return find(tool);
        }
        if self.mcp_server.is_some() && self.names.iter().all(|n| n != logged) {
            return None;
        }
        find(logged)
    }
}

/// What the proposals leave out, for the summary.
#[derive(Debug, Default, Clone)]
pub(crate) struct Tally {
    /// User requests read.
    pub requests: usize,
    /// Requests answered by a tool the server does not list.
    pub other_tools: usize,
    /// Calls of server tools seen in conversations, by tool.
    pub calls: Vec<String>,
    /// The (file, call id) pairs counted.
    pub seen: std::collections::HashSet<(String, String)>,
}

/// The rows one conversation proposes.
pub(crate) fn propose(
    conv: &Conversation,
    names: &ToolNames<'_>,
    tally: &mut Tally,
) -> Vec<Proposal> {
    let users: Vec<usize> = conv
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::User { .. }))
        .map(|(i, _)| i)
        .collect();
    for e in &conv.events {
        if let Event::Call { tool, id, .. } = e {
            // A request log repeats the calls before each request: count each id once.
            let first = id
                .as_ref()
                .is_none_or(|id| tally.seen.insert((conv.file.clone(), id.clone())));
            if let (true, Some(t)) = (first, names.map(tool)) {
                tally.calls.push(t);
            }
        }
    }
    let mut out = Vec::new();
    for (k, &u) in users.iter().enumerate() {
        let end = users.get(k + 1).copied().unwrap_or(conv.events.len());
        let next = users
            .get(k + 1)
            .map(|&n| (n, users.get(k + 2).copied().unwrap_or(conv.events.len())));
        tally.requests += 1;
        let req = Request {
            conv,
            names,
            at: u,
            slice: (u + 1, end),
            next,
        };
        match req.proposal() {
            Some(p) => out.push(p),
            None => tally.other_tools += 1,
        }
    }
    out
}

/// One user request and what followed it.
struct Request<'c> {
    conv: &'c Conversation,
    names: &'c ToolNames<'c>,
    /// The index of its user event.
    at: usize,
    /// The events after it, up to the next user message.
    slice: (usize, usize),
    /// The next user message and the end of its events.
    next: Option<(usize, usize)>,
}

/// A call in a request's events: its index, server tool (if one), and result.
struct CallSeen {
    tool: Option<String>,
    logged: String,
    error: bool,
    rejected: bool,
    line: u32,
}

impl Request<'_> {
    fn text(&self, i: usize) -> (&str, u32) {
        match &self.conv.events[i] {
            Event::User { text, line } => (text, *line),
            _ => ("", 0),
        }
    }

    /// The calls between `from` and `to`, with their results.
    fn calls(&self, (from, to): (usize, usize)) -> Vec<CallSeen> {
        let events = &self.conv.events[from..to];
        let mut calls: Vec<(Option<String>, CallSeen)> = Vec::new();
        for e in events {
            match e {
                Event::Call { id, tool, line, .. } => calls.push((
                    id.clone(),
                    CallSeen {
                        tool: self.names.map(tool),
                        logged: tool.clone(),
                        error: false,
                        rejected: false,
                        line: *line,
                    },
                )),
                Event::Result {
                    id,
                    error,
                    rejected,
                    line,
                    ..
                } => {
                    let found = match id {
                        Some(id) => calls
                            .iter_mut()
                            .rev()
                            .find(|(c, _)| c.as_deref() == Some(id)),
                        None => calls.last_mut(),
                    };
                    if let Some((_, c)) = found {
                        c.error |= *error;
                        c.rejected |= *rejected;
                        if *error || *rejected {
                            c.line = *line;
                        }
                    }
                }
                Event::Interrupted { line } => {
                    if let Some((_, c)) = calls.last_mut() {
                        c.rejected = true;
                        c.line = *line;
                    }
                }
                Event::User { .. } | Event::Assistant(_) => {}
            }
        }
        calls.into_iter().map(|(_, c)| c).collect()
    }

    fn proposal(&self) -> Option<Proposal> {
        let (prompt, line) = self.text(self.at);
        let file = &self.conv.file;
        let calls = self.calls(self.slice);
        let first = calls.first();
        let called = first.and_then(|c| c.tool.clone());
        let next_calls = self
            .next
            .map(|n| self.calls((n.0 + 1, n.1)))
            .unwrap_or_default();
        let next_tool = next_calls.iter().find_map(|c| c.tool.clone());
        let show = |t: &Option<String>| t.clone().unwrap_or_else(|| "no tool".to_owned());
        let make = |expect: Option<String>, kind: Kind, why: String| Proposal {
            prompt: prompt.to_owned(),
            expect,
            why,
            kind,
            context: self.context(prompt),
            called: called.clone(),
        };
        // A rejected or interrupted call: the tool used instead, in this request or the next.
        if let Some((i, r)) = calls.iter().enumerate().find(|(_, c)| c.rejected) {
            let name = r.tool.clone().unwrap_or_else(|| r.logged.clone());
            let instead = calls[i + 1..]
                .iter()
                .find_map(|c| c.tool.clone().filter(|t| *t != name))
                .or_else(|| next_tool.clone().filter(|t| *t != name));
            if r.tool.is_some() || instead.is_some() {
                let why = format!(
                    "from {file}:{}: user rejected {name} → {}",
                    r.line,
                    show(&instead)
                );
                return Some(make(instead, Kind::Rejected, why));
            }
        }
        // The user corrected the call, or asked the same again.
        if let Some((n, _)) = self.next {
            let (again, again_line) = self.text(n);
            if (corrects(again) || repeats(prompt, again))
                && next_tool != called
                && (called.is_some() || next_tool.is_some())
            {
                let why = format!(
                    "from {file}:{again_line}: user corrected {} → {}",
                    show(&called),
                    show(&next_tool)
                );
                return Some(make(next_tool, Kind::Corrected, why));
            }
        }
        // An error, then another tool.
        if let Some(f) = first.filter(|c| c.error && c.tool.is_some()) {
            let failed = f.tool.clone().unwrap_or_default();
            if let Some(other) = calls
                .iter()
                .skip(1)
                .find_map(|c| c.tool.clone().filter(|t| *t != failed))
            {
                let why = format!(
                    "from {file}:{}: {failed} returned an error, then {other} was called",
                    f.line
                );
                return Some(make(Some(other), Kind::ErrorThenOther, why));
            }
        }
        match first {
            Some(c) if c.tool.is_none() => None,
            Some(c) => Some(make(
                c.tool.clone(),
                Kind::Observed,
                format!("from {file}:{line}: the model called {}", show(&c.tool)),
            )),
            None => Some(make(
                None,
                Kind::Observed,
                format!("from {file}:{line}: answered without a tool"),
            )),
        }
    }

    /// The turns before the request when it leans on them ("do the same for Paris", "and
    /// tomorrow?"): up to the last six, calls of other tools left out.
    fn context(&self, prompt: &str) -> Vec<Turn> {
        if !leans_on_context(prompt) {
            return Vec::new();
        }
        let mut turns = Vec::new();
        let mut results: Vec<(Option<String>, String)> = Vec::new();
        for e in self.conv.events[..self.at].iter().rev() {
            match e {
                Event::User { text, .. } => turns.push(Turn::User(text.clone())),
                Event::Assistant(text) => turns.push(Turn::Assistant(text.clone())),
                Event::Result { id, text, .. } => results.push((id.clone(), text.clone())),
                Event::Call { id, tool, args, .. } => {
                    let at = results.iter().position(|(r, _)| r.is_none() || r == id);
                    let result = at.map(|i| results.remove(i).1).unwrap_or_default();
                    if let Some(tool) = self.names.map(tool) {
                        turns.push(Turn::Call {
                            tool,
                            args: args.clone(),
                            result: clip(&result, 1000),
                        });
                    }
                }
                Event::Interrupted { .. } => {}
            }
            if turns.len() == 6 {
                break;
            }
        }
        turns.reverse();
        while matches!(turns.first(), Some(Turn::Assistant(_))) {
            turns.remove(0);
        }
        turns
    }
}

/// At most `max` characters of `text`, with an ellipsis when cut.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The words of a text, lowercase, punctuation dropped.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A message that says the last answer was wrong: "no, …", "not that", "I meant…",
/// "wrong tool", "…instead".
pub(crate) fn corrects(text: &str) -> bool {
    let w = words(text);
    let first = w.first().map(String::as_str).unwrap_or("");
    let second = w.get(1).map(String::as_str).unwrap_or("");
    let joined = format!(" {} ", w.join(" "));
    matches!(
        first,
        "no" | "nope" | "nah" | "wrong" | "incorrect" | "actually"
    ) || (first == "not" && matches!(second, "that" | "this" | "what"))
        || [
            "that's not",
            "that is not",
            "i meant",
            "i mean",
            "i said",
            "i wanted",
            "i asked for",
        ]
        .iter()
        .any(|p| joined.starts_with(&format!(" {p} ")))
        || [" i meant ", " wrong tool ", " not what i ", " instead "]
            .iter()
            .any(|p| joined.contains(p))
}

/// The same request again: the same words, or nine in ten of them shared.
pub(crate) fn repeats(before: &str, again: &str) -> bool {
    let (a, b) = (words(before), words(again));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    if a == b {
        return true;
    }
    if a.len() < 4 || b.len() < 4 {
        return false;
    }
    let shared = a.iter().filter(|w| b.contains(w)).count();
    let all = a.len().max(b.len());
    shared * 10 >= all * 9
}

/// A request that points back at the conversation: a pronoun or "same", "again", "too"…, or
/// three words or fewer.
fn leans_on_context(prompt: &str) -> bool {
    let w = words(prompt);
    w.len() <= 3
        || w.iter().any(|w| {
            matches!(
                w.as_str(),
                "it" | "that"
                    | "this"
                    | "those"
                    | "these"
                    | "them"
                    | "same"
                    | "again"
                    | "also"
                    | "too"
                    | "instead"
                    | "there"
                    | "previous"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn corrections_and_repeats_are_told_from_follow_ups() {
        for yes in [
            "no, I meant the history",
            "Nope. The forecast",
            "not that one",
            "That's not what I asked",
            "I meant yesterday",
            "use the other tool instead",
            "wrong tool",
        ] {
            assert!(corrects(yes), "{yes}");
        }
        for no in [
            "now do Paris",
            "note this down",
            "thanks",
            "notify me at 5",
            "what about Paris?",
        ] {
            assert!(!corrects(no), "{no}");
        }
        assert!(repeats(
            "What's the weather in Porto?",
            "what's the weather in porto"
        ));
        assert!(!repeats("weather in Porto", "weather in Braga"));
    }

    fn call(id: &str, tool: &str, line: u32) -> Event {
        Event::Call {
            id: Some(id.into()),
            tool: tool.into(),
            args: json!({}),
            line,
        }
    }

    fn result(id: &str, error: bool, line: u32) -> Event {
        Event::Result {
            id: Some(id.into()),
            error,
            rejected: false,
            text: String::new(),
            line,
        }
    }

    fn user(text: &str, line: u32) -> Event {
        Event::User {
            text: text.into(),
            line,
        }
    }

    #[test]
    fn a_correction_expects_the_tool_the_user_wanted_and_a_foreign_call_is_left_out() {
        let conv = Conversation {
            file: "s.jsonl".into(),
            events: vec![
                user("weather in Porto last week", 1),
                call("1", "mcp__wx__get_weather", 2),
                result("1", false, 3),
                user("no, I meant that from the history", 4),
                call("2", "mcp__wx__get_weather_history", 5),
                user("list my files", 6),
                call("3", "Bash", 7),
                user("rain in Faro?", 8),
                call("4", "get_weather", 9),
                result("4", true, 10),
                call("5", "get_weather_history", 11),
            ],
        };
        let names = ["get_weather".to_owned(), "get_weather_history".to_owned()];
        let map = ToolNames {
            names: &names,
            mcp_server: Some("wx"),
        };
        let mut tally = Tally::default();
        let rows = propose(&conv, &map, &mut tally);
        let got: Vec<(&str, Option<&str>, Kind, &str)> = rows
            .iter()
            .map(|p| {
                (
                    p.prompt.as_str(),
                    p.expect.as_deref(),
                    p.kind,
                    p.why.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "weather in Porto last week",
                    Some("get_weather_history"),
                    Kind::Corrected,
                    "from s.jsonl:4: user corrected get_weather → get_weather_history"
                ),
                (
                    "no, I meant that from the history",
                    Some("get_weather_history"),
                    Kind::Observed,
                    "from s.jsonl:4: the model called get_weather_history"
                ),
                (
                    "rain in Faro?",
                    Some("get_weather_history"),
                    Kind::ErrorThenOther,
                    "from s.jsonl:10: get_weather returned an error, then get_weather_history was called"
                ),
            ]
        );
        assert_eq!((tally.requests, tally.other_tools), (4, 1));
        // The follow-up leans on the conversation ("that"): its context is the request and the
        // call before it.
        assert_eq!(rows[1].context.len(), 2, "{:?}", rows[1].context);
    }
}
