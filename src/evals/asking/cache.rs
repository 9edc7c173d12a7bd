//! The eval answer cache: `<cache_dir>/evals/<sha256>.json`, one file per answer, keyed and
//! laid out exactly as mcp-toolproof 0.3.1 does it, so a cache that package wrote (and
//! committed) replays here with no request and no API key, and the reverse.
//!
//! - [`key`] / [`Keyer`]: the sha256 of Python's `json.dumps` of the key material, byte for byte.
//! - [`Cache`]: read, atomic write, list and prune the files.
//!
//! A file holds `{"provider", "model", "prompt", "tool", "args", "text"}` (the reference's
//! fields: `tool` is the MCP name of the first call or null, `args` its arguments) and, when
//! toolproof wrote it, `"calls"` (every call), `"stop"`, `"usage"` and `"tool_digests"` (each
//! tool of the list sent, with a digest of its definition: what [`Cache::why_missed`] compares
//! with today's list when a prompt has no answer). Written with two-space indent, UTF-8
//! as is, and a trailing newline, as the reference writes it.

mod key;
mod missed;
pub(crate) mod pyjson;

#[cfg(test)]
pub(crate) use key::key;
pub(crate) use key::{Keyer, context_material, tool_digest};
pub(crate) use missed::RecordedElsewhere;

use std::collections::HashSet;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value, json};

use crate::evals::Call;
use crate::evals::Choice;
use crate::evals::Stop;
use crate::provider::usage::Recorded;
use pyjson::Style;

/// The text the reference stores for a refusal (with no tool); read back as [`Stop::Refusal`].
pub(crate) const REFUSAL_TEXT: &str = "(the model declined to answer)";

/// What a cache lookup found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Lookup {
    /// A stored answer.
    Hit(Choice),
    /// No file for this key.
    Miss,
    /// A file exists but can't be used. Treat it as a miss and warn.
    Corrupt(CorruptEntry),
}

/// A cache file that exists but cannot be used; its text names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CorruptEntry {
    /// Reading it failed.
    #[error("cannot read cache file {}: {reason}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// It is not a cache entry.
    #[error("cache file {}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with its content.
        reason: EntryError,
    },
}

/// Why a cache file's text is not an entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EntryError {
    /// Not JSON at all.
    #[error("not valid JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("not a JSON object")]
    NotAnObject,
    /// No `tool` field (the reference always writes one).
    #[error("no \"tool\" field")]
    NoTool,
    /// A field of the wrong JSON type.
    #[error("\"{field}\" is {got}, not {want}")]
    WrongType {
        /// The field.
        field: &'static str,
        /// Its JSON type, with an article.
        got: &'static str,
        /// What it must be.
        want: &'static str,
    },
    /// `calls` is not a list of calls.
    #[error("\"calls\" is not a list of calls: {0}")]
    BadCalls(String),
    /// `stop` is not a stop reason.
    #[error("\"stop\" is not a stop reason: {0}")]
    BadStop(String),
}

/// What [`Cache::prune`] found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pruned {
    /// The files no current case can hit, sorted.
    pub stale: Vec<PathBuf>,
    /// Those that could not be removed, with the reason (only with `apply`).
    pub failed: Vec<(PathBuf, String)>,
}

/// The answer cache folder, `<cache_dir>/evals`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cache {
    dir: PathBuf,
    /// The tool list the answers written are recorded for: each tool's name and
    /// [`tool_digest`], in list order (none: no `tool_digests` member is written).
    tools: Option<Vec<(String, String)>>,
}

/// Distinguishes temp files of concurrent writers within one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The largest cache entry read. One answer to one prompt is a few KiB; 4 MiB leaves room for
/// long text and many calls, and keeps a stray huge file from being loaded.
pub(crate) const ENTRY_LIMIT: u64 = 4 << 20;

impl Cache {
    /// The cache under `cache_dir` (the configured `cache_dir`, already resolved against the
    /// YAML's folder); files live in its `evals` subfolder. Nothing is touched on disk.
    pub(crate) fn new(cache_dir: &Path) -> Cache {
        Cache {
            dir: cache_dir.join("evals"),
            tools: None,
        }
    }

    /// The same cache, writing each answer with the tool list it was recorded for (names and
    /// [`tool_digest`]s, in list order).
    pub(crate) fn recording_tools(mut self, tools: Vec<(String, String)>) -> Cache {
        self.tools = Some(tools);
        self
    }

