//! The directives a prompt carries (`[[call add {"a": 2}]]`, `[[status 429 times=2]]`…) and
//! the per-prompt attempt counters that `times=` counts against.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;

/// A tool call the answer will contain.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// A call with an arguments object.
    Args { name: String, args: Value },
    /// A call whose arguments are this raw text, not a JSON object.
    Malformed { name: String, raw: String },
}

/// `[[status CODE …]]`: answer with an error.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Status {
    /// The HTTP status.
    pub code: u16,
    /// `retry-after` header value.
    pub retry_after: Option<String>,
    /// `retry-after-ms` header value.
    pub retry_after_ms: Option<String>,
    /// `x-should-retry` header value.
    pub should_retry: Option<String>,
    /// The error message (`msg=` takes the rest of the directive).
    pub msg: Option<String>,
    /// Say the quota or spend limit is exhausted.
    pub quota: bool,
    /// Quote the key the request carried in the message (as careless APIs do).
    pub echo_key: bool,
}

/// Everything a prompt asks of the fake model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    /// Calls, in order.
    pub calls: Vec<Call>,
    /// Text parts, joined with a space.
    pub text: Vec<String>,
    /// Decline to answer.
    pub refuse: bool,
    /// Stop as if out of tokens.
    pub max_tokens: bool,
    /// OpenAI: `content: ""` beside the tool calls instead of `null`.
    pub content_empty: bool,
    /// Answer 200 with a body that is not JSON.
    pub nonsense: bool,
    /// Answer 200 with an empty body.
    pub empty: bool,
    /// Answer 200 with the first half of the JSON answer.
    pub truncated: bool,
    /// Answer 200 with a JSON body of this many MiB (not the API's shape).
    pub huge_mib: u64,
    /// Extra wait before answering, in milliseconds.
    pub sleep_ms: u64,
    /// Close the connection without answering, on the first N attempts (`None` = always).
    pub drop: Option<Option<u64>>,
    /// Answer with an error on the first N attempts (`None` = always).
    pub status: Option<(Status, Option<u64>)>,
    /// Leave `usage` out of the answer.
    pub no_usage: bool,
    /// `[[usage-tokens N]]`: report N input and N output tokens, whatever was asked.
    pub usage_tokens: Option<u64>,
    /// Whether the prompt had any directive at all.
    pub directed: bool,
    /// In a batch: the request expires, the first N times it is in one (`None` = always).
    pub batch_expire: Option<Option<u64>>,
    /// `[[from-context NAME KEY]]`: call NAME with the number the earlier turns mention.
    pub from_context: Option<(String, String)>,
}

/// What `{{key}}` in answer text and call arguments stands for: the credential the request
/// carried, so a test can make the model echo the API key without the key being in the prompt.
pub const KEY_PLACEHOLDER: &str = "{{key}}";

impl Script {
    /// Replaces [`KEY_PLACEHOLDER`] with `key` in the answer's text, in every string (and key)
    /// of the calls' arguments, and in malformed raw arguments.
    pub fn echo_key(&mut self, key: &str) {
        for text in &mut self.text {
            *text = text.replace(KEY_PLACEHOLDER, key);
        }
        for call in &mut self.calls {
            match call {
                Call::Args { args, .. } => fill(args, key),
                Call::Malformed { raw, .. } => *raw = raw.replace(KEY_PLACEHOLDER, key),
            }
        }
    }

    /// Whether this attempt (1-based) is dropped.
    pub fn drops(&self, attempt: u64) -> bool {
        matches!(self.drop, Some(times) if times.is_none_or(|n| attempt <= n))
    }

    /// The error this attempt (1-based) gets, if any.
    pub fn status(&self, attempt: u64) -> Option<&Status> {
        match &self.status {
            Some((s, times)) if times.is_none_or(|n| attempt <= n) => Some(s),
            _ => None,
        }
    }
}

