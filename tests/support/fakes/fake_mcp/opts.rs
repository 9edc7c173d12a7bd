//! Command-line options of the fake server, parsed by hand (the example uses no clap).

use std::net::SocketAddr;
use std::path::PathBuf;

/// Which protocol generation the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Era {
    /// `initialize` handshake; `server/discover` is an unknown method.
    #[default]
    Legacy,
    /// Stateless 2026-07-28; `initialize` is an unknown method.
    Modern,
    /// Both: `initialize` starts a legacy session, `server/discover` answers as modern.
    Both,
}

impl Era {
    /// Whether the legacy handshake is served.
    pub fn legacy(self) -> bool {
        matches!(self, Era::Legacy | Era::Both)
    }

    /// Whether 2026-07-28 is served.
    pub fn modern(self) -> bool {
        matches!(self, Era::Modern | Era::Both)
    }
}

/// A planted defect or fault (`--fault NAME`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A tool without a description.
    NoDescription,
    /// A tool whose description is about 1,600 characters long.
    LongDescription,
    /// A tool whose input schema uses `"type": "strng"`.
    BadInputSchema,
    /// A tool without `inputSchema`.
    NoInputSchema,
    /// A tool whose input schema is an array schema.
    NonObjectSchema,
    /// A required name that is not in `properties`.
    RequiredMissing,
    /// Properties but no `required`.
    NoRequired,
    /// An output schema with `"type": "integr"`.
    BadOutputSchema,
    /// A second tool named `echo`.
    DuplicateName,
    /// A name with a space and a slash.
    BadName,
    /// A 70-character name.
    LongName,
    /// `readOnlyHint` and `destructiveHint` both true.
    ContradictoryAnnotations,
    /// `get_weather` and `fetch_weather`, near-duplicates.
    SimilarTools,
    /// `get_order` and `cancel_order`, for evals whose cases carry a conversation.
    OrderTools,
    /// 40 bulky tools, about 145 kB of JSON (well over 10,000 estimated tokens).
    HugeToolList,
    /// A valid draft-07 schema (with `$schema`) that 2020-12 rejects: must pass.
    Draft07Schema,
    /// A tool whose structured content breaks its output schema.
    WrongStructured,
    /// A tool `flaky` that fails every other call.
    Flaky,
    /// A read-only tool `read_query` that answers errors as success (`isError` false), as
    /// mcp-server-sqlite does.
    ErrorAsSuccess,
    /// The `fz_*` tools, each with one defect a fuzzer should find.
    FuzzTargets,
    /// A banner line on stdout before any answer (stdio).
    StdoutNoise,
    /// Writes to stderr and exits 1 at start.
    ExitBeforeInitialize,
    /// Exits 1 at start with an error line, then 46 lines of usage text (indented flags, the
    /// way a Go program refuses to start) on stderr.
    UsageExit,
    /// Never answers `initialize` nor `server/discover`.
    HangInitialize,
    /// Never answers `server/discover`; `initialize` works.
    HangDiscoverOnly,
    /// Answers the handshake (`initialize`, or a served `server/discover`) with non-JSON.
    Garbage,
    /// `tools/list` always returns the same `nextCursor`.
    EndlessPagination,
    /// `echo` returns 10 MiB of text.
    HugeResult,
    /// HTTP: every POST gets 404.
    Http404,
    /// HTTP: every POST gets 500.
    Http500,
    /// HTTP: every POST gets 200 with an HTML page.
    HttpHtml,
    /// Sends `ping` and `roots/list` to the client before the first `tools/list` answer.
    ServerRequests,
    /// Adds `book`, `summarize` and `list_roots`, which ask the client during the call.
    ClientRequests,
    /// Sends `notifications/message` and `notifications/progress` before every answer.
    Notifications,
    /// Handles one request at a time: `slow` blocks everything, `ping` included, until it ends.
    OneAtATime,
    /// Answers every `tools/call` with JSON-RPC error -32603.
    CallRpcError,
    /// Answers every `tools/call` with a result nested 200 levels deep.
    DeepResult,
    /// Answers every `tools/call` with a result holding `1e400`.
    HugeNumber,
    /// Answers every `tools/call` with a result holding a 39-digit integer.
    BigInteger,
    /// Answers every `tools/call` with content blocks the SDKs refuse: a text block whose
    /// `text` is 5, and one with no `text`.
    BadContent,
    /// Answers every `tools/call` with the id plus 1000.
    WrongId,
    /// Answers every `tools/call` twice.
    DuplicateAnswer,
    /// Answers every `tools/call` with one JSON line of 70 MiB.
    HugeLine,
    /// Prints 4 non-JSON lines of 50 MiB on stdout at start (stdio).
    HugeNoise,
    /// Prints 100,000 short non-JSON lines on stdout at start (stdio).
    NoiseFlood,
    /// Writes 100 MiB to stderr at start.
    StderrFlood,
    /// Sends 10,000 `notifications/message` before every `tools/call` answer.
    NotificationFlood,
    /// Adds tools whose input schemas some model clients refuse and others accept.
    ClientCompat,
    /// Adds tools whose schemas are hostile: self-reference, 500 levels deep, a broken regex,
    /// a remote `$ref`, a huge enum.
    HostileSchemas,
    /// HTTP: `tools/call` gets 401 with a JSON-RPC error answering its id.
    Http401Call,
    /// HTTP: `tools/call` gets an SSE stream of notifications that never ends.
    SseEndless,
    /// HTTP: `tools/call` gets an SSE event whose data is cut-off JSON.
    SseMalformed,
    /// HTTP: `tools/call` gets one SSE event of 70 MiB.
    SseHugeEvent,
    /// HTTP: the `tools/call` answer is sent one byte every 20 ms.
    Trickle,
    /// HTTP: `tools/call` gets a priming event (id, `retry: 50`) and the stream closes; the
    /// response comes on a GET with that `Last-Event-ID`.
    SseResume,
    /// HTTP: as `sse-resume`, but GET is refused (405): the response never comes.
    SseDrop,
    /// HTTP: a `ping` gets a priming event (id, `retry: 50`) and the stream closes; the
    /// response comes on a GET with that `Last-Event-ID` (`protocol-http-sse-retry`: the
    /// same without `retry`).
    SseClosePing,
    /// HTTP: sessions have a GET stream that closes after its priming event and is resumed
    /// with `Last-Event-ID`; the server's own requests and notifications go there.
    GetStream,
    /// Processes JSON-RPC batches (stdio), which revisions from 2025-06-18 no longer ask for
    /// but do not forbid: leniency `toolproof protocol` must not flag.
    LenientBatch,
    /// Exits on a line that is not JSON (stdio), the way a server whose transport loop ends
    /// on a decode error does: `toolproof protocol` must call it a warning, not advice.
    MalformedExit,
    /// Refuses `resources/read` with a well-formed JSON-RPC error, as a server whose backend
    /// is not there: the protocol working, which `toolproof protocol` must not flag.
    ResourcesUnavailable,
    /// One defect for `toolproof protocol`: the id of the check that must find it.
    Protocol(&'static str),
}

