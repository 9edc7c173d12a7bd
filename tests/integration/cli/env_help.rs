//! The variables `--help` names beside each flag agree with the guide's environment table,
//! which `the_guide_lists_every_environment_variable_the_code_reads` ties to the code: so the
//! help, the table and the code cannot drift apart. The variables are read by the settings
//! resolver, not through clap's `env`, because their rule is not clap's: a blank variable counts
//! as unset (the Action passes its inputs through variables that may be empty), a bad value is
//! an error that names the variable, and where a value came from shows in messages (`turned off
//! with TOOLPROOF_SKIP_EVALS=1`) and, for some switches, in what they do.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use toolproof_test_support::{Dir, toolproof_in};

/// Each long flag of `toolproof COMMAND --help` with its help text (the lines under it).
fn flags_of(dir: &Path, command: &str) -> Vec<(String, String)> {
    let out = toolproof_in(dir, &[command, "--help"], &[("COLUMNS", "400")]);
    assert_eq!(out.code, 0, "{out:?}");
    let flag = regex::Regex::new(r"^\s+(?:-[a-zA-Z], )?(--[a-z][a-z0-9-]*)").expect("regex");
    let mut flags: Vec<(String, String)> = Vec::new();
    for line in out.stdout.lines() {
        if let Some(c) = flag.captures(line) {
            flags.push((c[1].to_owned(), line.to_owned()));
        } else if line.trim().is_empty() || !line.starts_with(' ') {
            continue;
        } else if let Some((_, help)) = flags.last_mut() {
            help.push(' ');
            help.push_str(line.trim());
        }
    }
    flags
}

/// The commands of `toolproof --help`.
fn commands(dir: &Path) -> Vec<String> {
    let out = toolproof_in(dir, &["--help"], &[("COLUMNS", "400")]);
    out.stdout
        .split("Commands:")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_help_names_each_flags_variable_as_the_guide_table_does() {
    let dir = Dir::new("env-help");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/commands.md")).expect("docs/commands.md");
    let var = regex::Regex::new(r"`(TOOLPROOF_[A-Z0-9_]+)`").expect("regex");
    let long = regex::Regex::new(r"(--[a-z][a-z0-9-]*[a-z0-9])").expect("regex");
    // variable -> the flags its row lists.
    let mut table: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for row in page.lines().filter(|l| l.starts_with("| `TOOLPROOF_")) {
        let cells: Vec<&str> = row.split('|').collect();
        let listed: BTreeSet<String> = long
            .captures_iter(cells[2])
            .map(|c| c[1].to_owned())
            .collect();
        for v in var.captures_iter(cells[1]) {
            table
                .entry(v[1].to_owned())
                .or_default()
                .extend(listed.clone());
        }
    }
    let tag = regex::Regex::new(r"\[env: (TOOLPROOF_[A-Z0-9_]+)\]").expect("regex");
    let commands = commands(&dir.0);
    assert!(commands.len() >= 8, "{commands:?}");
    let mut problems = Vec::new();
    // variable -> the flags whose help names it in `[env: …]`.
    let mut tagged: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for command in &commands {
        for (flag, help) in flags_of(&dir.0, command) {
            for t in tag.captures_iter(&help) {
                let name = t[1].to_owned();
                match table.get(&name) {
                    None => problems.push(format!(
                        "`{command} {flag}` says [env: {name}], which docs/commands.md does not list"
                    )),
                    Some(flags) if !flags.contains(&flag) => problems.push(format!(
                        "`{command} {flag}` says [env: {name}], but the table's row for it lists {flags:?}"
                    )),
                    Some(_) => {}
                }
                tagged.entry(name).or_default().insert(flag.clone());
            }
        }
    }
    assert!(
        tagged.len() >= 30,
        "only {} variables tagged in --help",
        tagged.len()
    );
    for (name, flags) in &table {
        let said = tagged.get(name).cloned().unwrap_or_default();
        // Each variable's flag says so in its help; the `--no-…` and other opposite forms
        // (`--checks` for TOOLPROOF_NO_CHECKS) name it in words instead.
        if !flags.is_empty() && said.is_empty() {
            problems.push(format!(
                "no flag's help says [env: {name}] (the table lists {flags:?})"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
