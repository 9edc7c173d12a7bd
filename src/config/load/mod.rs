//! Reading `toolproof.yaml`: file → located tree → typed [`Config`] → checks the types cannot
//! express → `${VAR}` expansion in `server` → paths resolved from the file's folder.
//!
//! This file reads and sequences; the checks live beside it: [`server`] (and `${VAR}`),
//! [`ranges`] (values of every other section), [`evals`] (plus the files it names), and
//! [`paths`].

mod answers;
mod crowd;
mod evals;
mod exact;
mod overrides;
mod paths;
mod ranges;
mod server;

use std::cell::RefCell;
use std::env::VarError;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::de::{self, KeyPath, Located};
use super::limits::{MAX_CONFIG_BYTES, MAX_CONFIG_WORDS};
use super::node::{self, Node, Pos, Step, Value};
use super::{Config, ConfigError, LoadedConfig, ServerConfig};

pub(crate) use overrides::read_overrides;
pub(crate) use paths::resolve_paths;

/// Stack for the thread that parses and deserializes: both recurse once per nesting level,
/// and the parser allows 64 levels, which a 2 MiB test-thread stack cannot hold in debug builds.
const LOADER_STACK: usize = 32 * 1024 * 1024;

/// Reads an environment variable (a seam so tests need not touch the process environment).
pub(crate) type EnvLookup<'a> = &'a (dyn Fn(&str) -> Result<String, VarError> + Sync);

