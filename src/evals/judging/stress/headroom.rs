//! The headroom, pure: per model, how many tools can be added before the Wilson 95% lower
//! bound of the trial accuracy falls under the minimum, read off the curve in server order.
//! The estimate interpolates the bound linearly between the last count that held and the
//! first that fell; those two counts are the interval.

use crate::outcome::{StressHeadroom, StressModel, StressPoint, ToolOrder};

/// The model's headroom, when the curve has a readable point in server order.
pub(crate) fn of(model: &StressModel, min_accuracy: f64) -> Option<StressHeadroom> {
    let points: Vec<&StressPoint> = model
        .points
        .iter()
        .filter(|p| p.order == ToolOrder::Server && p.complete() && p.total > 0)
        .filter(|p| p.provider_errors == 0)
        .collect();
    let last = points.last()?;
    let mut held: Option<&StressPoint> = None;
    for p in &points {
        if p.wilson_lower < min_accuracy {
            let (low, tools) = match held {
                None => (0, 0),
                Some(h) => {
                    let span = (p.distractors - h.distractors) as f64;
                    let drop = h.wilson_lower - p.wilson_lower;
                    let share = if drop > 0.0 {
                        ((h.wilson_lower - min_accuracy) / drop).clamp(0.0, 1.0)
                    } else {
                        0.0
                    };
                    (
                        h.distractors,
                        h.distractors + (share * span).round() as usize,
                    )
                }
            };
            return Some(StressHeadroom {
                model: model.model.clone(),
                tools,
                low,
                high: p.distractors,
                reached: true,
            });
        }
        held = Some(p);
    }
    Some(StressHeadroom {
        model: model.model.clone(),
        tools: last.distractors,
        low: last.distractors,
        high: last.distractors,
        reached: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(n: usize, lower: f64) -> StressPoint {
        StressPoint {
            distractors: n,
            order: ToolOrder::Server,
            tools: 5 + n,
            tool_list_hash: String::new(),
            total: 20,
            correct: 20,
            accuracy: 1.0,
            trial_accuracy: 1.0,
            wilson_lower: lower,
            below: false,
            not_run: 0,
            provider_errors: 0,
            from_evals: false,
            misses: Vec::new(),
        }
    }

    fn model(points: Vec<StressPoint>) -> StressModel {
        StressModel {
            model: "claude-haiku-4-5".into(),
            points,
            ..StressModel::default()
        }
    }

    #[test]
    fn the_crossing_is_interpolated_between_the_counts_around_it() {
        let m = model(vec![
            point(0, 0.97),
            point(10, 0.95),
            point(25, 0.93),
            point(50, 0.85),
            point(100, 0.6),
        ]);
        let h = of(&m, 0.9).expect("a readable curve");
        // 0.93 at 25, 0.85 at 50: 0.9 is 3/8 of the way, 9.375 tools past 25.
        assert_eq!((h.tools, h.low, h.high, h.reached), (34, 25, 50, true));
        assert_eq!(
            h.line(0.9),
            "headroom: about 34 more tools (25–50) before accuracy falls under 90% on \
             claude-haiku-4-5"
        );
    }

    #[test]
    fn a_curve_that_holds_says_not_reached_and_one_under_at_once_says_none() {
        let m = model(vec![point(0, 0.95), point(50, 0.92)]);
        let h = of(&m, 0.9).expect("readable");
        assert_eq!((h.tools, h.low, h.high, h.reached), (50, 50, 50, false));
        assert!(
            h.line(0.9)
                .starts_with("headroom: not reached up to 50 more tools")
        );
        let m = model(vec![point(0, 0.7), point(50, 0.5)]);
        let h = of(&m, 0.9).expect("readable");
        assert_eq!((h.tools, h.low, h.high, h.reached), (0, 0, 0, true));
        assert!(h.line(0.9).starts_with("headroom: none"));
        assert!(of(&model(Vec::new()), 0.9).is_none());
    }
}
