//! `fake_llm`: a fake model API on 127.0.0.1 that speaks the Anthropic Messages API, OpenAI
//! Chat Completions, the OpenAI Responses API, the Gemini API's `generateContent` and Amazon
//! Bedrock's Converse API, scripted by directives in the prompt, so that one server can serve a
//! whole eval run (toolproof's, or mcp-toolproof's through the official Python SDKs).
//!
//! Build with `cargo build -p toolproof-test-support`; the binary lands in `target/debug/fake_llm`.
//!
//! # Options
//!
//! | flag | meaning |
//! |---|---|
//! | `--port N` | listen on 127.0.0.1:N (default 0: any free port) |
//! | `--delay-ms N` | wait N ms before every answer (benchmarks use 100) |
//! | `--log FILE` | append one JSON line per request: `{"method", "path", "headers": {lowercase: value}, "body", "raw"}` (`raw`: the body as text, every digit of a number kept) |
//! | `--require-key KEY` | 401 (in the API's error shape) unless `x-api-key: KEY` or `Authorization: Bearer KEY`; Gemini: `x-goog-api-key: KEY`, else the API's 400 `API_KEY_INVALID` (403 `PERMISSION_DENIED` without a key) |
//! | `--redirect-self CODE` | answer every request, whatever its path, with CODE (a 3xx) and `Location:` its own path: a redirect loop (also serves as a looping MCP endpoint) |
//! | `--flavor NAME` | `openai` (default) or `llama-cpp-python`: Chat Completions answers in the shapes llama-cpp-python 0.3.36 sends (see `fake_llm/local.rs`): `content: null` and a legacy `function_call` beside `tool_calls`, `max_tokens` honoured and `max_completion_tokens` ignored, `tool_choice: "required"` a 500 with an empty message |
//! | `--single-slot MS` | serve one model request at a time, in arrival order, each taking MS ms (a request whose client gave up still takes its turn), like a local server with one slot |
//! | `--batch-polls N` | a batch answers "in progress" to its first N looks (default 1), then ends with its results (see `fake_llm/batch.rs`) |
//! | `--batch-expire N` | the first N batches submitted expire as a whole (every request `expired`; Gemini: `BATCH_STATE_EXPIRED`, no results) |
//! | `--batch-fail N` | Gemini: the first N batches submitted fail as a whole (`BATCH_STATE_FAILED`, the operation's `error`, no results) |
//! | `--batch-ids JSON` | the ids the batches get, in submission order (a JSON array of strings; later batches get generated ones) |
//! | `--no-batches` | no batch or file endpoints (404), like a local compatible server |
//! | `--aws-secret KEY` | Bedrock: check every Converse request's Signature Version 4 against the secret access key KEY, with the fake's own implementation (`fake_llm/sigv4.rs`); a wrong or missing signature gets a 403 in AWS's shape (`InvalidSignatureException`, `MissingAuthenticationTokenException`, …) |
//! | `--aws-key-id ID` | Bedrock, with `--aws-secret`: the access key id the credential must name (else 403 `UnrecognizedClientException`) |
//! | `--ignore-tools` | drop the request's `tools` (and `tool_choice`) before answering, as llama.cpp's server does with a chat template that has no tool support: the keyword rule sees no tool, and `usage` counts the prompt without them |
//!
//! The first stdout line is `listening on http://127.0.0.1:PORT` (flushed at once). Point
//! `ANTHROPIC_BASE_URL` and `GOOGLE_GEMINI_BASE_URL` at that URL, `OPENAI_BASE_URL` at that URL
//! plus `/v1`, and `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` (or `AWS_ENDPOINT_URL`) at that URL.
//!
//! # Endpoints
//!
//! `POST /v1/messages` (Anthropic), `POST /v1/chat/completions` and `POST /chat/completions`
//! (OpenAI), `POST /v1/responses` and `POST /responses` (OpenAI Responses, see
//! `fake_llm/wire.rs`: `output` items `reasoning`, `message` with `output_text` or `refusal`
//! parts, and `function_call`), `POST /v1beta/models/{MODEL}:generateContent` (Gemini, see
//! `fake_llm/gemini.rs`), `GET /v1/models` and `GET /models` (one model, OpenAI shape). The batch APIs:
//! `POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`, `GET …/{id}/results`,
//! `POST …/{id}/cancel` (Anthropic); `POST /v1/files` (multipart, purpose `batch`),
//! `GET /v1/files/{id}/content`, `POST /v1/batches`, `GET /v1/batches/{id}`,
//! `POST /v1/batches/{id}/cancel` (OpenAI); `POST /v1beta/models/{MODEL}:batchGenerateContent`
//! (inline requests), `GET /v1beta/batches/{id}` (the operation, results inline once done),
//! `POST /v1beta/batches/{id}:cancel` (Gemini, see `fake_llm/gemini_batch.rs`). A batch
//! request's result is what the live endpoint answers its body. `POST /model/{modelId}/converse` (Bedrock; `fake_llm/bedrock.rs` says how
//! the directives answer there: `[[refuse]]` is a guardrail, errors carry `x-amzn-errortype`,
//! `cachePoint` blocks mark the cached prefix). Anything else is a 404.
//! Answers have the real shapes: ids, `usage`, `stop_reason`/`finish_reason`, `request-id`.
//!
//! # Usage and the prompt cache
//!
//! Every answer's `usage` counts a token per four bytes of the request's JSON (see
//! `fake_llm/usage.rs`). Anthropic: `input_tokens`, `output_tokens`,
//! `cache_creation_input_tokens` and `cache_read_input_tokens`: the prefix up to the last
//! `cache_control` marker (on the last tool, then on the system block) is written to the cache
//! by the first request with it and read by every later one. OpenAI: `prompt_tokens` (cached
//! ones included), `completion_tokens`, and `prompt_tokens_details.cached_tokens`: the tools and
//! system prompt, once seen. Responses: `input_tokens` (cached ones included), `output_tokens`
//! and `input_tokens_details.cached_tokens`: the tools and `instructions`, once seen. Gemini:
//! `promptTokenCount` (cached ones included), `candidatesTokenCount` and
//! `cachedContentTokenCount`: the tools and system instruction, once seen; zero counts left out.
//! Unlike the real APIs, the fake caches prefixes of any length, per
//! model, for its lifetime.
//!
//! # Directives (in the last user message)
//!
//! | directive | effect |
//! |---|---|
//! | `[[call NAME {"a": 1}]]` | a tool call with these arguments (`{}` when left out); repeat for several calls |
//! | `[[malformed NAME RAW]]` | a tool call whose arguments are the raw text (OpenAI and Responses: the `arguments` string; Anthropic: `input` is a JSON string; Gemini: no content, `finishReason: MALFORMED_FUNCTION_CALL` and a `finishMessage` quoting RAW) |
//! | `[[text WORDS]]` | answer text (several are joined with a space) |
//! | `{{key}}` | inside `[[text …]]`, `[[call …]]` or `[[malformed …]]`: the API key the request carried (an echoed secret) |
//! | `[[refuse]]` | Anthropic `stop_reason: refusal`; OpenAI `message.refusal`; Responses a `refusal` content part; Gemini `finishReason: SAFETY`, no content |
//! | `[[max_tokens]]` | Anthropic `stop_reason: max_tokens`; OpenAI `finish_reason: length`; Responses `status: incomplete`, `incomplete_details.reason: max_output_tokens`; Gemini `finishReason: MAX_TOKENS` |
//! | `[[content-empty]]` | OpenAI: `content: ""` beside the tool calls (llama.cpp's server), instead of `null` |
//! | `[[no-usage]]` | leave `usage` (Gemini: `usageMetadata`) out of the answer (as many local servers do) |
//! | `[[usage-tokens N]]` | report N input and N output tokens (up to 2^64 − 1), whatever was asked |
//! | `[[status CODE opts]]` | answer with that error in the API's shape; opts: `times=N` (only the first N attempts at this prompt, then answer normally), `retry-after=S`, `retry-after-ms=MS`, `should-retry=true\|false` (`x-should-retry`), `quota` (429: quota / spend limit exhausted), `echo-key` (quote the request's key in the message), `msg=TEXT` (the rest of the directive). Gemini: Google's shape (`{"error": {"code", "message", "status"}}`), and `retry-after`/`retry-after-ms` become a `google.rpc.RetryInfo` detail's `retryDelay` instead of a header, as the real API sends it |
//! | `[[drop]]`, `[[drop times=N]]` | close the connection without answering |
//! | `[[sleep MS]]` | wait MS more before answering (for timeouts) |
//! | `[[nonsense]]` | 200 with an HTML page instead of JSON |
//! | `[[empty]]` | 200 with an empty body |
//! | `[[truncated]]` | 200 with the first half of the JSON answer |
//! | `[[huge MIB]]` | 200 with a JSON body of MIB MiB that is not the API's answer |
//! | `[[batch-expire]]`, `[[batch-expire times=N]]` | in a batch: the request expires (only the first N times it is in one) |
//! | `[[from-context NAME KEY]]` | answer from the conversation before the prompt (see `fake_llm/context.rs`): the last number of 3+ digits in the earlier turns (messages, tool calls and tool results; not the system prompt, not the prompt) → a call of NAME with `{KEY: "<digits>"}`; none → the text "Which one do you mean?" |
//!
//! Attempts are counted per API, model and prompt text, across connections and threads. Without a call, text
//! or refusal, the keyword rule answers: the longest offered tool name found in the prompt
//! (case-insensitive; `_` and `-` also match a space) is called with `{}`; if none is found the
//! answer is text. An unknown or malformed directive gets a 400 that says what is wrong.

