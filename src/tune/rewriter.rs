//! The rewriter: the model (any provider) `toolproof tune` asks for new descriptions.
//!
//! The command provider gets one JSON line, `{"task": "rewrite_description", "tool": {name,
//! description, input_schema}, "tools": [the whole list], "misses": [{prompt, expected,
//! picked, why}], "candidates": K}`, and answers `{"candidates": ["…", …]}`. A model API is
//! sent the prompt ([`PROMPT`], or `tune.prompt_file`) with that request in it and one tool,
//! `propose_descriptions`, that it must call with the candidates.
//!
//! Answers are cached as eval answers are (a model API's, not a command's; `--no-cache` reads
//! none), under `<cache_dir>/tune/`, keyed by the provider, the model, the prompt and the
//! request: a committed cache replays a tune with no key.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::config::{EvalConfig, ToolChoice};
use crate::provider::{ApiTool, Kind, Pacer, Provider, Request, RetryPolicy, Setup};
use crate::settings::{Env, Settings};

/// The prompt a model API is sent, `{request}` replaced by the request's JSON.
pub(crate) const PROMPT: &str = "You improve the description of one tool of an MCP server. \
A model picks tools by their descriptions; the rows below were routed wrongly. Write \
{candidates} alternative descriptions of the tool `{tool}` that say plainly what it does, what \
it needs and when it applies, so that a model can tell it apart from the other tools listed. \
Describe the tool; do not address the model: no orders (\"always use this tool\"), no praise \
(\"the best tool\"), no words about other tools, no capitals or exclamation marks for \
emphasis. Keep each under {max_chars} characters. Call propose_descriptions with them.\n\n\
{request}";

/// The tool a model API answers through.
const ANSWER_TOOL: &str = "propose_descriptions";

/// One row the rewriter is shown: a seen row some model missed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Miss {
    /// The prompt.
    pub prompt: String,
    /// The expected tool (`(no tool)` for none).
    pub expected: String,
    /// What was picked (`(no tool)` for none).
    pub picked: String,
    /// Why the row exists.
    pub why: Option<String>,
}

/// A rewriter, ready to ask.
pub(crate) struct Rewriter {
    kind: &'static dyn Kind,
    model: String,
    cfg: EvalConfig,
    base_dir: PathBuf,
    cache_dir: PathBuf,
    prompt: String,
    offline: bool,
    max_chars: Option<usize>,
    /// Answers are written to the cache (a model API's, with `cache: true`).
    writes: bool,
    /// And read from it (not with `--no-cache`).
    reads: bool,
}

/// What the rewriter gave for one tool.
pub(crate) struct Answered {
    /// The candidate descriptions, at most the number asked for.
    pub candidates: Vec<String>,
    /// Replayed from the cache.
    pub cached: bool,
}

impl Rewriter {
    /// The rewriter of `tune:` over the `evals:` section; an error (a usage error) when its
    /// provider is unknown or its prompt file cannot be read.
    pub(crate) fn new(
        evals: &EvalConfig,
        tune: Option<&crate::config::TuneConfig>,
        eval_provider: &'static dyn Kind,
        eval_model: &str,
        base_dir: &Path,
        offline: bool,
        no_cache: bool,
    ) -> Result<Self, String> {
        let kind = match tune.and_then(|t| t.provider.as_deref()) {
            Some(name) => crate::provider::registry::find(name).ok_or_else(|| {
                format!(
                    "`tune.provider` is `{name}`, which is no provider; use one of {}",
                    crate::provider::registry::names().join(", ")
                )
            })?,
            None => eval_provider,
        };
        let mut cfg = evals.clone();
        if let Some(command) = tune.and_then(|t| t.command.clone()) {
            cfg.command = Some(command);
        }
        let model = tune
            .and_then(|t| t.model.clone())
            .unwrap_or_else(|| eval_model.to_owned());
        let prompt = match tune.and_then(|t| t.prompt_file.as_ref()) {
            Some(path) => {
                let path = base_dir.join(path);
                std::fs::read_to_string(&path).map_err(|e| {
                    format!("cannot read `tune.prompt_file` {}: {e}", path.display())
                })?
            }
            None => PROMPT.to_owned(),
        };
        Ok(Rewriter {
            kind,
            model,
            cache_dir: cfg.cache_dir.join("tune"),
            cfg,
            base_dir: base_dir.to_path_buf(),
            prompt,
            offline,
            max_chars: tune.and_then(|t| t.max_chars),
            writes: evals.cache && kind.caches_answers(),
            reads: evals.cache && kind.caches_answers() && !no_cache,
        })
    }

