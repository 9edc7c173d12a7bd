//! The answers a replay reads: the cache entries of one model's items, read on a few threads.

use super::Item;
use crate::evals::asking::cache::{Cache, Lookup};
use crate::provider::usage::Recorded;

/// Each item's cache entry (`None` for an item without a key), in item order. The files are
/// read and parsed on up to four threads: a replay of a thousand cached answers is mostly
/// opening and parsing files, and each is independent of the others.
pub(super) fn read_cached(
    cache: &Cache,
    items: &[Item],
) -> Vec<Option<(Lookup, Option<Recorded>)>> {
    let read = |part: &[Item]| -> Vec<_> {
        part.iter()
            .map(|item| item.key.as_ref().map(|key| cache.read_recorded(key)))
            .collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    // A thread is worth starting for a few hundred files, not for a handful.
    let chunk = items.len().div_ceil(threads).max(CACHE_READS_PER_THREAD);
    if items.len() <= chunk {
        return read(items);
    }
    std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || read(part)))
            .collect();
        parts
            .into_iter()
            .flat_map(|part| part.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// The fewest cache entries [`read_cached`] gives a thread of its own.
const CACHE_READS_PER_THREAD: usize = 128;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evals::Choice;
    use crate::evals::asking::cache::Cache;
    use crate::evals::{Call, Stop};

    fn answer(i: usize) -> Choice {
        Choice {
            calls: vec![Call {
                tool: format!("tool_{i}"),
                args: serde_json::json!({ "i": i }),
                malformed: None,
            }],
            text: String::new(),
            stop: Stop::ToolUse,
        }
    }

    #[test]
    fn cached_answers_read_on_several_threads_come_back_in_item_order() {
        let dir =
            std::env::temp_dir().join(format!("toolproof-read-cached-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = Cache::new(&dir);
        let key = |i: usize| format!("{:064x}", i + 1);
        // Enough items for every thread: hits, misses, a corrupt file and items with no key.
        let n = CACHE_READS_PER_THREAD * 5 + 7;
        let items: Vec<Item> = (0..n)
            .map(|i| Item {
                case: i,
                trial: 1,
                key: (i % 11 != 0).then(|| key(i)),
                tools: None,
            })
            .collect();
        for i in (0..n).filter(|i| i % 3 != 0) {
            cache
                .write(&key(i), &answer(i), "anthropic", "m", "p")
                .expect("write");
        }
        std::fs::write(cache.path(&key(5)), "{not json").expect("write");
        let found = read_cached(&cache, &items);
        assert_eq!(found.len(), n);
        for (i, found) in found.into_iter().enumerate() {
            match found {
                None => assert_eq!(i % 11, 0, "item {i} has a key"),
                Some((Lookup::Corrupt(_), None)) => assert_eq!(i, 5),
                Some((Lookup::Miss, None)) => assert_eq!(i % 3, 0, "item {i} was written"),
                Some((Lookup::Hit(choice), _)) => assert_eq!(choice, answer(i), "item {i}"),
                Some(other) => panic!("item {i}: {other:?}"),
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