#[path = "fake_llm/batch.rs"]
mod batch;
#[path = "fake_llm/bedrock.rs"]
mod bedrock;
#[path = "fake_llm/context.rs"]
mod context;
#[path = "fake_llm/gemini.rs"]
mod gemini;
#[path = "fake_llm/http.rs"]
mod http;
#[path = "common/http1.rs"]
mod http1;
#[path = "fake_llm/local.rs"]
mod local;
#[path = "fake_llm/script.rs"]
mod script;
#[path = "fake_llm/sigv4.rs"]
mod sigv4;
#[path = "fake_llm/usage.rs"]
mod usage;
#[path = "fake_llm/wire.rs"]
mod wire;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};

use http::{Action, Request};
use local::{Flavor, Slot};
use script::{Attempts, Call};
use wire::{Api, Out};

const HELP: &str = "\
fake_llm: a fake Anthropic + OpenAI (Chat Completions, Responses) + Gemini + Bedrock model API on 127.0.0.1, scripted by [[directives]] in prompts

usage: fake_llm [--port N] [--delay-ms N] [--log FILE] [--require-key KEY] [--redirect-self CODE]
                [--flavor openai|llama-cpp-python] [--single-slot MS]
                [--batch-polls N] [--batch-expire N] [--batch-fail N] [--batch-ids JSON]
                [--no-batches]
                [--ignore-tools] [--aws-secret KEY] [--aws-key-id ID]

  --port N            listen on 127.0.0.1:N (default 0: any free port)
  --delay-ms N        wait N ms before every answer
  --log FILE          append one JSON line per request (method, path, headers, body)
  --require-key KEY   401 unless x-api-key or Authorization: Bearer carries KEY
                      (Gemini: 400 API_KEY_INVALID unless x-goog-api-key carries KEY)
  --redirect-self CODE  answer every request with CODE and Location: its own path
  --flavor NAME       openai (default) or llama-cpp-python: that server's answer shapes
  --single-slot MS    serve one model request at a time, MS ms each, in arrival order
  --batch-polls N     a batch is in progress for its first N looks (default 1)
  --batch-expire N    the first N batches submitted expire as a whole
  --batch-fail N      Gemini: the first N batches submitted fail as a whole
  --batch-ids JSON    the ids of the batches, in submission order (a JSON array of strings)
  --no-batches        no batch or file endpoints (404), like a local compatible server
  --ignore-tools      drop the request's tools before answering (a template without tools)
  --aws-secret KEY    Bedrock: 403 unless the request's SigV4 signature verifies with KEY
  --aws-key-id ID     Bedrock, with --aws-secret: the access key id the credential must name

