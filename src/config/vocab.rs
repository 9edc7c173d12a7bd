//! The words a config may use that engines define: the static-check ids (with the one-line
//! summaries docs show), the model clients `checks.clients` names, the set lint's rule ids
//! ([`lint`]) and JSONPath ([`jsonpath`]). The loader validates `checks.disable`,
//! `checks.clients`, `evals.lint.disable` and `expect.jsonpath` against this module; `checks`,
//! `suite` and the lint use the same lists and parser, so config imports no engine and there is
//! one of each.

mod jsonpath;
pub(crate) mod set_lint;
pub(crate) mod surface;

pub(crate) use jsonpath::{jsonpath, jsonpath_error};
pub(crate) use set_lint::LINT_RULE_IDS;
pub use set_lint::LINT_RULES;

/// Id of the check that flags a name used by more than one tool.
pub(crate) const DUPLICATE_NAME: &str = "duplicate-name";
/// Id of the check that flags a tool without a name.
pub(crate) const NAME: &str = "name";
/// Id of the check that flags names outside MCP's tool-name rule.
pub(crate) const NAME_FORMAT: &str = "name-format";
/// Id of the check that flags names model APIs or client prefixes reject.
pub(crate) const NAME_CLIENTS: &str = "name-clients";
/// Id of the check that flags a tool without a description.
pub(crate) const DESCRIPTION: &str = "description";
/// Id of the check that flags an overlong description.
pub(crate) const DESCRIPTION_LENGTH: &str = "description-length";
/// Id of the check that flags malformed or contradictory annotations.
pub(crate) const ANNOTATIONS: &str = "annotations";
/// Id of the check that flags a tool whose title or description says it is deprecated.
pub(crate) const DEPRECATED_TOOL: &str = "deprecated-tool";
/// Id of the check that flags a description telling the model to pick its tool.
pub(crate) const GAMING_IMPERATIVE: &str = "gaming-imperative";
/// Id of the check that flags a description praising its own tool.
pub(crate) const GAMING_SUPERLATIVE: &str = "gaming-superlative";
/// Id of the check that flags a description steering the model away from other tools.
pub(crate) const GAMING_OTHER_TOOLS: &str = "gaming-other-tools";
/// Id of the check that flags a description shouting at the model.
pub(crate) const GAMING_URGENCY: &str = "gaming-urgency";
/// Id of the check that flags a tool without annotations.
pub(crate) const ANNOTATIONS_MISSING: &str = "annotations-missing";
/// Id of the check that flags an argument whose `default` contradicts its own schema.
pub(crate) const DEFAULT_TYPE: &str = "default-type";
/// Id of the check that flags a required argument that also has a `default`.
pub(crate) const REQUIRED_DEFAULT: &str = "required-default";
/// Id of the check that flags defaults and limits stated only in an argument's description.
pub(crate) const PROSE_LIMITS: &str = "prose-limits";
/// Id of the check that flags arguments without a description (one finding per tool).
pub(crate) const ARGUMENT_DESCRIPTION: &str = "argument-description";
/// Id of the check that flags an unusable input schema.
pub(crate) const INPUT_SCHEMA: &str = "input-schema";
/// Id of the check that compares `required` with `properties`.
pub(crate) const REQUIRED_FIELDS: &str = "required-fields";
/// Id of the check that flags an unusable output schema.
pub(crate) const OUTPUT_SCHEMA: &str = "output-schema";
/// Id of the check that flags pairs of tools a model will confuse.
pub(crate) const SIMILAR_TOOLS: &str = "similar-tools";
/// Id of the check that flags a tool list too large for a model's context.
pub(crate) const TOOL_LIST_SIZE: &str = "tool-list-size";
/// Id of the check that flags non-protocol output on the server's stdout.
pub(crate) const STDOUT_NOISE: &str = "stdout-noise";
/// Id of the check that flags responses bending JSON-RPC 2.0 or MCP.
pub(crate) const PROTOCOL: &str = "protocol";
/// Id of the check that flags input schemas OpenAI rejects with `strict: true`.
pub(crate) const CLIENT_OPENAI_STRICT: &str = "client-openai-strict";
/// Id of the check that flags input schemas the Gemini API rejects as `parameters`.
pub(crate) const CLIENT_GEMINI: &str = "client-gemini";
/// Id of the check that flags input schemas the Claude API rejects.
pub(crate) const CLIENT_ANTHROPIC: &str = "client-anthropic";
/// Id of the check that flags input schemas Claude rejects with `strict: true`.
pub(crate) const CLIENT_ANTHROPIC_STRICT: &str = "client-anthropic-strict";

