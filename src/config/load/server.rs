//! `server:` beyond its types: exactly one of `command` and `url`, `${VAR}` expansion (here and in
//! `evals.env`; the values substituted are secrets), and the URL's scheme.

use std::env::VarError;
use std::path::PathBuf;

use super::ranges::{Unit, duration};
use super::{Ctx, EnvLookup, path_of};
use crate::config::node::Step;
use crate::config::{ConfigError, EvalConfig, ServerConfig, TransportPref};

pub(super) const SERVER: Step<'static> = Step::Key("server");

pub(super) fn check_server(ctx: &Ctx<'_>, server: &ServerConfig) -> Result<(), ConfigError> {
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
            check_no_transport(ctx, server)?;
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
            check_no_inherit_env(ctx, server)?;
        }
    }
    duration(
        ctx,
        server.startup_timeout_s,
        &[SERVER, Step::Key("startup_timeout_s")],
        Unit::Seconds,
    )
}

/// `inherit_env` is for `command` servers: toolproof starts no process for a `url` one.
fn check_no_inherit_env(ctx: &Ctx<'_>, server: &ServerConfig) -> Result<(), ConfigError> {
    if !server.inherit_env {
        return Ok(());
    }
    Err(ctx.error(
        ctx.pos(&[SERVER, Step::Key("inherit_env")]),
        "`server.inherit_env` only applies to `command` servers",
        Some("remove `inherit_env`: toolproof starts no process for a `url` server".to_owned()),
    ))
}

/// `transport` is for `url` servers: a `command` server speaks stdio.
fn check_no_transport(ctx: &Ctx<'_>, server: &ServerConfig) -> Result<(), ConfigError> {
    if server.transport == TransportPref::Auto {
        return Ok(());
    }
    Err(ctx.error(
        ctx.pos(&[SERVER, Step::Key("transport")]),
        "`server.transport` only applies to `url` servers",
        Some("remove `transport`: a `command` server speaks stdio".to_owned()),
    ))
}

/// Expands `${NAME}` in every string value of `server` and in `evals.env`; returns the values
/// substituted.
pub(super) fn expand_env_refs(
    ctx: &Ctx<'_>,
    server: &mut ServerConfig,
    evals: Option<&mut EvalConfig>,
    env: EnvLookup<'_>,
) -> Result<Vec<String>, ConfigError> {
    let mut secrets = Vec::new();
    let mut expand = |value: &mut String, steps: &[Step<'_>]| -> Result<(), ConfigError> {
        match expand_vars(value, env, &mut secrets) {
            Ok(expanded) => {
                *value = expanded;
                Ok(())
            }
            Err(problem) => {
                let path = path_of(steps);
                let (message, hint) = match problem {
                    BadVar::Unset(name) => (
                        format!("environment variable {name} is not set (used in {path})"),
                        format!(
                            "export {name} before running toolproof, or set it as a secret in your CI job"
                        ),
                    ),
                    BadVar::NotUtf8(name) => (
                        format!("environment variable {name} is not valid UTF-8 (used in {path})"),
                        format!("set {name} to a UTF-8 value"),
                    ),
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
    if let Some(evals) = evals {
        for (key, value) in evals.env.iter_mut() {
            expand(
                value,
                &[Step::Key("evals"), Step::Key("env"), Step::Key(key)],
            )?;
        }
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

/// A `${NAME}` that cannot be expanded.
enum BadVar {
    /// The variable is not set.
    Unset(String),
    /// Its value is not UTF-8.
    NotUtf8(String),
}

/// Replaces every `${NAME}` (NAME = `[A-Za-z_][A-Za-z0-9_]*`); anything else stays literal.
fn expand_vars(
    text: &str,
    env: EnvLookup<'_>,
    secrets: &mut Vec<String>,
) -> Result<String, BadVar> {
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
                Err(VarError::NotPresent) => return Err(BadVar::Unset(name.to_owned())),
                Err(VarError::NotUnicode(_)) => return Err(BadVar::NotUtf8(name.to_owned())),
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

pub(super) fn check_url_scheme(ctx: &Ctx<'_>, server: &ServerConfig) -> Result<(), ConfigError> {
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
