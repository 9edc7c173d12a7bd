//! The repository as a newcomer meets it: each script answers `--help` with its usage and does
//! nothing else; the README's test command stops at once, naming what to install, when a
//! program the suite runs is missing and cannot be installed; its first command builds only what
//! the demo runs; and the workflow snippets of the README and the guide can be pasted as they are.

use std::path::{Path, PathBuf};
use std::process::Command;

use toolproof_test_support::{Dir, repo};

/// Every script a user may run: `scripts/*.sh` and `.ci/run`.
fn scripts() -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(repo().join("scripts"))
        .expect("list scripts/")
        .map(|e| e.expect("a scripts/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "sh"))
        .collect();
    all.sort();
    all.push(repo().join(".ci/run"));
    all
}

/// The comment at the top of a script, after the shebang, without its `# `.
fn header(script: &Path) -> String {
    let text = std::fs::read_to_string(script).expect("read the script");
    let mut out = String::new();
    for line in text.lines().skip(1) {
        let Some(rest) = line.strip_prefix('#') else {
            break;
        };
        out.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        out.push('\n');
    }
    out
}

#[test]
fn every_script_answers_help_with_its_usage_and_does_nothing_else() {
    let dir = Dir::new("script-help");
    for script in scripts() {
        let name = script.strip_prefix(repo()).unwrap().display().to_string();
        for flag in ["--help", "-h"] {
            let out = Command::new(&script)
                .arg(flag)
                .current_dir(&dir.0)
                .output()
                .unwrap_or_else(|e| panic!("run {name}: {e}"));
            let (stdout, stderr) = (
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
            assert!(
                out.status.success(),
                "{name} {flag}: {:?}\n{stdout}{stderr}",
                out.status
            );
            assert_eq!(stdout, header(&script), "{name} {flag}");
            assert!(
                stdout.contains("Usage:"),
                "{name} {flag}: no usage line\n{stdout}"
            );
            assert_eq!(stderr, "", "{name} {flag}");
        }
    }
    // Nothing was made of the flag: no folder or file named after it.
    for place in [repo(), dir.0.as_path()] {
        for flag in ["--help", "-h"] {
            assert!(!place.join(flag).exists(), "{}", place.join(flag).display());
        }
    }
}

/// A PATH holding every program of this one but those named, plus a `cargo` that leaves a mark
/// when it is run.
fn path_without(dir: &Dir, left_out: &[&str]) -> (String, PathBuf) {
    let bin = dir.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for folder in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if left_out.contains(&name.as_ref()) || bin.join(name.as_ref()).exists() {
                continue;
            }
            let _ = std::os::unix::fs::symlink(entry.path(), bin.join(name.as_ref()));
        }
    }
    let mark = dir.path("cargo-ran");
    let cargo = bin.join("cargo");
    std::fs::write(
        &cargo,
        format!("#!/bin/sh\ntouch '{}'\nexit 0\n", mark.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    (bin.display().to_string(), mark)
}

#[test]
fn the_suite_stops_before_building_when_chromium_is_missing_and_cannot_be_installed() {
    let dir = Dir::new("test-sh-prereqs");
    // No chromium, and no apt-get or sudo to install it with.
    let left_out = ["chromium", "chromium-browser", "apt-get", "sudo", "cargo"];
    let (path, mark) = path_without(&dir, &left_out);
    let out = Command::new(repo().join("scripts/test.sh"))
        .env("PATH", &path)
        .env_remove("CHROMIUM")
        .output()
        .expect("run scripts/test.sh");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!mark.exists(), "cargo ran before the check: {stderr}");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("error: the whole suite needs ")
            && first.contains("chromium")
            && first.ends_with(", which this machine does not have"),
        "{stderr}"
    );
    assert!(stderr.contains("hint: "), "{stderr}");
    assert!(
        stderr.contains("`cargo test` alone runs the fast tier"),
        "{stderr}"
    );
}

#[test]
fn the_suite_names_a_chromium_variable_that_names_no_program() {
    let dir = Dir::new("test-sh-chromium-var");
    let (path, mark) = path_without(&dir, &["cargo"]);
    let out = Command::new(repo().join("scripts/test.sh"))
        .env("PATH", &path)
        .env("CHROMIUM", dir.path("no-such-chromium"))
        .output()
        .expect("run scripts/test.sh");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!mark.exists(), "cargo ran before the check: {stderr}");
    assert!(stderr.contains("CHROMIUM is set to"), "{stderr}");
    assert!(stderr.contains("no-such-chromium"), "{stderr}");
}

