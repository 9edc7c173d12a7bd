//! What toolproof's integration tests share: where the binaries are, the fakes they start
//! (which the test crate builds once per run), scratch folders, running `toolproof` with an environment that
//! does not leak the CI job's own, and servers that listen on loopback.
//!
//! The fakes are this package's binaries: `fake_mcp` (an MCP server with planted defects and
//! faults, over stdio, streamable HTTP or HTTP+SSE), `fake_llm` (the Anthropic, OpenAI and
//! local model APIs, scripted per prompt), `fake_github` (the REST API the pull-request
//! comment uses) and `fake_picker` (a stand-in model for the command provider). Each binary's own documentation lists its options.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The cargo profile folder the running test binary was built into (`target/debug`).
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/<profile>/deps/<test binary>
    exe.parent()
        .and_then(Path::parent)
        .expect("the test binary lies in target/<profile>/deps")
        .to_path_buf()
}

/// The toolproof binary cargo built for this test run.
pub fn toolproof_bin() -> PathBuf {
    bin_dir().join(format!("toolproof{}", std::env::consts::EXE_SUFFIX))
}

/// The repository's root folder.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("tests/support lies two folders below the repository root")
}

/// A `cargo` command for building from inside a test, without the variables cargo sets for
/// the test process (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, …): a build script that watches one
/// of them (ring's does) would otherwise see it change and rebuild itself and everything above
/// it, once in the test and once in the next `cargo test`.
pub fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let set_for_tests = [
            "CARGO_MANIFEST_",
            "CARGO_PKG_",
            "CARGO_CRATE_",
            "CARGO_BIN_",
            "CARGO_PRIMARY_PACKAGE",
            "CARGO_TARGET_TMPDIR",
            "CARGO_RUSTC_CURRENT_DIR",
        ];
        if set_for_tests.iter().any(|p| name.starts_with(p)) {
            cmd.env_remove(name.as_ref());
        }
    }
    cmd
}

/// Builds the fakes (this package's binaries) and the demo's binaries (`demo_server`,
/// `demo_picker`, of the `toolproof-demo` package) once per test process, a no-op when they are current, so a filtered run never
/// starts one from an older build. One cargo call with the calling build's features (`interop`
/// says whether it has the `interop` feature) and profile: dependencies are then resolved as for
/// the tests, and nothing already built is built again.
pub fn build_fakes_and_examples(interop: bool) {
    static BUILD: std::sync::Once = std::sync::Once::new();
    BUILD.call_once(|| {
        let mut cmd = cargo();
        cmd.args([
            "build",
            "--quiet",
            "-p",
            "toolproof",
            "-p",
            "toolproof-test-support",
            "-p",
            "toolproof-demo",
        ])
        .arg("--bins")
        .current_dir(repo());
        if interop {
            cmd.args(["--features", "toolproof/interop"]);
        }
        if bin_dir().ends_with("release") {
            cmd.arg("--release");
        }
        let ok = cmd.status().is_ok_and(|s| s.success());
        assert!(ok, "building the test fakes and the examples failed");
    });
}

/// A binary of this build's profile folder (a fake, `fake_mcp`, `fake_llm`, `fake_github`),
/// which must have been built.
pub fn built(name: &str) -> String {
    let path = bin_dir().join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} missing: build it first", path.display());
    path.display().to_string()
}

/// A fresh scratch folder, removed when dropped.
#[derive(Debug)]
pub struct Dir(pub PathBuf);

impl Dir {
    /// `toolproof-<name>-<pid>-<n>` under the system's temp folder, empty.
    pub fn new(name: &str) -> Dir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolproof-{name}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a scratch folder");
        Dir(dir)
    }

    /// A path in the folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Writes `text` to `name` and returns its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, text).expect("write file");
        p
    }

    /// A file of the folder, as text; a missing file fails the test.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name))
            .unwrap_or_else(|e| panic!("{name} was not written: {e}"))
    }

    /// A file of the folder, as JSON.
    pub fn json(&self, name: &str) -> serde_json::Value {
        serde_json::from_str(&self.read(name)).expect("valid JSON")
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The environment a CI job gives every step, which toolproof reacts to: removed, so a test
/// sees what it sets and nothing of the job it runs in.
pub const JOB_ENV: &[&str] = &[
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_WORKSPACE",
    "GITHUB_OUTPUT",
    "GITHUB_TOKEN",
    "GITHUB_EVENT_PATH",
    "GITHUB_BASE_REF",
    "GITHUB_API_URL",
    "GITHUB_REPOSITORY",
    "NO_COLOR",
];

/// What a finished `toolproof` printed.
#[derive(Debug)]
pub struct Out {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// Everything on stdout.
    pub stdout: String,
    /// Everything on stderr.
    pub stderr: String,
    /// How long it ran.
    pub elapsed: Duration,
}

/// A `toolproof` command in `dir`, off a terminal in a CI job (`CI=true`) with none of the
/// job's own variables, plus `env`.
pub fn toolproof_cmd(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(toolproof_bin());
    cmd.args(args).current_dir(dir);
    for name in JOB_ENV {
        cmd.env_remove(name);
    }
    cmd.env("CI", "true").envs(env.iter().copied());
    cmd
}

/// Runs `toolproof` in `dir` (see [`toolproof_cmd`]) to the end.
pub fn toolproof_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
    let started = Instant::now();
    let out = toolproof_cmd(dir, args, env)
        .stdin(Stdio::null())
        .output()
        .expect("run toolproof");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

/// A YAML flow list of strings (`["a", "b"]`), each quoted as JSON.
pub fn yaml_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|s| serde_json::to_string(s).expect("string"))
        .collect();
    format!("[{}]", quoted.join(", "))
}

/// A process on a loopback port; killed when dropped.
#[derive(Debug)]
pub struct Listening {
    child: Child,
    /// Its URL, from its `listening on URL` line.
    pub url: String,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `program` and reads its first stdout line, `listening on URL`.
pub fn listening(program: &str, args: &[&str]) -> Listening {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start {program}: {e}"));
    let mut line = String::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = BufReader::new(stdout).read_line(&mut line);
    }
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("{program} printed {line:?}, not `listening on URL`"))
        .to_owned();
    Listening { child, url }
}

/// A loopback port nothing listens on at the moment it is returned.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A server process (not one of the fakes) killed when dropped.
#[derive(Debug)]
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a server and returns once it printed `ready` on stdout or stderr (at most 60 s).
pub fn start_until(program: &str, args: &[&str], env: &[(&str, String)], ready: &str) -> Server {
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {program}: {e}"));
    let (tx, rx) = mpsc::channel();
    let pipes: [Option<Box<dyn std::io::Read + Send>>; 2] = [
        child.stdout.take().map(|p| Box::new(p) as _),
        child.stderr.take().map(|p| Box::new(p) as _),
    ];
    for pipe in pipes.into_iter().flatten() {
        let tx = tx.clone();
        let ready = ready.to_owned();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                if line.contains(&ready) {
                    let _ = tx.send(());
                }
            }
        });
    }
    let server = Server(child);
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{program} did not print `{ready}` within 60s"));
    server
}

/// Where `scripts/test.sh` installed the interop servers (`TOOLPROOF_INTEROP_DIR`).
pub fn interop_dir() -> PathBuf {
    PathBuf::from(
        std::env::var_os("TOOLPROOF_INTEROP_DIR").expect(
            "TOOLPROOF_INTEROP_DIR is not set: run the interop tests through scripts/test.sh",
        ),
    )
}