/// Every fault with its command-line name and a one-line summary.
pub const FAULTS: [(&str, Fault, &str); 90] = [
    (
        "no-description",
        Fault::NoDescription,
        "a tool without a description",
    ),
    (
        "long-description",
        Fault::LongDescription,
        "a tool with a ~1600-character description",
    ),
    (
        "bad-input-schema",
        Fault::BadInputSchema,
        "an input schema with \"type\": \"strng\"",
    ),
    (
        "no-input-schema",
        Fault::NoInputSchema,
        "a tool without inputSchema",
    ),
    (
        "non-object-schema",
        Fault::NonObjectSchema,
        "an input schema of type array",
    ),
    (
        "required-missing",
        Fault::RequiredMissing,
        "a required name missing from properties",
    ),
    (
        "no-required",
        Fault::NoRequired,
        "properties but nothing required",
    ),
    (
        "bad-output-schema",
        Fault::BadOutputSchema,
        "an output schema with \"type\": \"integr\"",
    ),
    (
        "duplicate-name",
        Fault::DuplicateName,
        "a second tool named echo",
    ),
    (
        "bad-name",
        Fault::BadName,
        "a name with a space and a slash",
    ),
    ("long-name", Fault::LongName, "a 70-character name"),
    (
        "contradictory-annotations",
        Fault::ContradictoryAnnotations,
        "readOnlyHint and destructiveHint both true",
    ),
    (
        "similar-tools",
        Fault::SimilarTools,
        "near-duplicates get_weather and fetch_weather",
    ),
    (
        "order-tools",
        Fault::OrderTools,
        "get_order and cancel_order, taking an order_id",
    ),
    (
        "huge-tool-list",
        Fault::HugeToolList,
        "40 bulky tools, about 145 kB of JSON",
    ),
    (
        "draft07-schema",
        Fault::Draft07Schema,
        "a valid draft-07 schema 2020-12 rejects (must pass)",
    ),
    (
        "wrong-structured",
        Fault::WrongStructured,
        "structuredContent that breaks its outputSchema",
    ),
    (
        "fuzz-targets",
        Fault::FuzzTargets,
        "add the fz_* tools, each with one defect for the fuzzer to find",
    ),
    (
        "flaky",
        Fault::Flaky,
        "a tool `flaky` that fails every other call",
    ),
    (
        "error-as-success",
        Fault::ErrorAsSuccess,
        "a tool `read_query` that answers errors with isError false",
    ),
    (
        "stdout-noise",
        Fault::StdoutNoise,
        "a banner line on stdout at start (stdio)",
    ),
    (
        "exit-before-initialize",
        Fault::ExitBeforeInitialize,
        "write to stderr and exit 1 at start",
    ),
    (
        "usage-exit",
        Fault::UsageExit,
        "exit 1 at start with an error, then 46 lines of usage on stderr",
    ),
    (
        "hang-initialize",
        Fault::HangInitialize,
        "never answer initialize nor server/discover",
    ),
    (
        "hang-discover-only",
        Fault::HangDiscoverOnly,
        "never answer server/discover",
    ),
    (
        "garbage",
        Fault::Garbage,
        "answer the handshake with a line that is not JSON",
    ),
    (
        "endless-pagination",
        Fault::EndlessPagination,
        "tools/list always returns the same nextCursor",
    ),
    (
        "huge-result",
        Fault::HugeResult,
        "echo returns 10 MiB of text",
    ),
    ("http-404", Fault::Http404, "HTTP: every POST gets 404"),
    ("http-500", Fault::Http500, "HTTP: every POST gets 500"),
    (
        "http-html",
        Fault::HttpHtml,
        "HTTP: every POST gets 200 with an HTML page",
    ),
    (
        "server-requests",
        Fault::ServerRequests,
        "send ping and roots/list before the first tools/list answer",
    ),
    (
        "client-requests",
        Fault::ClientRequests,
        "tools book/summarize/list_roots that send elicitation, sampling, roots/list",
    ),
    (
        "notifications",
        Fault::Notifications,
        "notifications/message and /progress before every answer",
    ),
    (
        "one-at-a-time",
        Fault::OneAtATime,
        "handle one request at a time (slow blocks even ping)",
    ),
    (
        "call-rpc-error",
        Fault::CallRpcError,
        "answer tools/call with JSON-RPC error -32603",
    ),
    (
        "deep-result",
        Fault::DeepResult,
        "answer tools/call with a result nested 200 deep",
    ),
    (
        "huge-number",
        Fault::HugeNumber,
        "answer tools/call with a result holding 1e400",
    ),
    (
        "big-integer",
        Fault::BigInteger,
        "answer tools/call with a 39-digit integer",
    ),
    (
        "bad-content",
        Fault::BadContent,
        "answer tools/call with text blocks whose text is 5 or missing",
    ),
    (
        "wrong-id",
        Fault::WrongId,
        "answer tools/call with id + 1000",
    ),
    (
        "duplicate-answer",
        Fault::DuplicateAnswer,
        "answer every tools/call twice",
    ),
    (
        "huge-line",
        Fault::HugeLine,
        "answer tools/call with one 70 MiB JSON line",
    ),
    (
        "huge-noise",
        Fault::HugeNoise,
        "4 non-JSON stdout lines of 50 MiB at start (stdio)",
    ),
    (
        "noise-flood",
        Fault::NoiseFlood,
        "100,000 non-JSON stdout lines at start (stdio)",
    ),
    (
        "stderr-flood",
        Fault::StderrFlood,
        "write 100 MiB to stderr at start",
    ),
    (
        "notification-flood",
        Fault::NotificationFlood,
        "10,000 notifications before every tools/call answer",
    ),
    (
        "client-compat",
        Fault::ClientCompat,
        "tools whose schemas one model client accepts and another refuses",
    ),
    (
        "hostile-schemas",
        Fault::HostileSchemas,
        "tools with self-referencing, 500-deep, broken-regex schemas",
    ),
    (
        "http-401-call",
        Fault::Http401Call,
        "HTTP: tools/call gets 401 with a JSON-RPC error",
    ),
    (
        "sse-endless",
        Fault::SseEndless,
        "HTTP: tools/call gets notifications forever",
    ),
    (
        "sse-malformed",
        Fault::SseMalformed,
        "HTTP: tools/call gets an SSE event of cut JSON",
    ),
    (
        "sse-huge-event",
        Fault::SseHugeEvent,
        "HTTP: tools/call gets one 70 MiB SSE event",
    ),
    (
        "trickle",
        Fault::Trickle,
        "HTTP: the tools/call answer comes a byte per 20 ms",
    ),
    (
        "sse-resume",
        Fault::SseResume,
        "HTTP: tools/call stream closes after a priming event; answer on GET + Last-Event-ID",
    ),
    (
        "sse-drop",
        Fault::SseDrop,
        "HTTP: tools/call stream closes after a priming event; GET refused (405)",
    ),
    (
        "sse-close-ping",
        Fault::SseClosePing,
        "HTTP: a ping's stream closes after a priming event with retry; resumed with a GET",
    ),
    (
        "get-stream",
        Fault::GetStream,
        "HTTP: a GET stream per session, closed after priming and resumed; server requests go there",
    ),
    (
        "lenient-batch",
        Fault::LenientBatch,
        "process JSON-RPC batches (stdio), which 2025-06-18 on allows",
    ),
    (
        "malformed-exit",
        Fault::MalformedExit,
        "exit on a line that is not JSON (stdio)",
    ),
    (
        "resources-unavailable",
        Fault::ResourcesUnavailable,
        "refuse resources/read with a JSON-RPC error, as with no backend",
    ),
    (
        "protocol-init-version",
        Fault::Protocol("init-version"),
        "initialize echoes any requested version, even unsupported ones",
    ),
    (
        "protocol-initialized",
        Fault::Protocol("initialized"),
        "ignore notifications/initialized (later requests get -32600)",
    ),
    (
        "protocol-before-initialize",
        Fault::Protocol("before-initialize"),
        "answer requests sent before initialize",
    ),
    (
        "protocol-ping",
        Fault::Protocol("ping"),
        "answer ping with -32601",
    ),
    (
        "protocol-unknown-method",
        Fault::Protocol("unknown-method"),
        "answer unknown methods (not */list ones) with an empty result",
    ),
    (
        "protocol-notifications",
        Fault::Protocol("notifications"),
        "answer every notification with an error",
    ),
    (
        "protocol-capabilities",
        Fault::Protocol("capabilities"),
        "advertise resources without serving resources/list",
    ),
    (
        "protocol-unadvertised",
        Fault::Protocol("unadvertised"),
        "answer prompts/list without advertising prompts",
    ),
    (
        "protocol-logging",
        Fault::Protocol("logging"),
        "advertise logging without serving logging/setLevel",
    ),
    (
        "protocol-unknown-tool",
        Fault::Protocol("unknown-tool"),
        "answer a call of an unknown tool with success",
    ),
    (
        "protocol-invalid-arguments",
        Fault::Protocol("invalid-arguments"),
        "answer tools/call without required arguments with success",
    ),
    (
        "protocol-invalid-cursor",
        Fault::Protocol("invalid-cursor"),
        "treat a cursor never issued as the first page",
    ),
    (
        "protocol-pagination",
        Fault::Protocol("pagination"),
        "issue a nextCursor that tools/list then refuses",
    ),
    (
        "protocol-resources-read",
        Fault::Protocol("resources-read"),
        "answer resources/read of the listed resource without contents",
    ),
    (
        "protocol-prompts-get",
        Fault::Protocol("prompts-get"),
        "refuse prompts/get of the listed prompt",
    ),
    (
        "protocol-batch",
        Fault::Protocol("batch"),
        "exit on a JSON-RPC batch (stdio)",
    ),
    (
        "protocol-malformed",
        Fault::Protocol("malformed"),
        "ignore lines that are not JSON and invalid requests",
    ),
    (
        "protocol-list-changed",
        Fault::Protocol("list-changed"),
        "send notifications/tools/list_changed on tools/list without advertising listChanged",
    ),
    (
        "protocol-http-session",
        Fault::Protocol("http-session"),
        "HTTP: issue session ids with spaces in them",
    ),
    (
        "protocol-http-missing-session",
        Fault::Protocol("http-missing-session"),
        "HTTP: answer a ping that carries no session id",
    ),
    (
        "protocol-http-unknown-session",
        Fault::Protocol("http-unknown-session"),
        "HTTP: answer a session id it never issued with 400, not 404",
    ),
    (
        "protocol-http-delete",
        Fault::Protocol("http-delete"),
        "HTTP: DELETE answers 204 but the session lives on",
    ),
    (
        "protocol-http-protocol-version",
        Fault::Protocol("http-protocol-version"),
        "HTTP: accept any MCP-Protocol-Version header",
    ),
    (
        "protocol-http-accept",
        Fault::Protocol("http-accept"),
        "HTTP: ignore the Accept header",
    ),
    (
        "protocol-http-notification",
        Fault::Protocol("http-notification"),
        "HTTP: answer notifications with 200 instead of 202",
    ),
    (
        "protocol-http-get",
        Fault::Protocol("http-get"),
        "HTTP: answer GET with 200 application/json",
    ),
    (
        "protocol-http-sse-priming",
        Fault::Protocol("http-sse-priming"),
        "HTTP: event streams start without a priming event",
    ),
    (
        "protocol-http-sse-retry",
        Fault::Protocol("http-sse-retry"),
        "HTTP: a ping's stream closes after a priming event without retry; resumed with a GET",
    ),
    (
        "protocol-http-origin",
        Fault::Protocol("http-origin"),
        "HTTP: accept requests from any Origin",
    ),
];

