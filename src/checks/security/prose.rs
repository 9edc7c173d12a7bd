//! The prose rules: `security-instructions` (text that instructs the model instead of
//! describing the tool), `security-exfiltration` (text that tells the model to send data to
//! an address) and `security-shadowing` (text that tells the model how to use other tools).

use std::sync::LazyLock;

use regex::Regex;

use super::super::Problem;
use super::{Field, excerpt};

/// Instructions aimed at the model, each with what it is.
static INSTRUCTIONS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r"(?i)\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|former|system|other)\s+(?:instructions?|prompts?|messages?|rules|directions|guidelines|directives)\b",
            "tells the model to ignore its instructions",
        ),
        (
            r"(?i)\b(?:do\s+not|don'?t|never|must\s+not)\s+(?:tell|inform|mention\s+(?:this|it)\s+to|mention|reveal\s+(?:this|it)\s+to|notify|alert|show\s+(?:this|it)\s+to|disclose\s+(?:this|it)\s+to)\s+(?:the\s+)?user\b",
            "tells the model to keep something from the user",
        ),
        (
            r"(?i)\b(?:without\s+(?:telling|informing|notifying|alerting)|hide\s+(?:this|it)\s+from|keep\s+(?:this|it)\s+(?:secret\s+)?from)\s+(?:the\s+)?user\b",
            "tells the model to keep something from the user",
        ),
        (
            r"(?i)\b(?:the\s+)?user\s+(?:must|should|shall)\s+(?:not|never)\s+(?:know|see|notice|learn|be\s+(?:told|informed|notified))\b",
            "tells the model to keep something from the user",
        ),
        (
            r"(?i)<\s*/?\s*(?:important|system|instructions?|secret|hidden|admin|critical|override)\s*>",
            "has a tag block addressed to the model",
        ),
        (
            r"(?i)\b(?:read|cat|open|load|include|pass|send|provide|attach|upload|append)\b[^.\n]{0,80}?(?:~/\.ssh|\.ssh/|\bid_(?:rsa|ed25519|ecdsa)\b|~/\.aws|\.aws/credentials|/etc/(?:passwd|shadow)\b|~/\.cursor/|\bmcp\.json\b|~/\.netrc|\.git-credentials|~/\.config/)",
            "tells the model to read a credentials or configuration file",
        ),
        (
            r"(?i)\b(?:reveal|print|output|repeat|include|send|show|leak)\s+(?:the\s+|your\s+)?(?:full\s+|entire\s+)?(?:system\s+prompt|initial\s+instructions|hidden\s+instructions)\b",
            "tells the model to disclose its instructions",
        ),
    ]
    .into_iter()
    .map(|(p, what)| (Regex::new(p).expect("instruction pattern"), what))
    .collect()
});

/// A verb that moves data, then (in the same sentence) `to` and a URL or an e-mail address.
static SEND_TO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(?:send|sent|post|posted|forward|forwarded|upload|uploaded|transmit|exfiltrate|leak|copy|copied|mail|e-?mail|bcc|cc|redirect|deliver)\w*\b[^.\n]{0,100}?\b(?:to|at)\s+[<`'"(]?(https?://[^\s"'<>)`]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"#)
        .expect("send-to pattern")
});

/// Data no tool's argument needs, put into an argument or a request.
static SMUGGLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:include|pass|put|add|append|embed|attach|send|provide)\b[^.\n]{0,60}?\b(?:(?:entire|full|whole)\s+conversation|conversation\s+history|chat\s+history|previous\s+messages|all\s+(?:prior\s+|previous\s+)?messages|system\s+prompt|(?:its|their|the\s+file'?s?)\s+contents?)\b[^.\n]{0,60}?\b(?:as|in|into|to|via|inside)\b[^.\n]{0,30}?\b(?:argument|parameter|param|field|sidenote|note|notes|request|query|url)\b")
        .expect("smuggle pattern")
});

/// Addresses of documentation examples, which a description may use to show a format.
fn example_address(addr: &str) -> bool {
    let host = addr
        .split_once('@')
        .map_or(addr, |(_, h)| h)
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    let host = host.split(['/', ':', '?']).next().unwrap_or("");
    [
        "example.com",
        "example.org",
        "example.net",
        "localhost",
        "127.0.0.1",
    ]
    .iter()
    .any(|e| host == *e || host.ends_with(&format!(".{e}")))
}

