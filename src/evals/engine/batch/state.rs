//! The record of a batch in flight: `<cache_dir>/batches/<id>.json`, written when the batch is
//! submitted (temp file + rename) and removed once every result is in the answer cache, so a
//! job that ends early (a timeout, a cancelled CI job, Ctrl-C) leaves what the next run needs
//! to pick the same batch up instead of paying for a second one.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The largest record read (one line per request: 50,000 requests fit).
const RECORD_LIMIT: u64 = 16 << 20;

/// One batch in flight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The provider's batch id.
    pub id: String,
    /// `anthropic` or `openai`.
    pub provider: String,
    /// The model every request of it asks.
    pub model: String,
    /// `host[:port]` of the API it was sent to.
    pub host: String,
    /// When it was submitted (seconds since the Unix epoch).
    pub submitted: u64,
    /// 1 for a first submission, 2 for the resubmission of what expired.
    pub round: u32,
    /// Custom id of each request → its answer's cache key.
    pub requests: BTreeMap<String, String>,
}

impl Record {
    /// A record of a batch submitted now.
    pub fn new(
        id: String,
        provider: &str,
        model: &str,
        host: String,
        round: u32,
        requests: BTreeMap<String, String>,
    ) -> Record {
        let submitted = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Record {
            id,
            provider: provider.to_owned(),
            model: model.to_owned(),
            host,
            submitted,
            round,
            requests,
        }
    }
}

/// The folder of the records: `<cache_dir>/batches`.
#[derive(Debug, Clone)]
pub struct Records {
    dir: PathBuf,
}

impl Records {
    /// The records under `cache_dir`.
    pub fn new(cache_dir: &Path) -> Records {
        Records {
            dir: cache_dir.join("batches"),
        }
    }

    /// The file of batch `id` (characters a file name can't hold replaced by `_`).
    pub fn path(&self, id: &str) -> PathBuf {
        let safe: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.dir.join(format!("{safe}.json"))
    }

    /// Every readable record for `provider`, `model` at `host`, oldest first. Unreadable
    /// files are left alone (and not used).
    pub fn find(&self, provider: &str, model: &str, host: &str) -> Vec<Record> {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut found: Vec<Record> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter_map(|p| {
                let text = crate::evals::read_capped(&p, RECORD_LIMIT, "a batch record").ok()?;
                serde_json::from_str::<Record>(&text).ok()
            })
            .filter(|r| r.provider == provider && r.model == model && r.host == host)
            .collect();
        found.sort_by(|a, b| (a.submitted, &a.id).cmp(&(b.submitted, &b.id)));
        found
    }

    /// Writes `record` atomically (a temp file renamed over the record).
    pub fn write(&self, record: &Record) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let target = self.path(&record.id);
        let temp = target.with_extension(format!("json.{}.tmp", std::process::id()));
        let mut text = serde_json::to_string_pretty(record).map_err(io::Error::other)?;
        text.push('\n');
        let written = fs::File::create(&temp)
            .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()))
            .and_then(|()| fs::rename(&temp, &target));
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        written.map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", target.display())))
    }

    /// Removes the record of batch `id` (a missing one is no error).
    pub fn remove(&self, id: &str) -> io::Result<()> {
        match fs::remove_file(self.path(id)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_and_is_found_by_provider_model_and_host() {
        let dir =
            std::env::temp_dir().join(format!("toolproof-batch-state-{}", std::process::id()));
        let records = Records::new(&dir);
        let mut requests = BTreeMap::new();
        requests.insert("k1".to_owned(), "k1".to_owned());
        let r = Record::new(
            "msgbatch/1".into(),
            "anthropic",
            "m",
            "h:1".into(),
            1,
            requests,
        );
        records.write(&r).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            records
                .path("msgbatch/1")
                .ends_with("batches/msgbatch_1.json")
        );
        assert_eq!(records.find("anthropic", "m", "h:1"), vec![r.clone()]);
        assert!(records.find("anthropic", "other", "h:1").is_empty());
        assert!(records.find("openai", "m", "h:1").is_empty());
        records.remove(&r.id).unwrap_or_else(|e| panic!("{e}"));
        assert!(records.find("anthropic", "m", "h:1").is_empty());
        assert!(records.remove(&r.id).is_ok());
        let _ = fs::remove_dir_all(&dir);
    }
}