/// The provider names `evals.provider` may take (the registry's, which sits above the config);
/// `None` leaves the name for the settings to check.
pub(crate) type Providers<'a> = Option<&'a [&'a str]>;

/// [`super::load`] with the environment and the provider names given explicitly.
pub(crate) fn load_with_env(
    path: &Path,
    env: EnvLookup<'_>,
    providers: Providers<'_>,
) -> Result<LoadedConfig, ConfigError> {
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
    on_big_stack(|| build(&text, path, base_dir, env, providers)).unwrap_or_else(|| {
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
    read_capped(path).map_err(|err| {
        err.into_config_error(path, |err| {
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
    })
}

/// The bytes of `path`, or an error once it holds more than [`MAX_CONFIG_BYTES`]: a device
/// like `/dev/zero` or a mistaken data file must not be read until memory runs out.
pub(super) fn read_capped(path: &Path) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

/// Why [`read_capped`] gave nothing.
#[derive(Debug)]
pub(super) enum ReadError {
    /// Opening or reading failed.
    Io(std::io::Error),
    /// More than [`MAX_CONFIG_BYTES`].
    TooLarge,
}

impl ReadError {
    /// The error for `path`, with `io` turning an I/O error into a message.
    pub(super) fn into_config_error(
        self,
        path: &Path,
        io: impl FnOnce(std::io::Error) -> ConfigError,
    ) -> ConfigError {
        match self {
            ReadError::Io(err) => io(err),
            ReadError::TooLarge => ConfigError::new(format!(
                "the file is larger than {MAX_CONFIG_WORDS}, the most toolproof reads of a config"
            ))
            .in_file(path)
            .hint("is this the config file? keep tool-call tests and eval cases in YAML, not data"),
        }
    }
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

/// Builds errors located in one file, and keeps those that do not stop the checks.
struct Ctx<'a> {
    file: &'a Path,
    root: &'a Node,
    /// The names `evals.provider` may take, when known.
    providers: Providers<'a>,
    /// Errors reported so far; the checks go on after each.
    errors: RefCell<Vec<ConfigError>>,
}

impl<'a> Ctx<'a> {
    fn new(file: &'a Path, root: &'a Node) -> Self {
        Ctx {
            file,
            root,
            providers: None,
            errors: RefCell::new(Vec::new()),
        }
    }

    /// Records an error (and those it carries); the caller goes on checking.
    fn report(&self, mut err: ConfigError) {
        let also = err.take_others();
        let mut errors = self.errors.borrow_mut();
        errors.push(err);
        errors.extend(also);
    }

    /// Records the error of a check that stopped at it.
    fn keep<T>(&self, result: Result<T, ConfigError>) -> Option<T> {
        result.map_err(|e| self.report(e)).ok()
    }

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
        // A number setting took this text as a number (`1e300` is text in YAML 1.1).
        let got = match &node.value {
            Value::Str(s) if s.trim().parse::<f64>().is_ok() => format!("number {}", s.trim()),
            other => other.describe(),
        };
        self.error(
            node.pos,
            format!("`{}` must be {must}, got {got}", path_of(steps)),
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
    providers: Providers<'_>,
) -> Result<LoadedConfig, ConfigError> {
    let mut root = match node::parse(text) {
        Ok(Some(root)) => root,
        Ok(None) => {
            return Err(ConfigError::new("the config file is empty")
                .in_file(file)
                .hint("add a server to test, e.g. `server: {command: [python, server.py]}`"));
        }
        Err(err) => return Err(invalid_yaml(err, file)),
    };
    let warnings: Vec<ConfigError> = take_base_dir(&mut root)
        .map(|pos| {
            Ctx::new(file, &root).error(
                pos,
                "`base_dir` has no effect: relative paths always resolve from the config file's folder",
                Some("remove the key (mcp-toolproof 0.3.1 ignores it too)".to_owned()),
            )
        })
        .into_iter()
        .collect();
    evals::stress_shorthand(&mut root);
    let mut ctx = Ctx::new(file, &root);
    ctx.providers = providers;
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
    let (config, typing) = de::from_node_all::<Config>(&root, KeyPath::root());
    let typing: Vec<ConfigError> = typing
        .into_iter()
        .map(|Located { message, hint, pos }| {
            let hint = hint.or_else(|| evals::stress_type_hint(&message));
            ctx.error(pos, message, hint)
        })
        .collect();
    let Some(mut config) = config else {
        return Err(
            ConfigError::all(typing).unwrap_or_else(|| ctx.error(root.pos, "invalid config", None))
        );
    };
    fill_lines(&mut config, &root);
    exact::keep_big_integers(&mut config, &root);
    fill_answers(&mut config);
    let target = target_of(&config.server);
    let secrets = validate(&ctx, &mut config, env, &base_dir).unwrap_or_default();
    // A value that already failed its type holds a stand-in: whatever a later check says about
    // that place repeats the first error.
    let later: Vec<ConfigError> = ctx
        .errors
        .take()
        .into_iter()
        .filter(|e| {
            !typing
                .iter()
                .any(|t| (t.line, t.column) == (e.line, e.column))
        })
        .collect();
    if let Some(all) = ConfigError::all(typing.into_iter().chain(later).collect()) {
        return Err(all);
    }
    Ok(LoadedConfig {
        path: file.to_path_buf(),
        base_dir,
        config,
        secrets,
        target,
        warnings,
    })
}

/// Removes a top-level `base_dir` (mcp-toolproof accepts and ignores it); where it was.
fn take_base_dir(root: &mut Node) -> Option<Pos> {
    let Value::Map(entries) = &mut root.value else {
        return None;
    };
    let at = entries
        .iter()
        .position(|(k, _)| matches!(&k.value, Value::Str(s) if s == "base_dir"))?;
    Some(entries.remove(at).0.pos)
}

/// What the types cannot say, every check run, each error kept in `ctx`; the secrets that
/// `${VAR}` expansion put in `server`. Paths are resolved and eval files read on the way.
fn validate(
    ctx: &Ctx<'_>,
    config: &mut Config,
    env: EnvLookup<'_>,
    base_dir: &Path,
) -> Option<Vec<String>> {
    ctx.keep(server::check_server(ctx, &config.server));
    let secrets = ctx.keep(server::expand_env_refs(
        ctx,
        &mut config.server,
        config.evals.as_mut(),
        env,
    ));
    ctx.keep(server::check_url_scheme(ctx, &config.server));
    ctx.keep(ranges::check_ranges(ctx, config));
    answers::check_answers(ctx, config);
    resolve_paths(config, base_dir);
    if let Some(evals) = &mut config.evals {
        ctx.keep(evals::read_eval_files(ctx.file, ctx.root, evals));
        ctx.keep(crowd::read_crowd_files(ctx, evals));
    }
    secrets
}

/// The top-level `elicitation`, `sampling` and `roots` into every test that sets none itself.
fn fill_answers(config: &mut Config) {
    for test in &mut config.tests {
        if test.elicitation.is_none() {
            test.elicitation.clone_from(&config.elicitation);
        }
        if test.sampling.is_none() {
            test.sampling.clone_from(&config.sampling);
        }
        if test.roots.is_none() {
            test.roots.clone_from(&config.roots);
        }
    }
}

/// 1-based YAML lines of every test and eval case, and of the `checks:` and `evals:` keys.
fn fill_lines(config: &mut Config, root: &Node) {
    let line = |steps: &[Step<'_>]| root.at(steps).and_then(|n| u32::try_from(n.pos.line).ok());
    let key_line = |key: &str| {
        root.get_key(key)
            .and_then(|n| u32::try_from(n.pos.line).ok())
            .filter(|l| *l > 0)
    };
    config.checks.line = key_line("checks");
    if let Some(evals) = &mut config.evals {
        evals.line = key_line("evals");
    }
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

/// A YAML syntax error of `file` as a config error.
fn invalid_yaml(err: node::SyntaxError, file: &Path) -> ConfigError {
    let mut e = ConfigError::new(format!("invalid YAML: {}", err.message)).in_file(file);
    if let Some(pos) = err.pos {
        e = e.at(pos.line, pos.column);
    }
    e.hint = err.hint;
    e
}
