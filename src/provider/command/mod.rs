//! The command provider: run the user's program (no shell) from the YAML's folder with the
//! environment less toolproof's credentials (`evals.env` adds to it), write the request as one line of JSON on its stdin, and read its choice from
//! stdout: `{"tool", "args", "text"?}`, a list of those, or `{"calls": [...], "text"?}`.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use super::http::secs;
use super::program::{self as running, STDOUT_LIMIT_WORDS};
use super::{Answer, Failure, Kind, Pacer, Provider, ProviderError, RawCall, Request, Setup};
use crate::config::ToolChoice;
use crate::mcp::stdio::describe_exit;
use crate::provider::Stop;
use crate::provider::usage::Usage;

/// A program of the user's: the request on stdin, its choice on stdout.
pub(crate) static KIND: CommandKind = CommandKind;

/// What the command provider is: see [`Kind`].
#[derive(Debug)]
pub(crate) struct CommandKind;

impl Kind for CommandKind {
    fn name(&self) -> &'static str {
        "command"
    }

    fn credentials(&self) -> &'static [&'static str] {
        &[]
    }

    fn caches_answers(&self) -> bool {
        false
    }

    fn runs_command(&self) -> bool {
        true
    }

    /// Anthropic's shape, which matches the tool definitions the program is sent.
    fn tool_choice_wire(&self, choice: &ToolChoice) -> Value {
        super::anthropic::tool_choice(choice)
    }

    fn tool_choice_in_params(&self) -> bool {
        false
    }

    /// `evals.command` run without a shell from the config's folder, with the environment
    /// less toolproof's credentials plus `evals.env`, killed after `evals.timeout_s`.
    fn connect(&self, setup: &Setup<'_>) -> Result<Box<dyn Provider>, ProviderError> {
        let (argv, timeout, env) = setup.cfg.map_or_else(
            || {
                (
                    Vec::new(),
                    crate::config::limits::seconds(60.0),
                    BTreeMap::new(),
                )
            },
            |cfg| {
                (
                    cfg.command.clone().unwrap_or_default(),
                    crate::config::limits::seconds(cfg.timeout_s),
                    cfg.env.clone(),
                )
            },
        );
        Ok(Box::new(
            CommandSpec::new(argv, PathBuf::from(setup.base_dir), timeout).with_env(env),
        ))
    }
}

impl Provider for CommandSpec {
    fn ask_timed(&self, req: &Request, _: &Pacer) -> (Result<Answer, ProviderError>, Duration) {
        let started = std::time::Instant::now();
        let answer = self.ask(req);
        (answer, started.elapsed())
    }
}

/// Characters of stderr quoted when the program fails.
const STDERR_TAIL: usize = 500;
/// Characters of stdout quoted when it is not JSON.
const STDOUT_HEAD: usize = 200;

/// The program and how to run it.
#[derive(Debug, Clone)]
pub(crate) struct CommandSpec {
    argv: Vec<String>,
    cwd: PathBuf,
    timeout: Duration,
    env: BTreeMap<String, String>,
}

impl CommandSpec {
    /// A command run from `cwd` and killed after `timeout`.
    pub(crate) fn new(argv: Vec<String>, cwd: PathBuf, timeout: Duration) -> Self {
        CommandSpec {
            argv,
            cwd,
            timeout,
            env: BTreeMap::new(),
        }
    }

    /// The same command with `env` added to its environment (`evals.env`).
    pub(crate) fn with_env(mut self, env: BTreeMap<String, String>) -> Self {
        self.env = env;
        self
    }

    /// Runs the program once for `req`.
    pub(crate) fn ask(&self, req: &Request) -> Result<Answer, ProviderError> {
        let mut request = json!({
            "model": req.model,
            "system": req.system,
            "prompt": req.prompt,
            "tools": req.tools,
        });
        if let (Some(choice), Some(body)) = (req.tool_choice, request.as_object_mut()) {
            body.insert("tool_choice".into(), choice.clone());
        }
        if let (false, Some(body)) = (req.context.is_empty(), request.as_object_mut()) {
            body.insert(
                "context".into(),
                super::context::command_context(req.context),
            );
        }
        let stdout = self.exchange(&request)?;
        parse(&stdout).map_err(|e| ProviderError::Transient(e.to_string().into()))
    }

