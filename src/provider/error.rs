//! Why a provider gave no answer: [`ProviderError`] (fatal for the phase, or transient for one
//! case), each carrying a [`Failure`] (what failed, and the fix when there is one), and
//! [`ShapeError`], why a 2xx body is not the API's answer.

use std::fmt;

/// What failed and, when there is one, what to do about it. Shown as the message, then
/// `hint: …` on its own line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    /// What failed (lowercase, one line).
    pub message: String,
    /// The fix, when there is one.
    pub hint: Option<String>,
}

impl Failure {
    /// A failure with a fix.
    pub(crate) fn with_hint(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure {
            message,
            hint: None,
        }
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Self {
        message.to_owned().into()
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

/// Why a provider gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ProviderError {
    /// No case can be asked: a missing key, a request the API rejects, an unknown model, a
    /// command that does not exist. The eval phase stops.
    #[error("{0}")]
    Fatal(Failure),
    /// This case could not be answered (after the retries); the run carries on.
    #[error("{0}")]
    Transient(Failure),
}

#[cfg(test)]
impl ProviderError {
    /// What failed, without the hint.
    pub(crate) fn message(&self) -> &str {
        &self.failure().message
    }

    /// What to do about it, when there is a fix.
    pub(crate) fn hint(&self) -> Option<&str> {
        self.failure().hint.as_deref()
    }

    /// The message and hint.
    pub(crate) fn failure(&self) -> &Failure {
        match self {
            ProviderError::Fatal(f) | ProviderError::Transient(f) => f,
        }
    }

    /// Whether the eval phase must stop.
    pub(crate) fn is_fatal(&self) -> bool {
        matches!(self, ProviderError::Fatal(_))
    }
}

/// Why a 2xx answer body is not the API's answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ShapeError {
    /// An error object where the answer belongs.
    #[error("an error object: {0}")]
    ErrorObject(String),
    /// An Anthropic answer without `content`.
    #[error("no `content` list")]
    NoContent,
    /// A Bedrock Converse answer without `output.message.content`.
    #[error("no `output.message.content` list")]
    NoOutputMessage,
    /// A Chat Completions answer without a first choice's message.
    #[error("no `choices[0].message`")]
    NoMessage,
    /// A Responses API answer without an `output` list.
    #[error("no `output` list")]
    NoOutput,
    /// An Anthropic `tool_use` block without a name.
    #[error("a `tool_use` block without a name")]
    UnnamedToolUse,
    /// A Chat Completions tool call without a function name.
    #[error("a tool call without a function name")]
    UnnamedCall,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_shows_its_hint_on_its_own_line() {
        let plain = ProviderError::Transient("eval command timed out after 1s".into());
        assert_eq!(plain.to_string(), "eval command timed out after 1s");
        assert_eq!(plain.hint(), None);
        let hinted = ProviderError::Fatal(Failure::with_hint(
            "the openai provider needs an API key: OPENAI_API_KEY is not set",
            "export OPENAI_API_KEY=…",
        ));
        assert_eq!(
            hinted.to_string(),
            "the openai provider needs an API key: OPENAI_API_KEY is not set\nhint: export OPENAI_API_KEY=…"
        );
        assert_eq!(hinted.message(), hinted.failure().message);
        assert_eq!(hinted.hint(), Some("export OPENAI_API_KEY=…"));
    }
}