/// Id of the check that flags hidden characters in a tool's text.
pub(crate) const SECURITY_HIDDEN_TEXT: &str = "security-hidden-text";
/// Id of the check that flags text instructing the model instead of describing the tool.
pub(crate) const SECURITY_INSTRUCTIONS: &str = "security-instructions";
/// Id of the check that flags text telling the model to send data somewhere.
pub(crate) const SECURITY_EXFILTRATION: &str = "security-exfiltration";
/// Id of the check that flags text telling the model how to use other tools.
pub(crate) const SECURITY_SHADOWING: &str = "security-shadowing";
/// Id of the check that flags long encoded blobs in a tool's text.
pub(crate) const SECURITY_ENCODED_BLOB: &str = "security-encoded-blob";

/// A model client whose schema rules `checks.clients` can select, and the check that holds
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClientInfo {
    /// The name `checks.clients` uses, e.g. `openai-strict`.
    pub id: &'static str,
    /// The id of the check whose findings it turns on.
    pub check: &'static str,
}

/// Every client `checks.clients` knows, in the order their checks run.
pub(crate) const CLIENTS: &[ClientInfo] = &[
    ClientInfo {
        id: "openai-strict",
        check: CLIENT_OPENAI_STRICT,
    },
    ClientInfo {
        id: "gemini",
        check: CLIENT_GEMINI,
    },
    ClientInfo {
        id: "anthropic",
        check: CLIENT_ANTHROPIC,
    },
    ClientInfo {
        id: "anthropic-strict",
        check: CLIENT_ANTHROPIC_STRICT,
    },
];

/// Every client name, in [`CLIENTS`] order (validates `checks.clients`).
pub(crate) const CLIENT_IDS: &[&str] = &client_ids();

const fn client_ids() -> [&'static str; CLIENTS.len()] {
    let mut out = [""; CLIENTS.len()];
    let mut i = 0;
    while i < CLIENTS.len() {
        out[i] = CLIENTS[i].id;
        i += 1;
    }
    out
}

/// The clients checked when `checks.clients` is not set: only `anthropic`, whose one rule (no
/// `oneOf`/`allOf`/`anyOf` at the root) breaks every request of every Claude client. The
/// others apply only to clients that opt in (`strict: true`) or send `parameters` to Gemini,
/// so flagging them on every server would be noise.
pub(crate) const DEFAULT_CLIENTS: &[&str] = &["anthropic"];

/// One static check: its id and a one-line description (for docs and `--help`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckInfo {
    /// Stable id, as used in `checks.disable` and in findings.
    pub id: &'static str,
    /// What it looks for and how severe it is, one line.
    pub summary: &'static str,
}

