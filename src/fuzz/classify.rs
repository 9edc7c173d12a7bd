//! What one fuzz call's outcome means, first matching rule first (the order mcp-toolproof
//! uses): a hang, a crash, a JSON-RPC error (-32602 is the right answer to an invalid input and
//! a wrong one to a valid input), an unhandled exception in an error result, an error returned
//! as success (toolproof's own: `isError` false on a text that reads as an error, for any
//! input), an invalid input accepted, a valid input refused, and a result that breaks the
//! tool's outputSchema.

use std::time::Duration;

use serde_json::Value;

use crate::config::limits;
use crate::mcp::CallFailure;
use crate::mcp::error::McpError;
use crate::mcp::types::{CallOutcome, CallResult};

/// Whether an input satisfies the tool's input schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Mode {
    /// It does.
    Valid,
    /// It does not (one defect planted).
    Invalid,
}

impl Mode {
    /// `valid` or `invalid`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Valid => "valid",
            Mode::Invalid => "invalid",
        }
    }
}

/// A finding's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// No answer within the timeout.
    Hang,
    /// No answer within the timeout plus the duration the call's arguments declare: slower
    /// than the timeout, which is not known to be a hang.
    Slow,
    /// The server died or the connection broke.
    Crash,
    /// JSON-RPC -32602 for a valid input.
    RejectedValid,
    /// Any other JSON-RPC error.
    InternalError,
    /// An error result carrying a traceback or a bare "Error executing tool".
    UnhandledException,
    /// A success result for an invalid input (`invalid_must_fail`).
    AcceptedInvalid,
    /// An error result for a valid input (`valid_must_succeed`).
    UnexpectedError,
    /// A success result that breaks the outputSchema.
    OutputSchema,
    /// A success result (`isError` false) whose only text reads as an error.
    ErrorAsSuccess,
}

impl Kind {
    /// The kind's name in every report.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::Hang => "hang",
            Kind::Slow => "slow",
            Kind::Crash => "crash",
            Kind::RejectedValid => "rejected-valid",
            Kind::InternalError => "internal-error",
            Kind::UnhandledException => "unhandled-exception",
            Kind::AcceptedInvalid => "accepted-invalid",
            Kind::UnexpectedError => "unexpected-error",
            Kind::OutputSchema => "output-schema",
            Kind::ErrorAsSuccess => "error-as-success",
        }
    }
}

/// The options that turn rules on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    /// An error result for a valid input is a finding.
    pub valid_must_succeed: bool,
    /// A success result for an invalid input is a finding.
    pub invalid_must_fail: bool,
}

/// A finding: its kind and what happened.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    /// Kind.
    pub kind: Kind,
    /// One line (or a few) saying what happened.
    pub detail: String,
}

/// Longest excerpt of a tool's text kept in a detail.
const TEXT_CHARS: usize = 300;

/// The finding an outcome shows, if any.
pub(crate) fn classify(
    mode: Mode,
    outcome: &Result<CallOutcome, CallFailure>,
    output_schema: Option<&Value>,
    rules: Rules,
    timeout: Duration,
) -> Option<Verdict> {
    let v = |kind, detail: String| Some(Verdict { kind, detail });
    let result = match outcome {
        Err(f) => {
            return match &f.error {
                McpError::Timeout { .. } => v(
                    Kind::Hang,
                    format!(
                        "no answer within {}ms (timeout_ms)",
                        limits::in_millis(timeout)
                    ),
                ),
                other => v(Kind::Crash, format!("no result from the server: {other}")),
            };
        }
        Ok(o) => &o.result,
    };
    let (content_text, is_error, structured) = match result {
        CallResult::ProtocolError { code, message, .. } => {
            return match (*code, mode) {
                (-32602, Mode::Invalid) => None,
                (-32602, Mode::Valid) => v(
                    Kind::RejectedValid,
                    format!("valid input rejected: {}", excerpt(message)),
                ),
                (code, _) => v(
                    Kind::InternalError,
                    format!("JSON-RPC error {code}: {}", excerpt(message)),
                ),
            };
        }
        CallResult::Result {
            is_error,
            structured,
            ..
        } => (result.text(), *is_error, structured.as_ref()),
    };
    if is_error && looks_unhandled(&content_text) {
        return v(Kind::UnhandledException, excerpt(&content_text));
    }
    // The tool failed but told the client it succeeded: whatever the input, the flag is wrong
    // (for an invalid input this is what `accepted-invalid` would otherwise report).
    if let Some(text) = result.error_as_success() {
        return v(
            Kind::ErrorAsSuccess,
            format!(
                "success result (isError false) whose only text reads as an error: {}",
                excerpt(&text)
            ),
        );
    }
    match (mode, is_error) {
        (Mode::Invalid, false) if rules.invalid_must_fail => v(
            Kind::AcceptedInvalid,
            format!("invalid input accepted: {}", excerpt(&content_text)),
        ),
        (Mode::Invalid, _) => None,
        (Mode::Valid, true) if rules.valid_must_succeed => v(
            Kind::UnexpectedError,
            format!(
                "valid input got an error result: {}",
                excerpt(&content_text)
            ),
        ),
        (Mode::Valid, true) => None,
        (Mode::Valid, false) => output_problem(output_schema, structured).map(|detail| Verdict {
            kind: Kind::OutputSchema,
            detail,
        }),
    }
}

/// A Python traceback, or the bare message an SDK writes for an exception it did not expect.
fn looks_unhandled(text: &str) -> bool {
    if text.contains("Traceback (most recent call last)") {
        return true;
    }
    let t = text.trim();
    t.strip_prefix("Error executing tool ")
        .is_some_and(|rest| !rest.is_empty() && !rest.chars().any(char::is_whitespace))
}

