//! `evals:`: the provider and model, request and retry settings, the gates, and the cases.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use super::{CompareConfig, EvalCase, StressConfig, Trials, yes};

/// `evals.provider`: a provider's name as written. The provider registry
/// (`crate::provider::registry`) knows the names; the settings look it up.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Provider(pub String);

impl Provider {
    /// The name as written.
    pub fn name(&self) -> &str {
        &self.0
    }
}

/// `evals:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalConfig {
    /// Run the phase in `run`.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Provider.
    #[serde(default)]
    pub provider: Option<Provider>,
    /// Model id.
    #[serde(default)]
    pub model: Option<String>,
    /// Program of the command provider.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// Extra environment for the command provider (toolproof's own key). The provider keys and
    /// CI tokens are withheld from the program unless named here.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// System prompt.
    #[serde(default)]
    pub system: Option<String>,
    /// Extra request body keys.
    #[serde(default)]
    pub params: serde_json::Map<String, Value>,
    /// Accuracy gate in 0..=1.
    #[serde(default = "default_min_accuracy")]
    pub min_accuracy: f64,
    /// Use the answer cache.
    #[serde(default = "yes")]
    pub cache: bool,
    /// Cache folder, relative to the YAML's folder.
    #[serde(default = "default_cache_dir")]
    pub cache_dir: PathBuf,
    /// Command provider timeout.
    #[serde(default = "default_eval_timeout_s")]
    pub timeout_s: f64,
    /// Labelled cases.
    #[serde(default)]
    pub cases: Vec<EvalCase>,
    /// Several models to ask the same cases, each gated on its own (instead of `model`).
    #[serde(default)]
    pub models: Vec<String>,
    /// The system prompt read from a file (the one the client ships), relative to the YAML.
    #[serde(default)]
    pub system_file: Option<PathBuf>,
    /// More cases, from their own YAML file (a list, or a mapping with `cases:`).
    #[serde(default)]
    pub cases_file: Option<PathBuf>,
    /// Requests in flight at once.
    #[serde(default = "default_eval_concurrency")]
    pub concurrency: u32,
    /// Output token cap sent to the API (Anthropic `max_tokens`; OpenAI and compatible servers
    /// under the name [`Self::max_tokens_field`] chooses); part of the cache key when set.
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// The name `max_tokens` is sent under to the OpenAI provider: `auto` picks
    /// `max_completion_tokens` for OpenAI's own API and `max_tokens` for any other base URL.
    #[serde(default)]
    pub max_tokens_field: MaxTokensField,
    /// Which OpenAI API the `openai` provider (and the OpenAI-compatible presets) speak:
    /// `chat` (Chat Completions, the reference's) or `responses` (the Responses API).
    #[serde(default)]
    pub openai_api: OpenAiApi,
    /// Lower the number of requests in flight when requests time out while others are
    /// answered, and raise it again after answers (`false` keeps `concurrency` in flight).
    #[serde(default = "yes")]
    pub adaptive_concurrency: bool,
    /// What several tool calls in one answer mean: `first` scores the first call, `miss`
    /// makes the case a miss.
    #[serde(default)]
    pub multiple_calls: MultipleCalls,
    /// Times each case is asked (each trial is its own cache entry), or `auto`: each case
    /// `min_trials` times, then again only while its outcome is undecided.
    #[serde(default)]
    pub trials: Trials,
    /// Under `trials: auto`, the trials every case gets before the rule decides.
    #[serde(default = "default_min_trials")]
    pub min_trials: u32,
    /// Under `trials: auto`, the most trials a case gets.
    #[serde(default = "default_max_trials")]
    pub max_trials: u32,
    /// Gate on the Wilson 95% lower bound of the trial accuracy.
    #[serde(default)]
    pub min_wilson_lower: Option<f64>,
    /// Seconds allowed for one API request.
    #[serde(default = "default_request_timeout_s")]
    pub request_timeout_s: f64,
    /// Retries of a request that hit 429, 529, 5xx, a timeout or a dropped connection.
    #[serde(default = "default_max_retries")]
    pub max_retries: u32,
    /// Whether (and which) tool the model must call; unset sends the reference's `auto`.
    #[serde(default)]
    pub tool_choice: Option<ToolChoice>,
    /// The set lint of the cases.
    #[serde(default)]
    pub lint: LintConfig,
    /// The tool-count stress curve (`stress: true` or a mapping; toolproof's own).
    #[serde(default)]
    pub stress: Option<StressConfig>,
    /// When uncached requests go through the provider's batch API (half the price, answers
    /// within 24 hours) instead of live requests: `auto` above `batch_min`, `always`, `never`.
    #[serde(default)]
    pub batch: BatchMode,
    /// Uncached requests of one model above which `batch: auto` sends them as a batch.
    #[serde(default = "default_batch_min")]
    pub batch_min: u32,
    /// Seconds between two looks at a batch in progress.
    #[serde(default = "default_batch_poll_s")]
    pub batch_poll_s: f64,
    /// Seconds a run waits for its batches to end, counted from the start of the evals; past
    /// it the evals end as an error and the batches' records stay for a later run to pick up.
    #[serde(default = "default_batch_deadline_s")]
    pub batch_deadline_s: f64,
    /// Anthropic: mark the tool list and the system prompt for the prompt cache
    /// (`cache_control`), so repeated requests read them at the cache price. Not part of the
    /// cache key.
    #[serde(default = "yes")]
    pub prompt_cache: bool,
    /// Prices per model, USD per million tokens, over the built-in list prices.
    #[serde(default)]
    pub prices: BTreeMap<String, PriceConfig>,
    /// `evals.compare`: the paired comparison with the base run.
    #[serde(default)]
    pub compare: CompareConfig,
    /// The order of the tool list sent: the server's, or shuffled per trial (toolproof's own).
    #[serde(default)]
    pub tool_order: ToolOrderMode,
    /// The most the evals may spend: requests and dollars (toolproof's own).
    #[serde(default)]
    pub budget: BudgetConfig,
    /// New tool wording sent to every model (toolproof's own).
    #[serde(default)]
    pub overrides: super::Overrides,
    /// Other servers whose tools join the list (toolproof's own; see `crowd`).
    #[serde(default)]
    pub neighbours: Vec<super::NeighbourConfig>,
    /// How the host names, caps and dedupes the crowd's tools.
    #[serde(default)]
    pub host: super::HostConfig,
    /// The gate on accuracy in the crowd.
    #[serde(default)]
    pub crowd: super::CrowdConfig,
    /// YAML line of the `evals:` key (filled by the loader; reports point the gates there).
    #[serde(skip)]
    pub line: Option<u32>,
}

