//! The command line as a newcomer reads it: every command's help shows examples that parse,
//! and a flag given to the wrong command gets a tip that names the right one.

use clap::{CommandFactory, Parser};

use super::{Cli, explain_unknown_flag};

/// The example command lines of a help text: the lines of its `Examples:` block, without the
/// comment that follows two or more spaces.
fn examples(after_help: &str) -> Vec<Vec<String>> {
    after_help
        .split("Examples:\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .take_while(|l| l.starts_with("  toolproof "))
        .map(|l| {
            let command = l.trim().split("   ").next().unwrap_or_default();
            // A shell redirection is not an argument.
            let command = command.split(" > ").next().unwrap_or_default();
            command.split_whitespace().map(str::to_owned).collect()
        })
        .collect()
}

#[test]
fn every_command_shows_examples_that_parse() {
    let root = Cli::command();
    let mut helps = vec![(
        "toolproof".to_owned(),
        root.get_after_help().map(|h| h.to_string()),
    )];
    for sub in root
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "cache")
    {
        helps.push((
            sub.get_name().to_owned(),
            sub.get_after_help().map(|h| h.to_string()),
        ));
        // A group's commands (`rows import`, `rows suggest`) show their own.
        if sub.get_name() == "rows" {
            for inner in sub.get_subcommands() {
                helps.push((
                    format!("rows {}", inner.get_name()),
                    inner.get_after_help().map(|h| h.to_string()),
                ));
            }
        }
    }
    for (name, help) in helps {
        let lines = examples(help.as_deref().unwrap_or_default());
        assert!(lines.len() >= 2, "{name}: no examples in its help");
        for args in lines {
            if let Err(e) = Cli::try_parse_from(&args) {
                panic!("{name}: `{}` does not parse: {e}", args.join(" "));
            }
        }
    }
}

#[test]
fn a_flag_of_another_command_gets_a_tip_that_names_it() {
    let e = Cli::try_parse_from(["toolproof", "run", "--provider", "openai"]).unwrap_err();
    let text = explain_unknown_flag(&e).expect("explained");
    assert!(
        text.contains(
            "  tip: `--provider` is a flag of `toolproof eval`; for `toolproof run`, set TOOLPROOF_EVAL_PROVIDER or toolproof.yaml\n"
        ),
        "{text}"
    );
    assert!(!text.contains("-- --provider"), "{text}");
    assert!(text.contains("Usage: toolproof run"), "{text}");
    // A flag no command has: the irrelevant tip goes, nothing else is claimed.
    let e = Cli::try_parse_from(["toolproof", "run", "--bogus"]).unwrap_err();
    let text = explain_unknown_flag(&e).expect("explained");
    assert!(!text.contains("tip:"), "{text}");
    // A typo keeps clap's `did you mean`.
    let e = Cli::try_parse_from(["toolproof", "run", "--strct"]).unwrap_err();
    assert_eq!(explain_unknown_flag(&e), None);
}

#[test]
fn run_takes_min_accuracy_as_eval_does() {
    let cli = Cli::try_parse_from(["toolproof", "run", "--min-accuracy", "0.9"]).expect("parses");
    let super::Command::Run(run) = cli.command else {
        panic!("not run");
    };
    assert_eq!(run.min_accuracy, Some(0.9));
}

#[test]
fn run_short_help_leaves_the_bench_and_undo_flags_to_long_help() {
    let mut cmd = Cli::command();
    let run = cmd.find_subcommand_mut("run").expect("run");
    let short = run.render_help().to_string();
    let long = run.render_long_help().to_string();
    for flag in [
        "--baseline",
        "--max-regression",
        "--no-skip-evals",
        "--batch-poll-s",
        "--no-strict",
    ] {
        assert!(!short.contains(flag), "{flag} in run -h:\n{short}");
        assert!(long.contains(flag), "{flag} missing from run --help");
    }
    assert!(
        short.lines().count() < 75,
        "run -h is {} lines",
        short.lines().count()
    );
}

#[test]
fn the_hidden_session_help_names_no_source_path() {
    let mut cmd = Cli::command();
    let session = cmd.find_subcommand_mut("session").expect("session");
    let help = session.render_long_help().to_string();
    assert!(!help.contains("src/"), "{help}");
    assert!(help.contains("\"op\": \"call\""), "{help}");
}