/// Every check, in the order its findings appear.
pub const CHECKS: &[CheckInfo] = &[
    CheckInfo {
        id: DUPLICATE_NAME,
        summary: "error: two or more tools share a name",
    },
    CheckInfo {
        id: NAME,
        summary: "error: the tool's name is missing, empty or only whitespace",
    },
    CheckInfo {
        id: NAME_FORMAT,
        summary: "warning: the name is outside MCP's 1-128 characters of A-Z a-z 0-9 _ - .",
    },
    CheckInfo {
        id: NAME_CLIENTS,
        summary: "warning: model APIs reject the name (A-Z a-z 0-9 _ -, at most 64), \
                  also once a client prefixes it as `mcp__<server>__<tool>`",
    },
    CheckInfo {
        id: DESCRIPTION,
        summary: "error: the tool has no description",
    },
    CheckInfo {
        id: DESCRIPTION_LENGTH,
        summary: "warning: the description is longer than checks.max_description_length",
    },
    CheckInfo {
        id: DEPRECATED_TOOL,
        summary: "warning: the tool's title or description says it is deprecated while it is \
                  still listed, so models still pick it; names the replacement the text names",
    },
    CheckInfo {
        id: GAMING_IMPERATIVE,
        summary: "warning: the description tells the model to pick the tool (\"always use this \
                  tool\", \"you must call this\", \"use this for anything\"); names the phrase",
    },
    CheckInfo {
        id: GAMING_SUPERLATIVE,
        summary: "warning: the description praises the tool (\"the best tool\", \"most \
                  accurate tool\", \"better than any other\"); names the phrase",
    },
    CheckInfo {
        id: GAMING_OTHER_TOOLS,
        summary: "warning: the description steers the model away from other tools (\"prefer \
                  this over\", \"instead of any other tool\", \"do not use `search`\" naming \
                  a listed tool); names the phrase",
    },
    CheckInfo {
        id: GAMING_URGENCY,
        summary: "warning: the description shouts at the model (\"IMPORTANT:\", \"ALWAYS\", \
                  \"MUST\", \"!!!\", \"URGENT\"); names the phrase",
    },
    CheckInfo {
        id: ANNOTATIONS,
        summary: "warning: readOnlyHint and destructiveHint both true, or annotations malformed",
    },
    CheckInfo {
        id: ANNOTATIONS_MISSING,
        summary: "info: the tool has no annotations, so clients assume MCP's defaults \
                  (destructive, open-world) and `fuzz` skips it",
    },
    CheckInfo {
        id: INPUT_SCHEMA,
        summary: "error: inputSchema missing, invalid for its JSON Schema dialect, \
                  not compilable, or not type object",
    },
    CheckInfo {
        id: REQUIRED_FIELDS,
        summary: "error: required names a field not in properties; \
                  warning: nothing required while some argument is not evidently optional",
    },
    CheckInfo {
        id: DEFAULT_TYPE,
        summary: "warning: an argument's `default` is not of its declared type (`null` on \
                  `type: string`) or not in its `enum`",
    },
    CheckInfo {
        id: REQUIRED_DEFAULT,
        summary: "info: a required argument also has a `default`, which never applies",
    },
    CheckInfo {
        id: PROSE_LIMITS,
        summary: "info: an argument's description states a default or a limit (`Default: 5`, \
                  `max: 50`, `(1-500)`) that its schema lacks (`default`, `maximum`, `minimum`)",
    },
    CheckInfo {
        id: ARGUMENT_DESCRIPTION,
        summary: "info: arguments without a description, one finding per tool",
    },
    CheckInfo {
        id: OUTPUT_SCHEMA,
        summary: "error: outputSchema invalid for its JSON Schema dialect, not compilable, \
                  or not type object",
    },
    CheckInfo {
        id: CLIENT_OPENAI_STRICT,
        summary: "warning: with `openai-strict` in checks.clients, an input schema OpenAI \
                  rejects under `strict: true`: an object without `additionalProperties: false`, \
                  a property not in `required`, `anyOf` at the root, an unsupported keyword or \
                  `format`, or a size limit passed",
    },
    CheckInfo {
        id: CLIENT_GEMINI,
        summary: "warning: with `gemini` in checks.clients, an input schema the Gemini API \
                  rejects as function `parameters`: a keyword its Schema lacks (`$ref`, \
                  `oneOf`, `additionalProperties`, `const`…), a list of types, an enum that is \
                  not of strings, a string `format` other than enum and date-time",
    },
    CheckInfo {
        id: CLIENT_ANTHROPIC,
        summary: "warning: `oneOf`, `allOf` or `anyOf` at the root of an input schema, which the \
                  Claude API rejects with every request carrying the tool (`anthropic`, on by \
                  default)",
    },
    CheckInfo {
        id: CLIENT_ANTHROPIC_STRICT,
        summary: "warning: with `anthropic-strict` in checks.clients, an input schema Claude \
                  rejects under `strict: true`: an object without `additionalProperties: false`, \
                  numeric, string or array constraints, non-scalar enum values, recursion, \
                  `allOf` with `$ref`, regex features it lacks, or the per-request limits",
    },
    CheckInfo {
        id: SECURITY_HIDDEN_TEXT,
        summary: "error: hidden characters in the tool's name, titles, description or schemas: \
                  Unicode tag characters (U+E0000–E007F), zero-width characters, bidirectional \
                  controls, other invisibles, runs of variation selectors, control characters",
    },
    CheckInfo {
        id: SECURITY_INSTRUCTIONS,
        summary: "error: text that instructs the model instead of describing the tool: \
                  \"ignore previous instructions\", \"do not tell the user\", `<IMPORTANT>` \
                  blocks, reading `~/.ssh` or other credentials files, disclosing its prompt",
    },
    CheckInfo {
        id: SECURITY_EXFILTRATION,
        summary: "error: text that tells the model to send, post or forward data to a fixed \
                  URL or e-mail address, or to put the conversation or a file's contents into \
                  an argument",
    },
    CheckInfo {
        id: SECURITY_SHADOWING,
        summary: "error: text that tells the model how to use a tool this server does not \
                  list, or how other tools or servers must behave",
    },
    CheckInfo {
        id: SECURITY_ENCODED_BLOB,
        summary: "warning: a long base64 (60+ characters) or hex (80+) run in a title or \
                  description, with what it decodes to",
    },
    CheckInfo {
        id: SIMILAR_TOOLS,
        summary: "warning: two tools' names and descriptions overlap at or above \
                  checks.similarity_threshold",
    },
    CheckInfo {
        id: TOOL_LIST_SIZE,
        summary: "warning: the tool list is estimated above checks.max_tool_list_tokens",
    },
    CheckInfo {
        id: STDOUT_NOISE,
        summary: "error: the server printed lines on stdout that are not JSON-RPC",
    },
    CheckInfo {
        id: PROTOCOL,
        summary: "warning: responses up to the checks lacked `\"jsonrpc\": \"2.0\"` or \
                  carried `result: null`, which strict clients refuse",
    },
];