/// `evals.tool_order`: the order of the tool list each request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolOrderMode {
    /// The server's order, every request (the reference's).
    #[default]
    Server,
    /// Shuffled per trial, seeded by the case and the trial: the same on every run.
    Shuffled,
}

/// `evals.budget`: the most one run's evals may spend (cached answers are free).
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetConfig {
    /// Requests sent to the provider.
    #[serde(default)]
    pub requests: Option<u64>,
    /// US dollars, at the model's price (batch answers at the batch price).
    #[serde(default)]
    pub usd: Option<f64>,
}

/// `evals.prices.<model>`: USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceConfig {
    /// Input tokens at the base rate.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Input tokens written to the prompt cache (default: the input price).
    #[serde(default)]
    pub cache_write: Option<f64>,
    /// Input tokens read from the prompt cache (default: the input price).
    #[serde(default)]
    pub cache_read: Option<f64>,
}

impl EvalConfig {
    /// Where `params` carries a `tool_choice` of its own: `params.tool_choice`, or
    /// `params.extra_body.tool_choice` (merged into the request as the SDKs do).
    pub fn params_tool_choice(&self) -> Option<&'static str> {
        if self.params.contains_key("tool_choice") {
            Some("params.tool_choice")
        } else if self
            .params
            .get("extra_body")
            .and_then(Value::as_object)
            .is_some_and(|b| b.contains_key("tool_choice"))
        {
            Some("params.extra_body.tool_choice")
        } else {
            None
        }
    }

    /// The `tool_choice` that `params` sends, when it sends one (`extra_body` wins, as it is
    /// merged last).
    pub fn params_tool_choice_value(&self) -> Option<&Value> {
        self.params
            .get("extra_body")
            .and_then(|b| b.get("tool_choice"))
            .or_else(|| self.params.get("tool_choice"))
    }

    /// The models the config names, in its order: `models`, else the single `model`.
    pub fn named_models(&self) -> Vec<String> {
        if self.models.is_empty() {
            self.model.iter().cloned().collect()
        } else {
            self.models.clone()
        }
    }
}

