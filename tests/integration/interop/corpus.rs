//! The real-server corpus: MCP servers others publish on npm and PyPI, pinned in
//! `scripts/test.sh` (installed under `$TOOLPROOF_INTEROP_DIR/corpus-node`, `py-corpus` and
//! `py-corpus-mcp1`), each started without credentials or network and inspected with
//! `toolproof inspect --json`. Its static-check findings, as (check, tool, severity), must be
//! exactly those its golden file `tests/corpus/<server>.yaml` lists, each with a one-line
//! justification: a new finding (a false positive, or a real one to justify) and a missing one
//! (a finding lost) both fail with the difference spelled out. The file also pins how many
//! tools the server lists, so a server that lists nothing cannot pass with no findings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use serde_json::Value;

use super::{interop_dir, node_server, temp_dir};

/// A golden file: what inspecting one corpus server must find.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Golden {
    /// The package and its pinned version, as `scripts/test.sh` installs it.
    package: String,
    /// How many tools the server lists.
    tools: usize,
    /// Every finding expected, in any order.
    #[serde(default)]
    findings: Vec<Expected>,
}

/// One expected finding and why it is right.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    check: String,
    tool: String,
    severity: String,
    why: String,
}

/// How to start one corpus server in its own folder.
struct Corpus {
    /// The golden file's name, without `.yaml`.
    name: &'static str,
    /// The command line; `{dir}` is the server's folder.
    command: fn(&Path) -> Vec<String>,
    /// Environment for the server; `{dir}` is the server's folder.
    env: &'static [(&'static str, &'static str)],
}

fn corpus_node(bin: &str) -> Vec<String> {
    let script = interop_dir()
        .join("corpus-node/node_modules/.bin")
        .join(bin);
    vec!["node".into(), script.display().to_string()]
}

fn corpus_python(venv: &str, bin: &str) -> String {
    interop_dir()
        .join(venv)
        .join("bin")
        .join(bin)
        .display()
        .to_string()
}

fn with(mut command: Vec<String>, args: &[&str]) -> Vec<String> {
    command.extend(args.iter().map(|a| (*a).to_owned()));
    command
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

/// A kubeconfig whose only cluster is a closed port on loopback: the servers start and list
/// their tools without reaching it.
fn kubeconfig(dir: &Path) -> String {
    let file = dir.join("kubeconfig");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: \"https://127.0.0.1:1\"}\n  \
         name: none\ncontexts:\n- context: {cluster: none, user: nobody}\n  name: none\n\
         current-context: none\nusers:\n- name: nobody\n  user: {token: not-a-token}\n",
    )
    .expect("write kubeconfig");
    file.display().to_string()
}

/// An empty git repository for the git servers.
fn repository(dir: &Path) -> String {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).expect("create repo folder");
    let status = Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(&repo)
        .status()
        .expect("run git init");
    assert!(status.success(), "git init failed in {}", repo.display());
    repo.display().to_string()
}