    #[cfg(test)]
    /// The folder holding the files (`<cache_dir>/evals`).
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of one key.
    pub(crate) fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// Looks a key up. A missing file is a [`Lookup::Miss`]; a file that can't be read or isn't
    /// a cache entry is [`Lookup::Corrupt`].
    pub(crate) fn read(&self, key: &str) -> Lookup {
        self.read_recorded(key).0
    }

    /// [`Cache::read`], with the usage the entry recorded (`None` for a file written before
    /// usage was kept, or by the reference).
    pub(crate) fn read_recorded(&self, key: &str) -> (Lookup, Option<Recorded>) {
        let path = self.path(key);
        let text = match crate::evals::read_capped(&path, ENTRY_LIMIT, "a cache entry") {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return (Lookup::Miss, None),
            Err(e) => {
                let corrupt = CorruptEntry::Unreadable {
                    path,
                    reason: e.to_string(),
                };
                return (Lookup::Corrupt(corrupt), None);
            }
        };
        match parse_entry_recorded(&text) {
            Ok((choice, recorded)) => (Lookup::Hit(choice), recorded),
            Err(reason) => (
                Lookup::Corrupt(CorruptEntry::Invalid { path, reason }),
                None,
            ),
        }
    }

    /// Stores an answer under `key`, atomically: the text goes to a temp file in the same
    /// folder, which is then renamed over the entry, so a reader sees the old file or the new
    /// one, never a part. `choice` holds MCP tool names. Creates the folder if needed. `key`
    /// must be a key of [`key`] (64 lowercase hex digits).
    ///
    /// The choice is stored as given: the engine masks the run's secrets in it first, so an
    /// answer in which the model echoed a key is stored (and replays) redacted.
    #[cfg(test)]
    pub(crate) fn write(
        &self,
        key: &str,
        choice: &Choice,
        provider: &str,
        model: &str,
        prompt: &str,
    ) -> io::Result<()> {
        self.write_recorded(key, choice, None, (provider, model, prompt))
    }

    /// [`Cache::write`], with the usage to record beside the answer (its `usage` member).
    pub(crate) fn write_recorded(
        &self,
        key: &str,
        choice: &Choice,
        recorded: Option<&Recorded>,
        (provider, model, prompt): (&str, &str, &str),
    ) -> io::Result<()> {
        if entry_key(&format!("{key}.json")).is_none() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("cache key {key:?} is not a sha256 hex digest"),
            ));
        }
        fs::create_dir_all(&self.dir).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot create cache folder {}: {e}", self.dir.display()),
            )
        })?;
        let text = entry_text_recorded(
            choice,
            recorded,
            self.tools.as_deref(),
            (provider, model, prompt),
        );
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = self
            .dir
            .join(format!(".{key}.{}.{n}{TEMP_SUFFIX}", std::process::id()));
        let written = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| with_path(e, "write", &temp))
            .and_then(|()| {
                let target = self.path(key);
                fs::rename(&temp, &target).map_err(|e| with_path(e, "replace", &target))
            });
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        written
    }

    #[cfg(test)]
    /// Every key that has a file (`<64 hex digits>.json`), sorted. A missing folder has none.
    pub(crate) fn keys(&self) -> io::Result<Vec<String>> {
        let mut keys: Vec<String> = self
            .entries()?
            .into_iter()
            .filter_map(|name| entry_key(&name).map(str::to_owned))
            .collect();
        keys.sort();
        Ok(keys)
    }

    /// The files no current case can hit: entries whose key is not in `keep`, and temp files a
    /// killed writer left behind. Other files are never touched. With `apply` they are removed;
    /// one that cannot be removed (a folder named like an entry, a read-only folder) is skipped
    /// and named in [`Pruned::failed`], and the rest are still removed. Sorted paths. Fails
    /// only when the folder cannot be listed.
    pub(crate) fn prune(&self, keep: &HashSet<String>, apply: bool) -> io::Result<Pruned> {
        let mut stale: Vec<PathBuf> = self
            .entries()?
            .into_iter()
            .filter(|name| match entry_key(name) {
                Some(key) => !keep.contains(key),
                None => is_temp(name),
            })
            .map(|name| self.dir.join(name))
            .collect();
        stale.sort();
        let mut failed = Vec::new();
        if apply {
            for path in &stale {
                match fs::remove_file(path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => failed.push((path.clone(), e.to_string())),
                }
            }
        }
        Ok(Pruned { stale, failed })
    }

    /// File names in the folder (UTF-8 ones; cache files always are).
    fn entries(&self) -> io::Result<Vec<String>> {
        let read = match fs::read_dir(&self.dir) {
            Ok(r) => r,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(with_path(e, "list", &self.dir)),
        };
        let mut names = Vec::new();
        for entry in read {
            let entry = entry.map_err(|e| with_path(e, "list", &self.dir))?;
            if let Ok(name) = entry.file_name().into_string() {
                names.push(name);
            }
        }
        Ok(names)
    }
}

