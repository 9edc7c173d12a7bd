//! Tool-selection eval results: per model its cases, trials, gates and confusion pairs, the
//! cache use and the miss-rate trend. The engine fills them through `evals::judging::tally`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Results of the tool-selection evals: one entry per model asked.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EvalsResults {
    /// The provider's name from the registry (`anthropic`, `groq`…), as resolved (flag >
    /// env > YAML).
    pub provider: String,
    /// One per model (`evals.models`, or the single `model`).
    pub models: Vec<ModelEval>,
    /// Tools not offered to the model because their input schema is not valid JSON Schema.
    pub left_out_tools: Vec<String>,
    /// sha256 of the tool list sent to the model (the same list for every model).
    pub tool_list_hash: String,
    /// Each tool's estimated weight in tokens in the list sent to the model, in the list's
    /// order (MCP names), and the whole list's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_tokens: Option<ToolListTokens>,
    /// Cache use: where, and how many answers came from it.
    pub cache: CacheUse,
    /// The miss-rate history, when `--history` was given.
    pub history: Option<HistoryTrend>,
    /// How many requests were in flight, and whether timeouts lowered it (the HTTP providers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<ConcurrencyUse>,
    /// The models the config lists (`evals.models`, or `model`), in its order, whether or not
    /// `--model` asked only one of them: `toolproof merge` puts the jobs of a matrix over
    /// models back in this order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_models: Vec<String>,
    /// What the run measured beyond the tool list (provider, endpoint, params, system prompt,
    /// trials): a later run compares with this one only when they agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<super::Fingerprint>,
    /// The plan made before the first request (what it asks, cached, estimated cost), the
    /// dry run, and the budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<super::EvalPlan>,
    /// Each tool's digest (MCP name → 16 hex digits of sha256 of its definition as sent): a
    /// later run knows which definitions changed since this one.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub tool_digests: std::collections::BTreeMap<String, String>,
    /// The overrides applied to the tool list (`evals.overrides`, `--overrides`): absent when
    /// the models were sent the server's own descriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overrides: Option<OverridesUse>,
}

/// The overrides a run applied to the tool list it sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverridesUse {
    /// The tools whose wording was replaced, in name order.
    pub tools: Vec<String>,
    /// sha256 (hex) of the overrides as canonical JSON.
    pub hash: String,
    /// Why the overrides could not be applied (a tool or property the server does not have):
    /// a config error, and the evals did not run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

/// The tool list sent to the model, weighed in estimated tokens (see
/// [`crate::outcome::cost::estimate_tokens`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolListTokens {
    /// The whole list, as sent.
    pub total: u64,
    /// Each tool: its MCP name and its estimated tokens, in the list's order.
    pub tools: Vec<ToolTokens>,
}

/// One tool's estimated weight in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolTokens {
    /// The MCP tool name.
    pub tool: String,
    /// Estimated tokens of its name, description and input schema as sent.
    pub tokens: u64,
}

impl ToolsUnseen {
    /// `the server reported 37 prompt tokens for requests whose tool list alone is about 400: it
    /// did not show the tools to the model (a chat template without tool support?); the
    /// accuracy is not counted`, with `(3 of 13 answers)` when not every answer was that small.
    pub fn text(&self) -> String {
        use super::cost::count;
        let prompt = if self.min_prompt_tokens == self.max_prompt_tokens {
            count(self.max_prompt_tokens)
        } else {
            format!(
                "{} to {}",
                count(self.min_prompt_tokens),
                count(self.max_prompt_tokens)
            )
        };
        let answers = if self.answers == self.reported {
            String::new()
        } else {
            format!(" ({} of {} answers)", self.answers, self.reported)
        };
        format!(
            "the server reported {prompt} prompt tokens for requests whose tool list alone is about {}{answers}: it did not show the tools to the model (a chat template without tool support?); the accuracy is not counted",
            count(self.tool_list_tokens)
        )
    }
}

/// How many requests were in flight at once: the configured concurrency, and how far timeouts
/// lowered it while other requests were answered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConcurrencyUse {
    /// `evals.concurrency`.
    pub configured: usize,
    /// `evals.adaptive_concurrency`: timeouts may lower it.
    pub adaptive: bool,
    /// The fewest requests in flight allowed at any time.
    pub lowest: usize,
    /// The number allowed at the end.
    pub last: usize,
    /// Times it was lowered.
    pub lowered: usize,
    /// Requests that timed out.
    pub timeouts: usize,
    /// Requests the server answered (any status).
    pub answered: usize,
}

