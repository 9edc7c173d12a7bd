//! `fake_github`: a fake GitHub REST API on 127.0.0.1 that speaks the issue-comment endpoints
//! the pull-request comment uses, with GitHub's shapes: paginated lists with `Link` headers,
//! `201 Created` comments, `{"message": …, "documentation_url": …}` errors, and the rate-limit
//! headers. Scripted by flags; build with `cargo build -p toolproof-test-support`.
//!
//! # Options
//!
//! | flag | meaning |
//! |---|---|
//! | `--port N` | listen on 127.0.0.1:N (default 0: any free port) |
//! | `--repo OWNER/NAME` | the one repository (default `octo/widgets`); others are 404 |
//! | `--pr N` | the one pull request (default 7); other numbers are 404 |
//! | `--comments N` | start with N comments by someone else |
//! | `--comment-at I BODY` | insert a comment by `github-actions[bot]` with BODY at index I (after `--comments`) |
//! | `--require-token T` | 401 `Bad credentials` unless `Authorization: Bearer T` |
//! | `--fail SPEC` | answer an error instead, e.g. `POST:429:times=1:retry-after=1`, `GET:503`, `POST:403:always`, `PATCH:403:ratelimit`, `*:500:msg=boom`, `GET:drop` (close the connection unanswered); `times` defaults to 1 |
//! | `--log FILE` | append one JSON line per request: `{"method", "path", "query", "headers", "body", "status", "at_ms"}` (`at_ms`: since the fake started) |
//! | `--state FILE` | after every change, write the comments as a JSON array of `{"id", "body", "login"}` |
//!
//! The first stdout line is `listening on http://127.0.0.1:PORT`; point `GITHUB_API_URL` at it.
//! A request without a `User-Agent` gets GitHub's 403 for it.
//!
//! # Endpoints
//!
//! `GET /repos/{o}/{r}/issues/{n}/comments?per_page=&page=` (30 per page by default, at most
//! 100), `POST /repos/{o}/{r}/issues/{n}/comments` `{"body"}` → 201, `PATCH
//! /repos/{o}/{r}/issues/comments/{id}` `{"body"}` → 200, `POST /repos/{o}/{r}/pulls/{n}/comments`
//! `{"body", "path", "line", "commit_id"}` (a review comment; kept in the state as
//! `path:line` and the body) → 201. Anything else is a 404.

#[path = "fake_llm/http.rs"]
mod http;
#[path = "common/http1.rs"]
mod http1;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use http::{Action, Request};

const HELP: &str = "\
fake_github: a fake GitHub REST API (issue comments) on 127.0.0.1

usage: fake_github [--port N] [--repo OWNER/NAME] [--pr N] [--comments N]
                   [--comment-at I BODY]... [--require-token T] [--fail SPEC]...
                   [--log FILE] [--state FILE]

  --fail METHOD:STATUS|drop[:times=N|:always][:retry-after=S][:ratelimit][:msg=TEXT]
";

/// A scripted error answer.
struct Fault {
    method: String,
    status: u16,
    /// `None`: every time.
    times: Option<u32>,
    retry_after: Option<String>,
    ratelimit: bool,
    msg: Option<String>,
}

fn parse_fault(spec: &str) -> Result<Fault, String> {
    let mut parts = spec.split(':');
    let method = parts.next().unwrap_or("").to_ascii_uppercase();
    // `drop` closes the connection without an answer (status 0 here).
    let status = match parts.next() {
        Some("drop") => 0,
        other => other
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("--fail {spec}: want METHOD:STATUS[:opts]"))?,
    };
    let mut fault = Fault {
        method,
        status,
        times: Some(1),
        retry_after: None,
        ratelimit: false,
        msg: None,
    };
    let rest: Vec<&str> = parts.collect();
    for (i, opt) in rest.iter().enumerate() {
        match opt.split_once('=') {
            Some(("times", n)) => fault.times = Some(n.parse().map_err(|_| "times=N")?),
            Some(("retry-after", s)) => fault.retry_after = Some(s.to_owned()),
            Some(("msg", _)) => {
                // The message is the rest of the spec, colons included.
                let text = rest[i..].join(":");
                fault.msg = text.strip_prefix("msg=").map(str::to_owned);
                break;
            }
            None if *opt == "always" => fault.times = None,
            None if *opt == "ratelimit" => fault.ratelimit = true,
            _ => return Err(format!("--fail {spec}: unknown option `{opt}`")),
        }
    }
    Ok(fault)
}

