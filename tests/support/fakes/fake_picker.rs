//! A stand-in model for the command provider in toolproof's tests: one request on stdin, one
//! answer on stdout, chosen by directives in the prompt. A native binary, so the tests that ask
//! it hundreds of times do not pay an interpreter's start each time.
//!
//! `fake_picker` (the scripted picker):
//!
//! | Directive | Answer |
//! |---|---|
//! | `[[call NAME {json}]]` | one call (repeat for several) |
//! | `[[call:MODEL NAME {json}]]` | a call only when the request's model is MODEL |
//! | `[[flip NAME {json}]]` | NAME on odd-numbered asks of this prompt, no tool on even ones |
//! | `[[nth K NAME {json}]]` | a call only on the K-th ask of this prompt (1-based; repeatable) |
//! | `[[none]]` | no tool |
//! | `[[first {json}]]` | the first tool of the list as sent (a model with position bias) |
//! | `[[exit 3]]` | exit with that status after writing to stderr |
//! | `[[garbage]]` | print something that is not JSON |
//! | `[[usage IN OUT]]` | report `usage` (`[[usage bad]]`: usage that is not token counts) |
//!
//! Without a directive it picks no tool. Asks are counted per prompt in `$PICKER_STATE` (a
//! folder); every request is appended to `$PICKER_LOG` when set.
//!
//! `fake_picker rates` (a model of known per-row rates): `[[rate P TOOL]]` calls TOOL (with
//! `text: hi`) with probability P, else no tool; `[[broken Q]]` replaces P by Q when
//! `$RATES_BROKEN` is set. Draws are seeded by `$RATES_SEED`, the prompt and how many times it
//! was asked before (counted in `$RATES_STATE`), so a run is the same every time.

use std::fs::OpenOptions;
use std::io::{Read, Seek, Write};
use std::path::Path;
use std::process::ExitCode;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn main() -> ExitCode {
    let mut input = String::new();
    if std::io::stdin().read_to_string(&mut input).is_err() {
        eprintln!("fake_picker: stdin is not UTF-8");
        return ExitCode::from(2);
    }
    let request: Value = match serde_json::from_str(&input) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("fake_picker: the request is not JSON: {e}");
            return ExitCode::from(2);
        }
    };
    let prompt = request["prompt"].as_str().unwrap_or_default();
    let answer = if std::env::args().nth(1).as_deref() == Some("rates") {
        rates(prompt)
    } else {
        if let Ok(log) = std::env::var("PICKER_LOG") {
            append(&log, &format!("{request}\n"));
        }
        match picker(&request, prompt) {
            Ok(answer) => answer,
            Err(code) => return code,
        }
    };
    println!("{answer}");
    ExitCode::SUCCESS
}

/// Every `[[...]]` of the prompt, as its words: the directive, then the rest.
fn directives(prompt: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = prompt;
    while let Some(start) = rest.find("[[") {
        let body = &rest[start + 2..];
        let Some(end) = body.find("]]") else { break };
        let inner = &body[..end];
        let (head, tail) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        out.push((head, tail.trim()));
        rest = &body[end + 2..];
    }
    out
}

/// `NAME {json}` as a call (no JSON: no arguments).
fn call(text: &str) -> Value {
    let (tool, args) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let args = args.trim();
    let args: Value = if args.is_empty() {
        json!({})
    } else {
        serde_json::from_str(args).unwrap_or_else(|e| panic!("arguments {args:?}: {e}"))
    };
    json!({"tool": tool, "args": args})
}