/// How the answer cache was used.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CacheUse {
    /// Whether the cache was read (`cache: true`, not `--no-cache`, not the command provider).
    pub read: bool,
    /// Whether new answers were to be written (see `write_errors` for those that were not).
    pub write: bool,
    /// The cache folder.
    pub dir: Option<String>,
    /// Answers replayed from the cache.
    pub hits: usize,
    /// Fresh answers from the provider.
    pub asked: usize,
    /// Trials the provider was asked about and gave no usable answer (after retries, or a
    /// fatal error that stopped the phase).
    #[serde(default)]
    pub failed: usize,
    /// HTTP requests sent to the model API, retries included (0 for the command provider).
    #[serde(default)]
    pub requests: usize,
    /// Of the requests, retries.
    #[serde(default)]
    pub retries: usize,
    /// Cache files that could not be read (counted as misses).
    pub corrupt: usize,
    /// Fresh answers that could not be saved to the cache (they still count for this run).
    #[serde(default)]
    pub write_errors: usize,
    /// Why the first of them could not be saved.
    #[serde(default)]
    pub write_error: Option<String>,
}

impl CacheUse {
    /// Notes an answer that could not be saved, keeping the first reason.
    pub fn write_failed(&mut self, why: String) {
        self.write_errors += 1;
        self.write_error.get_or_insert(why);
    }
}

/// How one model did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ModelEval {
    /// Model id (empty for a command provider without one).
    pub model: String,
    /// Whether this model passed every gate.
    pub passed: bool,
    /// Why the provider could not be used at all (key missing, 401, unknown model, 400 …).
    /// When set, no case counts as correct.
    pub error: Option<String>,
    /// Cases.
    pub total: usize,
    /// Cases correct on every trial.
    pub correct: usize,
    /// correct / total (0 when there are no cases).
    pub accuracy: f64,
    /// The gate on accuracy.
    pub min_accuracy: f64,
    /// Trials per case (the most any case had).
    pub trials: u32,
    /// Share of all trials that were correct.
    pub trial_accuracy: f64,
    /// Wilson 95% lower bound of the trial accuracy.
    pub wilson_lower: f64,
    /// The optional gate on `wilson_lower`.
    pub min_wilson_lower: Option<f64>,
    /// Names of critical cases that were wrong on some trial (not those never asked or that
    /// got no usable answer).
    pub critical_misses: Vec<String>,
    /// Cases that missed because of a provider error (after retries).
    pub provider_errors: usize,
    /// Cases not asked because `--offline` and no cached answer.
    pub uncached: Vec<String>,
    /// Trials answered through the provider's batch API (left out when none were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub batched: usize,
    /// Every gate with its verdict, in the order checked.
    pub gates: Vec<Gate>,
    /// Expected → picked pairs of the misses, most frequent first.
    pub confusion: Vec<Confusion>,
    /// Per case, in YAML order.
    pub cases: Vec<EvalCaseResult>,
    /// Requests, tokens and cost of this model's answers (fresh and replayed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<super::ModelCost>,
    /// Per tool, recall and precision of the model's first pick with Wilson 95% intervals:
    /// every tool a scored trial expected or picked, in name order (no tool is left to
    /// `abstention` and `over_trigger`).
    #[serde(default)]
    pub per_tool: Vec<ToolScore>,
    /// Trials meant for a tool that the model answered with no call (text, nothing or a
    /// refusal); `None` when no scored trial was meant for a tool.
    #[serde(default)]
    pub abstention: Option<Share>,
    /// Trials meant for no tool that the model answered with a call; `None` when no scored
    /// trial was meant for no tool.
    #[serde(default)]
    pub over_trigger: Option<Share>,
    /// Set when the server reported prompts smaller than the tool list alone: the tools never
    /// reached the model, and the accuracy measures a model without tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_unseen: Option<ToolsUnseen>,
    /// The comparison with the base run, when the run looked for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<super::Comparison>,
    /// The same rows in a crowd of neighbour servers, when `evals.neighbours` names some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crowd: Option<super::Crowd>,
}