/// Reads every `[[…]]` directive in a prompt. Unknown directives are errors.
pub fn parse(prompt: &str) -> Result<Script, String> {
    let mut script = Script::default();
    let mut rest = prompt;
    while let Some(start) = rest.find("[[") {
        let inner = &rest[start + 2..];
        let (word, after_word) = split_word(inner);
        script.directed = true;
        let body_end;
        match word {
            "call" | "malformed" => {
                let (name, after_name) = split_word(after_word.trim_start());
                if name.is_empty() || name.contains("]]") {
                    return Err(format!("[[{word}]] needs a tool name"));
                }
                let tail = after_name.trim_start();
                if word == "call" {
                    let (args, used) = if tail.starts_with("]]") {
                        (Value::Object(Default::default()), 0)
                    } else {
                        let mut stream =
                            serde_json::Deserializer::from_str(tail).into_iter::<Value>();
                        match stream.next() {
                            Some(Ok(v)) if v.is_object() => (v, stream.byte_offset()),
                            _ => {
                                return Err(format!(
                                    "[[call {name} …]]: the arguments must be a JSON object"
                                ));
                            }
                        }
                    };
                    let after_args = tail[used..].trim_start();
                    if !after_args.starts_with("]]") {
                        return Err(format!("[[call {name} …]] is not closed with ]]"));
                    }
                    script.calls.push(Call::Args {
                        name: name.to_owned(),
                        args,
                    });
                    body_end = offset(rest, after_args) + 2;
                } else {
                    let end = tail.find("]]").ok_or("[[malformed …]] is not closed")?;
                    script.calls.push(Call::Malformed {
                        name: name.to_owned(),
                        raw: tail[..end].to_owned(),
                    });
                    body_end = offset(rest, tail) + end + 2;
                }
            }
            _ => {
                let end = after_word
                    .find("]]")
                    .ok_or_else(|| format!("[[{word} …]] is not closed"))?;
                let arg = after_word[..end].trim();
                apply(&mut script, word, arg)?;
                body_end = offset(rest, after_word) + end + 2;
            }
        }
        rest = &rest[body_end..];
    }
    Ok(script)
}

fn apply(script: &mut Script, word: &str, arg: &str) -> Result<(), String> {
    match word {
        "text" => script.text.push(arg.to_owned()),
        "refuse" => script.refuse = true,
        "max_tokens" => script.max_tokens = true,
        "content-empty" => script.content_empty = true,
        "no-usage" => script.no_usage = true,
        "usage-tokens" => {
            script.usage_tokens = Some(
                arg.parse::<u64>()
                    .map_err(|_| format!("[[usage-tokens {arg}]]: give a whole number"))?,
            );
        }
        "nonsense" => script.nonsense = true,
        "empty" => script.empty = true,
        "truncated" => script.truncated = true,
        "from-context" => {
            let (name, key) = arg
                .split_once(' ')
                .map(|(n, k)| (n.trim(), k.trim()))
                .filter(|(n, k)| !n.is_empty() && !k.is_empty() && !k.contains(' '))
                .ok_or_else(|| {
                    format!("[[from-context {arg}]]: give a tool name and an argument name")
                })?;
            script.from_context = Some((name.to_owned(), key.to_owned()));
        }
        "huge" => {
            script.huge_mib = arg
                .parse::<u64>()
                .ok()
                .filter(|n| (1..=1024).contains(n))
                .ok_or_else(|| format!("[[huge {arg}]]: give MiB from 1 to 1024"))?;
        }
        "sleep" => {
            script.sleep_ms += arg
                .parse::<u64>()
                .map_err(|_| format!("[[sleep {arg}]]: give milliseconds"))?;
        }
        "drop" => {
            let (_, times) = options(arg)?;
            script.drop = Some(times);
        }
        "batch-expire" => {
            let (_, times) = options(arg)?;
            script.batch_expire = Some(times);
        }
        "status" => {
            let (code, opts) = arg.split_once(' ').unwrap_or((arg, ""));
            let code: u16 = code
                .parse()
                .ok()
                .filter(|c| (100..600).contains(c))
                .ok_or_else(|| format!("[[status {arg}]]: give an HTTP status first"))?;
            let mut status = Status {
                code,
                ..Status::default()
            };
            let (pairs, times) = options(opts)?;
            for (k, v) in pairs {
                match k.as_str() {
                    "retry-after" => status.retry_after = Some(v),
                    "retry-after-ms" => status.retry_after_ms = Some(v),
                    "should-retry" => status.should_retry = Some(v),
                    "msg" => status.msg = Some(v),
                    "quota" => status.quota = true,
                    "echo-key" => status.echo_key = true,
                    other => return Err(format!("[[status]]: unknown option `{other}`")),
                }
            }
            script.status = Some((status, times));
        }
        other => return Err(format!("unknown directive [[{other}]]")),
    }
    Ok(())
}

/// Replaces [`KEY_PLACEHOLDER`] with `key` in every string and object key of `value`.
fn fill(value: &mut Value, key: &str) {
    match value {
        Value::String(s) => *s = s.replace(KEY_PLACEHOLDER, key),
        Value::Array(items) => items.iter_mut().for_each(|v| fill(v, key)),
        Value::Object(map) => {
            let old = std::mem::take(map);
            for (k, mut v) in old {
                fill(&mut v, key);
                map.insert(k.replace(KEY_PLACEHOLDER, key), v);
            }
        }
        _ => {}
    }
}