/// One protocol check: its id, what it looks for (with its severity: `error`, `warning` or
/// `info`) and the specification's reason for that severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtocolCheckInfo {
    /// Stable id, as used in `protocol.disable` and in the reports.
    pub id: &'static str,
    /// `error: …`, `warning: …` or `info: …`: what it looks for, one line.
    pub summary: &'static str,
    /// Why that severity: what the specification says.
    pub why: &'static str,
}

/// Every protocol check, in the order it runs.
pub const PROTOCOL_CHECKS: &[ProtocolCheckInfo] = &[
    ProtocolCheckInfo {
        id: "init-version",
        summary: "error: `initialize` asking for an unsupported version is not answered with \
                  a version the server supports, with `capabilities` and `serverInfo`",
        why: "lifecycle: the server MUST answer with another version it supports; the result's \
              fields are required",
    },
    ProtocolCheckInfo {
        id: "initialized",
        summary: "error: after `initialize` and `notifications/initialized`, `tools/list` \
                  (or `ping`) is not answered with a result",
        why: "lifecycle: the client MUST send `initialized`, after which normal operation begins",
    },
    ProtocolCheckInfo {
        id: "before-initialize",
        summary: "info: a request sent before `initialize` is not refused with an error",
        why: "lifecycle: the SHOULD NOT (no requests but pings before initialization) binds the \
              client; a server that answers them anyway (every TypeScript SDK server does) is \
              lenient, not defective, so this is advice",
    },
    ProtocolCheckInfo {
        id: "ping",
        summary: "error: `ping` is not answered with an empty result",
        why: "ping utility: the receiver MUST respond promptly with an empty response",
    },
    ProtocolCheckInfo {
        id: "unknown-method",
        summary: "error: an unknown method is not answered with error -32601",
        why: "JSON-RPC 2.0: a request MUST get a response, and -32601 is the code for a \
              method that does not exist",
    },
    ProtocolCheckInfo {
        id: "notifications",
        summary: "error: a notification (`notifications/initialized`, an unknown one) gets a \
                  response",
        why: "JSON-RPC 2.0 and MCP: the receiver MUST NOT send a response to a notification",
    },
    ProtocolCheckInfo {
        id: "capabilities",
        summary: "error: an advertised capability's list method (`tools/list`, \
                  `resources/list`, `prompts/list`) fails",
        why: "capability negotiation: an advertised capability is one the server supports",
    },
    ProtocolCheckInfo {
        id: "unadvertised",
        summary: "warning: the list method of a capability the server did not advertise \
                  answers with a result",
        why: "capability negotiation: parties SHOULD only use negotiated capabilities; a \
              result contradicts the advertisement",
    },
    ProtocolCheckInfo {
        id: "logging",
        summary: "error: `logging/setLevel` fails although the server advertises `logging`",
        why: "logging: a server that declares `logging` accepts `logging/setLevel` requests",
    },
    ProtocolCheckInfo {
        id: "unknown-tool",
        summary: "warning: `tools/call` of a tool that does not exist is answered with success",
        why: "tools: an unknown tool is an error (-32602 in the specification's examples)",
    },
    ProtocolCheckInfo {
        id: "invalid-arguments",
        summary: "error: `tools/call` without a tool's required arguments is answered with \
                  success",
        why: "tools: servers MUST validate all tool inputs",
    },
    ProtocolCheckInfo {
        id: "invalid-cursor",
        summary: "info: `tools/list` with a cursor the server never issued is not refused \
                  with -32602",
        why: "pagination: invalid cursors SHOULD result in an error with code -32602, but a \
              client only sends cursors it was given, and the TypeScript and Python SDKs ignore \
              the cursor of a list they do not paginate: advice, common to the SDKs, so that \
              the findings a server's authors can act on stand out",
    },
    ProtocolCheckInfo {
        id: "pagination",
        summary: "error: a `nextCursor` the server issued is refused or repeats",
        why: "pagination: the cursor is how the client MUST ask for the next page; a refused \
              or repeating one loses or loops over the list",
    },
    ProtocolCheckInfo {
        id: "resources-read",
        summary: "warning: `resources/read` of a listed resource is answered with neither \
                  `contents` nor a well-formed JSON-RPC error, or not at all",
        why: "resources: a read answers with the contents or with an error; an error (a \
              backend that is down, a cluster that is not there) is the server working and \
              saying why, while a malformed answer or none breaks every client",
    },
    ProtocolCheckInfo {
        id: "prompts-get",
        summary: "warning: `prompts/get` of a listed prompt fails or has no `messages` (its \
                  required arguments filled with the server's completions; where toolproof had \
                  to make a value up, an error answer is accepted)",
        why: "prompts: a listed prompt is one a client can get; the specification has no MUST \
              for it",
    },
    ProtocolCheckInfo {
        id: "list-changed",
        summary: "warning: the server sends `notifications/tools/list_changed` (or the \
                  resources or prompts one) without advertising `listChanged` for it",
        why: "capabilities: `listChanged` says whether the server will emit list-change \
              notifications; a client that was told it will not may ignore them",
    },
    ProtocolCheckInfo {
        id: "batch",
        summary: "warning: after a JSON-RPC batch the server stops answering, or on 2025-03-26, \
                  which requires batches, the batch is not answered (on later revisions \
                  processing, refusing or ignoring it are all fine)",
        why: "2025-06-18 removed batching with no MUST to refuse a batch, so processing one \
              is leniency, not a defect; the requests after it still MUST get responses, and \
              2025-03-26 says implementations MUST support receiving batches",
    },
    ProtocolCheckInfo {
        id: "malformed",
        summary: "warning: after a line that is not JSON, or a request whose `method` is not a \
                  string, the server stops answering (info: it keeps answering but answers \
                  them with neither -32700 nor -32600)",
        why: "a server that exits or hangs on one bad line ends the session of every client \
              that sends one, as after a batch; answering with JSON-RPC's -32700 and -32600 is \
              advice, since MCP does not require answering input a conforming client never \
              sends",
    },
    ProtocolCheckInfo {
        id: "http-session",
        summary: "error: the `Mcp-Session-Id` the server issued has characters other than \
                  visible ASCII, or a request carrying it is refused",
        why: "streamable HTTP, session management: the id MUST only contain visible ASCII \
              (0x21 to 0x7E), and clients MUST send it on every later request",
    },
    ProtocolCheckInfo {
        id: "http-missing-session",
        summary: "warning: a request without the session id the server issued is not refused \
                  with 400",
        why: "streamable HTTP: servers that require a session id SHOULD answer requests \
              without one (other than initialization) with 400 Bad Request",
    },
    ProtocolCheckInfo {
        id: "http-unknown-session",
        summary: "warning: a request with a session id the server never issued is not \
                  answered with 404",
        why: "streamable HTTP: 404 is how a server says a session does not exist, and the \
              answer that makes a client start a new one",
    },
    ProtocolCheckInfo {
        id: "http-delete",
        summary: "error: DELETE of a session is answered with neither 2xx nor 405, or the \
                  session still works after it",
        why: "streamable HTTP: the server MAY answer 405; once a session is terminated it \
              MUST answer requests carrying its id with 404 Not Found",
    },
    ProtocolCheckInfo {
        id: "http-protocol-version",
        summary: "error: a request with an unsupported `MCP-Protocol-Version` header is not \
                  refused with 400",
        why: "streamable HTTP (2025-06-18 on): an invalid or unsupported \
              MCP-Protocol-Version MUST get 400 Bad Request",
    },
    ProtocolCheckInfo {
        id: "http-accept",
        summary: "warning: a POST whose `Accept` lists neither application/json nor \
                  text/event-stream is answered with success",
        why: "HTTP content negotiation: the answer would be in a type the client did not \
              accept; 406 Not Acceptable says so (the specification requires clients to list \
              both)",
    },
    ProtocolCheckInfo {
        id: "http-notification",
        summary: "error: a POSTed notification is answered with anything but 202 Accepted \
                  and no body",
        why: "streamable HTTP: for an accepted notification the server MUST return 202 \
              Accepted with no body",
    },
    ProtocolCheckInfo {
        id: "http-get",
        summary: "error: a GET asking for text/event-stream gets neither an event stream nor \
                  405",
        why: "streamable HTTP: the server MUST either return Content-Type: text/event-stream \
              to a GET or else 405 Method Not Allowed",
    },
    ProtocolCheckInfo {
        id: "http-sse-priming",
        summary: "warning: on 2025-11-25, an event stream that answers a POST does not begin \
                  with a priming event (an event id and empty data)",
        why: "streamable HTTP (2025-11-25): a server that opens an SSE stream SHOULD \
              immediately send an event with an id and an empty `data` field, so the client \
              can reconnect with it as `Last-Event-ID` (the conformance suite's \
              server-sse-priming-event); the TypeScript and Python SDKs send it once the \
              server gives them an event store, so the fix is the server's",
    },
    ProtocolCheckInfo {
        id: "http-sse-retry",
        summary: "warning: on 2025-11-25, a server closes the event stream answering a \
                  request before its response without having sent a `retry` field",
        why: "streamable HTTP (2025-11-25): a server that closes the connection before \
              sending the response SHOULD first send an event with a `retry` field, which the \
              client MUST wait before reconnecting; a stream that carries its response asks \
              for none (the conformance suite's server-sse-retry-field)",
    },
    ProtocolCheckInfo {
        id: "http-origin",
        summary: "error: a request with a foreign `Origin` header is accepted (or, on \
                  2025-11-25, refused with a status other than 403)",
        why: "streamable HTTP, security: servers MUST validate Origin to prevent DNS \
              rebinding; 2025-11-25: a present and invalid Origin MUST get 403 Forbidden",
    },
];

