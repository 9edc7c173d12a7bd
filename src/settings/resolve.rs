//! [`Settings::resolve`]: the one place where a command-line flag beats its environment
//! variable, which beats `toolproof.yaml`, which beats the default.

use super::{
    CheckSettings, CommandKind, Env, EvalSettings, EvalSetupError, EvalTarget, Origin, Resolved,
    Revision, Settings, Skips,
};
use crate::cli::{Cli, parse_fraction, parse_pin, parse_transport, switch};
use crate::config::{
    self, ConfigError, EvalConfig, LoadedConfig, ProtocolPin, ToolChoice, TransportPref,
};
use std::path::PathBuf;

pub(super) use super::flags::{Flags, command_of};

/// flag > environment > YAML > default.
pub(crate) fn pick<T>(
    flag: Option<(T, &'static str)>,
    env: Option<(T, &'static str, String)>,
    yaml: Option<(T, &'static str)>,
    default: T,
) -> Resolved<T> {
    if let Some((value, name)) = flag {
        Resolved {
            value,
            origin: Origin::Flag(name),
        }
    } else if let Some((value, name, raw)) = env {
        Resolved {
            value,
            origin: Origin::Env(name, raw),
        }
    } else if let Some((value, key)) = yaml {
        Resolved {
            value,
            origin: Origin::Yaml(key),
        }
    } else {
        Resolved {
            value: default,
            origin: Origin::Default,
        }
    }
}

/// A typed environment variable: `None` when unset or blank, an error naming it when its value
/// does not parse.
pub(crate) fn env_value<T>(
    env: &Env,
    name: &'static str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<(T, &'static str, String)>, ConfigError> {
    let Some(raw) = env.get(name) else {
        return Ok(None);
    };
    match parse(raw.trim()) {
        Ok(v) => Ok(Some((v, name, raw.to_owned()))),
        Err(why) => Err(ConfigError::new(format!(
            "environment variable {name}={raw:?} is not valid: {why}"
        ))
        .hint(format!("fix or unset {name}"))),
    }
}

/// Whether `ms` is a timeout toolproof can wait: above 0 and at most
/// [`config::limits::MAX_DURATION_MS`] (NaN is not).
pub(super) fn timeout_in_range(ms: f64) -> bool {
    ms > 0.0 && ms <= config::limits::MAX_DURATION_MS
}

/// A timeout in milliseconds from `names` (a flag, or a flag and the key it overrides),
/// checked with [`timeout_in_range`]; the error says the range.
pub(super) fn checked_timeout_ms(ms: f64, names: &str) -> Result<f64, ConfigError> {
    if timeout_in_range(ms) {
        return Ok(ms);
    }
    Err(ConfigError::new(format!(
        "{names} must be above 0 and at most {} milliseconds ({}), got {}",
        config::limits::MAX_DURATION_MS,
        config::limits::MAX_DURATION_WORDS,
        config::limits::number(ms)
    )))
}

/// A boolean environment switch.
pub(super) fn env_switch(
    env: &Env,
    name: &'static str,
) -> Result<Option<(bool, &'static str, String)>, ConfigError> {
    Ok(env
        .switch(name)?
        .map(|v| (v, name, env.get(name).unwrap_or_default().to_owned())))
}

/// A presence flag (`--strict`) as an override: only when given.
fn flag_on(on: bool, name: &'static str) -> Option<(bool, &'static str)> {
    on.then_some((true, name))
}

impl Settings {
    /// Turns the parsed command line, the environment and the loaded config into the settings
    /// of this invocation. Usage errors (a bad environment value, a filter that selects
    /// nothing, a missing `evals:` section for `eval`…) are exit code 2.
    pub(crate) fn resolve(
        cli: &Cli,
        env: &Env,
        loaded: LoadedConfig,
    ) -> Result<Settings, ConfigError> {
        let (command, flags) = command_of(cli);
        let cfg = &loaded.config;
        let checks = resolve_checks(&flags, env, cfg)?;
        let tests = super::suite::resolve(flags.run, env, cfg)?;
        let evals = match &cfg.evals {
            Some(e) => Some(resolve_evals(&flags, env, e)?),
            None => None,
        };
        check_command_needs(command, evals.as_ref(), cfg.evals.as_ref())?;
        let skips = resolve_skips(&flags, env, cfg)?;
        let bench = super::bench::resolve_bench(
            cfg.bench.as_ref(),
            &cfg.tests,
            flags.bench,
            flags.baseline,
            env,
        )?;
        let fuzz = super::fuzz::resolve(command, flags.fuzz, env, cfg.fuzz.as_ref())?;
        let protocol_settings =
            super::protocol::resolve(command, flags.protocol, cfg.protocol.as_ref())?;
        let mut outputs = super::outputs::resolve_outputs(cli, command, &flags, env)?;
        outputs.places = super::workspace::places(&loaded, env, env.cwd());
        let lint = super::set_lint::resolve(
            command,
            flags.lint,
            outputs.history().map(PathBuf::as_path),
            env,
            cfg.evals.as_ref(),
        )?;
        let protocol = pick(
            flags
                .server
                .and_then(|s| s.protocol)
                .map(|p| (p, "--protocol")),
            env_value(env, "TOOLPROOF_PROTOCOL", parse_pin)?,
            Some((cfg.server.protocol, "server.protocol")),
            ProtocolPin::Auto,
        );
        let transport = pick(
            flags
                .server
                .and_then(|s| s.transport)
                .map(|t| (t, "--transport")),
            env_value(env, "TOOLPROOF_TRANSPORT", parse_transport)?,
            Some((cfg.server.transport, "server.transport")),
            TransportPref::Auto,
        );
        let shard = super::shard::resolve(flags.shard, env)?;
        let surface = super::surface::resolve(flags.run.is_some_and(|r| r.locked), env, &loaded)?;
        if let Some(s) = shard {
            let history_flag = flags.eval.is_some_and(|f| f.history.is_some());
            super::shard::refuse_whole_run_outputs(s, &outputs, history_flag)?;
        }
        let (mut bench, mut fuzz, mut loaded) = (bench, fuzz, loaded);
        super::overrides::resolve(&flags, env, &mut loaded)?;
        let whole_evals = shard.and_then(|s| {
            super::shard::split(s, bench.as_mut(), fuzz.as_mut(), &mut loaded.config)
        });
        loaded.config.server.protocol = protocol.value;
        loaded.config.server.transport = transport.value;
        Ok(Settings {
            command,
            checks,
            tests,
            evals,
            bench,
            fuzz,
            protocol: protocol_settings,
            lint,
            skips,
            outputs,
            revision: Revision::from_env(env),
            env: env.clone(),
            secrets: super::secrets::resolve(env, &loaded.secrets),
            shard,
            whole_evals,
            surface,
            loaded,
        })
    }
}

fn resolve_checks(
    flags: &Flags<'_>,
    env: &Env,
    cfg: &config::Config,
) -> Result<CheckSettings, ConfigError> {
    let run = flags.run;
    let no_checks = env_switch(env, "TOOLPROOF_NO_CHECKS")?.map(|(v, n, raw)| (!v, n, raw));
    let enabled = pick(
        run.and_then(|r| switch(r.checks, r.no_checks))
            .map(|on| (on, if on { "--checks" } else { "--no-checks" })),
        no_checks,
        (!cfg.checks.enabled).then_some((false, "checks.enabled: false")),
        true,
    );
    let strict = pick(
        run.and_then(|r| switch(r.strict, r.no_strict))
            .map(|on| (on, if on { "--strict" } else { "--no-strict" })),
        env_switch(env, "TOOLPROOF_STRICT")?,
        cfg.checks.strict.then_some((true, "checks.strict: true")),
        false,
    );
    Ok(CheckSettings { enabled, strict })
}

/// `--compare-to` and the `evals.compare` settings, on the commands that run evals.
fn resolve_compare(
    eval: Option<&crate::cli::EvalFlags>,
    env: &Env,
    e: &EvalConfig,
) -> Result<super::CompareSettings, ConfigError> {
    use crate::config::ComparePolicy;
    let c = &e.compare;
    let Some(f) = eval else {
        return Ok(super::CompareSettings {
            to: None,
            alpha: c.alpha,
            min_effect: c.min_effect,
            on_regression: c.on_regression,
            on_inconclusive: c.on_inconclusive,
        });
    };
    let text = |s: &str| -> Result<String, String> { Ok(s.to_owned()) };
    let to = match &f.compare_to {
        Some(to) => Some(to.clone()),
        None => env_value(env, "TOOLPROOF_COMPARE_TO", text)?.map(|(v, _, _)| v),
    };
    let alpha = pick(
        f.compare_alpha.map(|v| (v, "--compare-alpha")),
        env_value(env, "TOOLPROOF_COMPARE_ALPHA", parse_fraction)?,
        None,
        c.alpha,
    );
    let min_effect = pick(
        f.compare_min_effect.map(|v| (v, "--compare-min-effect")),
        env_value(env, "TOOLPROOF_COMPARE_MIN_EFFECT", parse_fraction)?,
        None,
        c.min_effect,
    );
    let on_regression = pick(
        f.on_regression.map(|v| (v, "--on-regression")),
        env_value(env, "TOOLPROOF_ON_REGRESSION", ComparePolicy::parse)?,
        None,
        c.on_regression,
    );
    let on_inconclusive = pick(
        f.on_inconclusive.map(|v| (v, "--on-inconclusive")),
        env_value(env, "TOOLPROOF_ON_INCONCLUSIVE", ComparePolicy::parse)?,
        None,
        c.on_inconclusive,
    );
    Ok(super::CompareSettings {
        to,
        alpha: alpha.value,
        min_effect: min_effect.value,
        on_regression: on_regression.value,
        on_inconclusive: on_inconclusive.value,
    })
}

fn resolve_evals(
    flags: &Flags<'_>,
    env: &Env,
    e: &EvalConfig,
) -> Result<EvalSettings, ConfigError> {
    let provider_flag = flags.eval_args.and_then(|a| a.provider.as_deref());
    let eval = flags.eval;
    let min_accuracy = pick(
        flags
            .eval_args
            .and_then(|a| a.min_accuracy)
            .or_else(|| flags.run.and_then(|r| r.min_accuracy))
            .map(|v| (v, "--min-accuracy")),
        env_value(env, "TOOLPROOF_MIN_ACCURACY", parse_fraction)?,
        Some((e.min_accuracy, "evals.min_accuracy")),
        e.min_accuracy,
    );
    let no_cache = match eval {
        Some(f) if f.no_cache => true,
        Some(_) => env.switch("TOOLPROOF_NO_CACHE")?.unwrap_or(false),
        None => false,
    };
    let offline = pick(
        eval.and_then(|f| flag_on(f.offline, "--offline")),
        if eval.is_some() {
            env_switch(env, "TOOLPROOF_OFFLINE")?
        } else {
            None
        },
        None,
        false,
    );
    // The commands that run evals or count their answers read the environment too.
    let stress_flag = match (eval, flags.cache_stress) {
        (Some(f), _) => switch(f.stress, f.no_stress),
        (None, Some(stress)) => stress.then_some(true),
        (None, None) => None,
    };
    let stress_env = (eval.is_some() || flags.cache_stress.is_some()).then_some(env);
    let (stress_on, stress) = super::stress::resolve(stress_flag, stress_env, e.stress.as_ref())?;
    let compare = resolve_compare(eval, env, e)?;
    let target = eval_target(provider_flag, flags.model, env, e);
    let provider = target.as_ref().ok().map(|t| t.provider);
    let batch = super::batch::resolve(eval, env, e, provider)?;
    Ok(EvalSettings {
        target,
        min_accuracy,
        no_cache,
        offline,
        stress_on,
        stress,
        tool_choice: resolve_tool_choice(flags, env, e)?,
        max_tokens_key: e.max_tokens_field.key_for(env.openai_base()),
        batch,
        compare,
        prompt_cache: pick(
            eval.and_then(|f| switch(f.prompt_cache, f.no_prompt_cache))
                .map(|on| {
                    (
                        on,
                        if on {
                            "--prompt-cache"
                        } else {
                            "--no-prompt-cache"
                        },
                    )
                }),
            if eval.is_some() {
                env_switch(env, "TOOLPROOF_PROMPT_CACHE")?
            } else {
                None
            },
            (!e.prompt_cache).then_some((false, "evals.prompt_cache: false")),
            true,
        ),
        dry_run: super::spend::dry_run(eval, env)?,
        budget: super::spend::budget(eval, env, e)?,
    })
}

/// `--tool-choice` > `TOOLPROOF_EVAL_TOOL_CHOICE` > `evals.tool_choice`. One set by a flag or
/// the variable while `params` carries its own is a usage error, as it is in the YAML.
fn resolve_tool_choice(
    flags: &Flags<'_>,
    env: &Env,
    e: &EvalConfig,
) -> Result<Option<Resolved<ToolChoice>>, ConfigError> {
    let flag = flags
        .eval_args
        .and_then(|a| a.tool_choice.clone())
        .or_else(|| flags.lint.and_then(|a| a.tool_choice.clone()))
        .map(|c| (c, "--tool-choice"));
    let var = env_value(env, "TOOLPROOF_EVAL_TOOL_CHOICE", ToolChoice::parse)?;
    if flag.is_none() && var.is_none() && e.tool_choice.is_none() {
        return Ok(None);
    }
    let chosen = pick(
        flag,
        var,
        e.tool_choice.clone().map(|c| (c, "evals.tool_choice")),
        ToolChoice::Auto,
    );
    if let Some(key) = e.params_tool_choice() {
        return Err(ConfigError::new(format!(
            "{} and evals.{key} are both set",
            chosen.origin
        ))
        .hint(format!(
            "remove `tool_choice` from evals.params (or unset {}): toolproof sends the tool choice in each provider's format",
            chosen.origin
        )));
    }
    Ok(Some(chosen))
}

/// Provider and models: flag > `TOOLPROOF_EVAL_*` > YAML. A failure is kept for the evals
/// phase to report, since `run` reports it there rather than refusing to start.
fn eval_target(
    provider_flag: Option<&str>,
    model_flag: Option<&str>,
    env: &Env,
    e: &EvalConfig,
) -> Result<EvalTarget, EvalSetupError> {
    let name = match provider_flag.or_else(|| env.get("TOOLPROOF_EVAL_PROVIDER")) {
        Some(name) => name.trim(),
        None => e
            .provider
            .as_ref()
            .ok_or(EvalSetupError::NoProvider)?
            .name(),
    };
    let provider = crate::provider::find(name)
        .ok_or_else(|| EvalSetupError::UnknownProvider(crate::provider::registry::unknown(name)))?;
    if provider.runs_command() && e.command.is_none() {
        return Err(EvalSetupError::NoCommand);
    }
    let named = e.named_models();
    let models = if let Some(m) = model_flag.or_else(|| env.get("TOOLPROOF_EVAL_MODEL")) {
        vec![m.to_owned()]
    } else if !named.is_empty() {
        named
    } else if provider.runs_command() {
        vec![String::new()]
    } else {
        return Err(EvalSetupError::NoModel);
    };
    Ok(EvalTarget { provider, models })
}

/// What `eval` and `cache` cannot do without.
fn check_command_needs(
    command: CommandKind,
    evals: Option<&EvalSettings>,
    cfg: Option<&EvalConfig>,
) -> Result<(), ConfigError> {
    match command {
        CommandKind::Eval | CommandKind::Lint if cfg.is_none_or(|e| e.cases.is_empty()) => Err(ConfigError::new(
            "no eval cases",
        )
        .hint(
            "add an `evals:` section with `cases:` (or `cases_file:`) to the config, and pass it with -c",
        )),
        CommandKind::CacheStatus | CommandKind::CachePrune { .. } => {
            let Some(evals) = evals else {
                return Err(
                    ConfigError::new("the config has no `evals:` section").hint(
                        "the cache holds answers to eval cases; pass the config that has them with -c",
                    ),
                );
            };
            match evals.target() {
                Err(e) => Err(ConfigError::new(e.to_string())),
                Ok(t) if !t.provider.caches_answers() => Err(ConfigError::new(format!(
                    "the {} provider is never cached: there is nothing to show",
                    t.provider.name()
                ))),
                Ok(_) => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

/// `--skip-lint` / `--no-skip-lint` as a skip and the flag that said it.
fn skip_lint_flag(on: bool, off: bool) -> Option<(bool, &'static str)> {
    switch(on, off).map(|skip| {
        (
            skip,
            if skip {
                "--skip-lint"
            } else {
                "--no-skip-lint"
            },
        )
    })
}

/// Whether each later phase is turned off: `--skip-X` / `--no-skip-X` > `TOOLPROOF_SKIP_X` >
/// `X.enabled: false` > run it. Only `run` has these flags; the other commands plan their
/// phases themselves.
fn resolve_skips(flags: &Flags<'_>, env: &Env, cfg: &config::Config) -> Result<Skips, ConfigError> {
    let lint_off = cfg
        .evals
        .as_ref()
        .filter(|e| !e.lint.enabled)
        .map(|_| (true, "evals.lint.enabled: false"));
    let Some(run) = flags.run else {
        // `eval` lints its cases as `run` does, with the same switches.
        return Ok(Skips {
            lint: match flags.eval_args {
                Some(eval) => pick(
                    skip_lint_flag(eval.skip_lint, eval.no_skip_lint),
                    env_switch(env, "TOOLPROOF_SKIP_LINT")?,
                    lint_off,
                    false,
                ),
                None => Skips::default().lint,
            },
            ..Skips::default()
        });
    };
    let one = |on: bool,
               off: bool,
               names: (&'static str, &'static str),
               var: &'static str,
               yaml: Option<(bool, &'static str)>|
     -> Result<Resolved<bool>, ConfigError> {
        let flag = switch(on, off).map(|skip| (skip, if skip { names.0 } else { names.1 }));
        Ok(pick(flag, env_switch(env, var)?, yaml, false))
    };
    let disabled =
        |enabled: Option<bool>, key: &'static str| (enabled == Some(false)).then_some((true, key));
    Ok(Skips {
        evals: one(
            run.skip_evals,
            run.no_skip_evals,
            ("--skip-evals", "--no-skip-evals"),
            "TOOLPROOF_SKIP_EVALS",
            disabled(
                cfg.evals.as_ref().map(|e| e.enabled),
                "evals.enabled: false",
            ),
        )?,
        lint: one(
            run.skip_lint,
            run.no_skip_lint,
            ("--skip-lint", "--no-skip-lint"),
            "TOOLPROOF_SKIP_LINT",
            lint_off,
        )?,
        bench: one(
            run.skip_bench,
            run.no_skip_bench,
            ("--skip-bench", "--no-skip-bench"),
            "TOOLPROOF_SKIP_BENCH",
            disabled(
                cfg.bench.as_ref().map(|b| b.enabled),
                "bench.enabled: false",
            ),
        )?,
        fuzz: one(
            run.skip_fuzz,
            run.no_skip_fuzz,
            ("--skip-fuzz", "--no-skip-fuzz"),
            "TOOLPROOF_SKIP_FUZZ",
            disabled(cfg.fuzz.as_ref().map(|f| f.enabled), "fuzz.enabled: false"),
        )?,
        protocol: one(
            run.skip_protocol,
            run.no_skip_protocol,
            ("--skip-protocol", "--no-skip-protocol"),
            "TOOLPROOF_SKIP_PROTOCOL",
            disabled(
                cfg.protocol.as_ref().map(|p| p.enabled),
                "protocol.enabled: false",
            ),
        )?,
    })
}