/// `k=v` options separated by spaces, `msg=` taking the rest; `times=N` pulled out.
#[allow(clippy::type_complexity)]
fn options(text: &str) -> Result<(Vec<(String, String)>, Option<u64>), String> {
    let mut pairs = Vec::new();
    let mut times = None;
    let mut rest = text.trim();
    while !rest.is_empty() {
        let (item, tail) = if rest.starts_with("msg=") {
            (rest, "")
        } else {
            rest.split_once(' ').unwrap_or((rest, ""))
        };
        let (k, v) = item.split_once('=').unwrap_or((item, ""));
        if k == "times" {
            times = Some(
                v.parse()
                    .map_err(|_| format!("times={v}: give a number of attempts"))?,
            );
        } else {
            pairs.push((k.to_owned(), v.to_owned()));
        }
        rest = tail.trim_start();
    }
    Ok((pairs, times))
}

/// The first word and what follows it.
fn split_word(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| c.is_whitespace() || c == ']')
        .unwrap_or(text.len());
    (&text[..end], &text[end..])
}

/// Byte offset of `part` (a subslice) inside `whole`.
fn offset(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

/// Attempts seen per prompt, shared by every connection thread.
#[derive(Debug, Default)]
pub struct Attempts {
    seen: Mutex<HashMap<String, u64>>,
}

impl Attempts {
    /// Counts one more attempt at `prompt` and returns its number (from 1).
    pub fn next(&self, prompt: &str) -> u64 {
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = seen.entry(prompt.to_owned()).or_insert(0);
        *n += 1;
        *n
    }
}

/// The keyword rule for prompts without directives: the longest tool name that appears in the
/// prompt (case-insensitive, `_` and `-` also matching spaces).
pub fn keyword_pick<'a>(prompt: &str, tools: &[&'a str]) -> Option<&'a str> {
    let prompt = prompt.to_lowercase();
    tools
        .iter()
        .filter(|name| {
            let name = name.to_lowercase();
            !name.is_empty()
                && (prompt.contains(&name) || prompt.contains(&name.replace(['_', '-'], " ")))
        })
        .max_by_key(|name| name.len())
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn directives() {
        let s =
            parse(r#"add [[call add {"a": [[1]], "b": 3}]] and [[call echo]] [[text hi there]]"#)
                .unwrap();
        assert_eq!(
            s.calls,
            [
                Call::Args {
                    name: "add".into(),
                    args: json!({"a": [[1]], "b": 3})
                },
                Call::Args {
                    name: "echo".into(),
                    args: json!({})
                }
            ]
        );
        assert_eq!(s.text, ["hi there"]);
        let s = parse("[[status 429 times=2 retry-after-ms=200]] [[malformed add {oops]]").unwrap();
        let (status, times) = s.status.clone().unwrap();
        assert_eq!((status.code, times), (429, Some(2)));
        assert_eq!(status.retry_after_ms.as_deref(), Some("200"));
        assert!(s.status(2).is_some() && s.status(3).is_none());
        assert_eq!(
            s.calls,
            [Call::Malformed {
                name: "add".into(),
                raw: "{oops".into()
            }]
        );
        let s = parse("[[status 400 msg=bad params here]]").unwrap();
        assert_eq!(
            s.status(1).and_then(|s| s.msg.clone()).as_deref(),
            Some("bad params here")
        );
        assert!(parse("[[bogus]]").is_err());
        assert!(parse("[[call add {oops]]").is_err());
        assert!(!parse("plain prompt").unwrap().directed);
    }

    #[test]
    fn the_key_placeholder_is_filled_in_text_and_arguments() {
        let mut s = parse(r#"[[text my key: {{key}}]] [[call echo {"text": "k={{key}}", "{{key}}": [1]}]] [[malformed add {{{key}}]]"#)
            .unwrap();
        s.echo_key("sk-1");
        assert_eq!(s.text, ["my key: sk-1"]);
        assert_eq!(
            s.calls,
            [
                Call::Args {
                    name: "echo".into(),
                    args: json!({"text": "k=sk-1", "sk-1": [1]})
                },
                Call::Malformed {
                    name: "add".into(),
                    raw: "{sk-1".into()
                }
            ]
        );
    }

    #[test]
    fn keyword_rule() {
        let tools = ["add", "add_many", "get_weather"];
        assert_eq!(
            keyword_pick("please ADD_MANY numbers", &tools),
            Some("add_many")
        );
        assert_eq!(
            keyword_pick("get weather in Paris", &tools),
            Some("get_weather")
        );
        assert_eq!(keyword_pick("hello", &tools), None);
    }

    #[test]
    fn attempts_count_per_prompt() {
        let a = Attempts::default();
        assert_eq!((a.next("x"), a.next("x"), a.next("y")), (1, 2, 1));
    }
}