    /// The request for `tool`, as the command provider is sent it.
    pub(crate) fn request(tool: &ApiTool, tools: &[ApiTool], misses: &[Miss], k: u32) -> Value {
        json!({
            "task": "rewrite_description",
            "tool": {
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.input_schema,
            },
            "tools": tools,
            "misses": misses,
            "candidates": k,
        })
    }

    /// The cache key of `request`.
    fn key(&self, request: &Value) -> String {
        let runs_command = self.kind.runs_command();
        let keyed = json!({
            "provider": self.kind.name(),
            "model": self.model,
            "prompt": if runs_command { Value::Null } else { json!(self.prompt) },
            "request": request,
        });
        Sha256::digest(keyed.to_string().as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn path(&self, request: &Value) -> PathBuf {
        self.cache_dir.join(format!("{}.json", self.key(request)))
    }

    /// Whether the cache answers `request`.
    pub(crate) fn cached(&self, request: &Value) -> bool {
        self.reads && read_cached(&self.path(request)).is_some()
    }

    /// The candidates for `request`: from the cache, else asked (and cached).
    pub(crate) fn ask(&self, request: &Value) -> Result<Answered, String> {
        let path = self.path(request);
        if self.reads
            && let Some(candidates) = read_cached(&path)
        {
            return Ok(Answered {
                candidates,
                cached: true,
            });
        }
        // A command is run offline too, as the evals' command is.
        if self.offline && !self.kind.runs_command() {
            return Err(format!(
                "the rewriter's answer for `{}` is not cached and --offline asks no provider",
                request["tool"]["name"].as_str().unwrap_or_default()
            ));
        }
        let candidates = if self.kind.runs_command() {
            self.ask_command(request)?
        } else {
            self.ask_api(request)?
        };
        if self.writes {
            let body = json!({"request": request, "candidates": candidates});
            let text = serde_json::to_string_pretty(&body).unwrap_or_default();
            crate::report::write::write_atomic(&path, text.as_bytes())
                .map_err(|e| format!("the rewriter's answer could not be cached: {e}"))?;
        }
        Ok(Answered {
            candidates,
            cached: false,
        })
    }

    fn ask_command(&self, request: &Value) -> Result<Vec<String>, String> {
        let argv = self.cfg.command.clone().unwrap_or_default();
        let spec = crate::provider::command::CommandSpec::new(
            argv,
            self.base_dir.clone(),
            crate::config::limits::seconds(self.cfg.timeout_s),
        )
        .with_env(self.cfg.env.clone());
        let out = spec.exchange_line(format!("{request}\n")).map_err(|e| {
            let e = e.to_string();
            format!(
                "the rewriter failed: {}",
                e.replacen("eval command", "the command", 1)
            )
        })?;
        candidates_of(serde_json::from_str::<Value>(out.trim()).ok().as_ref()).ok_or_else(|| {
            format!(
                "the rewriter answered {:?}, not {{\"candidates\": [\"…\"]}}",
                out.chars().take(200).collect::<String>()
            )
        })
    }

    fn ask_api(&self, request: &Value) -> Result<Vec<String>, String> {
        let env = Env::from_process();
        let var = |k: &str| env.raw(k).map(str::to_owned);
        let provider: Box<dyn Provider> = self
            .kind
            .connect(&Setup {
                env: &var,
                cfg: Some(&self.cfg),
                base_dir: &self.base_dir,
            })
            .map_err(|e| format!("the rewriter's provider could not be used: {e}"))?;
        let prompt = self
            .prompt
            .replace("{candidates}", &request["candidates"].to_string())
            .replace(
                "{tool}",
                request["tool"]["name"].as_str().unwrap_or_default(),
            )
            .replace(
                "{max_chars}",
                &self.max_chars.map_or("400".into(), |n| n.to_string()),
            )
            .replace(
                "{request}",
                &serde_json::to_string_pretty(request).unwrap_or_default(),
            );
        let tools = [ApiTool {
            name: ANSWER_TOOL.into(),
            description: "Submit the new descriptions.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {"candidates": {"type": "array", "items": {"type": "string"}}},
                "required": ["candidates"]
            }),
            exact_numbers: Vec::new(),
        }];
        let choice = ToolChoice::Tool(ANSWER_TOOL.into());
        let params: Map<String, Value> = crate::evals::asking::engine::request_params(
            &self.cfg,
            self.kind,
            Some(&choice),
            "max_completion_tokens",
        );
        let wire =
            (!self.kind.tool_choice_in_params()).then(|| self.kind.tool_choice_wire(&choice));
        let pacer = Pacer::new(RetryPolicy {
            max_retries: self.cfg.max_retries,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            request_timeout: crate::config::limits::seconds(self.cfg.request_timeout_s),
        });
        let (answer, _) = provider.ask_timed(
            &Request {
                model: &self.model,
                system: None,
                prompt: &prompt,
                context: &[],
                tools: &tools,
                params: &params,
                tool_choice: wire.as_ref(),
                max_tokens: self.cfg.max_tokens.unwrap_or(4096),
                prompt_cache: false,
            },
            &pacer,
        );
        let answer = answer.map_err(|e| format!("the rewriter failed: {e}"))?;
        answer
            .calls
            .iter()
            .find_map(|c| candidates_of(c.args.as_ref().ok()))
            .ok_or_else(|| "the rewriter did not call propose_descriptions".to_owned())
    }
}

