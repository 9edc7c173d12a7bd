//! Tests of the console report's own helpers: colour choice. The renderings of the fixtures are
//! in `src/golden/console.rs`.

use super::*;

fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
    move |k| {
        pairs
            .iter()
            .find(|(name, _)| *name == k)
            .map(|(_, v)| OsString::from(v))
    }
}

#[test]
fn color_follows_the_flag_and_the_environment() {
    use ColorFlag::*;
    assert!(color_choice_from(Auto, true, env(&[])));
    assert!(!color_choice_from(Auto, false, env(&[])));
    assert!(!color_choice_from(Auto, true, env(&[("NO_COLOR", "1")])));
    assert!(color_choice_from(Auto, true, env(&[("NO_COLOR", "")])));
    assert!(!color_choice_from(Auto, true, env(&[("CI", "true")])));
    assert!(color_choice_from(Auto, true, env(&[("CI", "false")])));
    assert!(color_choice_from(
        Auto,
        false,
        env(&[("CLICOLOR_FORCE", "1")])
    ));
    assert!(color_choice_from(
        Auto,
        false,
        env(&[("CI", "1"), ("CLICOLOR_FORCE", "1")])
    ));
    assert!(!color_choice_from(
        Auto,
        false,
        env(&[("CLICOLOR_FORCE", "0")])
    ));
    assert!(!color_choice_from(
        Auto,
        false,
        env(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")])
    ));
    assert!(!color_choice_from(Auto, true, env(&[("TERM", "dumb")])));
    assert!(color_choice_from(
        Always,
        false,
        env(&[("NO_COLOR", "1"), ("CI", "1")])
    ));
    assert!(!color_choice_from(
        Never,
        true,
        env(&[("CLICOLOR_FORCE", "1")])
    ));
}
