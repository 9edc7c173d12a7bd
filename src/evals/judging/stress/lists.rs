//! The tool lists of the stress curve: which distractors are drawn, and the order the list is
//! offered in. Everything is seeded ([`Rng`], the fuzzer's SplitMix64), so one seed gives the
//! same lists, hence the same cache keys, on every machine.
//!
//! - The draw: the whole corpus shuffled with the seed, then taken in that order, passing
//!   over any tool named like a server tool. The list with N distractors adds the first N, so
//!   the list at 25 holds the list at 10 and every count only adds tools.
//! - `server`: the server's tools in its order, then the distractors in the order drawn (as a
//!   client lists its servers one after another).
//! - `reversed`: that list back to front: the distractors first, the server's tools last.
//! - `shuffled`: that list shuffled with the seed mixed with N.

use std::collections::HashSet;

use crate::mcp::types::Tool;
use crate::outcome::ToolOrder;
use crate::rng::Rng;

/// The distractors drawn for the largest count, and the corpus names passed over.
#[derive(Debug, Clone)]
pub(crate) struct Draw<'a> {
    /// In draw order; the list with N distractors adds the first N.
    pub picked: Vec<&'a Tool>,
    /// Corpus tools passed over on the way because a server tool has the same name.
    pub skipped: Vec<String>,
}

/// Draws up to `n` distractors from `corpus` for the server's `tools`.
#[cfg(test)]
pub(crate) fn draw<'a>(corpus: &'a [Tool], tools: &[Tool], seed: u64, n: usize) -> Draw<'a> {
    draw_after(&[], corpus, tools, seed, n)
}

/// Draws up to `n` distractors: the `real` tools first, in their order (other servers'
/// tools, from snapshots), then from `corpus` as [`draw`] does; a name a server tool or an
/// earlier distractor has is passed over.
pub(crate) fn draw_after<'a>(
    real: &'a [Tool],
    corpus: &'a [Tool],
    tools: &[Tool],
    seed: u64,
    n: usize,
) -> Draw<'a> {
    let mut taken: HashSet<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let mut first = Vec::new();
    let mut skipped = Vec::new();
    for tool in real {
        if first.len() == n {
            break;
        }
        if taken.insert(tool.name.as_str()) {
            first.push(tool);
        } else {
            skipped.push(tool.name.clone());
        }
    }
    let mut out = draw_corpus(corpus, &taken, seed, n - first.len());
    first.append(&mut out.picked);
    skipped.append(&mut out.skipped);
    Draw {
        picked: first,
        skipped,
    }
}

/// Draws up to `n` distractors from `corpus`, passing over the names `taken`.
fn draw_corpus<'a>(corpus: &'a [Tool], taken: &HashSet<&str>, seed: u64, n: usize) -> Draw<'a> {
    let mut order: Vec<usize> = (0..corpus.len()).collect();
    shuffle(&mut order, &mut Rng::new(seed));
    let mut out = Draw {
        picked: Vec::with_capacity(n),
        skipped: Vec::new(),
    };
    for i in order {
        if out.picked.len() == n {
            break;
        }
        let tool = &corpus[i];
        if taken.contains(tool.name.as_str()) {
            out.skipped.push(tool.name.clone());
        } else {
            out.picked.push(tool);
        }
    }
    out
}

/// The list offered with `n` distractors in `order` (`n` is held to what was drawn).
pub(crate) fn tool_list(
    tools: &[Tool],
    drawn: &[&Tool],
    n: usize,
    order: ToolOrder,
    seed: u64,
) -> Vec<Tool> {
    let mut list: Vec<Tool> = tools.to_vec();
    list.extend(drawn.iter().take(n).map(|t| (*t).clone()));
    match order {
        ToolOrder::Server => {}
        ToolOrder::Reversed => list.reverse(),
        ToolOrder::Shuffled => shuffle(&mut list, &mut Rng::new(order_seed(seed, n))),
    }
    list
}

/// The shuffle's seed for `n` distractors: the stress seed mixed with `n`, so each count gets
/// its own order and none repeats the draw's.
fn order_seed(seed: u64, n: usize) -> u64 {
    let mut mix = Rng::new(seed ^ 0x5354_5245_5353_4f52); // "STRESSOR"
    mix.next_u64() ^ (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Fisher–Yates with `rng`.
fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        let j = rng.index(i + 1);
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> Tool {
        Tool::from_wire(
            json!({"name": name, "description": name, "inputSchema": {"type": "object"}}),
        )
    }

    fn corpus(n: usize) -> Vec<Tool> {
        (0..n).map(|i| tool(&format!("d{i}"))).collect()
    }

    fn names(list: &[Tool]) -> Vec<&str> {
        list.iter().map(|t| t.name.as_str()).collect()
    }

    #[test]
    fn the_same_seed_draws_the_same_tools_and_larger_counts_only_add() {
        let corpus = corpus(50);
        let server = [tool("a"), tool("b")];
        let one = draw(&corpus, &server, 7, 25);
        let again = draw(&corpus, &server, 7, 25);
        let fewer = draw(&corpus, &server, 7, 10);
        let other = draw(&corpus, &server, 8, 25);
        let n = |d: &Draw<'_>| d.picked.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
        assert_eq!(n(&one), n(&again));
        assert_eq!(n(&fewer), n(&one)[..10]);
        assert_ne!(n(&one), n(&other));
        assert_eq!(one.picked.len(), 25);
        let distinct: HashSet<String> = n(&one).into_iter().collect();
        assert_eq!(distinct.len(), 25);
        // More than the corpus holds: all of it, once.
        assert_eq!(draw(&corpus, &server, 7, 80).picked.len(), 50);
    }

    #[test]
    fn a_distractor_named_like_a_server_tool_is_passed_over() {
        let corpus = corpus(20);
        let server = [tool("d3"), tool("d7")];
        let d = draw(&corpus, &server, 1, 20);
        assert_eq!(d.picked.len(), 18);
        assert!(d.picked.iter().all(|t| t.name != "d3" && t.name != "d7"));
        let mut skipped = d.skipped.clone();
        skipped.sort();
        assert_eq!(skipped, ["d3", "d7"]);
    }

    #[test]
    fn orders_keep_every_tool_and_put_them_where_documented() {
        let corpus = corpus(30);
        let server = [tool("a"), tool("b"), tool("c")];
        let d = draw(&corpus, &server, 3, 10);
        let list = |n, order| tool_list(&server, &d.picked, n, order, 3);
        let plain = list(10, ToolOrder::Server);
        assert_eq!(names(&plain)[..3], ["a", "b", "c"]);
        assert_eq!(plain[3].name, d.picked[0].name);
        let reversed = list(10, ToolOrder::Reversed);
        let mut back = names(&reversed);
        back.reverse();
        assert_eq!(back, names(&plain));
        let shuffled = list(10, ToolOrder::Shuffled);
        assert_ne!(names(&shuffled), names(&plain));
        let mut sorted = names(&shuffled);
        sorted.sort_unstable();
        let mut want = names(&plain);
        want.sort_unstable();
        assert_eq!(sorted, want);
        assert_eq!(
            names(&list(10, ToolOrder::Shuffled)),
            names(&shuffled),
            "seeded"
        );
        // No distractors: only the server's tools, in each order.
        assert_eq!(names(&list(0, ToolOrder::Server)), ["a", "b", "c"]);
        assert_eq!(names(&list(0, ToolOrder::Reversed)), ["c", "b", "a"]);
        assert_eq!(list(0, ToolOrder::Shuffled).len(), 3);
    }
}