pub(super) fn instructions(fields: &[&Field]) -> Option<Problem> {
    for field in fields {
        for (re, what) in INSTRUCTIONS.iter() {
            if let Some(m) = re.find(field.text) {
                return Some(Problem::new(
                    format!("{what}: {}", excerpt(field, m.start(), m.end())),
                    "describe what the tool does and when to use it; a definition must not \
                     instruct the model",
                ));
            }
        }
    }
    None
}

pub(super) fn exfiltration(fields: &[&Field]) -> Option<Problem> {
    for field in fields {
        for caps in SEND_TO.captures_iter(field.text) {
            let (Some(all), Some(addr)) = (caps.get(0), caps.get(1)) else {
                continue;
            };
            if example_address(addr.as_str()) {
                continue;
            }
            return Some(Problem::new(
                format!(
                    "tells the model to send data to `{}`: {}",
                    addr.as_str(),
                    excerpt(field, all.start(), all.end())
                ),
                "a tool sends data where its arguments say; a fixed address in its \
                 description is not its documented purpose",
            ));
        }
        if let Some(m) = SMUGGLE.find(field.text) {
            return Some(Problem::new(
                format!(
                    "tells the model to put data it holds into the call: {}",
                    excerpt(field, m.start(), m.end())
                ),
                "a tool's arguments carry what the user asks for, never the conversation or \
                 files the tool did not ask the user for",
            ));
        }
    }
    None
}

/// `when you call the send_email tool`, `before using `list_files``: the tool named.
static WHEN_CALLING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:when|whenever|before|after|if|each\s+time|every\s+time)\b[^.\n]{0,40}?\b(?:use|uses|using|call|calls|calling|invoke|invokes|invoking|run|runs|running)\s+(?:the\s+|any\s+)?`?([A-Za-z][A-Za-z0-9]*(?:[_.\-][A-Za-z0-9]+)+)`?(?:\s+tool)?")
        .expect("when-calling pattern")
});

/// `the send_email tool must …`: a tool told how to behave.
static TOOL_MUST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:the\s+)?`?([A-Za-z][A-Za-z0-9]*(?:[_.\-][A-Za-z0-9]+)+)`?\s+(?:tool|function)\s+(?:must|should|shall|has\s+to|needs\s+to)\s+(?:now\s+|always\s+|only\s+|never\s+)?(?:send|use|include|redirect|forward|be\s+called|add|set|change)\b")
        .expect("tool-must pattern")
});

/// Other tools or servers at large, told how to behave.
static OTHERS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:(?:all|any|every)\s+other\s+(?:tools?|functions?|servers?)|tools?\s+(?:from|of|on)\s+(?:other|another|different)\s+(?:mcp\s+)?servers?|(?:important\s+)?side\s+effects?\s+on\s+(?:the\s+)?(?:also\s+present\s+)?`?\w+`?\s+tool)\b[^.\n]{0,80}?\b(?:must|should|shall|always|never|instead|has\s+to|is\s+to)\b|\b(?:important\s+)?side\s+effects?\s+on\s+(?:the\s+)?(?:also\s+present\s+)?`?\w+`?\s+tool\b")
        .expect("other-tools pattern")
});

pub(super) fn shadowing(fields: &[&Field], own: &str, names: &[&str]) -> Option<Problem> {
    let foreign = |name: &str| name != own && !names.contains(&name);
    let hint = "describe this tool only; a definition that tells the model how to use other \
                tools changes what those tools do";
    for field in fields {
        for re in [&*WHEN_CALLING, &*TOOL_MUST] {
            for caps in re.captures_iter(field.text) {
                let (Some(all), Some(name)) = (caps.get(0), caps.get(1)) else {
                    continue;
                };
                if foreign(name.as_str()) {
                    return Some(Problem::new(
                        format!(
                            "tells the model how to use `{}`, a tool this server does not \
                             list: {}",
                            name.as_str(),
                            excerpt(field, all.start(), all.end())
                        ),
                        hint,
                    ));
                }
            }
        }
        if let Some(m) = OTHERS.find(field.text) {
            return Some(Problem::new(
                format!(
                    "tells the model how other tools must behave: {}",
                    excerpt(field, m.start(), m.end())
                ),
                hint,
            ));
        }
    }
    None
}
