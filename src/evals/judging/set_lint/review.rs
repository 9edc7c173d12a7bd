//! `unreviewed-row`: a row `toolproof rows` proposed (`reviewed: false`) that no one has read
//! yet. A warning, so `--strict` fails on it: nothing proposed lands in the gate unread.

use super::{At, LintInput, Sink, named};
use crate::config::vocab::set_lint::UNREVIEWED_ROW;
use crate::outcome::Severity;

pub(super) fn check(input: &LintInput<'_>, out: &mut Sink) {
    for case in input.cases.iter().filter(|c| c.reviewed == Some(false)) {
        out.add(
            UNREVIEWED_ROW,
            Severity::Warning,
            format!(
                "{} has `reviewed: false`: it was proposed, not yet read",
                named(case, input)
            ),
            "read the row (is the expected tool the one the user wanted? is the prompt free of personal data?), fix it, then set `reviewed: true` or remove the key"
                .to_owned(),
            At::case(case),
        );
    }
}
