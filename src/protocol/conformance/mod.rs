//! The transport-neutral checks. Each opens its own probe (a fresh server process over stdio,
//! a fresh session over HTTP), or shares the session probe where order does not matter;
//! malformed input and batches come last on probes of their own, as they may break a server.
//! The checks of the HTTP transport itself are in `http.rs`.

use serde_json::{Value, json};

use super::probe::{Handshake, Line, PROBE_VERSION, Probe, brief, error_code};
use super::{ProtocolRun, Verdict, http};
use crate::config::vocab::PROTOCOL_CHECKS;

mod lists;
use crate::mcp::ServerSpec;

/// The version no server supports, for the negotiation check.
const BOGUS_VERSION: &str = "1999-01-01";
/// Pages followed before the pagination check gives up.
const MAX_PAGES: usize = 100;
/// Resources and prompts fetched at most.
const MAX_ITEMS: usize = 5;

/// The probes of one phase: the shared session and what its handshake said.
pub(super) struct Session<'a> {
    spec: &'a ServerSpec,
    run: &'a ProtocolRun<'a>,
    session: Option<Probe>,
    init: Option<Value>,
    /// Set once `initialized` failed: the shared session is unusable.
    broken: bool,
}

/// Why the shared session did not open.
pub(super) enum Setup {
    /// No process, no answer or a malformed one: the server cannot be checked at all.
    Unusable(String),
    /// `initialize` was refused: the server speaks another lifecycle, so every check skips.
    OtherLifecycle(String),
}

/// One protocol check's probe: the function that runs it, beside the id that names it.
struct CheckProbe {
    /// The check's id, as [`PROTOCOL_CHECKS`] names it (the same entry, in the same place).
    id: &'static str,
    /// Runs the check.
    run: fn(&mut Session<'_>) -> Verdict,
    /// It opens a fresh process or session of its own, so it runs even when the shared session
    /// broke after `initialized`.
    own_process: bool,
}

const fn shared(id: &'static str, run: fn(&mut Session<'_>) -> Verdict) -> CheckProbe {
    CheckProbe {
        id,
        run,
        own_process: false,
    }
}

const fn own(id: &'static str, run: fn(&mut Session<'_>) -> Verdict) -> CheckProbe {
    CheckProbe {
        id,
        run,
        own_process: true,
    }
}

/// Every check's probe, in run order: one entry per entry of [`PROTOCOL_CHECKS`], with the
/// same id in the same place. A check without a probe, a probe without a check or one out of
/// order does not compile (the length is the table's, and the ids are compared below).
const PROBES: [CheckProbe; PROTOCOL_CHECKS.len()] = [
    own("init-version", |s| s.init_version()),
    shared("initialized", |s| s.initialized()),
    own("before-initialize", |s| s.before_initialize()),
    shared("ping", |s| s.ping()),
    shared("unknown-method", |s| s.unknown_method()),
    shared("notifications", |s| s.notifications()),
    shared("capabilities", |s| s.capabilities()),
    shared("unadvertised", |s| s.unadvertised()),
    shared("logging", |s| s.logging()),
    shared("unknown-tool", |s| s.unknown_tool()),
    shared("invalid-arguments", |s| s.invalid_arguments()),
    shared("invalid-cursor", |s| s.invalid_cursor()),
    shared("pagination", |s| s.pagination()),
    shared("resources-read", |s| s.resources_read()),
    shared("prompts-get", |s| s.prompts_get()),
    shared("list-changed", |s| s.list_changed()),
    own("batch", |s| s.batch()),
    own("malformed", |s| s.malformed()),
    shared("http-session", http::session),
    shared("http-missing-session", http::missing_session),
    shared("http-unknown-session", http::unknown_session),
    own("http-delete", http::delete),
    shared("http-protocol-version", http::protocol_version),
    shared("http-accept", http::accept),
    shared("http-notification", http::notification),
    shared("http-get", http::get),
    shared("http-sse-priming", http::sse_priming),
    shared("http-sse-retry", http::sse_retry),
    own("http-origin", http::origin),
];

