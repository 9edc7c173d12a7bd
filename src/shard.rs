//! Shards: one run spread over `N` CI jobs (`--shard K/N`). Each test, eval case, fuzzed tool
//! and bench target belongs to exactly one shard, decided by a stable hash of its identity, so
//! adding an item moves only that item and every job agrees without talking to the others.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Shard `index` of `count` (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: u32,
    /// How many shards in all.
    pub count: u32,
}

impl Shard {
    /// Reads `K/N` (1 ≤ K ≤ N ≤ 1000).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("must be K/N with 1 ≤ K ≤ N ≤ 1000 (for example 2/4), got `{text}`");
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let index = k.trim().parse::<u32>().map_err(|_| bad())?;
        let count = n.trim().parse::<u32>().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count || count > 1000 {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether the item named `identity` belongs to this shard: the first eight bytes of the
    /// SHA-256 of its identity, as a big-endian number, modulo the count.
    pub fn holds(&self, identity: &str) -> bool {
        let digest = Sha256::digest(identity.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_be_bytes(first) % u64::from(self.count) == u64::from(self.index - 1)
    }

    /// Whether this is the first shard: the one that runs what is not split (static checks,
    /// the set lint, the protocol checks, the stress curve).
    pub fn is_first(&self) -> bool {
        self.index == 1
    }

    /// Why a whole-set phase does not run here.
    pub fn not_here(&self) -> String {
        format!("runs in shard 1 of {}", self.count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_of_n_is_read_and_anything_else_says_what_it_must_be() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(Shard::parse(" 1 / 1 "), Ok(Shard { index: 1, count: 1 }));
        for bad in ["0/2", "3/2", "x", "2", "1/0", "-1/2", "1/1001", ""] {
            let err = Shard::parse(bad).unwrap_err();
            assert!(err.contains("K/N") && err.contains(bad), "{err}");
        }
    }

    #[test]
    fn every_item_is_in_exactly_one_shard() {
        for count in 1..=5 {
            for i in 0..200 {
                let id = format!("case {i}");
                let homes = (1..=count)
                    .filter(|&index| Shard { index, count }.holds(&id))
                    .count();
                assert_eq!(homes, 1, "{id} in {count} shards");
            }
        }
    }

    #[test]
    fn the_split_is_pinned_so_jobs_of_every_version_agree() {
        // Computed apart (Python's hashlib): sha256, first eight bytes big-endian, mod 4, + 1.
        // A change here moves every user's cases to other shards.
        let count = 4;
        let home = |id: &str| (1..=count).find(|&index| Shard { index, count }.holds(id));
        let homes: Vec<Option<u32>> = (1..=6).map(|i| home(&format!("case {i}"))).collect();
        assert_eq!(
            homes,
            [Some(1), Some(1), Some(2), Some(1), Some(2), Some(4)]
        );
    }
}