/// The README's first command: a `cargo build` that builds only what the demo runs.
#[test]
fn the_readme_demo_build_compiles_no_test_dependency() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("read README.md");
    let first = readme
        .lines()
        .skip_while(|l| *l != "```sh")
        .nth(1)
        .expect("the README opens with a sh block");
    let (build, run) = first.split_once(" && ").expect("build && run");
    let args: Vec<&str> = build.split_whitespace().collect();
    assert_eq!(args[..3], ["cargo", "build", "--release"], "{first}");
    for flag in [
        "--examples",
        "--workspace",
        "--all-targets",
        "--tests",
        "--benches",
    ] {
        assert!(
            !args.contains(&flag),
            "{flag} builds dev-dependencies: {first}"
        );
    }
    assert_eq!(
        run,
        "./target/release/toolproof run examples/demo/toolproof.yaml"
    );

    // What that build compiles: the default members' normal and build dependencies.
    let tree = toolproof_test_support::cargo()
        .args(["tree", "--offline", "--locked", "--edges", "normal,build"])
        .args(["--prefix", "none", "--format", "{p}"])
        .args(&args[3..])
        .current_dir(repo())
        .output()
        .expect("run cargo tree");
    let listed = String::from_utf8_lossy(&tree.stdout);
    assert!(
        tree.status.success(),
        "{}",
        String::from_utf8_lossy(&tree.stderr)
    );
    let packages: Vec<&str> = listed.lines().filter_map(|l| l.split(' ').next()).collect();
    for wanted in ["toolproof", "toolproof-demo", "serde_json"] {
        assert!(packages.contains(&wanted), "{wanted} not built:\n{listed}");
    }
    for unwanted in ["insta", "proptest", "roxmltree", "toolproof-test-support"] {
        assert!(!packages.contains(&unwanted), "{unwanted} built:\n{listed}");
    }

    // The demo's configs run binaries that build makes.
    for config in ["toolproof.yaml", "broken.yaml"] {
        let yaml = std::fs::read_to_string(repo().join("examples/demo").join(config)).unwrap();
        for bin in ["demo_server", "demo_picker"] {
            assert!(
                yaml.contains(&format!("\"../../target/release/{bin}\"")),
                "{config} does not run target/release/{bin}"
            );
        }
    }
}

/// The crates.io name `toolproof` is another project's: the README's cargo row must install
/// this one, from its repository, and the package must never be published there by mistake.
#[test]
fn the_cargo_install_row_installs_this_project_not_the_crates_io_namesake() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("read README.md");
    let row = readme
        .lines()
        .find(|l| l.starts_with("| Rust (cargo) |"))
        .expect("the Install table has a Rust (cargo) row");
    let commands: Vec<&str> = row.split('`').skip(1).step_by(2).collect();
    let installs: Vec<&&str> = commands
        .iter()
        .filter(|c| c.starts_with("cargo install") || c.starts_with("cargo binstall"))
        .collect();
    assert_eq!(installs.len(), 2, "{row}");
    for command in installs {
        assert!(
            command.contains(" --git https://github.com/toolproof-dev/toolproof "),
            "`{command}` would install the crates.io crate named toolproof, another project"
        );
    }
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    assert!(manifest.contains("\npublish = false\n"), "Cargo.toml");
}

/// The fenced blocks of a Markdown file whose info string is `lang`.
fn blocks<'a>(markdown: &'a str, lang: &str) -> Vec<&'a str> {
    let open = format!("```{lang}\n");
    markdown
        .split(&open)
        .skip(1)
        .filter_map(|rest| rest.split("\n```").next())
        .collect()
}

/// The major version each action is pinned at in action.yml and the workflows (`@<sha> # vN.x.y`).
fn pinned_majors() -> std::collections::BTreeMap<String, String> {
    let mut majors = std::collections::BTreeMap::new();
    let mut files = vec![repo().join("action.yml")];
    for entry in std::fs::read_dir(repo().join(".github/workflows"))
        .unwrap()
        .flatten()
    {
        files.push(entry.path());
    }
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            let Some(rest) = line.trim().trim_start_matches("- ").strip_prefix("uses: ") else {
                continue;
            };
            let (Some((action, _)), Some((_, version))) =
                (rest.split_once('@'), rest.split_once("# v"))
            else {
                continue;
            };
            let major = version.split('.').next().unwrap_or_default();
            majors.insert(action.to_owned(), format!("v{major}"));
        }
    }
    majors
}