struct Options {
    port: u16,
    repo: String,
    pr: u64,
    comments: usize,
    seeded: Vec<(usize, String)>,
    token: Option<String>,
    faults: Vec<Fault>,
    log: Option<PathBuf>,
    state: Option<PathBuf>,
}

fn parse_options(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut o = Options {
        port: 0,
        repo: "octo/widgets".into(),
        pr: 7,
        comments: 0,
        seeded: Vec::new(),
        token: None,
        faults: Vec::new(),
        log: None,
        state: None,
    };
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--port" => o.port = value()?.parse().map_err(|_| "--port takes a number")?,
            "--repo" => o.repo = value()?,
            "--pr" => o.pr = value()?.parse().map_err(|_| "--pr takes a number")?,
            "--comments" => o.comments = value()?.parse().map_err(|_| "--comments N")?,
            "--comment-at" => {
                let at = value()?.parse().map_err(|_| "--comment-at I BODY")?;
                o.seeded.push((at, value()?));
            }
            "--require-token" => o.token = Some(value()?),
            "--fail" => o.faults.push(parse_fault(&value()?)?),
            "--log" => o.log = Some(PathBuf::from(value()?)),
            "--state" => o.state = Some(PathBuf::from(value()?)),
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(Some(o))
}

struct Comment {
    id: u64,
    body: String,
    login: String,
    created: String,
    updated: String,
}

#[derive(Default)]
struct State {
    comments: Vec<Comment>,
    next_id: u64,
    clock: u64,
    fault_hits: Vec<u32>,
}

impl State {
    fn now(&mut self) -> String {
        self.clock += 1;
        format!(
            "2026-12-01T{:02}:{:02}:{:02}Z",
            self.clock / 3600 % 24,
            self.clock / 60 % 60,
            self.clock % 60
        )
    }

    fn add(&mut self, at: usize, body: String, login: &str) -> u64 {
        self.next_id += 1;
        let when = self.now();
        let comment = Comment {
            id: self.next_id,
            body,
            login: login.into(),
            created: when.clone(),
            updated: when,
        };
        self.comments.insert(at.min(self.comments.len()), comment);
        self.next_id
    }
}

struct Server {
    started: std::time::Instant,
    o: Options,
    base: String,
    state: Mutex<State>,
    log: Option<Mutex<File>>,
}

/// An answer: status, extra headers, JSON body.
type Reply = (u16, Vec<(String, String)>, Value);

fn error(status: u16, message: &str) -> Reply {
    let body = json!({
        "message": message,
        "documentation_url": "https://docs.github.com/rest/issues/comments",
        "status": status.to_string(),
    });
    (status, Vec::new(), body)
}

impl Server {
    fn handle(&self, req: &Request) -> Action {
        let (status, mut headers, body) = self.reply(req);
        self.record(req, status);
        if status == 0 {
            return Action::Drop;
        }
        let remaining = if headers.iter().any(|(n, _)| n == "x-ratelimit-remaining") {
            None
        } else {
            Some("4999")
        };
        if let Some(r) = remaining {
            headers.push(("x-ratelimit-remaining".into(), r.into()));
        }
        headers.push(("x-ratelimit-limit".into(), "5000".into()));
        headers.push(("x-github-api-version-selected".into(), "2022-11-28".into()));
        Action::Answer {
            status,
            headers,
            content_type: "application/json; charset=utf-8".into(),
            body: body.to_string(),
        }
    }

    fn reply(&self, req: &Request) -> Reply {
        if req.header("user-agent").is_none_or(str::is_empty) {
            return error(
                403,
                "Request forbidden by administrative rules. Please make sure your request has a User-Agent header",
            );
        }
        if let Some(token) = &self.o.token {
            let given = req
                .header("authorization")
                .and_then(|v| v.strip_prefix("Bearer "));
            if given != Some(token.as_str()) {
                return error(401, "Bad credentials");
            }
        }
        if let Some(reply) = self.fault(req) {
            return reply;
        }
        self.route(req)
    }