/// Everything the command line chose.
#[derive(Debug, Clone)]
pub struct Options {
    /// Serve streamable HTTP on this loopback address instead of stdio.
    pub http: Option<SocketAddr>,
    /// Protocol generation.
    pub era: Era,
    /// Answer POSTs with `text/event-stream`.
    pub sse: bool,
    /// Speak the 2024-11-05 HTTP+SSE transport (`GET /sse`, POSTs to the `endpoint`).
    pub legacy_sse: bool,
    /// Headers every HTTP request must carry, as (lowercase name, value).
    pub require_headers: Vec<(String, String)>,
    /// Number of generated `tool_NNNN` tools.
    pub extra_tools: usize,
    /// Tools per `tools/list` page; 0 = one page.
    pub page_size: usize,
    /// Offer one resource.
    pub resources: bool,
    /// Offer one prompt.
    pub prompts: bool,
    /// Planted faults.
    pub faults: Vec<Fault>,
    /// Append every received message here.
    pub log: Option<PathBuf>,
    /// `serverInfo.name`.
    pub name: String,
    /// Answer `initialize` with this version whatever the client asked.
    pub legacy_version: Option<String>,
    /// `--surface FILE`: the tools (each answering as `echo` does), prompts, resources and
    /// resource templates to list instead of the built-in ones, and `serverInfo.version`.
    pub surface: Option<serde_json::Value>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            http: None,
            era: Era::Legacy,
            sse: false,
            legacy_sse: false,
            require_headers: Vec::new(),
            extra_tools: 0,
            page_size: 0,
            resources: false,
            prompts: false,
            faults: Vec::new(),
            log: None,
            name: "fake-mcp".to_owned(),
            legacy_version: None,
            surface: None,
        }
    }
}

