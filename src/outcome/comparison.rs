//! A model's run against its base run, row by row: the verdict of the paired test and what it
//! rests on, and the fingerprint that says whether two runs can be compared at all. The engine
//! (`evals::judging::history`) fills it; renderers only read it.

use serde::{Deserialize, Serialize};

/// The verdict on a model against its base run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Significantly worse, by at least `min_effect`.
    Regressed,
    /// Significantly better, by at least `min_effect`.
    Improved,
    /// No significant change, and the set could have seen a drop of `min_effect`.
    NoChange,
    /// No significant change, but the set cannot detect a drop of `min_effect`.
    Inconclusive,
    /// The runs differ in what was measured (model, endpoint, params, system prompt, trials).
    NotComparable,
    /// No base run was found.
    #[default]
    NoBase,
}

impl Verdict {
    /// The name the JSON report uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
            Verdict::NoChange => "no_change",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NotComparable => "not_comparable",
            Verdict::NoBase => "no_base",
        }
    }
}

/// Which base run a comparison used.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BaseRef {
    /// The branch (or the JSON report's path) the base came from.
    #[serde(rename = "ref")]
    pub git_ref: String,
    /// Its commit, when recorded.
    pub commit: Option<String>,
    /// When it ran (RFC 3339), when recorded.
    pub time: Option<String>,
}

/// One row both runs have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComparedRow {
    /// The case's identity (its name, `name#2` for a second use).
    pub case: String,
    /// `[correct, trials]` in the base run.
    pub before: [u32; 2],
    /// `[correct, trials]` in this run.
    pub after: [u32; 2],
}

impl ComparedRow {
    /// Right on every trial before, wrong on some now.
    pub fn flipped_worse(&self) -> bool {
        self.before[1] > 0 && self.before[0] == self.before[1] && self.after[0] < self.after[1]
    }
}

/// A model's comparison with its base run (`comparison` in the JSON report).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The verdict.
    pub verdict: Verdict,
    /// The base run; `None` when none was found.
    pub base: Option<BaseRef>,
    /// One-sided exact p-value that this run is worse (that it is better, for `improved`).
    pub p_value: Option<f64>,
    /// Mean per-row accuracy of the base run over the shared rows.
    pub accuracy_before: Option<f64>,
    /// Mean per-row accuracy of this run over the shared rows.
    pub accuracy_after: Option<f64>,
    /// The smallest drop the set detects at `alpha` with 80% power.
    pub mde: Option<f64>,
    /// The rows both runs have, in this run's order.
    pub rows: Vec<ComparedRow>,
    /// Rows only this run has (not tested).
    pub added: Vec<String>,
    /// Rows only the base has (not tested).
    pub removed: Vec<String>,
    /// One line: why there is no verdict, what differs, or what the set can detect.
    pub reason: Option<String>,
}

impl Comparison {
    /// The rows right on every trial of the base run and wrong on some now.
    pub fn flipped_worse(&self) -> impl Iterator<Item = &ComparedRow> {
        self.rows.iter().filter(|r| r.flipped_worse())
    }

    /// `regressed: 66% vs 76% on main, p = 0.002; 9 rows flipped right → wrong`, or the
    /// verdict and its reason.
    pub fn headline(&self) -> String {
        let base = self
            .base
            .as_ref()
            .map_or("the base", |b| b.git_ref.as_str());
        match (self.accuracy_before, self.accuracy_after, self.p_value) {
            (Some(before), Some(after), Some(p))
                if matches!(
                    self.verdict,
                    Verdict::Regressed | Verdict::Improved | Verdict::NoChange
                ) =>
            {
                let flipped = self.flipped_worse().count();
                let rows = if flipped == 1 { "row" } else { "rows" };
                format!(
                    "{}: {} vs {} on {base}, p {}; {flipped} {rows} flipped right → wrong",
                    self.verdict.words(),
                    percent(after),
                    percent(before),
                    p_text(p),
                )
            }
            _ => match &self.reason {
                Some(r) => format!("{}: {r}", self.verdict.words()),
                None => self.verdict.words().to_owned(),
            },
        }
    }
}

impl Comparison {
    /// The report's line: `Selection regressed on MODEL: 66% vs 76% on main, p = 0.002; 9 rows
    /// flipped right → wrong` (without ` on MODEL` when the model has no name).
    pub fn sentence(&self, model: &str) -> String {
        let on = if model.is_empty() {
            String::new()
        } else {
            format!(" on {model}")
        };
        let head = self.headline();
        let rest = head
            .strip_prefix(self.verdict.words())
            .unwrap_or(&head)
            .trim_start_matches(':')
            .trim();
        let what = match self.verdict {
            Verdict::NoChange => "unchanged",
            Verdict::NotComparable | Verdict::NoBase => "not compared",
            v => v.words(),
        };
        if rest.is_empty() {
            format!("Selection {what}{on}")
        } else {
            format!("Selection {what}{on}: {rest}")
        }
    }
}

impl Verdict {
    /// In a sentence: `regressed`, `no change`, `not comparable`…
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
            Verdict::NoChange => "no change",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NotComparable => "not comparable",
            Verdict::NoBase => "no base",
        }
    }
}

fn percent(v: f64) -> String {
    format!("{:.0}%", v * 100.0)
}

/// A p-value as people read it, with its relation: `= 0.002`, `< 0.001`.
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else if p < 0.01 {
        format!("= {p:.3}")
    } else {
        format!("= {p:.2}")
    }
}

/// What a run measured, beyond the tool list: two runs compare only when these agree. Hashes
/// are short (16 hex digits); the endpoint has no credentials.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Provider name.
    pub provider: String,
    /// Base URL of the model API (or the command run), without credentials.
    pub endpoint: String,
    /// `temperature`, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// `seed`, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// `max_tokens`, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The tool choice sent, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<String>,
    /// sha256 of the system prompt (16 hex digits), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// sha256 of the tool list sent (16 hex digits): expected to differ.
    pub tools: String,
    /// The trials policy: `5`, or `auto 1-10`.
    pub trials: String,
}

impl Fingerprint {
    /// What differs between `self` (this run) and `base`, apart from the tool list:
    /// `temperature 0 → 0.7`; empty when comparable.
    pub fn differences(&self, base: &Fingerprint) -> Vec<String> {
        fn show<T: std::fmt::Debug>(v: &Option<T>) -> String {
            match v {
                Some(v) => format!("{v:?}").trim_matches('"').to_owned(),
                None => "unset".into(),
            }
        }
        let mut out = Vec::new();
        let mut diff = |name: &str, then: String, now: String| {
            if then != now {
                out.push(format!("{name} {then} → {now}"));
            }
        };
        diff("provider", base.provider.clone(), self.provider.clone());
        diff("endpoint", base.endpoint.clone(), self.endpoint.clone());
        diff(
            "temperature",
            show(&base.temperature),
            show(&self.temperature),
        );
        diff("seed", show(&base.seed), show(&self.seed));
        diff("max_tokens", show(&base.max_tokens), show(&self.max_tokens));
        diff(
            "tool_choice",
            show(&base.tool_choice),
            show(&self.tool_choice),
        );
        diff("system prompt", show(&base.system), show(&self.system));
        diff("trials", base.trials.clone(), self.trials.clone());
        out
    }
}