    fn fault(&self, req: &Request) -> Option<Reply> {
        let mut state = self.state.lock().ok()?;
        let i = self.o.faults.iter().enumerate().position(|(i, f)| {
            (f.method == "*" || f.method == req.method)
                && f.times.is_none_or(|n| state.fault_hits[i] < n)
        })?;
        state.fault_hits[i] += 1;
        let f = &self.o.faults[i];
        let default = match f.status {
            403 if f.ratelimit => "API rate limit exceeded for installation ID 1.",
            403 => "Resource not accessible by integration",
            429 => "You have exceeded a secondary rate limit.",
            404 => "Not Found",
            _ => "Server Error",
        };
        let (status, mut headers, body) = error(f.status, f.msg.as_deref().unwrap_or(default));
        if let Some(after) = &f.retry_after {
            headers.push(("retry-after".into(), after.clone()));
        }
        if f.ratelimit {
            headers.push(("x-ratelimit-remaining".into(), "0".into()));
            let reset = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() + 1);
            headers.push(("x-ratelimit-reset".into(), reset.to_string()));
        }
        Some((status, headers, body))
    }

    fn route(&self, req: &Request) -> Reply {
        let parts: Vec<&str> = req.path.trim_matches('/').split('/').collect();
        let Ok(mut state) = self.state.lock() else {
            return error(500, "state lock poisoned");
        };
        let (o, r) = self.o.repo.split_once('/').unwrap_or(("", ""));
        match (req.method.as_str(), parts.as_slice()) {
            ("GET", ["repos", ro, rr, "issues", n, "comments"]) if (*ro, *rr) == (o, r) => {
                if n.parse() != Ok(self.o.pr) {
                    return error(404, "Not Found");
                }
                self.list(&state, &req.query)
            }
            ("POST", ["repos", ro, rr, "issues", n, "comments"]) if (*ro, *rr) == (o, r) => {
                if n.parse() != Ok(self.o.pr) {
                    return error(404, "Not Found");
                }
                let Some(body) = body_of(req) else {
                    return error(422, "Invalid request.\n\n\"body\" wasn't supplied.");
                };
                let at = state.comments.len();
                let id = state.add(at, body, "github-actions[bot]");
                self.save(&state);
                let made = state.comments.iter().find(|c| c.id == id);
                (201, Vec::new(), made.map_or(Value::Null, |c| self.json(c)))
            }
            ("POST", ["repos", ro, rr, "pulls", n, "comments"]) if (*ro, *rr) == (o, r) => {
                if n.parse() != Ok(self.o.pr) {
                    return error(404, "Not Found");
                }
                let fields: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
                let (Some(body), Some(path), Some(line), Some(_)) = (
                    fields["body"].as_str(),
                    fields["path"].as_str(),
                    fields["line"].as_u64(),
                    fields["commit_id"].as_str(),
                ) else {
                    return error(
                        422,
                        "Invalid request.\n\n\"body\", \"path\", \"line\" and \"commit_id\" are required.",
                    );
                };
                let at = state.comments.len();
                let id = state.add(at, format!("{path}:{line}\n{body}"), "github-actions[bot]");
                self.save(&state);
                (
                    201,
                    Vec::new(),
                    json!({"id": id, "path": path, "line": line, "body": body}),
                )
            }
            ("PATCH", ["repos", ro, rr, "issues", "comments", id]) if (*ro, *rr) == (o, r) => {
                let Some(body) = body_of(req) else {
                    return error(422, "Invalid request.\n\n\"body\" wasn't supplied.");
                };
                let when = state.now();
                let Some(c) = state.comments.iter_mut().find(|c| id.parse() == Ok(c.id)) else {
                    return error(404, "Not Found");
                };
                c.body = body;
                c.updated = when;
                let out = self.json(c);
                self.save(&state);
                (200, Vec::new(), out)
            }
            _ => error(404, "Not Found"),
        }
    }

    fn list(&self, state: &State, query: &str) -> Reply {
        let param = |name: &str| {
            query
                .split('&')
                .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
                .and_then(|v| v.parse::<usize>().ok())
        };
        let per_page = param("per_page").unwrap_or(30).clamp(1, 100);
        let page = param("page").unwrap_or(1).max(1);
        let pages = state.comments.len().div_ceil(per_page).max(1);
        let items: Vec<Value> = state
            .comments
            .iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .map(|c| self.json(c))
            .collect();
        let url = |p: usize| {
            format!(
                "<{}/repos/{}/issues/{}/comments?per_page={per_page}&page={p}>",
                self.base, self.o.repo, self.o.pr
            )
        };
        let mut links = Vec::new();
        if page > 1 {
            links.push(format!("{}; rel=\"prev\"", url(page - 1)));
        }
        if page < pages {
            links.push(format!("{}; rel=\"next\"", url(page + 1)));
            links.push(format!("{}; rel=\"last\"", url(pages)));
        }
        if page > 1 {
            links.push(format!("{}; rel=\"first\"", url(1)));
        }
        let headers = if links.is_empty() {
            Vec::new()
        } else {
            vec![("link".to_owned(), links.join(", "))]
        };
        (200, headers, Value::Array(items))
    }

    fn json(&self, c: &Comment) -> Value {
        let html = format!("https://github.com/{}/pull/{}", self.o.repo, self.o.pr);
        json!({
            "url": format!("{}/repos/{}/issues/comments/{}", self.base, self.o.repo, c.id),
            "html_url": format!("{html}#issuecomment-{}", c.id),
            "issue_url": format!("{}/repos/{}/issues/{}", self.base, self.o.repo, self.o.pr),
            "id": c.id,
            "node_id": format!("IC_fake{}", c.id),
            "user": {"login": c.login, "id": 41_898_282, "type": if c.login.ends_with("[bot]") { "Bot" } else { "User" }},
            "created_at": c.created,
            "updated_at": c.updated,
            "author_association": "NONE",
            "body": c.body,
        })
    }

    fn save(&self, state: &State) {
        let Some(path) = &self.o.state else {
            return;
        };
        let all: Vec<Value> = state
            .comments
            .iter()
            .map(|c| json!({"id": c.id, "body": c.body, "login": c.login}))
            .collect();
        let tmp = path.with_extension("tmp");
        if std::fs::write(&tmp, Value::Array(all).to_string()).is_ok() {
            let _ = std::fs::rename(&tmp, path);
        }
    }

    fn record(&self, req: &Request, status: u16) {
        let Some(log) = &self.log else {
            return;
        };
        let headers: Map<String, Value> = req
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), Value::String(v.clone())))
            .collect();
        let body = serde_json::from_slice::<Value>(&req.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&req.body).into_owned()));
        let at_ms = self.started.elapsed().as_millis() as u64;
        let line = json!({"method": req.method, "path": req.path, "query": req.query,
            "headers": headers, "body": body, "status": status, "at_ms": at_ms});
        if let Ok(mut f) = log.lock() {
            let _ = writeln!(f, "{line}").and_then(|_| f.flush());
        }
    }
}