directives: [[call NAME {json}]] [[malformed NAME RAW]] [[text WORDS]] [[refuse]]
  [[max_tokens]] [[content-empty]] [[no-usage]] [[usage-tokens N]] [[status CODE times=N retry-after=S retry-after-ms=MS should-retry=B quota
  echo-key msg=TEXT]]
  [[drop times=N]] [[sleep MS]] [[nonsense]] [[empty]] [[truncated]] [[huge MIB]]
  [[batch-expire times=N]] [[from-context NAME KEY]];
  {{key}} in text or arguments: the request's API key
";

struct Options {
    port: u16,
    delay: Duration,
    log: Option<PathBuf>,
    require_key: Option<String>,
    redirect_self: Option<u16>,
    flavor: Flavor,
    single_slot: Option<Duration>,
    batch_polls: u32,
    batch_expire: u32,
    batch_fail: u32,
    batch_ids: Vec<String>,
    no_batches: bool,
    ignore_tools: bool,
    aws_secret: Option<String>,
    aws_key_id: Option<String>,
}

fn parse_options(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut o = Options {
        port: 0,
        delay: Duration::ZERO,
        log: None,
        require_key: None,
        redirect_self: None,
        flavor: Flavor::OpenAi,
        single_slot: None,
        batch_polls: 1,
        batch_expire: 0,
        batch_fail: 0,
        batch_ids: Vec::new(),
        no_batches: false,
        ignore_tools: false,
        aws_secret: None,
        aws_key_id: None,
    };
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--port" => o.port = value()?.parse().map_err(|_| "--port takes a number")?,
            "--delay-ms" => {
                let ms: u64 = value()?.parse().map_err(|_| "--delay-ms takes a number")?;
                o.delay = Duration::from_millis(ms);
            }
            "--log" => o.log = Some(PathBuf::from(value()?)),
            "--require-key" => o.require_key = Some(value()?),
            "--redirect-self" => {
                let code: u16 = value()?
                    .parse()
                    .map_err(|_| "--redirect-self takes a status")?;
                if !(300..400).contains(&code) {
                    return Err("--redirect-self takes a 3xx status".into());
                }
                o.redirect_self = Some(code);
            }
            "--flavor" => o.flavor = Flavor::parse(&value()?)?,
            "--single-slot" => {
                let ms: u64 = value()?
                    .parse()
                    .map_err(|_| "--single-slot takes milliseconds")?;
                o.single_slot = Some(Duration::from_millis(ms));
            }
            "--batch-polls" => {
                o.batch_polls = value()?
                    .parse()
                    .map_err(|_| "--batch-polls takes a number")?;
            }
            "--batch-expire" => {
                o.batch_expire = value()?
                    .parse()
                    .map_err(|_| "--batch-expire takes a number")?;
            }
            "--batch-fail" => {
                o.batch_fail = value()?
                    .parse()
                    .map_err(|_| "--batch-fail takes a number")?;
            }
            "--batch-ids" => {
                o.batch_ids = serde_json::from_str(&value()?)
                    .map_err(|_| "--batch-ids takes a JSON array of strings")?;
            }
            "--no-batches" => o.no_batches = true,
            "--ignore-tools" => o.ignore_tools = true,
            "--aws-secret" => o.aws_secret = Some(value()?),
            "--aws-key-id" => o.aws_key_id = Some(value()?),
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(Some(o))
}

