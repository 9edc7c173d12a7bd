//! The npm package end to end: `scripts/build-npm.sh` packs this build's toolproof, the
//! tarballs are installed into an empty npm project with the registry out of reach (`--offline`
//! and an empty cache: nothing here is published), and `npx` runs `--version` and the bundled
//! demo through the package's launcher. Without its platform package the launcher says what is
//! missing and how to get it; it passes signals on to the binary and ends as the binary did.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

const NAME: &str = "@toolproof-dev/toolproof";

/// The Rust triple and npm platform key of the machine the tests run on.
fn host() -> (&'static str, &'static str) {
    match (
        std::env::consts::OS,
        std::env::consts::ARCH,
        cfg!(target_env = "musl"),
    ) {
        ("linux", "x86_64", false) => ("x86_64-unknown-linux-gnu", "linux-x64"),
        ("linux", "aarch64", false) => ("aarch64-unknown-linux-gnu", "linux-arm64"),
        ("linux", "x86_64", true) => ("x86_64-unknown-linux-musl", "linux-x64-musl"),
        ("linux", "aarch64", true) => ("aarch64-unknown-linux-musl", "linux-arm64-musl"),
        ("macos", "x86_64", _) => ("x86_64-apple-darwin", "darwin-x64"),
        ("macos", "aarch64", _) => ("aarch64-apple-darwin", "darwin-arm64"),
        other => panic!("no npm package for {other:?}"),
    }
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

fn run(cmd: &mut Command) -> Out {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {cmd:?}: {e}"));
    Out {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// npm with its cache in `dir`, the registry never asked (nothing of ours is published) and no
/// update check.
fn npm(dir: &Path, program: &str) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(dir)
        .env("npm_config_cache", dir.join(".npm-cache"))
        .env("npm_config_offline", "true")
        .env("npm_config_yes", "false")
        .env("npm_config_update_notifier", "false")
        .env("npm_config_audit", "false")
        .env("npm_config_fund", "false")
        .env_remove("TOOLPROOF_BINARY");
    cmd
}

/// Runs scripts/build-npm.sh with these arguments into `out`; returns the tarballs it printed.
fn build_npm(args: &[&str], out: &Path) -> Vec<PathBuf> {
    let result = run(Command::new(repo().join("scripts/build-npm.sh"))
        .arg("--out")
        .arg(out)
        .args(args));
    assert_eq!(
        result.code,
        Some(0),
        "scripts/build-npm.sh {args:?}: {result:?}"
    );
    let tarballs: Vec<PathBuf> = result.stdout.lines().map(PathBuf::from).collect();
    for t in &tarballs {
        assert!(t.is_file(), "{} was not written: {result:?}", t.display());
    }
    tarballs
}

/// An empty npm project in `dir` with these tarballs installed.
fn npm_project(dir: &Path, tarballs: &[PathBuf], flags: &[&str]) {
    std::fs::create_dir_all(dir).expect("project folder");
    let init = run(npm(dir, "npm").args(["init", "-y"]));
    assert_eq!(init.code, Some(0), "{init:?}");
    let install = run(npm(dir, "npm")
        .args(["install", "--loglevel=error"])
        .args(flags)
        .args(tarballs));
    assert_eq!(
        install.code,
        Some(0),
        "npm install {tarballs:?}: {install:?}"
    );
}

/// `npx <the package> ARGS` in the project, which must not install anything.
fn npx(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Out {
    run(npm(dir, "npx")
        .arg(NAME)
        .args(args)
        .envs(env.iter().copied())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY"))
}

/// The demo server and picker, built (a no-op when current) beside this build's toolproof.
fn demo_examples() -> PathBuf {
    crate::examples_dir()
}

/// The demo's config at `to`, pointed at this build's examples.
fn demo_config(name: &str, examples: &Path, to: &Path) {
    let yaml =
        std::fs::read_to_string(repo().join("examples/demo").join(name)).expect("demo config");
    let yaml = yaml.replace("../../target/release/", &format!("{}/", examples.display()));
    std::fs::write(to, yaml).expect("write the demo config");
}

/// A stand-in for the binary, for the tests about the packages rather than toolproof.
fn stub(dir: &Path) -> PathBuf {
    let path = dir.join("stub");
    std::fs::write(&path, "#!/bin/sh\necho \"stub $*\"\n").expect("write the stub");
    executable(&path);
    path
}

fn executable(path: &Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod 755");
}

#[test]
fn npx_runs_this_build_and_the_demo_from_the_installed_tarballs() {
    let dir = super::temp_dir("npm-install");
    let (triple, key) = host();
    // Stripped as the release profile strips, so the tarball is the size a release's is.
    let binary = dir.join("toolproof");
    std::fs::copy(env!("CARGO_BIN_EXE_toolproof"), &binary).expect("copy toolproof");
    let strip = run(Command::new("strip").arg(&binary));
    assert_eq!(strip.code, Some(0), "{strip:?}");

    let tarballs = build_npm(
        &["--binary", &format!("{triple}={}", binary.display())],
        &dir.join("dist"),
    );
    let version = env!("CARGO_PKG_VERSION");
    let names: Vec<String> = tarballs
        .iter()
        .filter_map(|t| t.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    assert_eq!(
        names,
        [
            format!("toolproof-dev-toolproof-{key}-{version}.tgz"),
            format!("toolproof-dev-toolproof-{version}.tgz"),
        ],
        "platform package first, then the main package"
    );

    let project = dir.join("project");
    npm_project(&project, &tarballs, &[]);
    let main: Value = serde_json::from_str(
        &std::fs::read_to_string(project.join("node_modules").join(NAME).join("package.json"))
            .expect("the main package is installed"),
    )
    .expect("its package.json parses");
    assert_eq!(main["version"], version);
    assert_eq!(
        main["repository"]["url"],
        "git+https://github.com/toolproof-dev/toolproof.git"
    );
    assert_eq!(
        main["optionalDependencies"],
        json!({format!("{NAME}-{key}"): version})
    );
    assert_eq!(main["bin"], json!({"toolproof": "bin/toolproof.js"}));

    let out = npx(&project, &["--version"], &[]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), format!("toolproof {version}"), "{out:?}");

    let examples = demo_examples();
    demo_config("toolproof.yaml", &examples, &project.join("toolproof.yaml"));
    let out = npx(&project, &["run", "toolproof.yaml"], &[]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stdout.contains("Tests: PASS - 7 passed, 0 failed"),
        "{out:?}"
    );
    // A failing run's exit code comes through the launcher too.
    demo_config("broken.yaml", &examples, &project.join("broken.yaml"));
    let out = npx(&project, &["run", "broken.yaml"], &[]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stdout.contains("Tests: FAIL - "), "{out:?}");
}

#[test]
fn without_its_platform_package_the_command_says_what_to_install() {
    let dir = super::temp_dir("npm-missing");
    let (triple, key) = host();
    let stub = stub(&dir);
    let binary = format!("{triple}={}", stub.display());
    let tarballs = build_npm(&["--binary", &binary], &dir.join("dist"));
    // The same inputs pack to the same bytes.
    let again = build_npm(&["--binary", &binary], &dir.join("dist-again"));
    for (a, b) in tarballs.iter().zip(&again) {
        assert!(
            std::fs::read(a).ok() == std::fs::read(b).ok(),
            "{} differs when packed again",
            a.display()
        );
    }

    let project = dir.join("project");
    npm_project(&project, &tarballs[1..], &["--omit=optional"]);
    let out = npx(&project, &["--version"], &[]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.contains(&format!(
            "error: toolproof's binary for {key} is not installed: the package {NAME}-{key} is missing\n"
        )) && out.stderr.contains("(npm install --include=optional)"),
        "{out:?}"
    );
    // TOOLPROOF_BINARY stands in for the package.
    let out = npx(&project, &["--version"], &[("TOOLPROOF_BINARY", &stub)]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (Some(0), "stub --version\n"),
        "{out:?}"
    );
    let missing = dir.join("no-such-binary");
    let out = npx(&project, &["--version"], &[("TOOLPROOF_BINARY", &missing)]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains(&format!("error: could not run {}", missing.display())),
        "{out:?}"
    );

    // A main package built without this platform says it has no binary for it.
    let other = if key.starts_with("darwin") {
        "x86_64-unknown-linux-gnu"
    } else {
        "aarch64-apple-darwin"
    };
    let tarballs = build_npm(
        &["--binary", &format!("{other}={}", stub.display())],
        &dir.join("dist-other"),
    );
    let project = dir.join("project-other");
    npm_project(&project, &tarballs[1..], &["--omit=optional"]);
    let out = npx(&project, &["--version"], &[]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.contains(&format!(
            "error: {NAME} has no toolproof binary for this platform ({key})"
        )),
        "{out:?}"
    );
}

#[test]
fn the_build_script_refuses_what_it_cannot_pack() {
    let dir = super::temp_dir("npm-usage");
    let stub = stub(&dir);
    let out_dir = dir.join("dist");
    let script = |args: &[&str]| {
        run(Command::new(repo().join("scripts/build-npm.sh"))
            .arg("--out")
            .arg(&out_dir)
            .args(args))
    };
    let riscv = format!("riscv64gc-unknown-linux-gnu={}", stub.display());
    let out = script(&["--binary", &riscv]);
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr
            .starts_with("error: no npm package for the triple `riscv64gc-unknown-linux-gnu`"),
        "{out:?}"
    );
    let out = script(&["--binary", "x86_64-unknown-linux-gnu"]);
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr.starts_with("error: --binary takes TRIPLE=PATH"),
        "{out:?}"
    );
    let linux = format!("x86_64-unknown-linux-gnu={}", stub.display());
    let out = script(&["--all", "--binary", &linux]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains("error: no toolproof binary for linux-arm64 linux-x64-musl"),
        "{out:?}"
    );
    assert!(
        !dir.join("dist").exists(),
        "nothing is written when a platform is missing"
    );
}

#[test]
fn signals_go_on_to_the_binary_and_the_command_ends_as_it_did() {
    let dir = super::temp_dir("npm-signals");
    let (triple, _) = host();
    let stub = stub(&dir);
    let tarballs = build_npm(
        &["--binary", &format!("{triple}={}", stub.display())],
        &dir.join("dist"),
    );
    let project = dir.join("project");
    npm_project(&project, &tarballs[1..], &["--omit=optional"]);
    let launcher = project.join("node_modules/.bin/toolproof");

    // The exit code comes through as it is.
    let out = run(Command::new(&launcher)
        .args(["-c", "exit 7"])
        .env("TOOLPROOF_BINARY", "/bin/sh"));
    assert_eq!(out.code, Some(7), "{out:?}");

    // Away from a terminal (these pipes), SIGINT goes on as well as SIGTERM.
    for (signal, number) in [("TERM", 15), ("INT", 2)] {
        let mut child = Command::new(&launcher)
            .args(["-c", "echo ready; exec sleep 30"])
            .env("TOOLPROOF_BINARY", "/bin/sh")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the launcher");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the child's first line");
        assert_eq!(line, "ready\n");
        let kill = run(Command::new("sh").args(["-c", &format!("kill -{signal} {}", child.id())]));
        assert_eq!(kill.code, Some(0), "{kill:?}");
        let status = child.wait().expect("wait for the launcher");
        // Had the signal stopped at the launcher, sleep would have run its 30 s and exited 0.
        assert_eq!(status.signal(), Some(number), "SIG{signal}: {status:?}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn on_musl_the_command_runs_the_musl_build_and_on_glibc_the_glibc_one() {
    let dir = super::temp_dir("npm-libc");
    let arch = if cfg!(target_arch = "aarch64") {
        "aarch64"
    } else {
        "x86_64"
    };
    let (gnu, musl) = (dir.join("gnu"), dir.join("musl"));
    for (path, says) in [(&gnu, "glibc build"), (&musl, "musl build")] {
        std::fs::write(path, format!("#!/bin/sh\necho {says}\n")).expect("write a stub");
        executable(path);
    }
    let tarballs = build_npm(
        &[
            "--binary",
            &format!("{arch}-unknown-linux-gnu={}", gnu.display()),
            "--binary",
            &format!("{arch}-unknown-linux-musl={}", musl.display()),
        ],
        &dir.join("dist"),
    );
    // Both installed, as npm does where it ignores `libc` or installs from a lockfile; `--force`
    // because this npm knows its libc and refuses the musl package here.
    let project = dir.join("project");
    npm_project(&project, &tarballs, &["--force"]);
    let launcher = project.join("node_modules/.bin/toolproof");
    let out = run(&mut Command::new(&launcher));
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (Some(0), "glibc build\n"),
        "{out:?}"
    );
    // Node on musl reports no glibc version: make it say none, as it does on Alpine.
    let preload = dir.join("musl.js");
    std::fs::write(
        &preload,
        "const report = process.report.getReport.bind(process.report);\n\
         process.report.getReport = () => {\n\
           const r = report();\n\
           delete r.header.glibcVersionRuntime;\n\
           return r;\n\
         };\n",
    )
    .expect("write the preload");
    let node_options = format!("--require {}", preload.display());
    let on_musl = |cmd: &mut Command| run(cmd.env("NODE_OPTIONS", &node_options));
    let out = on_musl(&mut Command::new(&launcher));
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (Some(0), "musl build\n"),
        "{out:?}"
    );
    // The static musl build serves on glibc when it is the only one; the glibc build never
    // serves on musl.
    let key = if arch == "x86_64" { "x64" } else { "arm64" };
    let modules = project.join("node_modules");
    let aside = |package: &str, back: bool| {
        let (from, to) = (modules.join(package), dir.join(package.replace('/', "+")));
        let (from, to) = if back { (to, from) } else { (from, to) };
        std::fs::rename(&from, &to).expect("move a platform package");
    };
    let glibc_package = format!("{NAME}-linux-{key}");
    let musl_package = format!("{NAME}-linux-{key}-musl");
    aside(&glibc_package, false);
    let out = run(&mut Command::new(&launcher));
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (Some(0), "musl build\n"),
        "{out:?}"
    );
    aside(&glibc_package, true);
    aside(&musl_package, false);
    let out = on_musl(&mut Command::new(&launcher));
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains(&format!("the package {musl_package} is missing")),
        "{out:?}"
    );
}