/// `evals.max_tokens_field`: the name the OpenAI provider sends `evals.max_tokens` under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `max_completion_tokens` for OpenAI's own API (`api.openai.com`), `max_tokens` for
    /// any other base URL (llama.cpp, Ollama, vLLM and most compatible servers read only it).
    #[default]
    Auto,
    /// Always `max_tokens`.
    MaxTokens,
    /// Always `max_completion_tokens`.
    MaxCompletionTokens,
}

impl MaxTokensField {
    /// The body key for this choice when the OpenAI provider talks to `base_url`: `auto`
    /// decides by the URL's host (OpenAI's own, `api.openai.com`, or any other).
    pub fn key_for(self, base_url: &str) -> &'static str {
        match self {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
            MaxTokensField::Auto if is_openai_host(base_url) => "max_completion_tokens",
            MaxTokensField::Auto => "max_tokens",
        }
    }
}

/// `evals.openai_api`: the OpenAI API asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpenAiApi {
    /// Chat Completions (`POST {base}/chat/completions`), as mcp-toolproof asks.
    #[default]
    Chat,
    /// The Responses API (`POST {base}/responses`).
    Responses,
}

/// Whether `url`'s host is OpenAI's own API host, `api.openai.com` (any scheme, port, path
/// or letter case).
pub(crate) fn is_openai_host(url: &str) -> bool {
    let rest = url.trim().split_once("://").map_or(url.trim(), |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let host = host_port.split(':').next().unwrap_or_default();
    host.trim_end_matches('.')
        .eq_ignore_ascii_case("api.openai.com")
}

/// `evals.multiple_calls`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MultipleCalls {
    /// Score the first call; the report says there were several.
    #[default]
    First,
    /// Several calls make the case a miss.
    Miss,
}

/// `evals.batch`: when uncached requests go through the provider's batch API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BatchMode {
    /// A batch when a model has more than `batch_min` uncached requests (HTTP providers).
    #[default]
    Auto,
    /// Every uncached request goes through a batch (refused with the command provider).
    Always,
    /// Live requests only.
    Never,
}

impl BatchMode {
    /// `auto`, `always` or `never` (`--batch`, `TOOLPROOF_BATCH`).
    pub fn parse(text: &str) -> Result<BatchMode, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(BatchMode::Auto),
            "always" => Ok(BatchMode::Always),
            "never" => Ok(BatchMode::Never),
            other => Err(format!("`{other}` is not auto, always or never")),
        }
    }
}

/// 100 uncached requests: below it a live run is quick enough that waiting for a batch
/// (minutes at least) costs more time than the half price saves.
fn default_batch_min() -> u32 {
    100
}
fn default_batch_poll_s() -> f64 {
    30.0
}
/// Two hours: most batches end within one (the providers' own figure), and it ends the wait
/// well inside a CI job's limit (GitHub's is six hours), so the job says why rather than
/// being killed; the record stays for the next run.
fn default_batch_deadline_s() -> f64 {
    7200.0
}

fn default_eval_concurrency() -> u32 {
    8
}
fn default_min_trials() -> u32 {
    1
}
fn default_max_trials() -> u32 {
    10
}
fn default_request_timeout_s() -> f64 {
    120.0
}
fn default_max_retries() -> u32 {
    4
}

fn default_min_accuracy() -> f64 {
    1.0
}