const TEMP_SUFFIX: &str = ".tmp";

/// The key of an entry file name, if it is one.
fn entry_key(name: &str) -> Option<&str> {
    let key = name.strip_suffix(".json")?;
    (key.len() == 64 && key.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))).then_some(key)
}

/// A temp file of [`Cache::write`]: `.<key>.<pid>.<n>.tmp`.
fn is_temp(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|rest| rest.strip_suffix(TEMP_SUFFIX))
        .and_then(|rest| rest.split('.').next())
        .is_some_and(|key| entry_key(&format!("{key}.json")).is_some())
}

fn with_path(e: io::Error, what: &str, path: &Path) -> io::Error {
    io::Error::new(
        e.kind(),
        format!("cannot {what} cache file {}: {e}", path.display()),
    )
}

/// The text of a cache file: the reference's fields first, then toolproof's.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn entry_text(choice: &Choice, provider: &str, model: &str, prompt: &str) -> String {
    entry_text_recorded(choice, None, None, (provider, model, prompt))
}

/// [`entry_text`], with a `usage` member when `recorded` is given and a `tool_digests` member
/// (`{"name": "digest", …}` in list order) last when `tools` is.
pub(crate) fn entry_text_recorded(
    choice: &Choice,
    recorded: Option<&Recorded>,
    tools: Option<&[(String, String)]>,
    (provider, model, prompt): (&str, &str, &str),
) -> String {
    let first = choice.calls.first();
    let mut map = Map::new();
    map.insert("provider".into(), provider.into());
    map.insert("model".into(), model.into());
    map.insert("prompt".into(), prompt.into());
    map.insert(
        "tool".into(),
        first.map_or(Value::Null, |c| c.tool.clone().into()),
    );
    map.insert(
        "args".into(),
        first.map_or_else(|| Value::Object(Map::new()), |c| c.args.clone()),
    );
    map.insert("text".into(), choice.text.clone().into());
    let calls = choice
        .calls
        .iter()
        .map(|c| {
            let mut call = Map::new();
            call.insert("tool".into(), c.tool.clone().into());
            call.insert("args".into(), c.args.clone());
            if let Some(raw) = &c.malformed {
                call.insert("malformed".into(), raw.clone().into());
            }
            Value::Object(call)
        })
        .collect();
    map.insert("calls".into(), Value::Array(calls));
    map.insert("stop".into(), stop_value(&choice.stop));
    if let Some(r) = recorded {
        map.insert("usage".into(), r.to_value());
    }
    if let Some(tools) = tools {
        let digests = tools
            .iter()
            .map(|(name, digest)| (name.clone(), Value::String(digest.clone())))
            .collect();
        map.insert("tool_digests".into(), Value::Object(digests));
    }
    let mut text = pyjson::dumps(&Value::Object(map), Style::FILE);
    text.push('\n');
    text
}

fn stop_value(stop: &Stop) -> Value {
    match stop {
        Stop::ToolUse => "tool_use".into(),
        Stop::EndTurn => "end_turn".into(),
        Stop::MaxTokens => "max_tokens".into(),
        Stop::Refusal => "refusal".into(),
        Stop::Other(s) => json!({ "other": s }),
    }
}

/// Reads a cache file's text into a [`Choice`]. A file with `calls` was written by toolproof;
/// one without came from the reference, which kept only the first call.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn parse_entry(text: &str) -> Result<Choice, EntryError> {
    parse_entry_recorded(text).map(|(choice, _)| choice)
}

/// [`parse_entry`], with the `usage` member when there is a usable one (one that is not is
/// left out: the answer still replays).
pub(crate) fn parse_entry_recorded(text: &str) -> Result<(Choice, Option<Recorded>), EntryError> {
    // Integers beyond 64 bits keep their digits, as the reference's `json.load` keeps them.
    // The members read are picked out directly; a text that is not a plain object of distinct
    // members (a duplicate key, not an object, not JSON) goes the long way, through a `Value`,
    // which keeps the last of duplicates and words each error.
    let members = match crate::pycompat::bigint::from_str_as::<Members>(text) {
        Ok(members) => members,
        Err(_) => Members::through_value(text)?,
    };
    let recorded = members.usage.as_ref().and_then(Recorded::from_value);
    members.choice().map(|choice| (choice, recorded))
}