struct Server {
    delay: Duration,
    log: Option<Mutex<File>>,
    require_key: Option<String>,
    redirect_self: Option<u16>,
    flavor: Flavor,
    slot: Option<Slot>,
    attempts: Attempts,
    batches: Option<batch::Batches>,
    prompt_cache: usage::PromptCache,
    ignore_tools: bool,
    aws_secret: Option<String>,
    aws_key_id: Option<String>,
}

impl Server {
    fn handle(&self, req: &Request) -> Action {
        self.record(req);
        if let Some(slot) = &self.slot
            && req.method == "POST"
        {
            slot.serve();
        }
        let (out, extra_wait, drop) = self.route(req);
        std::thread::sleep(self.delay + extra_wait);
        if drop {
            return Action::Drop;
        }
        let mut headers = out.headers;
        headers.push(("request-id".into(), format!("req_fake{:08x}", rand_id())));
        headers.push(("x-request-id".into(), format!("req_fake{:08x}", rand_id())));
        Action::Answer {
            status: out.status,
            headers,
            content_type: out.content_type.to_owned(),
            body: out.body,
        }
    }

    /// The answer, an extra wait, and whether to drop the connection instead.
    fn route(&self, req: &Request) -> (Out, Duration, bool) {
        let none = Duration::ZERO;
        if let Some(code) = self.redirect_self {
            let out = Out {
                status: code,
                headers: vec![("location".into(), req.path.clone())],
                content_type: "text/plain",
                body: String::new(),
            };
            return (out, none, false);
        }
        let key = req
            .header("x-api-key")
            .map(str::to_owned)
            .or_else(|| bearer(req));
        let live = |api: Api, given: Option<&str>, body: &[u8], model: Option<&str>| {
            let (out, _, dropped) = self.answer(api, given, body, model);
            (out, dropped)
        };
        // Every Gemini endpoint (the batch ones too) wants the key in `x-goog-api-key`.
        if req.path.starts_with("/v1beta/")
            && let Some(key) = &self.require_key
            && req.header("x-goog-api-key") != Some(key.as_str())
        {
            return (gemini::bad_key(req.header("x-goog-api-key")), none, false);
        }
        if let Some(out) = self
            .batches
            .as_ref()
            .and_then(|b| b.route(req, key.as_deref(), &live))
        {
            return (out, none, false);
        }
        if let Some(model) = bedrock::model_of(&req.path) {
            if req.method != "POST" {
                return (
                    bedrock::error(405, "ValidationException", "use POST"),
                    none,
                    false,
                );
            }
            return self.bedrock(req, &model);
        }
        if let Some(model) = gemini::model_of(&req.path) {
            if req.method != "POST" {
                return (wire::bad_request(Api::Gemini, 405, "use POST"), none, false);
            }
            let given = req.header("x-goog-api-key");
            if let Some(key) = &self.require_key
                && given != Some(key.as_str())
            {
                return (gemini::bad_key(given), none, false);
            }
            return self.answer(Api::Gemini, given, &req.body, Some(model));
        }
        let api = match (req.method.as_str(), req.path.as_str()) {
            ("POST", "/v1/messages") => Api::Anthropic,
            ("POST", "/v1/chat/completions" | "/chat/completions") => Api::OpenAi,
            ("POST", "/v1/responses" | "/responses") => Api::Responses,
            ("GET", "/v1/models" | "/models") => return (wire::models(), none, false),
            (_, "/v1/messages") => {
                return (
                    wire::bad_request(Api::Anthropic, 405, "use POST"),
                    none,
                    false,
                );
            }
            (_, "/v1/chat/completions" | "/chat/completions") => {
                return (wire::bad_request(Api::OpenAi, 405, "use POST"), none, false);
            }
            (_, "/v1/responses" | "/responses") => {
                return (
                    wire::bad_request(Api::Responses, 405, "use POST"),
                    none,
                    false,
                );
            }
            (_, path) => {
                let api = if path.contains("messages") {
                    Api::Anthropic
                } else {
                    Api::OpenAi
                };
                let msg = format!("fake_llm has no endpoint {path}");
                return (wire::bad_request(api, 404, &msg), none, false);
            }
        };
        let given = match api {
            Api::Anthropic => req
                .header("x-api-key")
                .map(str::to_owned)
                .or_else(|| bearer(req)),
            Api::OpenAi | Api::Gemini | Api::Responses => bearer(req),
        };
        if let Some(key) = &self.require_key
            && given.as_deref() != Some(key.as_str())
        {
            let status = script::Status {
                code: 401,
                ..script::Status::default()
            };
            return (wire::error(api, "", &status), none, false);
        }
        self.answer(api, given.as_deref(), &req.body, None)
    }

