//! Batch settings of the evals: `--batch` > `TOOLPROOF_BATCH` > `evals.batch` > `auto`, the
//! same for `batch_min`, `batch_poll_s` and `batch_deadline_s`, and `--cancel-batch` / `TOOLPROOF_CANCEL_BATCH`.
//! `always` with a provider that has no batch API toolproof can use (the command provider, a
//! local program; bedrock, whose batch inference needs S3 and an IAM role; the presets without
//! one), or with the answer cache off, is a usage error: a batch needs the cache folder to
//! survive the job. Every provider whose `Kind::batches` says so is accepted (anthropic,
//! openai, google, groq).

use std::time::Duration;

use super::resolve::{env_switch, env_value, pick};
use super::{Env, Resolved};
use crate::cli::{EvalFlags, parse_seconds};
use crate::config::{BatchMode, ConfigError, EvalConfig};

/// When and how the evals go through a provider's batch API.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BatchSettings {
    mode: Resolved<BatchMode>,
    min: Resolved<u32>,
    poll: Duration,
    deadline: Duration,
    cancel: bool,
}

impl BatchSettings {
    /// Whether every uncached request must go through a batch (`always`): no live fallback.
    pub(crate) fn always(&self) -> bool {
        self.mode.value == BatchMode::Always
    }
    /// The wait between two looks at a batch in progress.
    pub(crate) fn poll(&self) -> Duration {
        self.poll
    }
    /// How long a run waits for its batches to end.
    pub(crate) fn deadline(&self) -> Duration {
        self.deadline
    }
    /// Whether an interrupted run cancels its batch instead of leaving it for the next run.
    pub(crate) fn cancel_on_interrupt(&self) -> bool {
        self.cancel
    }
    /// Whether `pending` uncached requests of one model go through a batch, with a provider
    /// that `has_batch_api` (see the provider's `Kind::batches`).
    pub(crate) fn batches(&self, has_batch_api: bool, pending: usize) -> bool {
        has_batch_api
            && match self.mode.value {
                BatchMode::Never => false,
                BatchMode::Always => pending > 0,
                BatchMode::Auto => pending > self.min.value as usize,
            }
    }
}

/// Resolves the batch settings; `provider` is the one the evals will use, when known.
pub(super) fn resolve(
    flags: Option<&EvalFlags>,
    env: &Env,
    e: &EvalConfig,
    provider: Option<&'static dyn crate::provider::Kind>,
) -> Result<BatchSettings, ConfigError> {
    // Only the commands that run evals read the environment for them.
    let env = flags.map(|_| env);
    let mode = pick(
        flags.and_then(|f| f.batch).map(|m| (m, "--batch")),
        env.map(|v| env_value(v, "TOOLPROOF_BATCH", BatchMode::parse))
            .transpose()?
            .flatten(),
        Some((e.batch, "evals.batch")),
        e.batch,
    );
    let min = pick(
        flags.and_then(|f| f.batch_min).map(|n| (n, "--batch-min")),
        env.map(|v| env_value(v, "TOOLPROOF_BATCH_MIN", parse_count))
            .transpose()?
            .flatten(),
        Some((e.batch_min, "evals.batch_min")),
        e.batch_min,
    );
    let poll = pick(
        flags
            .and_then(|f| f.batch_poll_s)
            .map(|s| (s, "--batch-poll-s")),
        env.map(|v| env_value(v, "TOOLPROOF_BATCH_POLL_S", parse_seconds))
            .transpose()?
            .flatten(),
        Some((e.batch_poll_s, "evals.batch_poll_s")),
        e.batch_poll_s,
    );
    let deadline = pick(
        flags
            .and_then(|f| f.batch_deadline_s)
            .map(|s| (s, "--batch-deadline-s")),
        env.map(|v| env_value(v, "TOOLPROOF_BATCH_DEADLINE_S", parse_seconds))
            .transpose()?
            .flatten(),
        Some((e.batch_deadline_s, "evals.batch_deadline_s")),
        e.batch_deadline_s,
    );
    let cancel = match flags {
        Some(f) if f.cancel_batch => true,
        Some(_) => env
            .map(|env| env_switch(env, "TOOLPROOF_CANCEL_BATCH"))
            .transpose()?
            .flatten()
            .is_some_and(|(on, _, _)| on),
        None => false,
    };
    if mode.value == BatchMode::Always && flags.is_some() {
        refuse_always(&mode.origin.to_string(), provider, e)?;
    }
    Ok(BatchSettings {
        mode,
        min,
        poll: crate::config::limits::seconds(poll.value),
        deadline: crate::config::limits::seconds(deadline.value),
        cancel,
    })
}

/// A whole number of requests (`TOOLPROOF_BATCH_MIN`).
fn parse_count(s: &str) -> Result<u32, String> {
    s.parse::<u32>()
        .map_err(|_| format!("`{s}` is not a whole number of requests"))
}

/// `batch: always` (from `origin`) cannot be honoured without a batch API or the answer cache.
fn refuse_always(
    origin: &str,
    provider: Option<&'static dyn crate::provider::Kind>,
    e: &EvalConfig,
) -> Result<(), ConfigError> {
    let no_batches = provider.filter(|k| !k.batches());
    let why = if let Some(kind) = no_batches {
        Some((
            match kind.no_batch_why() {
                Some(why) => format!("the {} provider has no batch mode: {why}", kind.name()),
                None => format!("the {} provider has no batch API", kind.name()),
            },
            format!(
                "use `--batch auto` or `never` with {}, or a provider that has one: {}",
                kind.name(),
                crate::provider::KINDS
                    .iter()
                    .filter(|k| k.batches())
                    .map(|k| k.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))
    } else if !e.cache {
        Some((
                "a batch needs the answer cache (`evals.cache: false` turns it off)".to_owned(),
                "set `evals.cache: true`: batch results land in the cache, and a re-run picks them up there".to_owned(),
            ))
    } else {
        None
    };
    if let Some((why, hint)) = why {
        return Err(ConfigError::new(format!("{} is `always`, but {why}", origin)).hint(hint));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(name: &str) -> Option<String> {
        let kind = crate::provider::find(name);
        assert!(kind.is_some(), "{name}");
        refuse_always("--batch", kind, &EvalConfig::default())
            .err()
            .map(|e| e.to_string())
    }

    #[test]
    fn always_is_refused_only_for_providers_without_a_batch_api_toolproof_can_use() {
        for name in ["anthropic", "openai", "google", "groq"] {
            assert_eq!(refused(name), None, "{name}");
        }
        let bedrock = refused("bedrock").unwrap_or_default();
        assert!(
            bedrock.contains("the bedrock provider has no batch mode: Bedrock batch inference")
                && bedrock.contains("S3 bucket"),
            "{bedrock}"
        );
        assert!(
            bedrock.contains("a provider that has one: anthropic, openai, google, groq"),
            "{bedrock}"
        );
        let command = refused("command").unwrap_or_default();
        assert!(
            command.contains("the command provider has no batch API"),
            "{command}"
        );
        let ollama = refused("ollama").unwrap_or_default();
        assert!(
            ollama.contains("the ollama provider has no batch API"),
            "{ollama}"
        );
    }
}