/// The members of a cache entry a replay reads, each as written (`Some(Null)` for `null`,
/// `None` when absent); the rest (`provider`, `model`, `prompt`, `tool_digests`) are skipped
/// unread. Only a JSON object with no member twice deserializes into it.
#[derive(Debug, Default, PartialEq)]
struct Members {
    tool: Option<Value>,
    args: Option<Value>,
    text: Option<Value>,
    calls: Option<Value>,
    stop: Option<Value>,
    usage: Option<Value>,
}

impl<'de> serde::Deserialize<'de> for Members {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(MembersVisitor)
    }
}

struct MembersVisitor;

impl<'de> serde::de::Visitor<'de> for MembersVisitor {
    type Value = Members;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a cache entry object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
        let mut m = Members::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let slot = match key.as_ref() {
                "tool" => &mut m.tool,
                "args" => &mut m.args,
                "text" => &mut m.text,
                "calls" => &mut m.calls,
                "stop" => &mut m.stop,
                "usage" => &mut m.usage,
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    continue;
                }
            };
            if slot.is_some() {
                return Err(serde::de::Error::custom(format_args!("`{key}` twice")));
            }
            *slot = Some(map.next_value()?);
        }
        Ok(m)
    }
}

impl Members {
    /// The members read through a whole `Value`: the way that words every error.
    fn through_value(text: &str) -> Result<Members, EntryError> {
        let value: Value = crate::pycompat::bigint::from_str(text)
            .map_err(|e| EntryError::NotJson(e.to_string()))?;
        let Value::Object(mut map) = value else {
            return Err(EntryError::NotAnObject);
        };
        Ok(Members {
            tool: map.remove("tool"),
            args: map.remove("args"),
            text: map.remove("text"),
            calls: map.remove("calls"),
            stop: map.remove("stop"),
            usage: map.remove("usage"),
        })
    }

    fn choice(self) -> Result<Choice, EntryError> {
        let tool = match self.tool {
            None => return Err(EntryError::NoTool),
            Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => return Err(wrong_type("tool", &other, "a string or null")),
        };
        let text = match self.text {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s,
            Some(other) => return Err(wrong_type("text", &other, "a string")),
        };
        if let Some(calls) = self.calls {
            let calls: Vec<Call> =
                serde_json::from_value(calls).map_err(|e| EntryError::BadCalls(e.to_string()))?;
            let stop = match self.stop {
                Some(s) => {
                    serde_json::from_value(s).map_err(|e| EntryError::BadStop(e.to_string()))?
                }
                None => implied_stop(!calls.is_empty(), &text),
            };
            return Ok(Choice { calls, text, stop });
        }
        let stop = implied_stop(tool.is_some(), &text);
        let calls = match tool {
            None => Vec::new(),
            Some(tool) => vec![reference_call(tool, self.args)?],
        };
        Ok(Choice { calls, text, stop })
    }
}

/// The stop reason of a reference file, which doesn't record one.
fn implied_stop(called: bool, text: &str) -> Stop {
    if called {
        Stop::ToolUse
    } else if text == REFUSAL_TEXT {
        Stop::Refusal
    } else {
        Stop::EndTurn
    }
}

/// The one call of a reference file. A missing or null `args` is `{}`. The reference stored
/// OpenAI arguments that weren't JSON as `{"_unparsed": raw}`; that reads as malformed.
fn reference_call(tool: String, args: Option<Value>) -> Result<Call, EntryError> {
    match args {
        None | Some(Value::Null) => Ok(Call {
            tool,
            args: Value::Object(Map::new()),
            malformed: None,
        }),
        Some(Value::Object(mut map)) => {
            if map.len() == 1
                && matches!(map.get("_unparsed"), Some(Value::String(_)))
                && let Some(Value::String(raw)) = map.remove("_unparsed")
            {
                return Ok(Call {
                    tool,
                    args: Value::Object(Map::new()),
                    malformed: Some(raw),
                });
            }
            Ok(Call {
                tool,
                args: Value::Object(map),
                malformed: None,
            })
        }
        Some(other) => Err(wrong_type("args", &other, "an object")),
    }
}

fn wrong_type(field: &'static str, got: &Value, want: &'static str) -> EntryError {
    EntryError::WrongType {
        field,
        got: kind(got),
        want,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod context_tests;
#[cfg(test)]
mod tests;
