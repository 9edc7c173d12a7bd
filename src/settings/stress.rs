//! The stress curve's settings: `--stress` / `--no-stress` > `TOOLPROOF_EVAL_STRESS` >
//! `evals.stress` (with `enabled`) > off. When it is on without a section, the defaults of
//! [`StressConfig`] apply. The loader has checked every value already.

use super::resolve::pick;
use super::{Env, Origin, Resolved};
use crate::config::{ConfigError, StressConfig, StressOrder};
use crate::outcome::ToolOrder;

/// Which tool lists the curve asks, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StressSettings {
    distractors: Vec<usize>,
    orders: Vec<ToolOrder>,
    orders_at: Vec<usize>,
    seed: u64,
    must_hold: Option<usize>,
}

impl StressSettings {
    /// Every (distractor count, order) measured, by count, then in [`ToolOrder::ALL`] order:
    /// the server's order at every count, each other order at `orders_at`.
    pub(crate) fn points(&self) -> Vec<(usize, ToolOrder)> {
        let mut points: Vec<(usize, ToolOrder)> = self
            .distractors
            .iter()
            .map(|n| (*n, ToolOrder::Server))
            .collect();
        for order in &self.orders {
            points.extend(self.orders_at.iter().map(|n| (*n, *order)));
        }
        points.sort_unstable();
        points.dedup();
        points
    }

    /// The largest distractor count: how many distractors are drawn.
    pub(crate) fn largest(&self) -> usize {
        self.distractors.iter().copied().max().unwrap_or(0)
    }

    /// Seed of the draw and of the shuffled order.
    pub(crate) fn seed(&self) -> u64 {
        self.seed
    }

    /// `must_hold`: the run fails when accuracy falls below the minimum at this many
    /// distractors or fewer.
    pub(crate) fn must_hold(&self) -> Option<usize> {
        self.must_hold
    }

    /// The settings of a section (already checked by the loader).
    pub(crate) fn of(cfg: &StressConfig) -> StressSettings {
        let mut distractors: Vec<usize> = cfg.distractors.iter().map(|n| *n as usize).collect();
        distractors.sort_unstable();
        distractors.dedup();
        let orders_at = match &cfg.orders_at {
            Some(at) => at.iter().map(|n| *n as usize).collect(),
            None => {
                let mut ends: Vec<usize> = distractors.first().into_iter().copied().collect();
                ends.extend(distractors.last().copied());
                ends.dedup();
                ends
            }
        };
        let orders = cfg
            .orders
            .iter()
            .filter_map(|o| match o {
                StressOrder::Server => None,
                StressOrder::Shuffled => Some(ToolOrder::Shuffled),
                StressOrder::Reversed => Some(ToolOrder::Reversed),
            })
            .collect();
        StressSettings {
            distractors,
            orders,
            orders_at,
            seed: cfg.seed,
            must_hold: cfg.must_hold.map(|n| n as usize),
        }
    }
}

/// Whether the curve runs (and who said so), and its settings when it does. `flag` is
/// `--stress` (`Some(true)`) or `--no-stress` (`Some(false)`); the environment is read only
/// when `env` is given (the commands that run evals or count their answers).
pub(super) fn resolve(
    flag: Option<bool>,
    env: Option<&Env>,
    section: Option<&StressConfig>,
) -> Result<(Resolved<bool>, Option<StressSettings>), ConfigError> {
    const VAR: &str = "TOOLPROOF_EVAL_STRESS";
    let from_env = match env {
        Some(env) => env
            .switch(VAR)?
            .map(|v| (v, VAR, env.get(VAR).unwrap_or_default().to_owned())),
        None => None,
    };
    let yaml = section.map(|s| {
        let key = if s.enabled {
            "evals.stress"
        } else {
            "evals.stress.enabled: false"
        };
        (s.enabled, key)
    });
    let on = pick(
        flag.map(|on| (on, if on { "--stress" } else { "--no-stress" })),
        from_env,
        yaml,
        false,
    );
    let settings = on
        .value
        .then(|| StressSettings::of(&section.cloned().unwrap_or_default()));
    Ok((on, settings))
}

/// Why the curve does not run, for the plan: who turned it off, or that nobody asked.
pub(crate) fn off_reason(on: &Resolved<bool>) -> String {
    match &on.origin {
        Origin::Default => {
            "not asked for: pass --stress or set `evals.stress` in the config".to_owned()
        }
        Origin::Yaml(key) => format!("turned off with {key}"),
        other => format!("turned off with {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(yaml_like: StressConfig) -> StressSettings {
        StressSettings::of(&yaml_like)
    }

    #[test]
    fn the_server_order_runs_at_every_count_and_the_others_at_the_ends() {
        let s = cfg(StressConfig::default());
        let points = s.points();
        let server: Vec<usize> = points
            .iter()
            .filter(|(_, o)| *o == ToolOrder::Server)
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(server, [0, 10, 25, 50, 100]);
        let others: Vec<(usize, ToolOrder)> = points
            .iter()
            .copied()
            .filter(|(_, o)| *o != ToolOrder::Server)
            .collect();
        assert_eq!(
            others,
            [
                (0, ToolOrder::Shuffled),
                (0, ToolOrder::Reversed),
                (100, ToolOrder::Shuffled),
                (100, ToolOrder::Reversed)
            ]
        );
        assert_eq!(points.len(), 9);
        assert_eq!(s.largest(), 100);
    }

    #[test]
    fn orders_at_and_unsorted_counts_are_honoured() {
        let s = cfg(StressConfig {
            distractors: vec![40, 0, 5],
            orders: vec![StressOrder::Reversed, StressOrder::Server],
            orders_at: Some(vec![5]),
            ..StressConfig::default()
        });
        assert_eq!(
            s.points(),
            [
                (0, ToolOrder::Server),
                (5, ToolOrder::Server),
                (5, ToolOrder::Reversed),
                (40, ToolOrder::Server)
            ]
        );
        let only = cfg(StressConfig {
            distractors: vec![7],
            ..StressConfig::default()
        });
        assert_eq!(only.points().len(), 3, "one count: every order there once");
    }

    #[test]
    fn flag_beats_environment_beats_yaml() {
        let env = Env::from_pairs([("TOOLPROOF_EVAL_STRESS", "1")]);
        let off = StressConfig {
            enabled: false,
            ..StressConfig::default()
        };
        let on_of = |flag, env: Option<&Env>, section: Option<&StressConfig>| {
            resolve(flag, env, section).map(|(on, s)| (on.value, s.is_some(), off_reason(&on)))
        };
        assert_eq!(
            on_of(None, None, None).ok(),
            Some((
                false,
                false,
                "not asked for: pass --stress or set `evals.stress` in the config".into()
            ))
        );
        assert_eq!(
            on_of(None, Some(&env), Some(&off)).ok().map(|r| r.0),
            Some(true)
        );
        assert_eq!(
            on_of(Some(false), Some(&env), None).ok().map(|r| r.2),
            Some("turned off with --no-stress".into())
        );
        assert_eq!(
            on_of(None, None, Some(&off)).ok().map(|r| r.2),
            Some("turned off with evals.stress.enabled: false".into())
        );
        assert_eq!(on_of(Some(true), None, None).ok().map(|r| r.1), Some(true));
        let bad = Env::from_pairs([("TOOLPROOF_EVAL_STRESS", "maybe")]);
        assert!(resolve(None, Some(&bad), None).is_err());
    }
}