/// A count out of a whole, with its share and the Wilson 95% interval of the share.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// How many.
    pub count: usize,
    /// Out of how many.
    pub of: usize,
    /// `count / of` (0 when `of` is 0).
    pub rate: f64,
    /// Wilson 95% lower bound of `rate`.
    pub low: f64,
    /// Wilson 95% upper bound of `rate`.
    pub high: f64,
}

/// How well a model picks one tool, over the scored trials (the first call is the pick;
/// provider errors, trials not asked and answers cut off before any call are not scored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolScore {
    /// The MCP tool name.
    pub tool: String,
    /// Trials meant for the tool that picked it, out of the trials meant for it; `None` when
    /// no trial was meant for it.
    pub recall: Option<Share>,
    /// Trials that picked the tool and were meant for it, out of the trials that picked it;
    /// `None` when no trial picked it.
    pub precision: Option<Share>,
}

/// Answers whose server reported fewer prompt tokens than the tool list sent with them is
/// estimated at: the tool list never reached the model (a server that drops `tools`, a chat
/// template without tool support).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolsUnseen {
    /// Answers whose reported prompt was smaller than the tool list alone.
    pub answers: usize,
    /// Answers whose server reported usage.
    pub reported: usize,
    /// The smallest prompt reported among them, in tokens.
    pub min_prompt_tokens: u64,
    /// The largest prompt reported among them, in tokens.
    pub max_prompt_tokens: u64,
    /// The tool list's estimated size in tokens.
    pub tool_list_tokens: u64,
}

impl ModelEval {
    /// Whether the provider was usable but no case was asked (under `--offline`, none had a
    /// cached answer): then there is no accuracy, not an accuracy of 0%.
    pub fn asked_nothing(&self) -> bool {
        self.error.is_none()
            && !self.cases.is_empty()
            && self.cases.iter().all(|c| c.status == CaseStatus::NotRun)
    }
}

/// Which rule a gate checks; serialized as the gate's `name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateKind {
    /// The provider could be used.
    Provider,
    /// Under `--offline`, every case had a cached answer.
    Offline,
    /// There were cases to score.
    Cases,
    /// Some trial got an answer from the provider (not every one a provider error).
    Answers,
    /// The accuracy reached `min_accuracy`.
    MinAccuracy,
    /// Every critical case was right on every trial.
    Critical,
    /// The Wilson lower bound reached `min_wilson_lower`.
    MinWilsonLower,
    /// The tool list reached the model (the reported prompts were not smaller than it).
    ToolsShown,
    /// The paired comparison with the base run found no regression (nor, under
    /// `on_inconclusive: fail`, an inconclusive set).
    Comparison,
    /// The accuracy in the crowd of neighbour servers reached `evals.crowd.min_accuracy`.
    Crowd,
}

impl GateKind {
    /// The name the JSON report uses: `provider`, `offline`, `cases`, `answers`,
    /// `min_accuracy`, `critical`, `min_wilson_lower`, `tools_shown`, `comparison`, `crowd`.
    pub fn as_str(self) -> &'static str {
        match self {
            GateKind::Provider => "provider",
            GateKind::Offline => "offline",
            GateKind::Cases => "cases",
            GateKind::Answers => "answers",
            GateKind::MinAccuracy => "min_accuracy",
            GateKind::Critical => "critical",
            GateKind::MinWilsonLower => "min_wilson_lower",
            GateKind::ToolsShown => "tools_shown",
            GateKind::Comparison => "comparison",
            GateKind::Crowd => "crowd",
        }
    }
}

/// One pass/fail rule of the evals.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Gate {
    /// Which rule (serialized as `name`).
    #[serde(rename = "name")]
    pub kind: GateKind,
    /// Whether it held.
    pub passed: bool,
    /// One line: `accuracy 80% (8/10) is below the minimum 90%`.
    pub detail: String,
}

/// A confusion pair: the label said `expected`, the model picked `picked`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Confusion {
    /// Expected tool (`(no tool)` for none).
    pub expected: String,
    /// What was picked (`(no tool)` for none).
    pub picked: String,
    /// How many trials went this way.
    pub count: usize,
    /// Cases involved.
    pub cases: Vec<String>,
}

/// How a case ended over its trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseStatus {
    /// Correct on every trial.
    Correct,
    /// Wrong on some trial.
    Miss,
    /// Some trial got no usable answer from the provider (after retries).
    ProviderError,
    /// Not asked (offline without a cached answer, or the provider was unusable).
    NotRun,
}