    /// The answer of the model API `api` to a request body (a live request's, or one request
    /// of a batch), with the key it carried: the answer, an extra wait, and whether to drop the
    /// connection instead. `path_model` is the model a Gemini request names in its path.
    fn answer(
        &self,
        api: Api,
        given: Option<&str>,
        raw_body: &[u8],
        path_model: Option<&str>,
    ) -> (Out, Duration, bool) {
        let none = Duration::ZERO;
        let Ok(mut body) = serde_json::from_slice::<Value>(raw_body) else {
            return (
                wire::bad_request(api, 400, "the request body is not JSON"),
                none,
                false,
            );
        };
        if self.ignore_tools
            && let Some(fields) = body.as_object_mut()
        {
            // A chat template without tool support renders the messages only.
            fields.remove("tools");
            fields.remove("tool_choice");
            fields.remove("toolConfig");
        }
        let Some(model) = path_model.or_else(|| body.get("model").and_then(Value::as_str)) else {
            return (
                wire::bad_request(api, 400, "model: Field required"),
                none,
                false,
            );
        };
        let prompt = match api {
            Api::Gemini => gemini::prompt(&body),
            _ => wire::prompt(&body),
        };
        let Some(prompt) = prompt else {
            return (
                wire::bad_request(api, 400, "messages (or input): a user message is required"),
                none,
                false,
            );
        };
        let mut script = match script::parse(&prompt) {
            Ok(s) => s,
            Err(e) => {
                let msg = format!("fake_llm: {e}");
                return (wire::bad_request(api, 400, &msg), none, false);
            }
        };
        script.echo_key(given.unwrap_or_default());
        let attempt = self.attempts.next(&format!("{api:?}\n{model}\n{prompt}"));
        let wait = Duration::from_millis(script.sleep_ms);
        if script.drops(attempt) {
            return (wire::nonsense(), wait, true);
        }
        if let Some(status) = script.status(attempt) {
            let mut status = status.clone();
            if status.echo_key {
                let key = given;
                let said = status
                    .msg
                    .take()
                    .unwrap_or_else(|| "invalid key".to_owned());
                status.msg = Some(format!("{said}: {}", key.unwrap_or_default()));
            }
            return (wire::error(api, model, &status), wait, false);
        }
        if self.flavor == Flavor::LlamaCppPython
            && api == Api::OpenAi
            && let Some(out) = local::refusal(&body)
        {
            return (out, wait, false);
        }
        if script.nonsense {
            return (wire::nonsense(), wait, false);
        }
        if script.empty {
            return (wire::empty(), wait, false);
        }
        if script.huge_mib > 0 {
            return (wire::huge(script.huge_mib), wait, false);
        }
        context::answer(&mut script, &body);
        if script.calls.is_empty() && script.text.is_empty() && !script.refuse {
            let names = wire::tool_names(api, &body);
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            match script::keyword_pick(&prompt, &names) {
                Some(name) => script.calls.push(Call::Args {
                    name: name.to_owned(),
                    args: Value::Object(Map::new()),
                }),
                None => script
                    .text
                    .push("I can answer that without a tool.".to_owned()),
            }
        }
        let mut out = if self.flavor == Flavor::LlamaCppPython && api == Api::OpenAi {
            local::cut_text(&mut script, &body);
            let id = wire::id("chatcmpl-");
            // The template renders the tools into the prompt (none when they were dropped).
            let tools = body.get("tools").map_or(0, |t| t.to_string().len());
            let prompt_tokens = (prompt.len() + tools) / 4 + 10;
            local::answer(model, &script, &id, wire::now(), prompt_tokens)
        } else {
            let input = usage::input(api, model, &body, &self.prompt_cache);
            wire::answer(api, model, &script, &input)
        };
        if script.truncated {
            let mut half = out.body.len() / 2;
            while !out.body.is_char_boundary(half) {
                half -= 1;
            }
            out.body.truncate(half);
        }
        (out, wait, false)
    }

