//! Reading `toolproof.yaml`: file → located tree → typed [`Config`] → checks the types cannot
//! express → `${VAR}` expansion in `server` → paths resolved from the file's folder.

use std::env::VarError;
use std::path::{Component, Path, PathBuf};

use super::de::{self, KeyPath, Located};
use super::node::{self, Node, Pos, Step, Value};
use super::{
    BenchThresholds, Config, ConfigError, EvalConfig, LoadedConfig, Provider, ServerConfig,
};

/// Stack for the thread that parses and deserializes: both recurse once per nesting level,
/// and the parser allows 64 levels, which a 2 MiB test-thread stack cannot hold in debug builds.
const LOADER_STACK: usize = 32 * 1024 * 1024;

/// Reads an environment variable (a seam so tests need not touch the process environment).
pub(crate) type EnvLookup<'a> = &'a (dyn Fn(&str) -> Result<String, VarError> + Sync);

/// [`super::load`] with the environment given explicitly.
pub(crate) fn load_with_env(path: &Path, env: EnvLookup<'_>) -> Result<LoadedConfig, ConfigError> {
    let bytes = read(path)?;
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            let bytes = err.as_bytes();
            let good = &bytes[..err.utf8_error().valid_up_to()];
            let line = 1 + good.iter().filter(|b| **b == b'\n').count() as u64;
            let line_start = good.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            let column = 1 + String::from_utf8_lossy(&good[line_start..]).chars().count() as u64;
            return Err(ConfigError::new("the file is not valid UTF-8")
                .in_file(path)
                .at(line, column)
                .hint("save the file as UTF-8"));
        }
    };
    let base_dir = folder_of(path);
    on_big_stack(|| build(&text, path, base_dir, env)).unwrap_or_else(|| {
        Err(ConfigError::new("internal error while reading the config file").in_file(path))
    })
}

fn read(path: &Path) -> Result<Vec<u8>, ConfigError> {
    if path.is_dir() {
        return Err(ConfigError::new(format!(
            "config path is a folder, not a file: {}",
            path.display()
        ))
        .hint(format!(
            "pass the YAML file itself, e.g. {}",
            path.join("toolproof.yaml").display()
        )));
    }
    std::fs::read(path).map_err(|err| {
        if err.kind() == std::io::ErrorKind::NotFound {
            ConfigError::new(format!("config file not found: {}", path.display())).hint(
                "create toolproof.yaml with at least a `server:` section, or pass the path of your config file",
            )
        } else {
            ConfigError::new(format!(
                "cannot read config file {}: {}",
                path.display(),
                lowercase_first(&err.to_string())
            ))
        }
    })
}

/// The YAML's folder, absolute (symlinks resolved when possible).
fn folder_of(path: &Path) -> PathBuf {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    absolute(&parent)
}

/// `path` made absolute: canonical when it exists, else joined to the cwd.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Runs `f` on a thread with a large stack; `None` if the thread could not run or panicked.
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("toolproof-config".to_owned())
            .stack_size(LOADER_STACK)
            .spawn_scoped(scope, f)
            .ok()?
            .join()
            .ok()
    })
}

fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// Builds errors located in one file.
struct Ctx<'a> {
    file: &'a Path,
    root: &'a Node,
}