impl Options {
    /// Whether `fault` was asked for.
    pub fn has(&self, fault: Fault) -> bool {
        self.faults.contains(&fault)
    }

    /// Whether the protocol defect for check `id` is planted.
    pub fn planted(&self, id: &'static str) -> bool {
        self.has(Fault::Protocol(id))
    }
}

/// What the command line asked for.
#[derive(Debug)]
pub enum Parsed {
    /// Run the server.
    Run(Box<Options>),
    /// Print the help text and exit 0.
    Help,
}

/// The `--help` text.
pub fn help() -> String {
    let faults: Vec<String> = FAULTS
        .iter()
        .map(|(name, _, summary)| format!("  {name:<26} {summary}"))
        .collect();
    format!(
        "fake_mcp: a scripted fake MCP server for toolproof's tests

usage: fake_mcp [OPTIONS]

options:
  --http ADDR              serve streamable HTTP on ADDR (loopback only, e.g. 127.0.0.1:0)
                           instead of stdio; the first stdout line is
                           `listening on http://127.0.0.1:PORT/mcp`
  --era legacy|modern|both protocol generation (default legacy)
  --sse                    HTTP: answer POSTs as text/event-stream
  --legacy-sse             HTTP: speak the 2024-11-05 HTTP+SSE transport instead: GET /sse
                           streams an `endpoint` event, then every message; POSTs to the
                           endpoint get 202 (the startup line names /sse)
  --require-header 'N: V'  HTTP: answer 401 unless header N has value V (repeatable)
  --tools N                add N generated tools tool_0001..tool_N
  --page-size K            K tools per tools/list page (default: all in one page)
  --resources              offer one resource (fake://readme)
  --prompts                offer one prompt (greet)
  --fault NAME             plant a fault (repeatable, or comma-separated)
  --log FILE               append every received message to FILE as one JSON line
  --name NAME              serverInfo name (default fake-mcp)
  --legacy-version V       answer initialize with protocol version V, whatever was asked
  --surface FILE           list what FILE holds instead of the built-in tools: a JSON object
                           with `tools` (each answers as echo does), `prompts`, `resources`,
                           `resourceTemplates` and `version` (serverInfo), all optional
  -h, --help               print this help

faults (--fault NAME):
{}
",
        faults.join("\n")
    )
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Parsed, String> {
    let mut opts = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--http" => {
                let v = value("--http")?;
                let addr: SocketAddr = v
                    .parse()
                    .map_err(|_| format!("--http: `{v}` is not an IP:PORT address"))?;
                if !addr.ip().is_loopback() {
                    return Err(format!("--http: `{v}` is not a loopback address"));
                }
                opts.http = Some(addr);
            }
            "--era" => {
                opts.era = match value("--era")?.as_str() {
                    "legacy" => Era::Legacy,
                    "modern" => Era::Modern,
                    "both" => Era::Both,
                    other => return Err(format!("--era: unknown era `{other}`")),
                }
            }
            "--sse" => opts.sse = true,
            "--legacy-sse" => opts.legacy_sse = true,
            "--require-header" => {
                let v = value("--require-header")?;
                let (name, val) = v
                    .split_once(':')
                    .ok_or_else(|| format!("--require-header: `{v}` is not `Name: value`"))?;
                opts.require_headers
                    .push((name.trim().to_ascii_lowercase(), val.trim().to_owned()));
            }
            "--tools" => opts.extra_tools = number("--tools", &value("--tools")?)?,
            "--page-size" => opts.page_size = number("--page-size", &value("--page-size")?)?,
            "--resources" => opts.resources = true,
            "--prompts" => opts.prompts = true,
            "--fault" => {
                for name in value("--fault")?.split(',').filter(|s| !s.is_empty()) {
                    let fault = FAULTS
                        .iter()
                        .find(|(n, _, _)| *n == name)
                        .map(|(_, f, _)| *f)
                        .ok_or_else(|| format!("--fault: unknown fault `{name}`"))?;
                    if !opts.faults.contains(&fault) {
                        opts.faults.push(fault);
                    }
                }
            }
            "--log" => opts.log = Some(PathBuf::from(value("--log")?)),
            "--name" => opts.name = value("--name")?,
            "--legacy-version" => opts.legacy_version = Some(value("--legacy-version")?),
            "--surface" => {
                let path = value("--surface")?;
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("--surface: cannot read {path}: {e}"))?;
                let surface: serde_json::Value = serde_json::from_str(&text)
                    .map_err(|e| format!("--surface: {path} is not JSON: {e}"))?;
                opts.surface = Some(surface);
            }
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if opts.legacy_sse && opts.http.is_none() {
        return Err("--legacy-sse: needs --http ADDR (it is an HTTP transport)".into());
    }
    if opts.legacy_sse && opts.era == Era::Modern {
        return Err(
            "--legacy-sse: the 2024-11-05 transport has no 2026-07-28 era; use --era legacy or both"
                .into(),
        );
    }
    Ok(Parsed::Run(Box::new(opts)))
}