    fn record(&self, req: &Request) {
        let Some(log) = &self.log else {
            return;
        };
        let headers: Map<String, Value> = req
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), Value::String(v.clone())))
            .collect();
        let body = serde_json::from_slice::<Value>(&req.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&req.body).into_owned()));
        let raw = String::from_utf8_lossy(&req.body);
        let line = json!({"method": req.method, "path": req.path, "headers": headers, "body": body, "raw": raw});
        if let Ok(mut f) = log.lock() {
            let _ = writeln!(f, "{line}").and_then(|_| f.flush());
        }
    }
}

fn bearer(req: &Request) -> Option<String> {
    req.header("authorization")
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned)
}

fn rand_id() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn main() {
    let options = match parse_options(std::env::args().skip(1)) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{HELP}");
            return;
        }
        Err(e) => {
            eprintln!("fake_llm: error: {e}\nhint: run `fake_llm --help` for the options");
            std::process::exit(2);
        }
    };
    let log = match &options.log {
        Some(path) => match OpenOptions::new().create(true).append(true).open(path) {
            Ok(f) => Some(Mutex::new(f)),
            Err(e) => {
                eprintln!("fake_llm: error: can't open log {}: {e}", path.display());
                std::process::exit(2);
            }
        },
        None => None,
    };
    let listener = match TcpListener::bind(("127.0.0.1", options.port)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "fake_llm: error: can't listen on 127.0.0.1:{}: {e}",
                options.port
            );
            std::process::exit(2);
        }
    };
    let port = listener
        .local_addr()
        .map(|a| a.port())
        .unwrap_or(options.port);
    println!("listening on http://127.0.0.1:{port}");
    let _ = std::io::stdout().flush();
    let server = Arc::new(Server {
        delay: options.delay,
        log,
        require_key: options.require_key,
        redirect_self: options.redirect_self,
        flavor: options.flavor,
        slot: options.single_slot.map(Slot::new),
        attempts: Attempts::default(),
        batches: (!options.no_batches).then(|| {
            batch::Batches::new(options.batch_polls, options.batch_expire)
                .with_ids(options.batch_ids.clone())
                .with_failures(options.batch_fail)
        }),
        prompt_cache: usage::PromptCache::default(),
        ignore_tools: options.ignore_tools,
        aws_secret: options.aws_secret,
        aws_key_id: options.aws_key_id,
    });
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let server = Arc::clone(&server);
        std::thread::spawn(move || http::serve(stream, &|req| server.handle(req)));
    }
}
