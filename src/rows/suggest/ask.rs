//! Asking a model for a pair's rows. The command provider gets the task itself as its stdin
//! line and answers `{"rows": [{"prompt", "expect_tool", "why"}]}`. An API is sent the task as
//! the prompt with one tool, `propose_rows`, whose input is that answer, and told to call it;
//! its answer (the call's arguments, else JSON in its text) is cached in
//! `<cache_dir>/rows/<sha256>.json`, keyed as eval answers are by provider, model and request,
//! so a second run replays it with no request and `--offline` needs no key.

use std::path::PathBuf;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::super::Stop;
use crate::cli::SuggestArgs;
use crate::config::{EvalConfig, LoadedConfig, ToolChoice};
use crate::provider::command::CommandSpec;
use crate::provider::{ApiTool, Kind, Pacer, Provider, Request, RetryPolicy, Setup};
use crate::settings::Env;

/// The tool an API answers through.
const TOOL: &str = "propose_rows";

/// What the API is told.
const SYSTEM: &str = "You help build a labelled evaluation set for tool selection. Given two tools a model may take for each other, write realistic user requests: near misses that belong to each side, filler that needs no tool, and ambiguous requests that should make the assistant ask rather than guess. Answer by calling propose_rows.";

/// Why asking failed.
pub(super) struct AskError(Stop);

impl AskError {
    /// The stop, naming the pair.
    pub(super) fn in_pair(self, a: &str, b: &str) -> Stop {
        let mut stop = self.0;
        stop.message = format!("rows suggest, pair {a} / {b}: {}", stop.message);
        stop
    }
}

/// A configured model to ask.
pub(super) struct Asker {
    kind: &'static dyn Kind,
    model: String,
    cfg: EvalConfig,
    base_dir: PathBuf,
    env: Env,
    no_cache: bool,
    offline: bool,
}

impl Asker {
    /// The provider and model of `--provider`/`--model`, their variables, or `evals:`.
    pub(super) fn new(args: &SuggestArgs, loaded: &LoadedConfig, env: &Env) -> Result<Asker, Stop> {
        let cfg = loaded.config.evals.clone().unwrap_or_default();
        let name = args
            .provider
            .clone()
            .or_else(|| env.get("TOOLPROOF_EVAL_PROVIDER").map(str::to_owned))
            .or_else(|| cfg.provider.as_ref().map(|p| p.name().to_owned()))
            .ok_or_else(|| {
                Stop::usage(
                    "no provider to ask: set evals.provider, TOOLPROOF_EVAL_PROVIDER or --provider",
                    Some("any eval provider works, the command provider too"),
                )
            })?;
        let kind = crate::provider::find(&name).ok_or_else(|| {
            Stop::usage(
                format!("unknown provider `{name}`"),
                Some(&format!(
                    "providers are {}",
                    crate::provider::registry::names().join(", ")
                )),
            )
        })?;
        let model = args
            .model
            .clone()
            .or_else(|| env.get("TOOLPROOF_EVAL_MODEL").map(str::to_owned))
            .or_else(|| cfg.model.clone())
            .or_else(|| cfg.models.first().cloned())
            .unwrap_or_default();
        if model.is_empty() && !kind.runs_command() {
            return Err(Stop::usage(
                format!("the {name} provider needs a model"),
                Some("set evals.model, TOOLPROOF_EVAL_MODEL or --model"),
            ));
        }
        let no_cache = args.no_cache || env.switch("TOOLPROOF_NO_CACHE")?.unwrap_or(false);
        let offline = args.offline || env.switch("TOOLPROOF_OFFLINE")?.unwrap_or(false);
        Ok(Asker {
            kind,
            model,
            base_dir: loaded.base_dir.clone(),
            env: env.clone(),
            no_cache: no_cache || !cfg.cache,
            offline,
            cfg,
        })
    }

    /// `provider/model`, for the summary.
    pub(super) fn describe(&self) -> String {
        if self.model.is_empty() {
            self.kind.name().to_owned()
        } else {
            format!("{}/{}", self.kind.name(), self.model)
        }
    }