impl Ctx<'_> {
    fn error(&self, pos: Pos, message: impl Into<String>, hint: Option<String>) -> ConfigError {
        let mut err = ConfigError::new(message).in_file(self.file);
        if pos.line > 0 {
            err = err.at(pos.line, pos.column);
        }
        err.hint = hint;
        err
    }

    /// The node at `steps`, or the nearest ancestor that exists.
    fn node(&self, steps: &[Step<'_>]) -> &Node {
        (0..=steps.len())
            .rev()
            .find_map(|n| self.root.at(&steps[..n]))
            .unwrap_or(self.root)
    }

    fn pos(&self, steps: &[Step<'_>]) -> Pos {
        self.node(steps).pos
    }

    /// `` `path` must be …, got … `` at the value's position.
    fn bad_value(&self, steps: &[Step<'_>], must: &str) -> ConfigError {
        let node = self.node(steps);
        self.error(
            node.pos,
            format!(
                "`{}` must be {must}, got {}",
                path_of(steps),
                node.value.describe()
            ),
            None,
        )
    }
}

fn path_of(steps: &[Step<'_>]) -> KeyPath {
    steps.iter().fold(KeyPath::root(), |p, s| match s {
        Step::Key(k) => p.key(k),
        Step::Index(i) => p.index(*i),
    })
}

fn build(
    text: &str,
    file: &Path,
    base_dir: PathBuf,
    env: EnvLookup<'_>,
) -> Result<LoadedConfig, ConfigError> {
    let root = match node::parse(text) {
        Ok(Some(root)) => root,
        Ok(None) => {
            return Err(ConfigError::new("the config file is empty")
                .in_file(file)
                .hint("add a server to test, e.g. `server: {command: [python, server.py]}`"));
        }
        Err(err) => {
            let mut e = ConfigError::new(format!("invalid YAML: {}", err.message)).in_file(file);
            if let Some(pos) = err.pos {
                e = e.at(pos.line, pos.column);
            }
            e.hint = err.hint;
            return Err(e);
        }
    };
    let ctx = Ctx { file, root: &root };
    if !matches!(root.value, Value::Map(_)) {
        return Err(ctx.error(
            root.pos,
            format!(
                "the top level must be a mapping of settings, got {}",
                root.value.describe()
            ),
            Some("start the file with `server:` and write each setting as `key: value`".to_owned()),
        ));
    }
    let mut config: Config = de::from_node(&root, KeyPath::root())
        .map_err(|Located { message, hint, pos }| ctx.error(pos, message, hint))?;
    fill_lines(&mut config, &root);

    let target = target_of(&config.server);
    check_server(&ctx, &config.server)?;
    let secrets = expand_server(&ctx, &mut config.server, env)?;
    check_url_scheme(&ctx, &config.server)?;
    check_ranges(&ctx, &config)?;
    resolve_paths(&mut config, &base_dir);
    if let Some(evals) = &mut config.evals {
        read_eval_files(file, &root, evals)?;
    }
    Ok(LoadedConfig {
        path: file.to_path_buf(),
        base_dir,
        config,
        secrets,
        target,
    })
}

/// 1-based YAML lines of every test and eval case.
fn fill_lines(config: &mut Config, root: &Node) {
    let line = |steps: &[Step<'_>]| root.at(steps).and_then(|n| u32::try_from(n.pos.line).ok());
    for (i, test) in config.tests.iter_mut().enumerate() {
        test.line = line(&[Step::Key("tests"), Step::Index(i)]);
    }
    if let Some(evals) = &mut config.evals {
        for (i, case) in evals.cases.iter_mut().enumerate() {
            case.line = line(&[Step::Key("evals"), Step::Key("cases"), Step::Index(i)]);
        }
    }
}

/// The server as written: its URL, or its command joined by spaces.
pub(crate) fn target_of(server: &ServerConfig) -> String {
    match (&server.url, &server.command) {
        (Some(url), _) => url.clone(),
        (None, Some(command)) => command.join(" "),
        (None, None) => String::new(),
    }
}

const SERVER: Step<'static> = Step::Key("server");

fn check_server(ctx: &Ctx<'_>, server: &ServerConfig) -> Result<(), ConfigError> {
    let one_of = Some(
        "set exactly one of `command` (a stdio server) or `url` (a streamable HTTP server)"
            .to_owned(),
    );
    match (&server.command, &server.url) {
        (Some(_), Some(_)) => {
            return Err(ctx.error(
                ctx.pos(&[SERVER]),
                "`server` has both `command` and `url`",
                one_of,
            ));
        }
        (None, None) => {
            return Err(ctx.error(
                ctx.pos(&[SERVER]),
                "`server` has neither `command` nor `url`",
                one_of,
            ));
        }
        (Some(command), None) => {
            let steps = [SERVER, Step::Key("command")];
            match command.first() {
                None => {
                    return Err(ctx.error(
                        ctx.pos(&steps),
                        "`server.command` is empty",
                        Some(
                            "give the program and its arguments, e.g. [python, server.py]"
                                .to_owned(),
                        ),
                    ));
                }
                Some(program) if program.trim().is_empty() => {
                    let steps = [SERVER, Step::Key("command"), Step::Index(0)];
                    return Err(ctx.error(
                        ctx.pos(&steps),
                        "`server.command[0]` (the program) is empty",
                        Some(
                            "give the program and its arguments, e.g. [python, server.py]"
                                .to_owned(),
                        ),
                    ));
                }
                Some(_) => {}
            }
            if !server.headers.is_empty() {
                let key = ctx
                    .root
                    .at(&[SERVER])
                    .and_then(|s| s.get_key("headers"))
                    .map_or_else(|| ctx.pos(&[SERVER]), |k| k.pos);
                return Err(ctx.error(
                    key,
                    "`server.headers` only applies to `url` servers",
                    Some(
                        "remove `headers`, or pass settings to a stdio server through `env`"
                            .to_owned(),
                    ),
                ));
            }
        }
        (None, Some(url)) => {
            if url.trim().is_empty() {
                return Err(ctx.error(
                    ctx.pos(&[SERVER, Step::Key("url")]),
                    "`server.url` is empty",
                    Some("give the server's streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp".to_owned()),
                ));
            }
        }
    }
    positive(
        ctx,
        server.startup_timeout_s,
        &[SERVER, Step::Key("startup_timeout_s")],
        "seconds",
    )
}

/// Expands `${NAME}` in every string value of `server`; returns the values substituted.
fn expand_server(
    ctx: &Ctx<'_>,
    server: &mut ServerConfig,
    env: EnvLookup<'_>,
) -> Result<Vec<String>, ConfigError> {
    let mut secrets = Vec::new();
    let mut expand = |value: &mut String, steps: &[Step<'_>]| -> Result<(), ConfigError> {
        match expand_vars(value, env, &mut secrets) {
            Ok(expanded) => {
                *value = expanded;
                Ok(())
            }
            Err((name, unset)) => {
                let path = path_of(steps);
                let (message, hint) = if unset {
                    (
                        format!("environment variable {name} is not set (used in {path})"),
                        format!(
                            "export {name} before running toolproof, or set it as a secret in your CI job"
                        ),
                    )
                } else {
                    (
                        format!("environment variable {name} is not valid UTF-8 (used in {path})"),
                        format!("set {name} to a UTF-8 value"),
                    )
                };
                Err(ctx.error(ctx.pos(steps), message, Some(hint)))
            }
        }
    };

    if let Some(command) = &mut server.command {
        for (i, item) in command.iter_mut().enumerate() {
            expand(item, &[SERVER, Step::Key("command"), Step::Index(i)])?;
        }
    }
    if let Some(url) = &mut server.url {
        expand(url, &[SERVER, Step::Key("url")])?;
    }
    for (key, value) in server.env.iter_mut() {
        expand(value, &[SERVER, Step::Key("env"), Step::Key(key)])?;
    }
    for (key, value) in server.headers.iter_mut() {
        expand(value, &[SERVER, Step::Key("headers"), Step::Key(key)])?;
    }
    if let Some(cwd) = &mut server.cwd {
        // It came from YAML text, so it is UTF-8.
        if let Some(text) = cwd.to_str() {
            let mut text = text.to_owned();
            expand(&mut text, &[SERVER, Step::Key("cwd")])?;
            *cwd = PathBuf::from(text);
        }
    }
    secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    secrets.dedup();
    Ok(secrets)
}

/// Replaces every `${NAME}` (NAME = `[A-Za-z_][A-Za-z0-9_]*`); anything else stays literal.
/// On failure returns the variable name and whether it was unset (else: not UTF-8).
fn expand_vars(
    text: &str,
    env: EnvLookup<'_>,
    secrets: &mut Vec<String>,
) -> Result<String, (String, bool)> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let name_len = after
            .char_indices()
            .find(|(i, c)| {
                !(c.is_ascii_alphabetic() || *c == '_' || (*i > 0 && c.is_ascii_digit()))
            })
            .map_or(after.len(), |(i, _)| i);
        if name_len > 0 && after[name_len..].starts_with('}') {
            let name = &after[..name_len];
            match env(name) {
                Ok(value) => {
                    if !value.is_empty() {
                        secrets.push(value.clone());
                    }
                    out.push_str(&value);
                }
                Err(VarError::NotPresent) => return Err((name.to_owned(), true)),
                Err(VarError::NotUnicode(_)) => return Err((name.to_owned(), false)),
            }
            rest = &after[name_len + 1..];
        } else {
            // Not a reference: keep the `$` and look again from the next character.
            out.push('$');
            rest = &rest[start + 1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn check_url_scheme(ctx: &Ctx<'_>, server: &ServerConfig) -> Result<(), ConfigError> {
    let Some(url) = &server.url else {
        return Ok(());
    };
    let lower = url.trim_start().to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Ok(());
    }
    // Show the value as written: after expansion it may hold a secret.
    let steps = [SERVER, Step::Key("url")];
    let node = ctx.node(&steps);
    Err(ctx.error(
        node.pos,
        format!(
            "`server.url` must start with http:// or https://, got {}",
            node.value.describe()
        ),
        Some("give the server's streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp; for a local program use `command`".to_owned()),
    ))
}

/// `steps` plus one more key.
fn under<'a>(steps: &[Step<'a>], key: &'a str) -> Vec<Step<'a>> {
    let mut out = steps.to_vec();
    out.push(Step::Key(key));
    out
}

fn positive(ctx: &Ctx<'_>, value: f64, steps: &[Step<'_>], unit: &str) -> Result<(), ConfigError> {
    if value > 0.0 {
        Ok(())
    } else {
        Err(ctx.bad_value(steps, &format!("greater than 0 ({unit})")))
    }
}

fn at_least_one(ctx: &Ctx<'_>, value: u32, steps: &[Step<'_>]) -> Result<(), ConfigError> {
    if value >= 1 {
        Ok(())
    } else {
        Err(ctx.bad_value(steps, "at least 1"))
    }
}

fn fraction(ctx: &Ctx<'_>, value: f64, steps: &[Step<'_>]) -> Result<(), ConfigError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(ctx.bad_value(steps, "between 0 and 1"))
    }
}