impl Default for EvalConfig {
    /// The values used when the YAML has no `evals:` section.
    fn default() -> Self {
        Self {
            enabled: true,
            provider: None,
            model: None,
            command: None,
            env: BTreeMap::new(),
            system: None,
            params: serde_json::Map::new(),
            min_accuracy: default_min_accuracy(),
            cache: true,
            cache_dir: default_cache_dir(),
            timeout_s: default_eval_timeout_s(),
            cases: Vec::new(),
            models: Vec::new(),
            system_file: None,
            cases_file: None,
            concurrency: default_eval_concurrency(),
            max_tokens: None,
            max_tokens_field: MaxTokensField::Auto,
            openai_api: OpenAiApi::Chat,
            adaptive_concurrency: true,
            multiple_calls: MultipleCalls::First,
            trials: Trials::default(),
            min_trials: default_min_trials(),
            max_trials: default_max_trials(),
            min_wilson_lower: None,
            request_timeout_s: default_request_timeout_s(),
            max_retries: default_max_retries(),
            tool_choice: None,
            lint: LintConfig::default(),
            stress: None,
            batch: BatchMode::Auto,
            batch_min: default_batch_min(),
            batch_poll_s: default_batch_poll_s(),
            batch_deadline_s: default_batch_deadline_s(),
            prompt_cache: true,
            prices: BTreeMap::new(),
            compare: CompareConfig::default(),
            tool_order: ToolOrderMode::Server,
            budget: BudgetConfig::default(),
            overrides: super::Overrides::new(),
            neighbours: Vec::new(),
            host: super::HostConfig::None,
            crowd: super::CrowdConfig::default(),
            line: None,
        }
    }
}
/// `evals.lint:` (toolproof's own): the set lint of the labelled cases.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LintConfig {
    /// Lint the cases in `run` and `eval`.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Warnings fail the run too, and the advice rules (`missing-why`, `no-ambiguous-cases`)
    /// become warnings.
    #[serde(default)]
    pub strict: bool,
    /// Lint rule ids turned off.
    #[serde(default)]
    pub disable: Vec<String>,
}

impl Default for LintConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            strict: false,
            disable: Vec::new(),
        }
    }
}

/// `evals.tool_choice` (also `--tool-choice`, `TOOLPROOF_EVAL_TOOL_CHOICE`): whether the model
/// may, must, or must not call a tool, or which one it must call. Each provider gets it in its
/// own wire format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides (the reference's only choice, and the default).
    Auto,
    /// The model must call some tool (`any`; `required` is the same).
    Any,
    /// The model must not call a tool.
    None,
    /// The model must call this tool (its MCP name).
    Tool(String),
}

impl ToolChoice {
    /// `auto`, `any`, `required`, `none` or `tool:NAME` (the flag and variable form).
    pub fn parse(text: &str) -> Result<ToolChoice, String> {
        match text {
            "auto" => Ok(ToolChoice::Auto),
            "any" | "required" => Ok(ToolChoice::Any),
            "none" => Ok(ToolChoice::None),
            other => match other.strip_prefix("tool:").map(str::trim) {
                Some(name) if !name.is_empty() => Ok(ToolChoice::Tool(name.to_owned())),
                _ => Err(format!(
                    "unknown tool choice `{other}`: use auto, any (or required), none or tool:NAME"
                )),
            },
        }
    }

    /// How the config writes it: `auto`, `any`, `none`, `{tool: NAME}`.
    pub fn describe(&self) -> String {
        match self {
            ToolChoice::Auto => "auto".into(),
            ToolChoice::Any => "any".into(),
            ToolChoice::None => "none".into(),
            ToolChoice::Tool(name) => format!("{{tool: {name}}}"),
        }
    }
}

/// Hand-written instead of `untagged`, so a wrong value gets a message that names every form.
impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Choice;

        const FORMS: &str = "auto, any (or required), none, or {tool: NAME}";

        impl<'de> serde::de::Visitor<'de> for Choice {
            type Value = ToolChoice;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "one of {FORMS}")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ToolChoice, E> {
                match v {
                    "auto" => Ok(ToolChoice::Auto),
                    "any" | "required" => Ok(ToolChoice::Any),
                    "none" => Ok(ToolChoice::None),
                    other => Err(E::custom(format!(
                        "unknown tool choice `{other}`: use {FORMS}"
                    ))),
                }
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<ToolChoice, A::Error> {
                use serde::de::Error as _;
                let mut name = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "tool" {
                        return Err(A::Error::custom(format!(
                            "unknown key `{key}`: a tool choice mapping is {{tool: NAME}}"
                        )));
                    }
                    name = Some(map.next_value::<String>()?);
                }
                match name.map(|n| n.trim().to_owned()).filter(|n| !n.is_empty()) {
                    Some(n) => Ok(ToolChoice::Tool(n)),
                    None => Err(A::Error::custom(
                        "a tool choice mapping names the tool: {tool: NAME}",
                    )),
                }
            }
        }

        d.deserialize_any(Choice)
    }
}

fn default_cache_dir() -> PathBuf {
    PathBuf::from(".toolproof-cache")
}
fn default_eval_timeout_s() -> f64 {
    120.0
}