const CORPUS: &[Corpus] = &[
    Corpus {
        name: "server-everything",
        command: |_| {
            vec![
                "node".into(),
                node_server("server-everything"),
                "stdio".into(),
            ]
        },
        env: &[],
    },
    Corpus {
        name: "server-filesystem",
        command: |dir| {
            std::fs::create_dir_all(dir.join("files")).expect("create files folder");
            vec![
                "node".into(),
                node_server("server-filesystem"),
                path(dir, "files"),
            ]
        },
        env: &[],
    },
    Corpus {
        name: "server-memory",
        command: |_| vec!["node".into(), node_server("server-memory")],
        env: &[("MEMORY_FILE_PATH", "{dir}/memory.jsonl")],
    },
    Corpus {
        name: "server-sequential-thinking",
        command: |_| corpus_node("mcp-server-sequential-thinking"),
        env: &[],
    },
    Corpus {
        name: "mcp-server-fetch",
        command: |_| vec![corpus_python("py-corpus", "mcp-server-fetch")],
        env: &[],
    },
    Corpus {
        name: "mcp-server-git",
        command: |dir| {
            let repo = repository(dir);
            vec![
                corpus_python("py-corpus", "mcp-server-git"),
                "--repository".into(),
                repo,
            ]
        },
        env: &[],
    },
    Corpus {
        name: "mcp-server-time",
        command: |_| {
            let bin = corpus_python("py-corpus", "mcp-server-time");
            vec![bin, "--local-timezone".into(), "UTC".into()]
        },
        env: &[],
    },
    Corpus {
        name: "playwright-mcp",
        command: |_| with(corpus_node("playwright-mcp"), &["--headless"]),
        env: &[],
    },
    Corpus {
        name: "chrome-devtools-mcp",
        command: |_| corpus_node("chrome-devtools-mcp"),
        env: &[],
    },
    Corpus {
        name: "mcp-server-sqlite",
        command: |dir| {
            let bin = corpus_python("py-corpus-mcp1", "mcp-server-sqlite");
            vec![bin, "--db-path".into(), path(dir, "test.db")]
        },
        env: &[],
    },
    Corpus {
        name: "notion-mcp-server",
        command: |_| corpus_node("notion-mcp-server"),
        env: &[],
    },
    Corpus {
        name: "excel-mcp-server",
        command: |_| {
            vec![
                corpus_python("py-corpus", "excel-mcp-server"),
                "stdio".into(),
            ]
        },
        env: &[],
    },
    Corpus {
        name: "kubernetes-mcp-server",
        command: |dir| {
            let config = kubeconfig(dir);
            with(
                corpus_node("kubernetes-mcp-server"),
                &["--kubeconfig", &config],
            )
        },
        env: &[],
    },
    Corpus {
        name: "mcp-server-kubernetes",
        command: |_| corpus_node("mcp-server-kubernetes"),
        env: &[],
    },
    Corpus {
        name: "duckduckgo-mcp-server",
        command: |_| vec![corpus_python("py-corpus", "duckduckgo-mcp-server")],
        env: &[],
    },
    Corpus {
        name: "tavily-mcp",
        command: |_| corpus_node("tavily-mcp"),
        env: &[],
    },
    Corpus {
        name: "context7-mcp",
        command: |_| corpus_node("context7-mcp"),
        env: &[],
    },
    Corpus {
        name: "wikipedia-mcp",
        command: |_| vec![corpus_python("py-corpus", "wikipedia-mcp")],
        env: &[],
    },
    Corpus {
        name: "git-mcp-server",
        command: |_| corpus_node("git-mcp-server"),
        env: &[],
    },
    Corpus {
        name: "mcp-server-calculator",
        command: |_| vec![corpus_python("py-corpus-mcp1", "mcp-server-calculator")],
        env: &[],
    },
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn golden(name: &str) -> Golden {
    let file = golden_dir().join(format!("{name}.yaml"));
    let text =
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// (check, tool, severity) of a finding, the key findings are compared by.
type Key = (String, String, String);

fn key_of(finding: &Value) -> Key {
    let text = |k: &str| finding[k].as_str().unwrap_or_default().to_owned();
    (text("check"), text("tool"), text("severity"))
}

/// Inspects one corpus server and compares its findings with its golden file.
fn check(name: &str) {
    let corpus = CORPUS
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no corpus server {name}"));
    let golden = golden(name);
    let dir = temp_dir(&format!("corpus-{name}"));
    let command = (corpus.command)(&dir);
    let dir_text = dir.display().to_string();
    let mut args = vec!["inspect".to_owned(), "--json".into(), "--".into()];
    args.extend(command);
    let out = Command::new(env!("CARGO_BIN_EXE_toolproof"))
        .args(&args)
        .current_dir(&dir)
        // Nothing the server writes for itself lands outside its folder.
        .env("HOME", &dir)
        .envs(
            corpus
                .env
                .iter()
                .map(|(k, v)| (*k, v.replace("{dir}", &dir_text))),
        )
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("run toolproof inspect");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "{name} ({}): inspect printed no JSON ({e})\nstdout:\n{stdout}\nstderr:\n{}",
            golden.package,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(
        report["error"].is_null(),
        "{name} ({}) did not start: {:#}",
        golden.package,
        report["error"]
    );
    let tools = report["inventory"]["tools"].as_array().map_or(0, Vec::len);
    assert_eq!(
        tools, golden.tools,
        "{name} ({}) lists {tools} tools, its golden file says {}",
        golden.package, golden.tools
    );
    let found: Vec<&Value> = report["phases"]["checks"]["results"]["findings"]
        .as_array()
        .map(|f| f.iter().collect())
        .unwrap_or_default();
    let diff = difference(&found, &golden.findings);
    assert!(
        diff.is_empty(),
        "{name} ({}): findings differ from tests/corpus/{name}.yaml\n{diff}",
        golden.package
    );
}

/// The findings not expected (`+`, with their message) and the expected ones not found (`-`,
/// with their justification), one per line; empty when they match as multisets.
fn difference(found: &[&Value], expected: &[Expected]) -> String {
    let mut left: BTreeMap<Key, Vec<&Expected>> = BTreeMap::new();
    for e in expected {
        assert!(
            !e.why.trim().is_empty(),
            "expected {} on {} has no justification",
            e.check,
            e.tool
        );
        let key = (e.check.clone(), e.tool.clone(), e.severity.clone());
        left.entry(key).or_default().push(e);
    }
    let mut lines = Vec::new();
    for f in found {
        let key = key_of(f);
        match left.get_mut(&key) {
            Some(list) if !list.is_empty() => {
                list.pop();
            }
            _ => lines.push(format!(
                "+ {} {} {}: {}",
                key.0,
                key.1,
                key.2,
                f["message"].as_str().unwrap_or_default()
            )),
        }
    }
    for ((check, tool, severity), list) in left {
        for e in list {
            lines.push(format!("- {check} {tool} {severity} (expected: {})", e.why));
        }
    }
    lines.join("\n")
}

/// One test per server, so that they run side by side and each failure names its server.
macro_rules! corpus_tests {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check($name);
            }
        )*

        #[test]
        fn corpus_golden_files_are_the_corpus() {
            let tested: Vec<&str> = vec![$($name),*];
            let listed: Vec<&str> = CORPUS.iter().map(|c| c.name).collect();
            assert_eq!(tested, listed, "every corpus server has its test");
            let mut files: Vec<String> = std::fs::read_dir(golden_dir())
                .expect("tests/corpus")
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str()?.strip_suffix(".yaml").map(str::to_owned))
                .collect();
            files.sort();
            let mut names: Vec<String> = listed.iter().map(|n| (*n).to_owned()).collect();
            names.sort();
            assert_eq!(files, names, "one golden file per corpus server, no other");
            assert!(names.len() >= 12, "the corpus has at least 12 servers");
        }
    };
}

