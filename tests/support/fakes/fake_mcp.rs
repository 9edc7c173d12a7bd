//! `fake_mcp`: a scripted fake MCP server that toolproof's integration tests start over stdio,
//! streamable HTTP or the 2024-11-05 HTTP+SSE transport, in either protocol era, with planted
//! defects and faults.
//!
//! Build with `cargo build -p toolproof-test-support`; the binary lands in `target/debug/fake_mcp`.
//!
//! # Options
//!
//! | flag | meaning |
//! |---|---|
//! | `--http ADDR` | serve streamable HTTP on ADDR (loopback only, e.g. `127.0.0.1:0`) instead of stdio |
//! | `--era legacy\|modern\|both` | protocol generation, default `legacy` |
//! | `--sse` | HTTP: answer every POST request as `text/event-stream` |
//! | `--legacy-sse` | HTTP: speak the 2024-11-05 HTTP+SSE transport instead (see below) |
//! | `--require-header 'Name: value'` | HTTP: 401 unless the header has that value (repeatable) |
//! | `--tools N` | add N generated tools `tool_0001`… with short distinct descriptions |
//! | `--page-size K` | K tools per `tools/list` page, with `nextCursor` (default: one page) |
//! | `--resources` / `--prompts` | offer one resource (`fake://readme`) / one prompt (`greet`) |
//! | `--fault NAME` | plant a fault, repeatable or comma-separated (list below) |
//! | `--log FILE` | append every received message to FILE as one JSON line |
//! | `--name NAME` | `serverInfo.name` (default `fake-mcp`) |
//! | `--legacy-version V` | answer `initialize` with version V whatever the client asked |
//! | `--surface FILE` | list FILE's `tools` (each answering as `echo`), `prompts`, `resources`, `resourceTemplates`, and its `version` as `serverInfo.version`, instead of the built-in ones |
//!
//! # Startup line (HTTP)
//!
//! With `--http`, the first and only stdout line is `listening on http://127.0.0.1:PORT/mcp`
//! (`…/sse` with `--legacy-sse`), flushed at once, so a test can read the port. Diagnostics go
//! to stderr.
//!
//! # Eras
//!
//! - legacy: `initialize` echoes the client's `protocolVersion` when it is 2025-03-26,
//!   2025-06-18 or 2025-11-25, else answers 2025-11-25. Requests other than `ping` before
//!   `notifications/initialized` get -32600. `server/discover` gets -32601.
//! - modern (2026-07-28): `server/discover` answers; every request needs `_meta` with
//!   `io.modelcontextprotocol/protocolVersion` = 2026-07-28 (else -32022 with data
//!   `{supported, requested}`) and `io.modelcontextprotocol/clientCapabilities` (else -32602);
//!   results carry `resultType`, lists also `ttlMs`/`cacheScope`; `initialize` and `ping` get
//!   -32601.
//! - both: `initialize` starts a legacy session; `server/discover` answers as modern; later
//!   requests are modern when they carry `_meta` (stdio) or no `Mcp-Session-Id` (HTTP).
//!
//! # HTTP rules
//!
//! Endpoint `/mcp`. POST needs `Accept` with both `application/json` and `text/event-stream`
//! (406) and `Content-Type: application/json` (415). Legacy: `initialize` issues
//! `Mcp-Session-Id`; later requests without it get 400, with an unknown one 404; the
//! `MCP-Protocol-Version` header must equal the negotiated version (400; may be absent only for
//! 2025-03-26); DELETE ends the session (204). Modern: no sessions; `Mcp-Method` must equal the
//! body's method, `MCP-Protocol-Version` must be present and equal `_meta`'s, `Mcp-Name` must
//! equal `params.name`/`params.uri` for `tools/call`, `prompts/get`, `resources/read` (400 +
//! -32020); unknown methods 404 + -32601. Notifications and responses get 202 without a body.
//! GET gets 405. Answers are `application/json`, or SSE with `--sse` (a priming event with empty
//! data, a `notifications/message` event, then the response) and whenever the server has to send
//! something before the response (faults `notifications`, `server-requests`).
//!
//! # Legacy HTTP+SSE (`--legacy-sse`, 2024-11-05)
//!
//! `GET /sse` (Accept with `text/event-stream`, else 406) opens a session: an event stream whose
//! first event is `event: endpoint` with data `/messages?session_id=ID`. Messages are POSTed
//! there (`Content-Type: application/json`, else 415; no or an unknown session 400/404) and
//! answered `202 Accepted` without a body; responses, notifications and the server's own requests
//! (faults `server-requests`, `client-requests`) come on the stream as `event: message`, and the
//! client POSTs its answers to the endpoint too. A POST to `/sse` gets 405 (`Allow: GET`), so a
//! client that tries streamable HTTP first falls back. Messages of a session are handled in
//! order; closing the stream ends the session. `--era legacy` or `both` (legacy sessions only);
//! the streamable HTTP faults do not apply.
//!
//! # Tools
//!
//! `echo(text)` → the text; `add(a, b)` → the sum as text and `structuredContent {result}`
//! (declares an outputSchema); `fail` → an `isError` result; `slow(ms)` → sleeps, then answers
//! (on stdio in a thread, so other requests go on; a cancelled call gets no answer); `crash` →
//! writes `about to crash` to stderr and exits with status 3. Unknown tools get -32602.
//!
//! # Faults
//!
//! `--fault NAME`; `--help` lists them with a one-line summary each.
//!
//! Tool-list defects, each adding the tool named in brackets: `no-description` [undocumented],
//! `long-description` [verbose, about 1600 characters], `bad-input-schema` [bad_schema,
//! `"type":"strng"`], `no-input-schema` [no_schema], `non-object-schema` [array_schema],
//! `required-missing` [required_missing], `no-required` [nothing_required], `bad-output-schema`
//! [bad_output], `duplicate-name` [a second echo], `bad-name` [`bad name/with slash`],
//! `long-name` [70 characters], `contradictory-annotations` [wipe_cache], `similar-tools`
//! [get_weather, fetch_weather], `order-tools` [get_order, cancel_order], `huge-tool-list` [bulk_01..bulk_40, about 145 kB of JSON],
//! `draft07-schema` [draft07_point: valid draft-07 that 2020-12 rejects; must NOT be flagged],
//! `wrong-structured` [wrong_structured: structuredContent breaks its outputSchema],
//! `flaky` [flaky: an isError result on the 1st, 3rd, … call, success on the others],
//! `error-as-success` [read_query: `[{'1': 1}]` for `SELECT 1`, and for anything else
//! `Error: Only SELECT…` or `Database error: …` with `isError` false, as mcp-server-sqlite].
//!
//! `fuzz-targets` adds the `fz_*` tools, each planting one defect for `toolproof fuzz` (see
//! `fake_mcp/fuzz_targets.rs`): `fz_crash` exits when a nested quantity is negative, `fz_hang`
//! never answers a text over 40 characters (`fz_stuck` blocks the whole server, ping included,
//! for one), `fz_accept` accepts invalid input, `fz_output`
//! breaks its outputSchema for 3 items or more, `fz_reject` answers -32602 to a name with a
//! space, `fz_internal` answers -32603 to an empty label, `fz_traceback` returns a Python
//! traceback for a path with a slash, `fz_unexpected` fails odd numbers, `fz_strict` validates
//! its rich schema exactly (no defect), and `fz_unannotated` has no annotations.
//!
//! Behaviour faults:
//! - `stdout-noise`: a banner line on stdout at start (stdio only).
//! - `exit-before-initialize`: a stderr line, then exit 1 at start.
//! - `hang-initialize`: never answers `initialize` nor `server/discover`.
//! - `hang-discover-only`: never answers `server/discover`; `initialize` works.
//! - `garbage`: answers `initialize` (and `server/discover` when the era serves it) with a
//!   non-JSON line.
//! - `endless-pagination`: `tools/list` always returns the same `nextCursor`.
//! - `huge-result`: `echo` returns 10 MiB of text.
//! - `http-404` / `http-500` / `http-html`: every POST gets that answer.
//! - `server-requests` (legacy only): before the first `tools/list` answer, sends `ping` and
//!   `roots/list` to the client and waits for both answers (HTTP: over SSE, up to 30 s), then
//!   writes to stderr `fake_mcp: server-requests: ping answered with result {}` (or
//!   `answered with error {…}`, `got no answer`).
//! - `client-requests` (legacy only): adds `book(party)`, `summarize(text)` and `list_roots`,
//!   which send `elicitation/create` (a `time` with default `18:00`), `sampling/createMessage`
//!   and `roots/list` during the call (HTTP: on the POST's SSE stream) and answer with what they
//!   got (`booked 2 at {"time":"19:00"}`, `not booked: the user chose decline`,
//!   `summary: … (model …)`, `roots: [file:///…]`); an `isError` result when the client did not
//!   declare the capability at `initialize` or refused the request.
//! - `notifications`: a `notifications/message` and a `notifications/progress` (the request's
//!   `progressToken`, else `fake-progress`) before every answer; adds the `logging` capability.
//! - `one-at-a-time`: one request at a time (stdio: `slow` runs on the reading thread; HTTP:
//!   one POST at a time), so a long `slow` leaves even `ping` unanswered.
//! - `call-rpc-error`, `deep-result`, `huge-number`, `big-integer`, `bad-content`, `wrong-id`,
//!   `duplicate-answer`, `huge-line`: every `tools/call` of a tool that answers at once gets a
//!   JSON-RPC error -32603, a result nested 200 levels deep, one holding `1e400`, one holding a
//!   39-digit integer, one whose content is `[{"type": "text", "text": 5}, {"type": "text"}]`,
//!   the id plus 1000, two answers, or one 70 MiB line.
//! - `huge-noise` (4 stdout lines of 50 MiB), `noise-flood` (100,000 short stdout lines): at
//!   start, stdio only. `stderr-flood`: 100 MiB on stderr at start.
//! - `notification-flood`: 10,000 `notifications/message` before every `tools/call` answer.
//! - `client-compat`: tools `pick_route` (`anyOf` at the root), `fetch_page` (zod-style
//!   `$schema`, closed object, `["number","null"]`, `format: uri`, `maxLength`),
//!   `strict_lookup` (closed, all required) and `loose_query` (plain), which model clients
//!   accept or refuse differently (see `fake_mcp/client_compat.rs`).
//! - `hostile-schemas`: tools `self_ref` (`$ref: "#"`), `deep_schema` (55 levels),
//!   `bad_pattern` (`"(("`), `remote_ref` (a `$ref` to 127.0.0.1:9), `huge_enum` (100,000 values).
//! - `http-401-call`, `sse-endless`, `sse-malformed`, `sse-huge-event`, `trickle` (HTTP, on
//!   `tools/call`): 401 with a JSON-RPC error for its id; notifications every 20 ms and never the
//!   response; an event of cut JSON; one 70 MiB event; the answer a byte every 20 ms.
//! - `sse-resume`, `sse-drop` (HTTP, on `tools/call`): the response stream sends only a priming
//!   event (`id: N-1`, `retry: 50`, empty data) and closes. With `sse-resume` a
//!   `GET /mcp` with `Last-Event-ID: N-1` gets a stream holding the response (event id `N-2`;
//!   an unknown id gets 404); with `sse-drop` GET stays 405 and the response never comes.
//!
//! Protocol defects, one per check of `toolproof protocol`: `protocol-<check id>`, e.g.
//! `protocol-ping` (ping gets -32601), `protocol-batch` (exits on a batch),
//! `protocol-malformed` (bad lines ignored), `protocol-http-sse-priming` (event streams without
//! a priming event); `--help` lists them all. `lenient-batch` (batches processed) and
//! `resources-unavailable` (reads refused with a JSON-RPC error) are behaviours the protocol
//! checks must not flag.
//!
//! # Log
//!
//! `--log FILE` appends one JSON object per received message: stdio
//! `{"transport":"stdio","message":…,"text":…}` (`text`: the line as received, every digit of a
//! number kept; `"raw"` instead for a line that is not JSON); HTTP
//! `{"transport":"http","method":"POST","path":"/mcp","headers":{lowercase name: value},"message":…}`
//! (`"transport":"sse"` with `--legacy-sse`; a `"query"` when the URL has one).
//!
//! Malformed input gets -32700 (not JSON) or -32600 (not a request); unknown methods -32601.
//! The server exits 0 when stdin ends (stdio), 2 on a bad command line.