    /// Runs the program once with `request` as its line on stdin and returns its stdout
    /// (`toolproof rows suggest` sends its own task this way).
    pub(crate) fn exchange(&self, request: &Value) -> Result<String, ProviderError> {
        // Integers beyond 64 bits (a `context` call's arguments) as their digits.
        let mut line = crate::pycompat::bigint::to_string(request);
        line.push('\n');
        self.exchange_line(line)
    }

    /// Runs the program once with `line` on its stdin and returns its stdout (`toolproof
    /// tune` sends the rewriter its own request this way).
    pub(crate) fn exchange_line(&self, line: String) -> Result<String, ProviderError> {
        let Some((program, args)) = self.argv.split_first() else {
            return Err(ProviderError::Fatal(Failure::with_hint(
                "the eval command is empty",
                "set evals.command, e.g. [python3, pick_tool.py]",
            )));
        };
        let mut cmd = Command::new(program);
        crate::process::child_env(&mut cmd, &self.env);
        let child = cmd
            .args(args)
            .current_dir(&self.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| self.spawn_error(program, &e))?;
        // Registered so that an interrupted run stops the program too.
        let _group = crate::process::register(child.id());
        let Some(out) = running::run(child, line, self.timeout) else {
            return Err(ProviderError::Transient(
                format!("eval command timed out after {}", secs(self.timeout)).into(),
            ));
        };
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let tail = tail(stderr.trim(), STDERR_TAIL);
            let sep = if tail.is_empty() { "" } else { ": " };
            return Err(ProviderError::Transient(
                format!("eval command {}{sep}{tail}", describe_exit(out.status)).into(),
            ));
        }
        if out.stdout_over {
            return Err(ProviderError::Transient(Failure::with_hint(
                format!(
                    "eval command: the program printed more than {STDOUT_LIMIT_WORDS} on stdout"
                ),
                "print one JSON object, e.g. {\"tool\": \"name\", \"args\": {}}, and send logs to stderr",
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn spawn_error(&self, program: &str, e: &std::io::Error) -> ProviderError {
        ProviderError::Fatal(match e.kind() {
            std::io::ErrorKind::NotFound if !self.cwd.is_dir() => format!(
                "eval command {program:?} can't run: its folder {} does not exist",
                self.cwd.display()
            )
            .into(),
            std::io::ErrorKind::NotFound => Failure::with_hint(
                format!("eval command not found: {program}"),
                format!(
                    "evals.command runs without a shell from {}; give a program on PATH or a path",
                    self.cwd.display()
                ),
            ),
            std::io::ErrorKind::PermissionDenied => {
                format!("eval command {program:?} can't run: permission denied (is it executable?)")
                    .into()
            }
            _ => format!("eval command {program:?} can't run: {e}").into(),
        })
    }
}

/// Why the program's stdout is not an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OutputError {
    /// Not JSON; the start of what it printed.
    #[error("eval command printed invalid JSON: {0:?}")]
    InvalidJson(String),
    /// Neither an object nor a list.
    #[error("eval command must print a JSON object like {{\"tool\": \"name\", \"args\": {{}}}}")]
    NotAnObject,
    /// `calls` is there but not a list.
    #[error("eval command: 'calls' must be a list")]
    CallsNotAList,
    /// A call that is not an object.
    #[error("eval command: each call must be an object with 'tool' and 'args'")]
    CallNotAnObject,
    /// `tool` is neither text nor null.
    #[error("eval command: 'tool' must be a string or null")]
    ToolNotAString,
    /// `args` is neither an object nor null.
    #[error("eval command: 'args' must be an object")]
    ArgsNotAnObject,
    /// `usage` is there but not the neutral shape.
    #[error(
        "eval command: 'usage' must be an object like {{\"input_tokens\": 120, \"output_tokens\": 8}} (token counts, 0 or more)"
    )]
    BadUsage,
}

/// The program's answer: one call object, a list of them, or `{"calls": [...]}`; an object
/// may carry `usage` (see [`crate::provider::usage`]: `input_tokens`, `output_tokens`,
/// optional `cache_write_tokens` and `cache_read_tokens`).
pub(crate) fn parse(stdout: &str) -> Result<Answer, OutputError> {
    let v: Value = crate::pycompat::bigint::from_str(stdout.trim())
        .map_err(|_| OutputError::InvalidJson(head(stdout.trim(), STDOUT_HEAD)))?;
    let raw = match v.get("usage") {
        None | Some(Value::Null) => None,
        Some(u) => Some(Usage::neutral_shape(u).ok_or(OutputError::BadUsage)?),
    };
    // A count past any model's (2^64 − 1 tokens) is not reported, as from an API.
    let usage = raw.and_then(Usage::plausible);
    let usage_unbelievable = raw.is_some() && usage.is_none();
    let (items, text): (Vec<&Value>, String) = match &v {
        Value::Object(o) if o.contains_key("calls") => {
            let calls = o
                .get("calls")
                .and_then(Value::as_array)
                .ok_or(OutputError::CallsNotAList)?;
            (calls.iter().collect(), text_of(o.get("text")))
        }
        Value::Object(o) => (vec![&v], text_of(o.get("text"))),
        Value::Array(list) => {
            let texts: Vec<String> = list
                .iter()
                .map(|c| text_of(c.get("text")))
                .filter(|t| !t.is_empty())
                .collect();
            (list.iter().collect(), texts.join(" "))
        }
        _ => return Err(OutputError::NotAnObject),
    };
    let mut calls = Vec::new();
    for item in items {
        let Some(obj) = item.as_object() else {
            return Err(OutputError::CallNotAnObject);
        };
        let name = match obj.get("tool") {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(OutputError::ToolNotAString),
        };
        let args = match obj.get("args") {
            None | Some(Value::Null) => json!({}),
            Some(a @ Value::Object(_)) => a.clone(),
            Some(_) => return Err(OutputError::ArgsNotAnObject),
        };
        calls.push(RawCall {
            name,
            args: Ok(args),
        });
    }
    let stop = if calls.is_empty() {
        Stop::EndTurn
    } else {
        Stop::ToolUse
    };
    Ok(Answer {
        calls,
        text,
        stop,
        usage,
        usage_unbelievable,
    })
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn head(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

fn tail(text: &str, n: usize) -> String {
    let count = text.chars().count();
    text.chars().skip(count.saturating_sub(n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ApiTool;
    use serde_json::Map;

    fn sh(script: &str, timeout: Duration) -> CommandSpec {
        CommandSpec::new(
            vec!["sh".into(), "-c".into(), script.into()],
            std::env::temp_dir(),
            timeout,
        )
    }

    fn ask(spec: &CommandSpec) -> Result<Answer, ProviderError> {
        let tools = vec![ApiTool {
            exact_numbers: Vec::new(),
            name: "get_weather".into(),
            description: "Weather.".into(),
            input_schema: json!({"type": "object"}),
        }];
        let params = Map::new();
        spec.ask(&Request {
            model: "",
            system: None,
            prompt: "Is it raining in Montreal?",
            context: &[],
            tools: &tools,
            params: &params,
            tool_choice: None,
            max_tokens: 0,
            prompt_cache: false,
        })
    }

    const SECOND: Duration = Duration::from_secs(10);

    #[test]
    fn the_request_is_one_line_of_json_on_stdin() {
        let seen = std::env::temp_dir().join(format!("toolproof-cmd-{}.json", std::process::id()));
        let spec = CommandSpec::new(
            vec![
                "sh".into(),
                "-c".into(),
                r#"cat > "$1"; echo '{"tool": null}'"#.into(),
                "sh".into(),
                seen.display().to_string(),
            ],
            std::env::temp_dir(),
            SECOND,
        );
        let a = ask(&spec).unwrap_or_else(|e| panic!("{e}"));
        let written = std::fs::read_to_string(&seen).unwrap_or_default();
        let _ = std::fs::remove_file(&seen);
        assert_eq!(
            written,
            "{\"model\":\"\",\"system\":null,\"prompt\":\"Is it raining in Montreal?\",\"tools\":[{\"name\":\"get_weather\",\"description\":\"Weather.\",\"input_schema\":{\"type\":\"object\"}}]}\n"
        );
        assert!(a.calls.is_empty());
        assert_eq!(a.stop, Stop::EndTurn);
    }

    #[test]
    fn one_call_a_list_of_calls_and_a_calls_object() {
        let a = parse(r#"{"tool": "get_weather", "args": {"city": "Montreal"}, "text": "ok"}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.calls.len(), 1);
        assert_eq!(a.calls[0].args, Ok(json!({"city": "Montreal"})));
        assert_eq!((a.text.as_str(), a.stop), ("ok", Stop::ToolUse));
        let a = parse(r#"[{"tool": "a", "args": null}, {"tool": "b", "args": {"x": 1}}]"#)
            .unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = a.calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(a.calls[0].args, Ok(json!({})));
        let a = parse(r#"{"calls": [{"tool": "a"}], "text": 3}"#).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((a.calls.len(), a.text.as_str()), (1, "3"));
        let a = parse(r#"{"tool": null}"#).unwrap_or_else(|e| panic!("{e}"));
        assert!(a.calls.is_empty());
    }

    #[test]
    fn bad_answers_are_transient_with_the_reason() {
        let err = parse("not json at all").unwrap_err();
        assert_eq!(err, OutputError::InvalidJson("not json at all".into()));
        assert_eq!(
            err.to_string(),
            "eval command printed invalid JSON: \"not json at all\""
        );
        assert_eq!(parse(r#"{"tool": 3}"#), Err(OutputError::ToolNotAString));
        assert_eq!(
            OutputError::ToolNotAString.to_string(),
            "eval command: 'tool' must be a string or null"
        );
        assert_eq!(
            parse(r#"{"tool": "a", "args": [1]}"#),
            Err(OutputError::ArgsNotAnObject)
        );
        assert_eq!(parse("42"), Err(OutputError::NotAnObject));
        assert_eq!(
            OutputError::NotAnObject.to_string(),
            "eval command must print a JSON object like {\"tool\": \"name\", \"args\": {}}"
        );
        assert_eq!(parse(r#"{"calls": 1}"#), Err(OutputError::CallsNotAList));
        assert_eq!(parse("[3]"), Err(OutputError::CallNotAnObject));
    }

    #[test]
    fn a_failing_program_reports_its_exit_and_stderr_tail() {
        let long = "e".repeat(800);
        let spec = sh(&format!("echo start >&2; echo {long}x >&2; exit 3"), SECOND);
        let err = ask(&spec).unwrap_err();
        assert!(!err.is_fatal());
        let m = err.message();
        assert!(m.starts_with("eval command exited with code 3: eee"), "{m}");
        assert!(m.ends_with("ex"), "{m}");
        assert!(!m.contains("start"), "{m}");
    }

    #[test]
    fn a_slow_program_is_killed_at_the_timeout() {
        let pid_file = std::env::temp_dir().join(format!("toolproof-slow-{}", std::process::id()));
        let script = format!("echo $$ > {}; sleep 30; echo '{{}}'", pid_file.display());
        let spec = sh(&script, Duration::from_millis(300));
        let err = ask(&spec).unwrap_err();
        assert_eq!(
            err,
            ProviderError::Transient("eval command timed out after 0.3s".into())
        );
        // Killed and reaped, not left sleeping.
        let pid = std::fs::read_to_string(&pid_file).unwrap_or_default();
        let _ = std::fs::remove_file(&pid_file);
        assert!(!pid.trim().is_empty());
        assert!(
            !std::path::Path::new(&format!("/proc/{}", pid.trim())).exists(),
            "{pid}"
        );
    }

    #[test]
    fn a_flood_on_stderr_is_drained_not_cut_off() {
        // `set -e`: a program that checks its writes dies if its stderr is closed early.
        let spec = sh(
            "set -e; head -c 17000000 /dev/zero >&2; echo '{\"tool\": \"t\"}'",
            SECOND,
        );
        let a = ask(&spec).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.calls[0].name, "t");
        // When such a program then fails, the quoted tail is the end of what it wrote.
        let spec = sh(
            "head -c 17000000 /dev/zero >&2; echo last words >&2; exit 4",
            SECOND,
        );
        let m = ask(&spec).unwrap_err().message().to_owned();
        assert!(
            m.starts_with("eval command exited with code 4: "),
            "{}",
            &m[..60]
        );
        assert!(m.ends_with("\0last words"), "{}", &m[m.len() - 40..]);
    }

    #[test]
    fn a_flood_on_stdout_is_named_with_the_limit() {
        let spec = sh(
            "head -c 17000000 /dev/zero | tr '\\0' ' '; echo '{\"tool\": \"t\"}'",
            SECOND,
        );
        let err = ask(&spec).unwrap_err();
        assert_eq!(
            err.message(),
            "eval command: the program printed more than 16 MiB on stdout"
        );
    }

    #[test]
    fn the_answer_counts_at_the_exit_even_if_a_child_holds_stdout() {
        let pid_file =
            std::env::temp_dir().join(format!("toolproof-holder-{}", std::process::id()));
        let script = format!(
            "sleep 600 & echo $! > {}; echo '{{\"tool\": \"t\"}}'",
            pid_file.display()
        );
        let a = ask(&sh(&script, SECOND)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.calls[0].name, "t");
        // The child was ended with the program's process group. The answer came at EOF, which
        // the child gave only by exiting: it is gone, a zombie, or past releasing its memory
        // (a sleeping `sleep` has a non-zero virtual size, field 23 of its stat).
        let pid = std::fs::read_to_string(&pid_file).unwrap_or_default();
        let _ = std::fs::remove_file(&pid_file);
        assert!(!pid.trim().is_empty());
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()));
        let fields: Vec<String> = stat
            .as_deref()
            .ok()
            .and_then(|s| s.rsplit_once(") "))
            .map(|(_, rest)| rest.split(' ').map(str::to_owned).collect())
            .unwrap_or_default();
        let exiting = fields.first().is_some_and(|s| s == "Z" || s == "X")
            || fields.get(20).is_some_and(|v| v == "0");
        assert!(stat.is_err() || exiting, "{pid}: {fields:?}");
    }

    #[test]
    fn a_missing_program_is_fatal() {
        let spec = CommandSpec::new(
            vec!["toolproof-no-such-picker".into()],
            std::env::temp_dir(),
            SECOND,
        );
        let err = ask(&spec).unwrap_err();
        assert!(err.is_fatal());
        assert_eq!(
            err.message(),
            "eval command not found: toolproof-no-such-picker"
        );
        assert!(
            err.hint()
                .is_some_and(|h| h.starts_with("evals.command runs without a shell from ")),
            "{err}"
        );
    }

    #[test]
    fn the_program_runs_in_its_folder_with_the_environment() {
        let dir = std::env::temp_dir().canonicalize().unwrap_or_default();
        let spec = CommandSpec::new(
            vec![
                "sh".into(),
                "-c".into(),
                r#"printf '{"tool": "t", "args": {"cwd": "%s", "path_set": %s}}' "$(pwd -P)" "$([ -n "$PATH" ] && echo true || echo false)""#.into(),
            ],
            dir.clone(),
            SECOND,
        );
        let a = ask(&spec).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            a.calls[0].args,
            Ok(json!({"cwd": dir.display().to_string(), "path_set": true}))
        );
    }

    #[test]
    fn an_absurd_usage_is_not_reported_and_a_misshapen_one_is_an_error() {
        let absurd = r#"{"tool": "echo", "args": {}, "usage": {"input_tokens": 18446744073709551615, "output_tokens": 1}}"#;
        assert_eq!(
            parse(absurd).map(|a| (a.usage, a.usage_unbelievable)),
            Ok((None, true))
        );
        let sane =
            r#"{"tool": "echo", "args": {}, "usage": {"input_tokens": 12, "output_tokens": 1}}"#;
        assert_eq!(parse(sane).map(|a| a.usage.map(|u| u.input)), Ok(Some(12)));
        assert_eq!(parse(sane).map(|a| a.usage_unbelievable), Ok(false));
        let bad =
            r#"{"tool": "echo", "args": {}, "usage": {"input_tokens": -1, "output_tokens": 1}}"#;
        assert!(matches!(parse(bad), Err(OutputError::BadUsage)));
    }
}
