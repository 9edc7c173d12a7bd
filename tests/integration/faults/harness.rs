//! The harness every fault case runs through: a scratch folder with a `toolproof.yaml` and any
//! other files, one `toolproof` invocation asked for every report (JUnit, JSON, HTML, Markdown),
//! and the checks every case makes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

pub use toolproof_test_support::yaml_list;

/// A fake's binary (`fake_mcp`, `fake_llm`, `fake_github`), built once per test run.
pub fn example(name: &str) -> String {
    crate::fake(name)
}

/// One fault case: the files of its folder, and how toolproof is run there.
pub struct Case {
    name: String,
    files: Vec<(String, Vec<u8>)>,
    args: Vec<String>,
    env: Vec<(String, String)>,
    reports: bool,
}

impl Case {
    /// A case named `name` that runs `toolproof run toolproof.yaml` with every report.
    pub fn new(name: &str) -> Case {
        Case {
            name: name.to_owned(),
            files: Vec::new(),
            args: vec!["run".into(), "toolproof.yaml".into()],
            env: Vec::new(),
            reports: true,
        }
    }

    /// The config, as text.
    pub fn yaml(self, text: &str) -> Case {
        self.file("toolproof.yaml", text.as_bytes())
    }

    /// Any file of the case's folder.
    pub fn file(mut self, name: &str, bytes: &[u8]) -> Case {
        self.files.push((name.to_owned(), bytes.to_vec()));
        self
    }

    /// Replaces the command line (the reports are still added unless [`Case::no_reports`]).
    pub fn args(mut self, args: &[&str]) -> Case {
        self.args = args.iter().map(|s| s.to_string()).collect();
        self
    }

    /// An environment variable for toolproof.
    pub fn env(mut self, key: &str, value: &str) -> Case {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    /// Asks for no report (usage errors, `inspect`).
    pub fn no_reports(mut self) -> Case {
        self.reports = false;
        self
    }

    /// Runs toolproof in a fresh folder holding the case's files.
    pub fn run(self) -> Outcome {
        self.spawn().wait()
    }

    /// Starts toolproof like [`Case::run`] and returns while it runs (for signals).
    pub fn spawn(self) -> Running {
        let dir = scratch(&self.name);
        for (name, bytes) in &self.files {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            std::fs::write(&path, bytes).expect("write a case file");
        }
        let mut args = self.args.clone();
        if self.reports {
            for (flag, file) in REPORTS {
                args.push(flag.to_string());
                args.push(file.to_string());
            }
        }
        let child = Command::new(env!("CARGO_BIN_EXE_toolproof"))
            .args(&args)
            .current_dir(&dir)
            .env("CI", "true")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("GITHUB_OUTPUT")
            .env_remove("GITHUB_WORKSPACE")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run toolproof");
        Running {
            name: self.name,
            dir,
            reports: self.reports,
            child,
        }
    }
}

/// A case whose toolproof is still running.
pub struct Running {
    name: String,
    /// The case's folder.
    pub dir: PathBuf,
    reports: bool,
    child: std::process::Child,
}

impl Running {
    /// toolproof's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for toolproof to end.
    pub fn wait(self) -> Outcome {
        let out = self.child.wait_with_output().expect("wait for toolproof");
        Outcome {
            name: self.name,
            dir: self.dir,
            reports: self.reports,
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// The reports every case asks for, and their file names.
const REPORTS: [(&str, &str); 4] = [
    ("--junit", "junit.xml"),
    ("--json", "report.json"),
    ("--html", "report.html"),
    ("--summary", "summary.md"),
];

fn scratch(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "toolproof-fault-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// What one case produced.
#[derive(Debug)]
pub struct Outcome {
    name: String,
    /// The case's folder.
    pub dir: PathBuf,
    reports: bool,
    /// Exit code.
    pub code: i32,
    /// Everything on stdout.
    pub stdout: String,
    /// Everything on stderr.
    pub stderr: String,
}

impl Outcome {
    /// The checks every case makes: the exit code, no panic, and every report asked for
    /// written and valid (JSON parses, JUnit is well-formed XML, HTML is a whole page, the
    /// summary is not empty). Returns self for the case's own checks.
    pub fn sound(&self, code: i32) -> &Self {
        assert_eq!(self.code, code, "{}: {self:#?}", self.name);
        for text in [&self.stdout, &self.stderr] {
            assert!(
                !text.contains("panicked") && !text.contains("RUST_BACKTRACE"),
                "{}: a panic: {self:#?}",
                self.name
            );
        }
        if self.reports && code != 2 {
            let json = self.report();
            assert_eq!(json["exit_code"], code, "{}: JSON exit code", self.name);
            let junit = self.read("junit.xml");
            if let Err(e) = roxmltree::Document::parse(&junit) {
                panic!(
                    "{}: JUnit is not well-formed XML ({e}):\n{junit}",
                    self.name
                );
            }
            let html = self.read("report.html");
            assert!(
                html.trim_end().ends_with("</html>"),
                "{}: HTML cut",
                self.name
            );
            assert!(
                !self.read("summary.md").trim().is_empty(),
                "{}: summary",
                self.name
            );
        }
        self
    }

    /// The JSON report.
    pub fn report(&self) -> Value {
        let text = self.read("report.json");
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: the JSON report is invalid ({e}): {text}", self.name))
    }

    /// A file of the case's folder, as text.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name))
            .unwrap_or_else(|e| panic!("{}: {name} was not written ({e}): {self:#?}", self.name))
    }

    /// Asserts that stdout or stderr says `text`.
    pub fn says(&self, text: &str) -> &Self {
        assert!(
            self.stdout.contains(text) || self.stderr.contains(text),
            "{}: expected {text:?} in the output: {self:#?}",
            self.name
        );
        self
    }

    /// Asserts that no output and no written file holds `secret`.
    pub fn never_shows(&self, secret: &str) -> &Self {
        assert!(!self.stdout.contains(secret) && !self.stderr.contains(secret));
        for entry in walk(&self.dir) {
            let bytes = std::fs::read(&entry).unwrap_or_default();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(secret),
                "{}: {} holds the secret",
                self.name,
                entry.display()
            );
        }
        self
    }
}

impl Drop for Outcome {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Every file under `dir`.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A config for the fake MCP server (`fake_mcp`) with these arguments, plus
/// `rest` (tests, evals…) appended as YAML.
pub fn fake_server(args: &[&str], rest: &str) -> String {
    let fake = example("fake_mcp");
    let mut command = vec![fake.as_str()];
    command.extend_from_slice(args);
    format!("server:\n  command: {}\n{rest}", yaml_list(&command))
}
