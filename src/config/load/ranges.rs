//! Values the types accept but the settings cannot use: durations and counts that must be
//! positive, fractions, known check ids, valid JSONPaths and regular expressions.

use super::{Ctx, path_of};
use crate::config::limits::{MAX_DURATION_MS, MAX_DURATION_S, MAX_DURATION_WORDS};
use crate::config::node::Step;
use crate::config::suggest;
use crate::config::vocab::{CHECK_IDS, CLIENT_IDS, PROTOCOL_CHECK_IDS, jsonpath_error};
use crate::config::{
    BenchConfig, BenchThresholds, ChecksConfig, Config, ConfigError, Expect, FuzzConfig,
    ProtocolConfig, TestCase,
};
use crate::pycompat::re::{PyReError, PyRegex};

/// `steps` plus one more key.
pub(super) fn under<'a>(steps: &[Step<'a>], key: &'a str) -> Vec<Step<'a>> {
    let mut out = steps.to_vec();
    out.push(Step::Key(key));
    out
}

/// The unit a duration key is written in.
#[derive(Debug, Clone, Copy)]
pub(super) enum Unit {
    /// `…_s` keys.
    Seconds,
    /// `…_ms` keys.
    Millis,
}

impl Unit {
    fn ceiling(self) -> f64 {
        match self {
            Unit::Seconds => MAX_DURATION_S,
            Unit::Millis => MAX_DURATION_MS,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Unit::Seconds => "seconds",
            Unit::Millis => "milliseconds",
        }
    }
}