/// One labelled case.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvalCaseResult {
    /// Name (or the prompt, shortened).
    pub name: String,
    /// The prompt.
    pub prompt: String,
    /// Why the row exists.
    pub why: Option<String>,
    /// Must be right on every trial whatever the accuracy.
    pub critical: bool,
    /// YAML line (in the file holding the case).
    pub line: Option<u32>,
    /// File holding the case, when not the main config (`cases_file`).
    pub file: Option<String>,
    /// Expected tool; `None` means no tool.
    pub expect_tool: Option<String>,
    /// Expected arguments (subset).
    pub expect_args: Value,
    /// The conversation before the prompt (`context:`), one entry per turn; empty without.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<ContextEntry>,
    /// Outcome over the trials.
    pub status: CaseStatus,
    /// Correct trials / trials.
    pub pass_rate: f64,
    /// Both passed and failed across trials.
    pub ambiguous: bool,
    /// Each trial.
    pub trials: Vec<TrialResult>,
}

impl EvalCaseResult {
    /// (correct, trials) as the paired test counts them: trials without a usable answer (a
    /// provider error) left out; `None` for a case not run or without a scored trial.
    pub fn scored(&self) -> Option<(u32, u32)> {
        let scored = self.trials.iter().filter(|t| t.provider_error.is_none());
        let n = scored.clone().count() as u32;
        let correct = scored.filter(|t| t.passed).count() as u32;
        (self.status != CaseStatus::NotRun && n > 0).then_some((correct, n))
    }
}

/// One earlier turn of a case's conversation: exactly one of `user`, `assistant` or `call`
/// (with `args` and `result`), as the YAML writes it; the call by its MCP name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ContextEntry {
    /// A message the user sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// A message the assistant answered with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant: Option<String>,
    /// An earlier tool call: the tool's MCP name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// The earlier call's arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    /// What the earlier call returned, as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

/// What kind of answer a trial got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// One or more tool calls.
    ToolCall,
    /// Text and no call.
    TextOnly,
    /// No call and no text.
    NoTool,
    /// The model declined (`stop_reason: refusal`, OpenAI `refusal`).
    Refusal,
    /// The answer was cut off (`max_tokens`/`length`).
    Truncated,
    /// No usable answer: the provider failed after retries.
    ProviderError,
    /// Not asked.
    NotAsked,
}

/// One call the model made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PickedCall {
    /// The MCP tool name (mapped back from the API-safe name).
    pub tool: String,
    /// Arguments as parsed.
    pub args: Value,
    /// The raw arguments string when it was not valid JSON.
    pub malformed_args: Option<String>,
}

/// One trial of a case.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrialResult {
    /// Whether it was correct.
    pub passed: bool,
    /// What kind of answer came back.
    pub kind: AnswerKind,
    /// Every call the model made, in order.
    pub calls: Vec<PickedCall>,
    /// Text that came with the answer.
    pub text: Option<String>,
    /// Why it is wrong (empty when correct).
    pub failures: Vec<String>,
    /// Replayed from the cache.
    pub cached: bool,
    /// The provider's error, for `ProviderError`.
    pub provider_error: Option<String>,
    /// Request time (0 when cached).
    pub latency_ms: f64,
    /// What could not be checked and why (e.g. an input schema toolproof cannot compile);
    /// the verdict stands without it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The miss-rate trend read from the history file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct HistoryTrend {
    /// The history file.
    pub path: String,
    /// The last runs (oldest first), this run included.
    pub points: Vec<HistoryPoint>,
    /// Whether the miss rate rose across the window.
    pub rising: bool,
    /// Lines of the file that could not be read.
    pub skipped_lines: usize,
}

/// One run in the trend.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HistoryPoint {
    /// RFC 3339 time.
    pub time: String,
    /// Short commit, when known.
    pub commit: Option<String>,
    /// Model.
    pub model: String,
    /// Miss rate in 0..1.
    pub miss_rate: f64,
    /// The run's estimated cost in USD (fresh answers), when the model had a price and the
    /// line recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The run asked the model nothing (every answer was replayed from the cache), so its cost
    /// is no measure of what the set costs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
}

/// Whether a count is 0 (left out of the JSON report).
fn is_zero(n: &usize) -> bool {
    *n == 0
}