/// Every protocol check id, in run order (validates `protocol.disable`).
pub const PROTOCOL_CHECK_IDS: &[&str] = &protocol_ids();

const fn protocol_ids() -> [&'static str; PROTOCOL_CHECKS.len()] {
    let mut out = [""; PROTOCOL_CHECKS.len()];
    let mut i = 0;
    while i < PROTOCOL_CHECKS.len() {
        out[i] = PROTOCOL_CHECKS[i].id;
        i += 1;
    }
    out
}

/// Every check id, in the order its findings appear (validates `checks.disable`). Derived
/// from [`CHECKS`], so the two cannot drift apart.
pub(crate) const CHECK_IDS: &[&str] = &ids();

const fn ids() -> [&'static str; CHECKS.len()] {
    let mut out = [""; CHECKS.len()];
    let mut i = 0;
    while i < CHECKS.len() {
        out[i] = CHECKS[i].id;
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_checks_in_order() {
        let ids: Vec<&str> = CHECKS.iter().map(|c| c.id).collect();
        assert_eq!(ids, CHECK_IDS);
        assert_eq!(CHECK_IDS.first(), Some(&DUPLICATE_NAME));
        assert_eq!(CHECK_IDS.last(), Some(&PROTOCOL));
    }

    #[test]
    fn every_client_names_a_check_and_the_default_is_a_client() {
        for client in CLIENTS {
            assert!(CHECK_IDS.contains(&client.check), "{}", client.check);
        }
        assert_eq!(
            CLIENT_IDS,
            ["openai-strict", "gemini", "anthropic", "anthropic-strict"]
        );
        assert!(DEFAULT_CLIENTS.iter().all(|c| CLIENT_IDS.contains(c)));
    }

    #[test]
    fn jsonpath_accepts_rfc_9535_and_names_the_problem_otherwise() {
        assert!(jsonpath("$.items[?@.price > 3].id").is_ok());
        assert_eq!(jsonpath_error("$.items[0]"), None);
        assert!(jsonpath_error("$.[").is_some());
        assert_eq!(jsonpath_error("result"), None);
    }
}