    /// The rows the model proposes for `task`, and whether they came from the cache.
    pub(super) fn ask(&self, task: &Value) -> Result<(Vec<Value>, bool), AskError> {
        if self.kind.runs_command() {
            let spec = CommandSpec::new(
                self.cfg.command.clone().unwrap_or_default(),
                self.base_dir.clone(),
                crate::config::limits::seconds(self.cfg.timeout_s),
            )
            .with_env(self.cfg.env.clone());
            let stdout = spec.exchange(task).map_err(provider_error)?;
            return rows_in(&stdout).map(|r| (r, false));
        }
        let prompt = api_prompt(task);
        let mut params = Map::new();
        if self.kind.tool_choice_in_params() {
            params.insert(
                "tool_choice".into(),
                self.kind.tool_choice_wire(&ToolChoice::Tool(TOOL.into())),
            );
        }
        let key = self.key(&prompt, &params);
        let path = self.cfg.cache_dir.join("rows").join(format!("{key}.json"));
        let cached = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v["rows"].as_array().cloned());
        if let (false, Some(rows)) = (self.no_cache, cached) {
            return Ok((rows, true));
        }
        if self.offline {
            return Err(AskError(Stop::failed(
                format!(
                    "no cached answer in {} and --offline asks no model",
                    path.display()
                ),
                Some(
                    "run once without --offline, with the provider's key, and commit the cache folder",
                ),
            )));
        }
        let rows = self.ask_api(&prompt, &params)?;
        let entry = json!({"provider": self.kind.cache_name(&self.cfg), "model": self.model, "task": task["task"], "pair": task["pair"], "rows": rows});
        let text = format!(
            "{}\n",
            serde_json::to_string_pretty(&entry).unwrap_or_default()
        );
        if let Err(e) = crate::report::write::write_atomic(&path, text.as_bytes()) {
            crate::output::to_stderr(&format!("warning: the answer was not cached: {e}"));
        }
        Ok((rows, false))
    }

    /// One request to the API: the rows of its `propose_rows` call, else of its text.
    fn ask_api(&self, prompt: &str, params: &Map<String, Value>) -> Result<Vec<Value>, AskError> {
        let lookup = |name: &str| self.env.get(name).map(str::to_owned);
        let setup = Setup {
            env: &lookup,
            cfg: Some(&self.cfg),
            base_dir: &self.base_dir,
        };
        let provider = self.kind.connect(&setup).map_err(provider_error)?;
        let tools = [answer_tool()];
        let request = Request {
            model: &self.model,
            system: Some(SYSTEM),
            prompt,
            context: &[],
            tools: &tools,
            params,
            tool_choice: None,
            max_tokens: self
                .cfg
                .max_tokens
                .or(self.kind.default_max_tokens())
                .unwrap_or(4096),
            prompt_cache: false,
        };
        let policy = RetryPolicy {
            max_retries: self.cfg.max_retries,
            ..RetryPolicy::default()
        };
        let (answer, _) = provider.ask_timed(&request, &Pacer::new(policy));
        let answer = answer.map_err(provider_error)?;
        match answer
            .calls
            .iter()
            .find(|c| c.name == TOOL)
            .and_then(|c| c.args.as_ref().ok())
        {
            Some(args) => rows_in(&args.to_string()),
            None => rows_in(&answer.text),
        }
    }

    /// The cache key: the sha256 of what was asked, of whom.
    fn key(&self, prompt: &str, params: &Map<String, Value>) -> String {
        let material = json!({
            "kind": "rows-suggest",
            "provider": self.kind.cache_name(&self.cfg),
            "model": self.model,
            "system": SYSTEM,
            "prompt": prompt,
            "tools": [answer_tool()],
            "params": params,
        });
        let digest = Sha256::digest(material.to_string().as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The task as an API is asked it: the pair, the tool list as JSON, the prompts the set has
/// one a line (as written, so the model reads them as requests, not as data), the count.
fn api_prompt(task: &Value) -> String {
    let pair = |i: usize| task["pair"][i].as_str().unwrap_or("").to_owned();
    let existing: Vec<String> = task["existing"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str().map(|p| format!("- {}", p.replace('\n', " "))))
        .collect();
    format!(
        "Tools `{a}` and `{b}` are easily taken for each other. For each of the two, write {n} realistic user requests that belong to it but that a model could take for the other (near misses); then a few requests in the same words that need no tool (expect_tool null), and a few ambiguous ones the assistant must ask about rather than guess (expect_tool null, why starting \"ambiguous\").\n\nThe server's tools (JSON):\n{tools}\n\nRequests the set already has (do not repeat them):\n{existing}\n\nAnswer by calling propose_rows.",
        a = pair(0),
        b = pair(1),
        n = task["n"],
        tools = task["tools"],
        existing = if existing.is_empty() {
            "(none)".to_owned()
        } else {
            existing.join("\n")
        },
    )
}

/// The tool an API answers through: its input is the command provider's answer.
fn answer_tool() -> ApiTool {
    ApiTool {
        name: TOOL.to_owned(),
        description: "Propose labelled rows for the pair.".to_owned(),
        input_schema: json!({
            "type": "object",
            "properties": {"rows": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "prompt": {"type": "string", "description": "A user request, in the user's words."},
                    "expect_tool": {"type": ["string", "null"], "description": "The tool it belongs to, or null for no tool."},
                    "why": {"type": "string", "description": "Why; start with \"ambiguous\" for a request that must be asked about."}
                },
                "required": ["prompt", "expect_tool", "why"]
            }}},
            "required": ["rows"]
        }),
        exact_numbers: Vec::new(),
    }
}

/// The `rows` of an answer: `{"rows": […]}`, maybe inside other text.
fn rows_in(text: &str) -> Result<Vec<Value>, AskError> {
    let start = text.find('{');
    let end = text.rfind('}');
    let parsed = match (start, end) {
        (Some(s), Some(e)) if s < e => serde_json::from_str::<Value>(&text[s..=e]).ok(),
        _ => None,
    };
    match parsed.as_ref().and_then(|v| v["rows"].as_array()) {
        Some(rows) => Ok(rows.clone()),
        None => {
            let head: String = text.trim().chars().take(200).collect();
            Err(AskError(Stop::failed(
                format!("the model's answer has no `rows` list: {head:?}"),
                Some("answer {\"rows\": [{\"prompt\": …, \"expect_tool\": …, \"why\": …}]}"),
            )))
        }
    }
}

fn provider_error(e: crate::provider::ProviderError) -> AskError {
    let (crate::provider::ProviderError::Fatal(f) | crate::provider::ProviderError::Transient(f)) =
        e;
    AskError(Stop::failed(f.message, f.hint.as_deref()))
}