/// The `candidates` of an answer object.
fn candidates_of(v: Option<&Value>) -> Option<Vec<String>> {
    let list = v?.get("candidates")?.as_array()?;
    Some(
        list.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

/// The candidates of a cache file, when it holds an answer.
fn read_cached(path: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(path).ok()?;
    candidates_of(serde_json::from_str::<Value>(&text).ok().as_ref())
}

/// The rewriter as the report names it: its provider and model, or a command's program.
pub(crate) fn name(s: &Settings, eval_provider: &str) -> String {
    let tune = s.loaded().config.tune.as_ref();
    let provider = tune
        .and_then(|t| t.provider.clone())
        .unwrap_or_else(|| eval_provider.to_owned());
    let command = tune
        .and_then(|t| t.command.clone())
        .or_else(|| s.loaded().config.evals.as_ref()?.command.clone());
    let program = command.as_deref().and_then(program_name);
    match (tune.and_then(|t| t.model.clone()), program) {
        (Some(model), _) => format!("{provider} {model}"),
        (None, Some(program)) if provider == "command" => format!("command ({program})"),
        (None, _) => provider,
    }
}

/// The file name of a command's program: the script an interpreter runs, or the program.
fn program_name(command: &[String]) -> Option<String> {
    let program = command
        .iter()
        .find(|w| !is_interpreter(w))
        .or(command.first())?;
    Some(
        program
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(program)
            .to_owned(),
    )
}

/// `python3`, `node` and the like: a command's program is the script they run.
fn is_interpreter(word: &str) -> bool {
    let name = word.rsplit(['/', '\\']).next().unwrap_or(word);
    [
        "python", "python3", "node", "uv", "npx", "bash", "sh", "ruby", "deno", "bun",
    ]
    .contains(&name)
        || word.starts_with('-')
}

#[cfg(test)]
mod naming_tests {
    use super::*;

    #[test]
    fn a_script_is_named_by_its_file() {
        let program =
            |c: &[&str]| program_name(&c.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>());
        assert_eq!(
            program(&["python3", "-S", "-I", "/x/rewriter.py"]).as_deref(),
            Some("rewriter.py")
        );
        assert_eq!(
            program(&["../../target/release/demo_picker"]).as_deref(),
            Some("demo_picker")
        );
    }
}