/// A duration that must be above 0 and at most [`MAX_DURATION_S`].
pub(super) fn duration(
    ctx: &Ctx<'_>,
    value: f64,
    steps: &[Step<'_>],
    unit: Unit,
) -> Result<(), ConfigError> {
    within(ctx, value > 0.0, value, steps, unit, "greater than 0")
}

/// A wait that may be 0 and must be at most [`MAX_DURATION_S`].
pub(super) fn delay(
    ctx: &Ctx<'_>,
    value: f64,
    steps: &[Step<'_>],
    unit: Unit,
) -> Result<(), ConfigError> {
    within(ctx, value >= 0.0, value, steps, unit, "0 or more")
}

/// `above_floor` and no more than the ceiling (NaN fails both).
fn within(
    ctx: &Ctx<'_>,
    above_floor: bool,
    value: f64,
    steps: &[Step<'_>],
    unit: Unit,
    floor: &str,
) -> Result<(), ConfigError> {
    if above_floor && value <= unit.ceiling() {
        return Ok(());
    }
    let must = format!(
        "{floor} and at most {} {} ({MAX_DURATION_WORDS})",
        unit.ceiling(),
        unit.word()
    );
    ctx.report(ctx.bad_value(steps, &must));
    Ok(())
}

pub(super) fn at_least_one(
    ctx: &Ctx<'_>,
    value: u32,
    steps: &[Step<'_>],
) -> Result<(), ConfigError> {
    if value < 1 {
        ctx.report(ctx.bad_value(steps, "at least 1"));
    }
    Ok(())
}

pub(super) fn fraction(ctx: &Ctx<'_>, value: f64, steps: &[Step<'_>]) -> Result<(), ConfigError> {
    if !(0.0..=1.0).contains(&value) {
        ctx.report(ctx.bad_value(steps, "between 0 and 1"));
    }
    Ok(())
}

pub(super) fn not_negative(
    ctx: &Ctx<'_>,
    value: f64,
    steps: &[Step<'_>],
) -> Result<(), ConfigError> {
    // NaN fails too.
    if value.is_nan() || value < 0.0 {
        ctx.report(ctx.bad_value(steps, "0 or more"));
    }
    Ok(())
}

/// Every section but `server` (checked before `${VAR}` expansion) and the files of `evals`,
/// in document order.
pub(super) fn check_ranges(ctx: &Ctx<'_>, config: &Config) -> Result<(), ConfigError> {
    duration(
        ctx,
        config.timeout_ms,
        &[Step::Key("timeout_ms")],
        Unit::Millis,
    )?;
    check_checks(ctx, &config.checks)?;
    delay(
        ctx,
        config.retry_delay_ms,
        &[Step::Key("retry_delay_ms")],
        Unit::Millis,
    )?;
    for (i, test) in config.tests.iter().enumerate() {
        check_test(ctx, test, &[Step::Key("tests"), Step::Index(i)])?;
    }
    if let Some(fuzz) = &config.fuzz {
        check_fuzz(ctx, fuzz)?;
    }
    if let Some(bench) = &config.bench {
        check_bench(ctx, bench)?;
    }
    if let Some(evals) = &config.evals {
        super::evals::check_evals(ctx, evals)?;
    }
    if let Some(protocol) = &config.protocol {
        check_protocol(ctx, protocol)?;
    }
    Ok(())
}

/// `protocol:`: a probe timeout, and only known ids in `disable`.
fn check_protocol(ctx: &Ctx<'_>, cfg: &ProtocolConfig) -> Result<(), ConfigError> {
    let p = Step::Key("protocol");
    duration(
        ctx,
        cfg.timeout_ms,
        &[p, Step::Key("timeout_ms")],
        Unit::Millis,
    )?;
    let ids = PROTOCOL_CHECK_IDS;
    for (i, id) in cfg.disable.iter().enumerate() {
        if ids.contains(&id.as_str()) {
            continue;
        }
        let steps = [p, Step::Key("disable"), Step::Index(i)];
        let message = match suggest::nearest(id, ids) {
            Some(n) => {
                format!("unknown protocol check id `{id}` in protocol.disable, did you mean `{n}`?")
            }
            None => format!("unknown protocol check id `{id}` in protocol.disable"),
        };
        ctx.report(ctx.error(
            ctx.pos(&steps),
            message,
            Some(format!("protocol check ids are {}", suggest::list(ids))),
        ));
    }
    Ok(())
}

/// `checks:`: a fraction for the threshold, only known ids in `disable` and only known
/// clients in `clients`.
fn check_checks(ctx: &Ctx<'_>, cfg: &ChecksConfig) -> Result<(), ConfigError> {
    let checks = Step::Key("checks");
    fraction(
        ctx,
        cfg.similarity_threshold,
        &[checks, Step::Key("similarity_threshold")],
    )?;
    known_words(ctx, &cfg.disable, "disable", "check id", CHECK_IDS);
    known_words(ctx, &cfg.clients, "clients", "client", CLIENT_IDS);
    Ok(())
}

/// One error per entry of `checks.<key>` that is not one of `known`, with the nearest one.
fn known_words(ctx: &Ctx<'_>, words: &[String], key: &str, what: &str, known: &[&str]) {
    let unknown = words
        .iter()
        .enumerate()
        .filter(|(_, w)| !known.contains(&w.as_str()));
    for (i, word) in unknown {
        let steps = [Step::Key("checks"), Step::Key(key), Step::Index(i)];
        // A prefix of a longer name (`openai` for `openai-strict`) is as likely a slip.
        let near = suggest::nearest(word, known).or_else(|| {
            known
                .iter()
                .copied()
                .find(|k| k.starts_with(&format!("{word}-")))
        });
        let message = match near {
            Some(n) => format!("unknown {what} `{word}` in checks.{key}, did you mean `{n}`?"),
            None => format!("unknown {what} `{word}` in checks.{key}"),
        };
        ctx.report(ctx.error(
            ctx.pos(&steps),
            message,
            Some(format!("{what}s are {}", suggest::list(known))),
        ));
    }
}

/// One entry of `tests:`, at `here`.
fn check_test(ctx: &Ctx<'_>, test: &TestCase, here: &[Step<'_>]) -> Result<(), ConfigError> {
    if let Some(t) = test.timeout_ms {
        duration(ctx, t, &under(here, "timeout_ms"), Unit::Millis)?;
    }
    if let Some(d) = test.retry_delay_ms {
        delay(ctx, d, &under(here, "retry_delay_ms"), Unit::Millis)?;
    }
    check_expect(ctx, &test.expect, &under(here, "expect"))
}

/// A test's `expect:`, at `expect`: paths and patterns that parse, limits that can pass.
fn check_expect(ctx: &Ctx<'_>, expect: &Expect, at: &[Step<'_>]) -> Result<(), ConfigError> {
    for path in expect.jsonpath.keys() {
        if let Some(e) = jsonpath_error(path) {
            let steps = under(&under(at, "jsonpath"), path);
            ctx.report(ctx.error(
                ctx.pos(&steps),
                format!("`{path}` is not a valid JSONPath: {}", e.problem),
                Some(e.hint),
            ));
        }
    }
    if let Some(limit) = expect.max_latency_ms {
        duration(ctx, limit, &under(at, "max_latency_ms"), Unit::Millis)?;
    }
    if let Some(pattern) = &expect.regex
        && let Err(err) = PyRegex::new(pattern)
    {
        let steps = under(at, "regex");
        let hint = match err {
            PyReError::Invalid(_) => {
                "patterns use Python's `re` syntax, as in mcp-toolproof: escape a literal `(` or \
                 `[` with `\\`, and write named groups as `(?P<name>…)`"
            }
            PyReError::Unsupported(_) => "write the character itself or as `\\uXXXX`",
        };
        ctx.report(ctx.error(
            ctx.pos(&steps),
            format!("`{}` is {err}", path_of(&steps)),
            Some(hint.to_owned()),
        ));
    }
    for (path, check) in &expect.jsonpath {
        if let (Some(min), Some(max)) = (check.min, check.max)
            && min > max
        {
            let steps = under(&under(at, "jsonpath"), path);
            ctx.report(ctx.error(
                ctx.pos(&steps),
                format!(
                    "`{}` has min {min} above max {max}, so nothing can pass",
                    path_of(&steps)
                ),
                None,
            ));
        }
    }
    Ok(())
}

/// `fuzz:`.
fn check_fuzz(ctx: &Ctx<'_>, fuzz: &FuzzConfig) -> Result<(), ConfigError> {
    let f = Step::Key("fuzz");
    at_least_one(ctx, fuzz.max_examples, &[f, Step::Key("max_examples")])?;
    duration(
        ctx,
        fuzz.timeout_ms,
        &[f, Step::Key("timeout_ms")],
        Unit::Millis,
    )?;
    duration(
        ctx,
        fuzz.max_time_s,
        &[f, Step::Key("max_time_s")],
        Unit::Seconds,
    )
}

/// `bench:`, its thresholds and those of each target.
fn check_bench(ctx: &Ctx<'_>, bench: &BenchConfig) -> Result<(), ConfigError> {
    let b = Step::Key("bench");
    at_least_one(ctx, bench.calls, &[b, Step::Key("calls")])?;
    at_least_one(ctx, bench.concurrency, &[b, Step::Key("concurrency")])?;
    at_least_one(ctx, bench.connections, &[b, Step::Key("connections")])?;
    if let Some(pct) = bench.max_regression {
        not_negative(ctx, pct, &[b, Step::Key("max_regression")])?;
    }
    duration(
        ctx,
        bench.timeout_ms,
        &[b, Step::Key("timeout_ms")],
        Unit::Millis,
    )?;
    check_thresholds(ctx, &bench.thresholds, &[b, Step::Key("thresholds")])?;
    for (i, target) in bench.targets.iter().enumerate() {
        if let Some(t) = &target.thresholds {
            let at = [
                b,
                Step::Key("targets"),
                Step::Index(i),
                Step::Key("thresholds"),
            ];
            check_thresholds(ctx, t, &at)?;
        }
    }
    Ok(())
}

fn check_thresholds(
    ctx: &Ctx<'_>,
    t: &BenchThresholds,
    at: &[Step<'_>],
) -> Result<(), ConfigError> {
    let with = |key: &'static str| under(at, key);
    for (key, value) in [
        ("p50_ms", t.p50_ms),
        ("p95_ms", t.p95_ms),
        ("p99_ms", t.p99_ms),
    ] {
        if let Some(v) = value {
            duration(ctx, v, &with(key), Unit::Millis)?;
        }
    }
    if let Some(v) = t.max_error_rate {
        fraction(ctx, v, &with("max_error_rate"))?;
    }
    if let Some(v) = t.min_throughput {
        not_negative(ctx, v, &with("min_throughput"))?;
    }
    Ok(())
}