fn number(flag: &str, v: &str) -> Result<usize, String> {
    v.parse()
        .map_err(|_| format!("{flag}: `{v}` is not a whole number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Options, String> {
        match parse(args.iter().map(|s| s.to_string()))? {
            Parsed::Run(o) => Ok(*o),
            Parsed::Help => Err("help".into()),
        }
    }

    #[test]
    fn parses_every_kind_of_flag() {
        let o = run(&[
            "--http=127.0.0.1:0",
            "--era",
            "both",
            "--sse",
            "--require-header",
            "Authorization: Bearer abc",
            "--tools",
            "3",
            "--fault",
            "garbage,bad-name",
            "--fault",
            "garbage",
        ])
        .unwrap_or_default();
        assert_eq!(o.http.map(|a| a.port()), Some(0));
        assert_eq!(o.era, Era::Both);
        assert!(o.sse);
        assert_eq!(
            o.require_headers,
            [("authorization".to_owned(), "Bearer abc".to_owned())]
        );
        assert_eq!(o.extra_tools, 3);
        assert_eq!(o.faults, [Fault::Garbage, Fault::BadName]);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(run(&["--http", "0.0.0.0:0"]).is_err_and(|e| e.contains("loopback")));
        assert!(run(&["--fault", "nope"]).is_err_and(|e| e.contains("unknown fault")));
        assert!(run(&["--tools"]).is_err_and(|e| e.contains("needs a value")));
        assert!(run(&["--help"]).is_err_and(|e| e == "help"));
    }

    #[test]
    fn help_lists_every_flag_and_each_is_parsed() {
        let h = help();
        let flags = [
            ("--http", Some("127.0.0.1:0")),
            ("--era", Some("both")),
            ("--sse", None),
            ("--legacy-sse", None),
            ("--require-header", Some("A: b")),
            ("--tools", Some("1")),
            ("--page-size", Some("1")),
            ("--resources", None),
            ("--prompts", None),
            ("--fault", Some("garbage")),
            ("--log", Some("wire.jsonl")),
            ("--name", Some("n")),
            ("--legacy-version", Some("2024-11-05")),
        ];
        for (flag, value) in flags {
            assert!(
                h.contains(&format!("  {flag} ")),
                "{flag} missing from --help"
            );
            let mut args = vec!["--http", "127.0.0.1:0", flag];
            args.extend(value);
            assert!(run(&args).is_ok(), "{flag} is not parsed");
        }
    }

    #[test]
    fn legacy_sse_needs_http_and_a_legacy_era() {
        let o = run(&["--http", "127.0.0.1:0", "--legacy-sse"]).unwrap_or_default();
        assert!(o.legacy_sse);
        assert!(run(&["--legacy-sse"]).is_err_and(|e| e.contains("needs --http")));
        assert!(
            run(&["--http", "127.0.0.1:0", "--legacy-sse", "--era", "modern"])
                .is_err_and(|e| e.contains("no 2026-07-28 era"))
        );
    }

    #[test]
    fn help_lists_every_fault() {
        let h = help();
        for (name, _, _) in FAULTS {
            assert!(h.contains(name), "{name} missing from --help");
        }
    }
}