#[path = "fake_mcp/asking.rs"]
mod asking;
#[path = "fake_mcp/catalog.rs"]
mod catalog;
#[path = "fake_mcp/client_compat.rs"]
mod client_compat;
#[path = "fake_mcp/fuzz_targets.rs"]
mod fuzz_targets;
#[path = "fake_mcp/get_stream.rs"]
mod get_stream;
#[path = "fake_mcp/hostile.rs"]
mod hostile;
#[path = "fake_mcp/http.rs"]
mod http;
#[path = "common/http1.rs"]
mod http1;
#[path = "fake_mcp/http_faults.rs"]
mod http_faults;
#[path = "fake_mcp/http_protocol.rs"]
mod http_protocol;
#[path = "fake_mcp/legacy_sse.rs"]
mod legacy_sse;
#[path = "fake_mcp/opts.rs"]
mod opts;
#[path = "fake_mcp/post_stream.rs"]
mod post_stream;
#[path = "fake_mcp/server.rs"]
mod server;
#[path = "fake_mcp/stdio.rs"]
mod stdio;

use std::sync::Arc;

use opts::{Fault, Parsed};

fn main() {
    let options = match opts::parse(std::env::args().skip(1)) {
        Ok(Parsed::Run(o)) => *o,
        Ok(Parsed::Help) => {
            print!("{}", opts::help());
            return;
        }
        Err(e) => {
            eprintln!("fake_mcp: error: {e}\nhint: run `fake_mcp --help` for the options");
            std::process::exit(2);
        }
    };
    if options.has(Fault::ExitBeforeInitialize) {
        eprintln!("fake_mcp: fatal: refusing to start (fault exit-before-initialize)");
        std::process::exit(1);
    }
    if options.has(Fault::UsageExit) {
        eprintln!("Error: no current context is set in the config (fault usage-exit)");
        eprintln!("Usage:\n  fake_mcp [flags]\n\nFlags:");
        for i in 1..=42 {
            eprintln!("      --flag-{i:02} string   what option {i} sets");
        }
        std::process::exit(1);
    }
    let http = options.http;
    hostile::at_start(&options, http.is_none());
    let server = match server::Server::new(options) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("fake_mcp: error: {e}");
            std::process::exit(2);
        }
    };
    let status = match http {
        Some(addr) => http::serve(server, addr),
        None => stdio::serve(server),
    };
    std::process::exit(status);
}