fn not_negative(ctx: &Ctx<'_>, value: f64, steps: &[Step<'_>]) -> Result<(), ConfigError> {
    if value >= 0.0 {
        Ok(())
    } else {
        Err(ctx.bad_value(steps, "0 or more"))
    }
}

fn check_ranges(ctx: &Ctx<'_>, config: &Config) -> Result<(), ConfigError> {
    positive(
        ctx,
        config.timeout_ms,
        &[Step::Key("timeout_ms")],
        "milliseconds",
    )?;
    let checks = Step::Key("checks");
    fraction(
        ctx,
        config.checks.similarity_threshold,
        &[checks, Step::Key("similarity_threshold")],
    )?;
    for (i, id) in config.checks.disable.iter().enumerate() {
        if super::vocab::CHECK_IDS.contains(&id.as_str()) {
            continue;
        }
        let steps = [checks, Step::Key("disable"), Step::Index(i)];
        let near = super::suggest::nearest(id, super::vocab::CHECK_IDS);
        let message = match near {
            Some(n) => format!("unknown check id `{id}` in checks.disable, did you mean `{n}`?"),
            None => format!("unknown check id `{id}` in checks.disable"),
        };
        return Err(ctx.error(
            ctx.pos(&steps),
            message,
            Some(format!(
                "check ids are {}",
                super::suggest::list(super::vocab::CHECK_IDS)
            )),
        ));
    }

    not_negative(ctx, config.retry_delay_ms, &[Step::Key("retry_delay_ms")])?;
    for (i, test) in config.tests.iter().enumerate() {
        let here = [Step::Key("tests"), Step::Index(i)];
        if let Some(t) = test.timeout_ms {
            positive(ctx, t, &under(&here, "timeout_ms"), "milliseconds")?;
        }
        if let Some(d) = test.retry_delay_ms {
            not_negative(ctx, d, &under(&here, "retry_delay_ms"))?;
        }
        for path in test.expect.jsonpath.keys() {
            if let Some(problem) = super::vocab::jsonpath_error(path) {
                let mut steps = under(&here, "expect");
                steps.push(Step::Key("jsonpath"));
                steps.push(Step::Key(path));
                return Err(ctx.error(
                    ctx.pos(&steps),
                    format!("`{path}` is not a valid JSONPath: {problem}"),
                    Some(
                        "paths follow RFC 9535 and start with `$`, e.g. `$.items[0].name`"
                            .to_owned(),
                    ),
                ));
            }
        }
        let expect = under(&here, "expect");
        if let Some(limit) = test.expect.max_latency_ms {
            positive(
                ctx,
                limit,
                &under(&expect, "max_latency_ms"),
                "milliseconds",
            )?;
        }
        if let Some(pattern) = &test.expect.regex
            && let Err(err) = regex::Regex::new(pattern)
        {
            let steps = under(&expect, "regex");
            // The crate's message ends with a line like "error: unclosed group".
            let detail = err.to_string();
            let last = detail.lines().last().unwrap_or("").trim();
            let last = lowercase_first(last.strip_prefix("error: ").unwrap_or(last));
            return Err(ctx.error(
                ctx.pos(&steps),
                format!(
                    "`{}` is not a valid regular expression: {}",
                    path_of(&steps),
                    last.trim_end_matches('.')
                ),
                Some(
                    "the syntax is that of Rust's regex crate (no look-around or backreferences)"
                        .to_owned(),
                ),
            ));
        }
        for (path, check) in &test.expect.jsonpath {
            if let (Some(min), Some(max)) = (check.min, check.max)
                && min > max
            {
                let mut steps = under(&expect, "jsonpath");
                steps.push(Step::Key(path));
                return Err(ctx.error(
                    ctx.pos(&steps),
                    format!(
                        "`{}` has min {min} above max {max}, so nothing can pass",
                        path_of(&steps)
                    ),
                    None,
                ));
            }
        }
    }

    if let Some(fuzz) = &config.fuzz {
        let f = Step::Key("fuzz");
        at_least_one(ctx, fuzz.max_examples, &[f, Step::Key("max_examples")])?;
        positive(
            ctx,
            fuzz.timeout_ms,
            &[f, Step::Key("timeout_ms")],
            "milliseconds",
        )?;
        positive(
            ctx,
            fuzz.max_time_s,
            &[f, Step::Key("max_time_s")],
            "seconds",
        )?;
    }

    if let Some(bench) = &config.bench {
        let b = Step::Key("bench");
        at_least_one(ctx, bench.calls, &[b, Step::Key("calls")])?;
        at_least_one(ctx, bench.concurrency, &[b, Step::Key("concurrency")])?;
        positive(
            ctx,
            bench.timeout_ms,
            &[b, Step::Key("timeout_ms")],
            "milliseconds",
        )?;
        check_thresholds(ctx, &bench.thresholds, &[b, Step::Key("thresholds")])?;
        for (i, target) in bench.targets.iter().enumerate() {
            if let Some(t) = &target.thresholds {
                check_thresholds(
                    ctx,
                    t,
                    &[
                        b,
                        Step::Key("targets"),
                        Step::Index(i),
                        Step::Key("thresholds"),
                    ],
                )?;
            }
        }
    }

    if let Some(evals) = &config.evals {
        check_evals(ctx, evals)?;
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
            positive(ctx, v, &with(key), "milliseconds")?;
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

fn check_evals(ctx: &Ctx<'_>, evals: &EvalConfig) -> Result<(), ConfigError> {
    let e = Step::Key("evals");
    fraction(ctx, evals.min_accuracy, &[e, Step::Key("min_accuracy")])?;
    positive(
        ctx,
        evals.timeout_s,
        &[e, Step::Key("timeout_s")],
        "seconds",
    )?;
    match &evals.command {
        Some(command) if command.first().is_none_or(|p| p.trim().is_empty()) => {
            return Err(ctx.error(
                ctx.pos(&[e, Step::Key("command")]),
                "`evals.command` is empty",
                Some(
                    "give the picker program and its arguments, e.g. [python, picker.py]"
                        .to_owned(),
                ),
            ));
        }
        None if evals.provider == Some(Provider::Command) => {
            return Err(ctx.error(
                ctx.pos(&[e, Step::Key("provider")]),
                "`evals.provider` is `command` but `evals.command` is not set",
                Some("add `command: [program, args…]`: the program that picks a tool for each prompt".to_owned()),
            ));
        }
        _ => {}
    }
    check_cases(ctx, &evals.cases, &[e, Step::Key("cases")])?;
    at_least_one(ctx, evals.concurrency, &[e, Step::Key("concurrency")])?;
    at_least_one(ctx, evals.trials, &[e, Step::Key("trials")])?;
    positive(
        ctx,
        evals.request_timeout_s,
        &[e, Step::Key("request_timeout_s")],
        "seconds",
    )?;
    if let Some(v) = evals.min_wilson_lower {
        fraction(ctx, v, &[e, Step::Key("min_wilson_lower")])?;
    }
    if let Some(n) = evals.max_tokens {
        at_least_one(ctx, n, &[e, Step::Key("max_tokens")])?;
    }
    if evals.model.is_some() && !evals.models.is_empty() {
        return Err(ctx.error(
            ctx.pos(&[e, Step::Key("models")]),
            "`evals.model` and `evals.models` are both set",
            Some(
                "use `models: [a, b]` alone to ask several models, or `model:` for one".to_owned(),
            ),
        ));
    }
    for (i, m) in evals.models.iter().enumerate() {
        if m.trim().is_empty() {
            return Err(ctx.error(
                ctx.pos(&[e, Step::Key("models"), Step::Index(i)]),
                format!("`evals.models[{i}]` is empty"),
                Some("give the model id the provider knows".to_owned()),
            ));
        }
    }
    if evals.system.is_some() && evals.system_file.is_some() {
        return Err(ctx.error(
            ctx.pos(&[e, Step::Key("system_file")]),
            "`evals.system` and `evals.system_file` are both set",
            Some("keep one: `system_file` reads the prompt your client ships".to_owned()),
        ));
    }
    Ok(())
}

/// Every case has `expect_tool`, and sane `trials`.
fn check_cases(
    ctx: &Ctx<'_>,
    cases: &[super::EvalCase],
    at: &[Step<'_>],
) -> Result<(), ConfigError> {
    for (i, case) in cases.iter().enumerate() {
        let here: Vec<Step<'_>> = at.iter().copied().chain([Step::Index(i)]).collect();
        if case.expect_tool.is_none() {
            return Err(ctx.error(
                ctx.pos(&here),
                format!("`{}` has no `expect_tool`", path_of(&here)),
                Some("set expect_tool (use null when no tool should be called)".to_owned()),
            ));
        }
        if let Some(t) = case.trials {
            let mut steps = here.clone();
            steps.push(Step::Key("trials"));
            at_least_one(ctx, t, &steps)?;
        }
    }
    Ok(())
}

/// Reads `evals.system_file` and `evals.cases_file` (paths already resolved).
fn read_eval_files(file: &Path, root: &Node, evals: &mut EvalConfig) -> Result<(), ConfigError> {
    let ctx = Ctx { file, root };
    let e = Step::Key("evals");
    if let Some(path) = &evals.system_file {
        let text = std::fs::read_to_string(path).map_err(|err| {
            ctx.error(
                ctx.pos(&[e, Step::Key("system_file")]),
                format!(
                    "cannot read `evals.system_file` {}: {}",
                    path.display(),
                    lowercase_first(&err.to_string())
                ),
                Some("the path is relative to this config file".to_owned()),
            )
        })?;
        evals.system = Some(text);
    }
    let Some(path) = evals.cases_file.clone() else {
        return Ok(());
    };
    let bytes = std::fs::read(&path).map_err(|err| {
        ctx.error(
            ctx.pos(&[e, Step::Key("cases_file")]),
            format!(
                "cannot read `evals.cases_file` {}: {}",
                path.display(),
                lowercase_first(&err.to_string())
            ),
            Some("the path is relative to this config file".to_owned()),
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ConfigError::new("the file is not valid UTF-8")
            .in_file(&path)
            .hint("save the file as UTF-8")
    })?;
    let cases_root = match node::parse(&text) {
        Ok(Some(r)) => r,
        Ok(None) => return Ok(()),
        Err(err) => {
            let mut e = ConfigError::new(format!("invalid YAML: {}", err.message)).in_file(&path);
            if let Some(pos) = err.pos {
                e = e.at(pos.line, pos.column);
            }
            e.hint = err.hint;
            return Err(e);
        }
    };
    let cctx = Ctx {
        file: &path,
        root: &cases_root,
    };
    // A bare list of cases, or a mapping with `cases:`.
    let (list, prefix): (&Node, Vec<Step<'_>>) = match &cases_root.value {
        Value::Seq(_) => (&cases_root, Vec::new()),
        Value::Map(_) => match cases_root.get("cases") {
            Some(n) => (n, vec![Step::Key("cases")]),
            None => {
                return Err(cctx.error(
                    cases_root.pos,
                    "a cases file holds a list of cases, or a mapping with `cases:`".to_owned(),
                    Some("e.g. `- {prompt: …, expect_tool: …}` on each line".to_owned()),
                ));
            }
        },
        other => {
            return Err(cctx.error(
                cases_root.pos,
                format!(
                    "a cases file holds a list of cases, got {}",
                    other.describe()
                ),
                Some("e.g. `- {prompt: …, expect_tool: …}` on each line".to_owned()),
            ));
        }
    };
    if let Value::Map(entries) = &cases_root.value
        && entries.len() > 1
    {
        return Err(cctx.error(
            cases_root.pos,
            "a cases file mapping may hold only `cases:`".to_owned(),
            None,
        ));
    }
    let path_prefix = path_of(&prefix);
    let mut cases: Vec<super::EvalCase> = de::from_node(list, path_prefix)
        .map_err(|Located { message, hint, pos }| cctx.error(pos, message, hint))?;
    check_cases(&cctx, &cases, &prefix)?;
    for (i, case) in cases.iter_mut().enumerate() {
        let mut steps = prefix.clone();
        steps.push(Step::Index(i));
        case.line = cases_root
            .at(&steps)
            .and_then(|n| u32::try_from(n.pos.line).ok());
        case.file = Some(path.clone());
    }
    evals.cases.extend(cases);
    Ok(())
}

/// Joins `rel` to `base` unless it is absolute, dropping `.` components.
fn join_clean(base: &Path, rel: &Path) -> PathBuf {
    base.join(rel)
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// A program path with a `/` that is relative resolves from `base`; bare names stay for PATH.
fn resolve_program(command: &mut [String], base: &Path) {
    if let Some(program) = command.first_mut()
        && program.contains('/')
        && Path::new(program.as_str()).is_relative()
        && let Some(resolved) = join_clean(base, Path::new(program.as_str())).to_str()
    {
        *program = resolved.to_owned();
    }
}

/// Makes every relative path in the config absolute, from `base_dir`.
pub(crate) fn resolve_paths(config: &mut Config, base_dir: &Path) {
    let server = &mut config.server;
    if let Some(command) = &mut server.command {
        resolve_program(command, base_dir);
        server.cwd = Some(match &server.cwd {
            Some(cwd) => join_clean(base_dir, cwd),
            None => base_dir.to_path_buf(),
        });
    } else if let Some(cwd) = &server.cwd {
        server.cwd = Some(join_clean(base_dir, cwd));
    }
    if let Some(evals) = &mut config.evals {
        evals.cache_dir = join_clean(base_dir, &evals.cache_dir);
        for path in [&mut evals.system_file, &mut evals.cases_file]
            .into_iter()
            .flatten()
        {
            *path = join_clean(base_dir, path);
        }
        if let Some(command) = &mut evals.command {
            resolve_program(command, base_dir);
        }
    }
}