#[test]
fn the_workflow_snippets_pin_the_actions_the_action_uses_and_can_be_pasted() {
    let majors = pinned_majors();
    assert!(majors.contains_key("actions/upload-artifact"), "{majors:?}");
    for page in [
        "README.md",
        "docs/sharding.md",
        "docs/reports.md",
        "docs/cost.md",
    ] {
        let text = std::fs::read_to_string(repo().join(page)).unwrap();
        for block in blocks(&text, "yaml") {
            if !block.contains("runs-on:") && !block.contains("uses: ") {
                continue;
            }
            for line in block.lines() {
                let line = line.trim().trim_start_matches("- ");
                if let Some(rest) = line.strip_prefix("uses: actions/") {
                    let (action, version) = rest.split_once('@').unwrap();
                    let action = format!("actions/{action}");
                    if let Some(major) = majors.get(&action) {
                        assert_eq!(
                            version.split_whitespace().next(),
                            Some(major.as_str()),
                            "{page}: {action} is pinned at {major} by the Action and its workflows"
                        );
                    }
                }
                // A `${{ }}` expression in a shell line is template injection waiting to
                // happen; snippets pass values through `env:`.
                if let Some(run) = line.strip_prefix("run: ") {
                    assert!(
                        !run.contains("${{"),
                        "{page}: `{line}` expands an expression in the shell"
                    );
                }
            }
            if block.contains("pr-comment:") && block.contains("runs-on:") {
                assert!(
                    block.contains("pull-requests: write"),
                    "{page}: a job that posts the PR comment without `pull-requests: write`:\n{block}"
                );
            }
        }
    }
}

#[test]
fn the_guide_home_and_command_table_list_everything() {
    let index = std::fs::read_to_string(repo().join("docs/index.md")).unwrap();
    let mkdocs = std::fs::read_to_string(repo().join("mkdocs.yml")).unwrap();
    for line in mkdocs.lines() {
        let Some((_, page)) = line
            .trim()
            .strip_prefix("- ")
            .and_then(|l| l.split_once(": "))
        else {
            continue;
        };
        if page.ends_with(".md") && page != "index.md" {
            assert!(
                index.contains(&format!("]({page})")),
                "docs/index.md leaves out {page}"
            );
        }
    }
    let commands = std::fs::read_to_string(repo().join("docs/commands.md")).unwrap();
    let help = toolproof_test_support::toolproof_in(repo(), &["--help"], &[]);
    let listed: Vec<&str> = help
        .stdout
        .split("Commands:\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(
        listed.contains(&"bench") && listed.contains(&"protocol"),
        "{listed:?}"
    );
    for command in listed {
        assert!(
            commands.contains(&format!("| `toolproof {command}")),
            "docs/commands.md has no row for `toolproof {command}`"
        );
    }
    let evals = std::fs::read_to_string(repo().join("docs/evals.md")).unwrap();
    assert!(evals.contains("`ANTHROPIC_BASE_URL` is the root without `/v1`"));
}

/// A wheel of the binary a plain `cargo build` made: the default target's glibc 2.17 floor
/// refuses it, with a hint that names the host triple, and that triple packs a local wheel.
#[test]
fn build_wheel_offers_the_host_target_for_a_binary_of_this_machine() {
    let arch = std::env::consts::ARCH;
    if std::env::consts::OS != "linux" || !matches!(arch, "x86_64" | "aarch64") {
        return;
    }
    let dir = Dir::new("wheel-host");
    let bin = toolproof_test_support::toolproof_bin();
    let bin = bin.display().to_string();
    let out_dir = dir.path("wheels").display().to_string();
    let script = repo().join("scripts/build-wheel.sh");
    let refused = Command::new(&script)
        .args([
            "--binary",
            &bin,
            "--out",
            &out_dir,
            &format!("{arch}-unknown-linux-gnu.2.17"),
        ])
        .output()
        .expect("run build-wheel.sh");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    if refused.status.success() {
        // This machine's glibc is 2.17: its binaries are what the release builds.
        return;
    }
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    let triple = format!("{arch}-unknown-linux-gnu");
    assert!(
        stderr.contains(&format!("scripts/build-wheel.sh --binary {bin} {triple}\n")),
        "{stderr}"
    );
    let local = Command::new(&script)
        .args(["--binary", &bin, "--out", &out_dir, &triple])
        .output()
        .expect("run build-wheel.sh");
    assert!(
        local.status.success(),
        "{}",
        String::from_utf8_lossy(&local.stderr)
    );
    let wheel = String::from_utf8_lossy(&local.stdout);
    assert!(
        wheel.trim().ends_with(&format!("_{arch}.whl")) && wheel.contains("manylinux_2_"),
        "{wheel}"
    );
}
