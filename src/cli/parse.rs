//! The values of flags and `TOOLPROOF_*` variables that clap does not read by itself: shares,
//! durations, protocol revisions, transports, `--args` objects, and `--x`/`--no-x` pairs.

use crate::config::{ProtocolPin, TransportPref};

/// A share in 0..=1 (`--min-accuracy`, `TOOLPROOF_MIN_ACCURACY`).
pub(crate) fn parse_fraction(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("must be between 0 and 1 (e.g. 0.9), got {v}"))
    }
}

/// A wait in seconds, more than 0 and at most 30 days (`--batch-poll-s`).
pub(crate) fn parse_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if v > 0.0 && v <= crate::config::limits::MAX_DURATION_S {
        Ok(v)
    } else {
        Err(format!(
            "must be more than 0 seconds and at most {}, got {v}",
            crate::config::limits::MAX_DURATION_WORDS
        ))
    }
}

/// A `--name` / `--no-name` pair as an override: `Some(true)`, `Some(false)`, or `None` when
/// neither was given (the later of the two wins when both are).
pub(crate) fn switch(on: bool, off: bool) -> Option<bool> {
    match (on, off) {
        (true, _) => Some(true),
        (false, true) => Some(false),
        (false, false) => None,
    }
}

/// A protocol revision or `auto` (`--protocol`, `TOOLPROOF_PROTOCOL`).
pub(crate) fn parse_pin(s: &str) -> Result<ProtocolPin, String> {
    Ok(match s {
        "auto" => ProtocolPin::Auto,
        "2025-03-26" => ProtocolPin::V20250326,
        "2025-06-18" => ProtocolPin::V20250618,
        "2025-11-25" => ProtocolPin::V20251125,
        "2026-07-28" => ProtocolPin::V20260728,
        other => {
            return Err(format!(
                "unknown revision `{other}`: use auto, 2025-03-26, 2025-06-18, 2025-11-25 or 2026-07-28"
            ));
        }
    })
}

/// An HTTP transport (`--transport`, `TOOLPROOF_TRANSPORT`).
pub(crate) fn parse_transport(s: &str) -> Result<TransportPref, String> {
    Ok(match s {
        "auto" => TransportPref::Auto,
        "streamable-http" => TransportPref::StreamableHttp,
        "sse" => TransportPref::Sse,
        other => {
            return Err(format!(
                "unknown transport `{other}`: use auto, streamable-http or sse"
            ));
        }
    })
}

/// A number above 0 (milliseconds).
pub(crate) fn parse_positive(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(format!("must be greater than 0, got {v}"))
    }
}

/// A number of 0 or more.
pub(crate) fn parse_non_negative(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if v >= 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(format!("must be 0 or more, got {v}"))
    }
}

/// `--args`: a JSON object.
pub(crate) fn parse_args_object(
    s: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    match serde_json::from_str(s) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(_) => Err("--args must be a JSON object, e.g. '{\"text\": \"hi\"}'".into()),
        Err(e) => Err(format!("--args is not valid JSON: {e}")),
    }
}
