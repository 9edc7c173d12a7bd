//! `trials:` and how many times each case is asked (a fixed number, or `auto` between
//! `min_trials` and `max_trials`).

use serde::Deserialize;

use super::{EvalCase, EvalConfig};

/// `trials:`: a number of times each case is asked, or `auto` (asked again only while its
/// outcome is undecided, between `min_trials` and `max_trials`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trials {
    /// The same number of trials for every case.
    Fixed(u32),
    /// Adaptive trials.
    Auto,
}

impl Default for Trials {
    fn default() -> Self {
        Trials::Fixed(1)
    }
}

impl Trials {
    /// The fixed number, `None` under `auto`.
    pub fn fixed(self) -> Option<u32> {
        match self {
            Trials::Fixed(n) => Some(n),
            Trials::Auto => None,
        }
    }

    /// The most trials a case can get: the number, or `max` under `auto`.
    pub fn at_most(self, max: u32) -> u32 {
        self.fixed().unwrap_or(max)
    }
}

/// How many times one case is asked: `min` trials first, then (under `auto`) more while
/// undecided, up to `max`. A fixed number has `min == max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaseTrials {
    /// Whether the number is decided as the answers come (`trials: auto`).
    pub auto: bool,
    /// Trials every case gets.
    pub min: u32,
    /// The most trials the case gets.
    pub max: u32,
}

impl EvalConfig {
    /// How `case` is asked: its own `trials`, else the section's (at least once); under
    /// `auto`, its own `min_trials`/`max_trials`, else the section's (`max` never below `min`).
    pub fn trials_of(&self, case: &EvalCase) -> CaseTrials {
        match case.trials.unwrap_or(self.trials) {
            Trials::Fixed(n) => CaseTrials {
                auto: false,
                min: n.max(1),
                max: n.max(1),
            },
            Trials::Auto => {
                let min = case.min_trials.unwrap_or(self.min_trials).max(1);
                CaseTrials {
                    auto: true,
                    min,
                    max: case.max_trials.unwrap_or(self.max_trials).max(min),
                }
            }
        }
    }
}

impl<'de> Deserialize<'de> for Trials {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Trials;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number of trials or `auto`")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Trials, E> {
                u32::try_from(v)
                    .map(Trials::Fixed)
                    .map_err(|_| E::custom("a number of trials up to 4294967295, or `auto`"))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Trials, E> {
                u64::try_from(v)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Trials, E> {
                if v == "auto" {
                    Ok(Trials::Auto)
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
                }
            }
        }
        d.deserialize_any(Visit)
    }
}