fn picker(request: &Value, prompt: &str) -> Result<Value, ExitCode> {
    let found = directives(prompt);
    if let Some((_, code)) = found.iter().find(|(d, _)| *d == "exit") {
        eprintln!("picker: failing on purpose");
        return Err(ExitCode::from(code.parse::<u8>().unwrap_or(1)));
    }
    if found.iter().any(|(d, _)| *d == "garbage") {
        println!("this is not json");
        return Err(ExitCode::SUCCESS);
    }
    let model = request["model"].as_str();
    let mut calls: Vec<Value> = found
        .iter()
        .filter_map(|(d, rest)| match d.strip_prefix("call") {
            Some("") => Some(call(rest)),
            Some(only) if only.strip_prefix(':') == model => Some(call(rest)),
            _ => None,
        })
        .collect();
    let key = hex(&Sha256::digest(prompt.as_bytes()));
    if let Some((_, rest)) = found.iter().find(|(d, _)| *d == "flip")
        && bump("PICKER_STATE", &key).is_multiple_of(2)
    {
        calls = vec![call(rest)];
    }
    let nths: Vec<&str> = found
        .iter()
        .filter(|(d, _)| *d == "nth")
        .map(|(_, rest)| *rest)
        .collect();
    if !nths.is_empty() {
        let ask = bump("PICKER_STATE", &format!("nth-{key}")) + 1;
        calls = nths
            .iter()
            .filter_map(|rest| {
                let (k, call_text) = rest.split_once(char::is_whitespace)?;
                (k.parse::<u64>().ok()? == ask).then(|| call(call_text.trim()))
            })
            .collect();
    }
    if let Some((_, args)) = found.iter().find(|(d, _)| *d == "first")
        && let Some(first) = request["tools"][0]["name"].as_str()
    {
        calls = vec![call(&format!("{first} {args}"))];
    }
    let usage =
        found
            .iter()
            .find(|(d, _)| *d == "usage")
            .map(|(_, rest)| match rest.split_once(' ') {
                Some((i, o)) => json!({
                    "input_tokens": i.parse::<u64>().unwrap_or(0),
                    "output_tokens": o.parse::<u64>().unwrap_or(0),
                }),
                None => json!({"input_tokens": "lots"}),
            });
    let none = json!({"tool": null, "args": null, "text": "no tool needed"});
    Ok(match (usage, calls.len()) {
        (Some(usage), n) => {
            let mut answer = if n > 0 { json!({"calls": calls}) } else { none };
            answer["usage"] = usage;
            answer
        }
        (None, 0) => none,
        (None, 1) => calls.remove(0),
        (None, _) => Value::Array(calls),
    })
}

fn rates(prompt: &str) -> Value {
    let found = directives(prompt);
    let key = hex(&Sha256::digest(prompt.as_bytes()));
    let count = bump("RATES_STATE", &key);
    let (rate, tool) = found
        .iter()
        .find(|(d, _)| *d == "rate")
        .and_then(|(_, rest)| rest.split_once(' '))
        .map(|(p, t)| (p.parse::<f64>().unwrap_or(0.0), t.trim()))
        .unwrap_or_else(|| panic!("no [[rate P TOOL]] in {prompt:?}"));
    let broken = found
        .iter()
        .find(|(d, _)| *d == "broken")
        .and_then(|(_, q)| q.parse::<f64>().ok())
        .filter(|_| std::env::var_os("RATES_BROKEN").is_some_and(|v| !v.is_empty()));
    let rate = broken.unwrap_or(rate);
    let seed = std::env::var("RATES_SEED").unwrap_or_default();
    let digest = Sha256::digest(format!("{seed}|{key}|{count}").as_bytes());
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    // 53 bits, as a float in [0, 1).
    let draw = (u64::from_be_bytes(head) >> 11) as f64 / (1u64 << 53) as f64;
    if draw < rate {
        json!({"tool": tool, "args": {"text": "hi"}})
    } else {
        json!({"tool": null, "args": null, "text": "not sure"})
    }
}

/// How many asks were counted under `key` in the folder `$VAR` before this one; counts this
/// one. Trials run side by side, so the count is read and written under a lock.
fn bump(var: &str, key: &str) -> u64 {
    let dir = std::env::var(var).unwrap_or_else(|_| panic!("${var} is not set"));
    let path = Path::new(&dir).join(key);
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    f.lock()
        .unwrap_or_else(|e| panic!("lock {}: {e}", path.display()));
    let mut text = String::new();
    let _ = f.read_to_string(&mut text);
    let count = text.trim().parse::<u64>().unwrap_or(0);
    let _ = f.set_len(0);
    let _ = f.rewind();
    let _ = f.write_all((count + 1).to_string().as_bytes());
    count
}

fn append(path: &str, line: &str) {
    if let Ok(mut f) = OpenOptions::new().create(true).append(true).open(path) {
        let _ = f.lock();
        let _ = f.write_all(line.as_bytes());
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