corpus_tests! {
    corpus_server_everything => "server-everything",
    corpus_server_filesystem => "server-filesystem",
    corpus_server_memory => "server-memory",
    corpus_server_sequential_thinking => "server-sequential-thinking",
    corpus_mcp_server_fetch => "mcp-server-fetch",
    corpus_mcp_server_git => "mcp-server-git",
    corpus_mcp_server_time => "mcp-server-time",
    corpus_playwright_mcp => "playwright-mcp",
    corpus_chrome_devtools_mcp => "chrome-devtools-mcp",
    corpus_mcp_server_sqlite => "mcp-server-sqlite",
    corpus_notion_mcp_server => "notion-mcp-server",
    corpus_excel_mcp_server => "excel-mcp-server",
    corpus_kubernetes_mcp_server => "kubernetes-mcp-server",
    corpus_mcp_server_kubernetes => "mcp-server-kubernetes",
    corpus_duckduckgo_mcp_server => "duckduckgo-mcp-server",
    corpus_tavily_mcp => "tavily-mcp",
    corpus_context7_mcp => "context7-mcp",
    corpus_wikipedia_mcp => "wikipedia-mcp",
    corpus_git_mcp_server => "git-mcp-server",
    corpus_mcp_server_calculator => "mcp-server-calculator",
}

#[test]
fn corpus_differences_are_spelled_out() {
    let found = serde_json::json!([
        {"check": "annotations", "tool": "a", "severity": "warning", "message": "new one"},
        {"check": "similar-tools", "tool": "b + c", "severity": "warning", "message": "kept"}
    ]);
    let found: Vec<&Value> = found
        .as_array()
        .map(|f| f.iter().collect())
        .unwrap_or_default();
    let expected = vec![
        Expected {
            check: "similar-tools".into(),
            tool: "b + c".into(),
            severity: "warning".into(),
            why: "near duplicates".into(),
        },
        Expected {
            check: "description-length".into(),
            tool: "d".into(),
            severity: "warning".into(),
            why: "too long".into(),
        },
    ];
    assert_eq!(
        difference(&found, &expected),
        "+ annotations a warning: new one\n- description-length d warning (expected: too long)"
    );
    assert_eq!(difference(&found[1..], &expected[..1]), "");
}