fn body_of(req: &Request) -> Option<String> {
    let v: Value = serde_json::from_slice(&req.body).ok()?;
    v.get("body")?.as_str().map(str::to_owned)
}

fn fail(message: String) -> ! {
    eprintln!("fake_github: error: {message}\nhint: run `fake_github --help` for the options");
    std::process::exit(2);
}

fn main() {
    let o = match parse_options(std::env::args().skip(1)) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{HELP}");
            return;
        }
        Err(e) => fail(e),
    };
    let log =
        o.log.as_ref().map(
            |path| match OpenOptions::new().create(true).append(true).open(path) {
                Ok(f) => Mutex::new(f),
                Err(e) => fail(format!("can't open log {}: {e}", path.display())),
            },
        );
    let listener = TcpListener::bind(("127.0.0.1", o.port))
        .unwrap_or_else(|e| fail(format!("can't listen on 127.0.0.1:{}: {e}", o.port)));
    let port = listener.local_addr().map_or(o.port, |a| a.port());
    let mut state = State {
        next_id: 1000,
        fault_hits: vec![0; o.faults.len()],
        ..State::default()
    };
    for i in 0..o.comments {
        let at = state.comments.len();
        state.add(at, format!("comment {i} from a reviewer"), "reviewer");
    }
    for (at, body) in &o.seeded {
        state.add(*at, body.clone(), "github-actions[bot]");
    }
    let server = Arc::new(Server {
        started: std::time::Instant::now(),
        base: format!("http://127.0.0.1:{port}"),
        o,
        state: Mutex::new(state),
        log,
    });
    if let Ok(state) = server.state.lock() {
        server.save(&state);
    }
    println!("listening on http://127.0.0.1:{port}");
    let _ = std::io::stdout().flush();
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let server = Arc::clone(&server);
        std::thread::spawn(move || http::serve(stream, &|req| server.handle(req)));
    }
}
