//! Which proposals are kept, and in what order: a request logged twice with two different
//! tools becomes one `retried` row; proposals whose prompt (normalised) is already in the set,
//! or already proposed, are dropped (keeping the most useful); `--limit N` keeps the N most
//! useful, the rows that went wrong first (corrections, rejections, errors, retries), then the
//! rows of the tools with the fewest rows in the set and among those kept.

use std::collections::{HashMap, VecDeque};

use super::propose::{Kind, Proposal};

/// A prompt as the dedup compares it: lowercase, spacing collapsed, end punctuation dropped.
pub(crate) fn normalised(prompt: &str) -> String {
    prompt
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .trim_end_matches(['.', '!', '?', ' '])
        .to_owned()
}

/// The rows of one tool, in the order found, each with its place in that order.
type Queue = VecDeque<(usize, Proposal)>;

/// What selection dropped, for the summary.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Dropped {
    /// Already in the set.
    pub in_set: usize,
    /// Proposed twice.
    pub duplicates: usize,
    /// Past `--limit`.
    pub over_limit: usize,
}

/// The rows to write, in order. `existing`: the set's cases as (prompt, expected tool).
pub(crate) fn select(
    proposals: Vec<Proposal>,
    existing: &[(String, Option<String>)],
    limit: Option<usize>,
) -> (Vec<Proposal>, Dropped) {
    let mut dropped = Dropped::default();
    let proposals = retries(proposals);
    let in_set: Vec<String> = existing.iter().map(|(p, _)| normalised(p)).collect();
    let mut best: Vec<Proposal> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for p in proposals {
        let key = normalised(&p.prompt);
        if in_set.contains(&key) {
            dropped.in_set += 1;
            continue;
        }
        match index.get(&key) {
            Some(&at) => {
                dropped.duplicates += 1;
                if p.kind < best[at].kind {
                    best[at] = p;
                }
            }
            None => {
                index.insert(key, best.len());
                best.push(p);
            }
        }
    }
    let mut rows_of: HashMap<Option<String>, usize> = HashMap::new();
    for (_, tool) in existing {
        *rows_of.entry(tool.clone()).or_default() += 1;
    }
    let cap = limit.unwrap_or(usize::MAX);
    let total = best.len();
    // The rows that went wrong, by kind (stable: in the order found)…
    let (mut out, observed): (Vec<Proposal>, Vec<Proposal>) =
        best.into_iter().partition(|p| p.kind != Kind::Observed);
    out.sort_by_key(|p| p.kind);
    out.truncate(cap);
    for p in &out {
        *rows_of.entry(p.expect.clone()).or_default() += 1;
    }
    // …then, one at a time, the next row of the tool with the fewest rows so far.
    let mut queues: Vec<(Option<String>, Queue)> = Vec::new();
    for (i, p) in observed.into_iter().enumerate() {
        match queues.iter_mut().find(|(t, _)| *t == p.expect) {
            Some((_, q)) => q.push_back((i, p)),
            None => queues.push((p.expect.clone(), VecDeque::from([(i, p)]))),
        }
    }
    while out.len() < cap {
        let Some(pick) = queues
            .iter()
            .enumerate()
            .filter_map(|(at, (tool, q))| {
                let (i, _) = q.front()?;
                Some((rows_of.get(tool).copied().unwrap_or(0), *i, at))
            })
            .min()
            .map(|(_, _, at)| at)
        else {
            break;
        };
        let (tool, queue) = &mut queues[pick];
        if let Some((_, p)) = queue.pop_front() {
            *rows_of.entry(tool.clone()).or_default() += 1;
            out.push(p);
        }
    }
    dropped.over_limit = total - out.len();
    (out, dropped)
}

/// Rows seen as called for one request (same prompt, same context) with different tools: one
/// `retried` row expecting the last tool, in place of the first.
fn retries(proposals: Vec<Proposal>) -> Vec<Proposal> {
    let mut out: Vec<Proposal> = Vec::with_capacity(proposals.len());
    // The first observed row of each request (prompt and context), by its key.
    let mut first: HashMap<(String, String), usize> = HashMap::new();
    for p in proposals {
        if p.kind != Kind::Observed {
            out.push(p);
            continue;
        }
        let key = (normalised(&p.prompt), format!("{:?}", p.context));
        match first.get(&key).map(|&at| &mut out[at]) {
            Some(q) if q.expect != p.expect => {
                let show = |t: &Option<String>| t.clone().unwrap_or_else(|| "no tool".to_owned());
                let source = p.why.split(": ").next().unwrap_or("").to_owned();
                q.why = format!(
                    "{source}: retried: {} first, then {}",
                    show(&q.expect),
                    show(&p.expect)
                );
                q.kind = Kind::Retried;
                q.expect = p.expect.clone();
            }
            Some(_) => out.push(p),
            None => {
                first.insert(key, out.len());
                out.push(p);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(prompt: &str, expect: Option<&str>, kind: Kind) -> Proposal {
        Proposal {
            prompt: prompt.to_owned(),
            expect: expect.map(str::to_owned),
            why: format!("from f.jsonl:1: {prompt}"),
            kind,
            context: Vec::new(),
            called: None,
        }
    }

    #[test]
    fn corrections_come_first_then_the_tools_with_fewest_rows() {
        let existing = vec![
            ("old".to_owned(), Some("a".to_owned())),
            ("older".to_owned(), Some("a".to_owned())),
        ];
        let rows = vec![
            row("p1", Some("a"), Kind::Observed),
            row("p2", Some("b"), Kind::Observed),
            row("p3", Some("a"), Kind::Corrected),
            row("P2!", Some("b"), Kind::Observed),
            row("Old.", Some("c"), Kind::Observed),
        ];
        let (kept, dropped) = select(rows, &existing, Some(2));
        let prompts: Vec<&str> = kept.iter().map(|p| p.prompt.as_str()).collect();
        assert_eq!(prompts, ["p3", "p2"]);
        assert_eq!(
            dropped,
            Dropped {
                in_set: 1,
                duplicates: 1,
                over_limit: 1
            }
        );
    }

    #[test]
    fn a_duplicate_keeps_the_more_useful_kind() {
        let rows = vec![
            row("x", Some("a"), Kind::Observed),
            row("x", Some("b"), Kind::Corrected),
        ];
        let (kept, _) = select(rows, &[], None);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].kind, Kind::Corrected);
    }

    #[test]
    fn one_request_logged_with_two_tools_is_a_retry_expecting_the_last() {
        let rows = vec![
            row("x", Some("a"), Kind::Observed),
            row("x", Some("b"), Kind::Observed),
        ];
        let (kept, _) = select(rows, &[], None);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].kind, Kind::Retried);
        assert_eq!(kept[0].expect.as_deref(), Some("b"));
        assert_eq!(kept[0].why, "from f.jsonl:1: retried: a first, then b");
    }
}