/// The first way a success result breaks the declared outputSchema.
fn output_problem(schema: Option<&Value>, structured: Option<&Value>) -> Option<String> {
    let schema = schema.filter(|s| s.is_object())?;
    let Some(structured) = structured else {
        return Some(
            "output schema: the tool declares an outputSchema but returned no structuredContent"
                .into(),
        );
    };
    let validator = jsonschema::validator_for(schema).ok()?;
    validator.iter_errors(structured).next().map(|e| {
        let at = e.instance_path().as_str().to_owned();
        let at = if at.is_empty() {
            String::new()
        } else {
            format!("{at}: ")
        };
        format!("output schema: {at}{}", excerpt(&e.to_string()))
    })
}

/// The first [`TEXT_CHARS`] characters.
pub(crate) fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(TEXT_CHARS).collect();
    if text.chars().count() > TEXT_CHARS {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    const RULES: Rules = Rules {
        valid_must_succeed: false,
        invalid_must_fail: true,
    };

    fn result(
        text: &str,
        is_error: bool,
        structured: Option<Value>,
    ) -> Result<CallOutcome, CallFailure> {
        Ok(CallOutcome {
            latency: Duration::ZERO,
            result: CallResult::Result {
                content: vec![json!({"type": "text", "text": text})],
                structured,
                is_error,
            },
            stderr: String::new(),
        })
    }

    fn rpc(code: i64) -> Result<CallOutcome, CallFailure> {
        Ok(CallOutcome {
            latency: Duration::ZERO,
            result: CallResult::ProtocolError {
                code,
                message: "bad".into(),
                data: None,
            },
            stderr: String::new(),
        })
    }

    fn failure(error: McpError) -> Result<CallOutcome, CallFailure> {
        Err(CallFailure {
            error,
            stderr: String::new(),
            latency: Duration::ZERO,
        })
    }

    fn kind(mode: Mode, o: &Result<CallOutcome, CallFailure>, rules: Rules) -> Option<Kind> {
        let schema =
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        classify(mode, o, Some(&schema), rules, Duration::from_millis(100)).map(|v| v.kind)
    }

    #[test]
    fn an_error_returned_as_success_is_its_own_kind_for_any_input() {
        use Mode::{Invalid, Valid};
        // mcp-server-sqlite's read_query on a query that fails, and on one it refuses.
        let database = result("Database error: no such table: nope", false, None);
        let refused = result(
            "Error: Only SELECT queries are allowed for read_query",
            false,
            None,
        );
        for (mode, outcome) in [(Valid, &database), (Invalid, &refused), (Valid, &refused)] {
            let schema = json!({"type": "object"});
            let got = classify(
                mode,
                outcome,
                Some(&schema),
                RULES,
                Duration::from_millis(100),
            )
            .expect("a finding");
            assert_eq!(got.kind, Kind::ErrorAsSuccess);
            assert_eq!(got.kind.as_str(), "error-as-success");
            assert!(
                got.detail.starts_with(
                    "success result (isError false) whose only text reads as an error: "
                )
            );
        }
        // The same text flagged as an error, or a plain answer, is not.
        let flagged = result("Database error: no such table: nope", true, None);
        assert_eq!(kind(Valid, &flagged, RULES), None);
        let rows = result("[{'1': 1}]", false, None);
        assert_eq!(
            classify(Valid, &rows, None, RULES, Duration::from_millis(100)),
            None
        );
    }

    #[test]
    fn each_rule_gives_its_kind() {
        use Mode::{Invalid, Valid};
        let timeout = failure(McpError::Timeout {
            method: "tools/call".into(),
            after: Duration::from_millis(100),
        });
        let exited = failure(McpError::Exited {
            how: "exited with code 3".into(),
        });
        assert_eq!(kind(Valid, &timeout, RULES), Some(Kind::Hang));
        assert_eq!(kind(Invalid, &exited, RULES), Some(Kind::Crash));
        assert_eq!(kind(Invalid, &rpc(-32602), RULES), None);
        assert_eq!(kind(Valid, &rpc(-32602), RULES), Some(Kind::RejectedValid));
        assert_eq!(
            kind(Invalid, &rpc(-32603), RULES),
            Some(Kind::InternalError)
        );
        let trace = result("Traceback (most recent call last):\n  boom", true, None);
        assert_eq!(kind(Invalid, &trace, RULES), Some(Kind::UnhandledException));
        let bare = result("Error executing tool divide", true, None);
        assert_eq!(kind(Valid, &bare, RULES), Some(Kind::UnhandledException));
        let handled = result("Error executing tool divide: b must not be 0", true, None);
        assert_eq!(kind(Valid, &handled, RULES), None);
        let ok = result("fine", false, Some(json!({"n": 1})));
        assert_eq!(kind(Invalid, &ok, RULES), Some(Kind::AcceptedInvalid));
        let lenient = Rules {
            invalid_must_fail: false,
            valid_must_succeed: true,
        };
        assert_eq!(kind(Invalid, &ok, lenient), None);
        assert_eq!(kind(Valid, &handled, lenient), Some(Kind::UnexpectedError));
        assert_eq!(kind(Valid, &ok, RULES), None);
        let broken = result("x", false, Some(json!({"n": "one"})));
        assert_eq!(kind(Valid, &broken, RULES), Some(Kind::OutputSchema));
        let missing = result("x", false, None);
        assert_eq!(kind(Valid, &missing, RULES), Some(Kind::OutputSchema));
    }
}