const _: () = {
    let mut i = 0;
    while i < PROBES.len() {
        let (a, b) = (PROBES[i].id.as_bytes(), PROTOCOL_CHECKS[i].id.as_bytes());
        assert!(
            a.len() == b.len(),
            "PROBES and PROTOCOL_CHECKS disagree on an id"
        );
        let mut j = 0;
        while j < a.len() {
            assert!(a[j] == b[j], "PROBES and PROTOCOL_CHECKS disagree on an id");
            j += 1;
        }
        i += 1;
    }
};

impl<'a> Session<'a> {
    pub(super) fn new(spec: &'a ServerSpec, run: &'a ProtocolRun<'a>) -> Session<'a> {
        Session {
            spec,
            run,
            session: None,
            init: None,
            broken: false,
        }
    }

    /// The version the shared session negotiated.
    pub(super) fn version(&self) -> Option<String> {
        self.init.as_ref()?["protocolVersion"]
            .as_str()
            .map(str::to_owned)
    }

    /// Every check, in order, once [`Session::open`] succeeded; turned-off ones and those
    /// after an interrupt are skipped.
    pub(super) fn all(&mut self) -> Vec<(&'static str, Verdict)> {
        let mut out = Vec::new();
        for probe in &PROBES {
            let id = probe.id;
            let verdict = if self.run.disabled.iter().any(|d| d == id) {
                Verdict::Skip("turned off with protocol.disable".into())
            } else if self.run.interrupt.is_set() {
                Verdict::Skip("the run was interrupted".into())
            } else if id.starts_with("http-") && !self.over_http() {
                Verdict::Skip("a check of the streamable HTTP transport".into())
            } else if self.broken && !probe.own_process {
                Verdict::Skip(
                    "the session does not work after `initialized` (see that check)".into(),
                )
            } else {
                (probe.run)(self)
            };
            if id == "initialized" && matches!(verdict, Verdict::Fail(_)) {
                self.broken = true;
            }
            out.push((id, verdict));
        }
        out
    }

    pub(super) fn fresh(&self) -> Result<Probe, String> {
        Probe::open(self.spec, self.run.timeout, self.run.startup)
    }

    /// Whether the probes speak HTTP.
    pub(super) fn over_http(&self) -> bool {
        matches!(self.spec, ServerSpec::Http(_))
    }

    /// Opens the shared session: a handshake asking for [`PROBE_VERSION`].
    pub(super) fn open(&mut self) -> Result<(), Setup> {
        let mut probe = self.fresh().map_err(Setup::Unusable)?;
        let init = probe.handshake(PROBE_VERSION).map_err(|e| match e {
            Handshake::Refused(_) => Setup::OtherLifecycle(format!(
                "{e}; the protocol checks need the `initialize` lifecycle (2025-11-25 and earlier)"
            )),
            Handshake::Unanswered(_) | Handshake::Malformed(_) => Setup::Unusable(e.to_string()),
        })?;
        self.init = Some(init);
        self.session = Some(probe);
        Ok(())
    }

    pub(super) fn probe(&mut self) -> &mut Probe {
        self.session
            .as_mut()
            .expect("the checks that use the session run only after it opened")
    }

    pub(super) fn capability(&self, name: &str) -> bool {
        self.init
            .as_ref()
            .and_then(|i| i.get("capabilities"))
            .and_then(|c| c.get(name))
            .is_some_and(|v| !v.is_null())
    }

    fn init_version(&mut self) -> Verdict {
        let mut probe = match self.fresh() {
            Ok(p) => p,
            Err(e) => return Verdict::Fail(e),
        };
        let answer = match probe.call("initialize", super::probe::init_params(BOGUS_VERSION)) {
            Ok(a) => a,
            Err(w) => return Verdict::Fail(format!("`initialize` for {BOGUS_VERSION} got {w}")),
        };
        let Some(result) = answer.get("result") else {
            return Verdict::Fail(format!(
                "`initialize` for {BOGUS_VERSION} was refused instead of answered with a \
                 supported version: {}",
                brief(&answer)
            ));
        };
        let version = result.get("protocolVersion").and_then(Value::as_str);
        let missing: Vec<&str> = ["capabilities", "serverInfo"]
            .into_iter()
            .filter(|k| !result.get(*k).is_some_and(Value::is_object))
            .collect();
        match version {
            None => Verdict::Fail("the `initialize` result has no `protocolVersion`".into()),
            Some(BOGUS_VERSION) => Verdict::Fail(format!(
                "`initialize` echoed the unsupported version {BOGUS_VERSION}"
            )),
            Some(_) if !missing.is_empty() => Verdict::Fail(format!(
                "the `initialize` result lacks {}",
                missing.join(" and ")
            )),
            Some(_) => Verdict::Pass,
        }
    }

    fn initialized(&mut self) -> Verdict {
        let method = if self.capability("tools") {
            "tools/list"
        } else {
            "ping"
        };
        result_of(self.probe().call(method, json!({})), method)
    }

    fn before_initialize(&mut self) -> Verdict {
        if self.over_http() && self.session_id().is_none() {
            return Verdict::Skip(
                "the server issues no session id, so it cannot tell a request before \
                 `initialize` from one after it"
                    .into(),
            );
        }
        let mut probe = match self.fresh() {
            Ok(p) => p,
            Err(e) => return Verdict::Fail(e),
        };
        match probe.call("tools/list", json!({})) {
            Ok(a) if a.get("error").is_some() => Verdict::Pass,
            Ok(a) => Verdict::Fail(format!(
                "`tools/list` before `initialize` was answered: {}",
                brief(&a)
            )),
            Err(w) => Verdict::Fail(format!("`tools/list` before `initialize` got {w}")),
        }
    }

    /// The session id the shared HTTP session got, if any.
    pub(super) fn session_id(&mut self) -> Option<String> {
        self.session
            .as_mut()
            .and_then(Probe::http)
            .and_then(|h| h.session().map(str::to_owned))
    }

    /// The negotiated revision of the shared session.
    pub(super) fn negotiated(&self) -> String {
        self.version().unwrap_or_default()
    }

    fn list_changed(&mut self) -> Verdict {
        let notes = self.probe().notes().to_vec();
        let mut fails = Vec::new();
        for (cap, _) in LISTS {
            let method = format!("notifications/{cap}/list_changed");
            let advertised = self
                .init
                .as_ref()
                .is_some_and(|i| i["capabilities"][cap]["listChanged"] == true);
            if !advertised && notes.contains(&method) {
                fails.push(format!(
                    "the server sent `{method}` but does not advertise `{cap}.listChanged`"
                ));
            }
        }
        joined(fails)
    }

    fn ping(&mut self) -> Verdict {
        match self.probe().call("ping", json!({})) {
            Ok(a) if a.get("result").is_some_and(Value::is_object) => Verdict::Pass,
            Ok(a) => Verdict::Fail(format!("`ping` was answered with {}", brief(&a))),
            Err(w) => Verdict::Fail(format!("`ping` got {w}")),
        }
    }

    fn unknown_method(&mut self) -> Verdict {
        let method = "toolproof/no-such-method";
        match self.probe().call(method, json!({})) {
            Ok(a) if error_code(&a) == Some(-32601) => Verdict::Pass,
            Ok(a) => Verdict::Fail(format!("`{method}` was answered with {}", brief(&a))),
            Err(w) => Verdict::Fail(format!("`{method}` got {w}")),
        }
    }

    fn notifications(&mut self) -> Verdict {
        let probe = self.probe();
        probe.notify("notifications/toolproof/probe");
        probe.notify("notifications/roots/list_changed");
        let id = probe.request("ping", json!({}));
        let mut others = Vec::new();
        match probe.response_to(id, &mut others) {
            Ok(_) => {}
            Err(w) => return Verdict::Fail(format!("`ping` after the notifications got {w}")),
        }
        match others.first() {
            None => Verdict::Pass,
            Some(Line::Json(v)) => {
                Verdict::Fail(format!("a notification was answered: {}", brief(v)))
            }
            Some(Line::Text(t)) => Verdict::Fail(format!("a notification was answered: {t}")),
        }
    }

    fn capabilities(&mut self) -> Verdict {
        let mut fails = Vec::new();
        for (cap, method) in LISTS {
            if !self.capability(cap) {
                continue;
            }
            if let Verdict::Fail(why) = result_of(self.probe().call(method, json!({})), method) {
                fails.push(format!("`{cap}` is advertised but {why}"));
            }
        }
        joined(fails)
    }

    fn unadvertised(&mut self) -> Verdict {
        let mut fails = Vec::new();
        let mut tried = 0;
        for (cap, method) in LISTS {
            if self.capability(cap) {
                continue;
            }
            tried += 1;
            match self.probe().call(method, json!({})) {
                Ok(a) if a.get("result").is_some() => fails.push(format!(
                    "`{method}` answered with a result although `{cap}` is not advertised"
                )),
                Ok(_) => {}
                Err(w) => fails.push(format!("`{method}` got {w}")),
            }
        }
        if tried == 0 {
            return Verdict::Skip("the server advertises tools, resources and prompts".into());
        }
        joined(fails)
    }

    fn logging(&mut self) -> Verdict {
        if !self.capability("logging") {
            return Verdict::Skip("the server does not advertise `logging`".into());
        }
        let method = "logging/setLevel";
        result_of(self.probe().call(method, json!({"level": "info"})), method)
    }

    fn unknown_tool(&mut self) -> Verdict {
        if !self.capability("tools") {
            return Verdict::Skip("the server does not advertise `tools`".into());
        }
        let params = json!({"name": "toolproof-no-such-tool", "arguments": {}});
        refused(self.probe().call("tools/call", params), "the unknown tool")
    }

    fn invalid_arguments(&mut self) -> Verdict {
        if !self.capability("tools") {
            return Verdict::Skip("the server does not advertise `tools`".into());
        }
        let tools = match self.probe().call("tools/list", json!({})) {
            Ok(a) => a["result"]["tools"].as_array().cloned().unwrap_or_default(),
            Err(w) => return Verdict::Fail(format!("`tools/list` got {w}")),
        };
        let Some(tool) = tools.iter().find(|t| callable_without_harm(t)) else {
            return Verdict::Skip(
                "no tool on the first page has required arguments and is marked not destructive"
                    .into(),
            );
        };
        let name = tool["name"].as_str().unwrap_or_default().to_owned();
        let params = json!({"name": name, "arguments": {}});
        refused(
            self.probe().call("tools/call", params),
            &format!("`{name}` without its required arguments"),
        )
    }

    fn batch(&mut self) -> Verdict {
        let mut probe = match self.fresh() {
            Ok(p) => p,
            Err(e) => return Verdict::Fail(e),
        };
        let version = match probe.handshake(PROBE_VERSION) {
            Ok(init) => init["protocolVersion"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            Err(e) => return Verdict::Fail(e.to_string()),
        };
        if let Err(w) = probe.call("ping", json!({})) {
            return Verdict::Fail(format!("`ping` after the handshake got {w}"));
        }
        let id = probe.id();
        probe.send(&json!([{"jsonrpc": "2.0", "id": id, "method": "ping"}]));
        let marker = probe.request("ping", json!({}));
        let mut others = Vec::new();
        if let Err(w) = probe.response_to(marker, &mut others) {
            return Verdict::Fail(format!("`ping` after the batch got {w}"));
        }
        // Answered as an array, or (over HTTP) as the inner request's own response.
        let processed = others.iter().any(|l| match l {
            Line::Json(Value::Array(items)) => items.iter().any(|i| i.get("result").is_some()),
            Line::Json(v) => v.get("result").is_some() && v["id"].as_i64() == Some(id),
            Line::Text(_) => false,
        });
        // Later revisions removed batching without a MUST to refuse one: processing it is
        // leniency, and only a server that stops answering is at fault.
        if version == "2025-03-26" && !processed {
            Verdict::Fail(
                "revision 2025-03-26 requires batches, but a batch of one `ping` was not \
                 answered with an array"
                    .into(),
            )
        } else {
            Verdict::Pass
        }
    }

    fn malformed(&mut self) -> Verdict {
        let mut probe = match self.fresh() {
            Ok(p) => p,
            Err(e) => return Verdict::Fail(e),
        };
        if let Err(e) = probe.handshake(PROBE_VERSION) {
            return Verdict::Fail(e.to_string());
        }
        // Whatever the handshake left behind (`notifications` finds it) is read first.
        if let Err(w) = probe.call("ping", json!({})) {
            return Verdict::Fail(format!("`ping` after the handshake got {w}"));
        }
        let mut advice = Vec::new();
        probe.send_raw("{this is not json");
        match answered_with(&mut probe, &[-32700]) {
            Answered::Rightly => {}
            Answered::Otherwise(why) => advice.push(format!("a line that is not JSON {why}")),
            Answered::Gone(w) => return stopped("a line that is not JSON", &w),
        }
        let id = probe.id();
        probe.send(&json!({"jsonrpc": "2.0", "id": id, "method": 42}));
        match answered_with(&mut probe, &[-32600, -32700]) {
            Answered::Rightly => {}
            Answered::Otherwise(why) => {
                advice.push(format!("a request whose `method` is 42 {why}"));
            }
            Answered::Gone(w) => return stopped("a request whose `method` is 42", &w),
        }
        match joined(advice) {
            Verdict::Fail(why) => Verdict::Advice(format!(
                "{why} (the server kept answering: JSON-RPC's error is advice here)"
            )),
            other => other,
        }
    }
}

/// The finding of a server that stopped answering after input a conforming client never
/// sends: what came before and what the `ping` after it got.
fn stopped(what: &str, waited: &super::probe::Waited) -> Verdict {
    Verdict::Fail(format!(
        "after {what} the server stopped answering: the `ping` after it got {waited}; one \
         bad line from a client ends every session"
    ))
}

/// Added to the findings that come from the SDKs rather than a server's own code.
pub(super) const SDK_NOTE: &str = "(common to the TypeScript and Python SDKs: advice, the fix \
                                   belongs in the SDK)";

/// The three list methods and their capabilities.
const LISTS: [(&str, &str); 3] = [
    ("tools", "tools/list"),
    ("resources", "resources/list"),
    ("prompts", "prompts/list"),
];

/// What a server did with something that deserves an error.
enum Answered {
    /// An error with one of the codes asked for (or, over HTTP, a 4xx status).
    Rightly,
    /// Something else, or nothing, before the `ping` after it was answered: what.
    Otherwise(String),
    /// The `ping` after it got no answer: the server stopped answering (exited or hung).
    Gone(super::probe::Waited),
}

/// After something that deserves an error: sends a `ping` and looks at what came before its
/// answer.
fn answered_with(probe: &mut Probe, codes: &[i64]) -> Answered {
    let marker = probe.request("ping", json!({}));
    let mut others = Vec::new();
    if let Err(w) = probe.response_to(marker, &mut others) {
        return Answered::Gone(w);
    }
    let errors: Vec<&Value> = others
        .iter()
        .filter_map(|l| match l {
            Line::Json(v) if v.get("error").is_some() => Some(v),
            _ => None,
        })
        .collect();
    match errors.first() {
        None => Answered::Otherwise("got no answer".into()),
        Some(e) if error_code(e).is_some_and(|c| codes.contains(&c)) => Answered::Rightly,
        // Streamable HTTP: an error status is the refusal; a JSON-RPC body is optional.
        Some(e)
            if e["httpStatus"]
                .as_u64()
                .is_some_and(|s| (400..500).contains(&s)) =>
        {
            Answered::Rightly
        }
        Some(e) => Answered::Otherwise(format!("was answered with {}", brief(e))),
    }
}

/// Pass when the answer has a result.
fn result_of(answer: Result<Value, super::probe::Waited>, method: &str) -> Verdict {
    match answer {
        Ok(a) if a.get("result").is_some() => Verdict::Pass,
        Ok(a) => Verdict::Fail(format!("`{method}` was answered with {}", brief(&a))),
        Err(w) => Verdict::Fail(format!("`{method}` got {w}")),
    }
}

/// Pass when a `tools/call` answer is a JSON-RPC error or an `isError` result.
fn refused(answer: Result<Value, super::probe::Waited>, what: &str) -> Verdict {
    match answer {
        Ok(a) if a.get("error").is_some() || a["result"]["isError"] == true => Verdict::Pass,
        Ok(a) => Verdict::Fail(format!("calling {what} succeeded: {}", brief(&a))),
        Err(w) => Verdict::Fail(format!("calling {what} got {w}")),
    }
}

/// A tool with required arguments that does not say it is destructive (called without them).
fn callable_without_harm(tool: &Value) -> bool {
    let required = tool["inputSchema"]["required"]
        .as_array()
        .is_some_and(|r| !r.is_empty());
    let annotations = &tool["annotations"];
    let harmless = annotations["readOnlyHint"] == true || annotations["destructiveHint"] == false;
    required && (harmless || annotations["destructiveHint"].is_null())
}

fn joined(fails: Vec<String>) -> Verdict {
    if fails.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail(fails.join("; "))
    }
}
