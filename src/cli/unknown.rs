//! A flag the command does not take, said usefully: clap's own error for `run --provider x`
//! ends with `tip: to pass '--provider' as a value, use '-- --provider'`, which is never what a
//! user meant. When another command takes the flag, the tip names that command and the variable
//! (or YAML key) that sets the same thing for this one; otherwise the irrelevant tip is dropped.

use clap::CommandFactory;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use super::Cli;

/// The text to print instead of clap's for an unknown argument, or `None` to keep clap's (a
/// `did you mean` suggestion, or another kind of error).
pub(crate) fn explain(e: &clap::Error) -> Option<String> {
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(invalid)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let rendered = e.render().to_string();
    let trailing_tip = format!("  tip: to pass '{invalid}' as a value, use '-- {invalid}'\n");
    // clap's `a similar argument exists` is kept, unless another command takes the flag as
    // written (`run --provider` is no typo of `--overrides`).
    let suggested = e.get(ContextKind::SuggestedArg).is_some();
    if !rendered.contains(&trailing_tip) && !suggested {
        return None;
    }
    let flag = invalid.split('=').next().unwrap_or(invalid);
    let long = flag.strip_prefix("--")?;
    let command = rendered
        .lines()
        .find_map(|l| l.strip_prefix("Usage: toolproof "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_default()
        .to_owned();
    let root = Cli::command();
    let mut owners = Vec::new();
    let mut env = None;
    for sub in root.get_subcommands().filter(|s| !s.is_hide_set()) {
        let Some(arg) = sub.get_arguments().find(|a| a.get_long() == Some(long)) else {
            continue;
        };
        owners.push(format!("`toolproof {}`", sub.get_name()));
        let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
        env = env.or_else(|| {
            let start = help.find("[env: ")? + "[env: ".len();
            let end = help[start..].find(']')? + start;
            Some(help[start..end].to_owned())
        });
    }
    if suggested && owners.is_empty() {
        return None;
    }
    let tip = if owners.is_empty() {
        String::new()
    } else {
        let setting = match env {
            Some(var) => format!("; for `toolproof {command}`, set {var} or toolproof.yaml"),
            None => String::new(),
        };
        format!(
            "  tip: `{flag}` is a flag of {}{setting}\n",
            owners.join(" and ")
        )
    };
    let replaced = match rendered
        .lines()
        .find(|l| suggested && l.starts_with("  tip: "))
    {
        Some(similar) => rendered.replacen(&format!("{similar}\n"), &tip, 1),
        None => rendered.replacen(&trailing_tip, &tip, 1),
    };
    Some(replaced.replace("\n\n\n", "\n\n"))
}
