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
pub(crate) struct Record {
    /// The provider's batch id.
    pub id: String,
    /// The provider's name in the answer cache (`anthropic`, `openai/responses`, `google`…).
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
    pub(crate) fn new(
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
pub(crate) struct Records {
    dir: PathBuf,
}

impl Records {
    /// The records under `cache_dir`.
    pub(crate) fn new(cache_dir: &Path) -> Records {
        Records {
            dir: cache_dir.join("batches"),
        }
    }

    /// The file of batch `id`: see [`file_name`]. `None` for an id that cannot name one.
    pub(crate) fn path(&self, id: &str) -> Option<PathBuf> {
        file_name(id).ok().map(|name| self.dir.join(name))
    }

    /// Every readable record for `provider`, `model` at `host`, oldest first. Unreadable
    /// files are left alone (and not used).
    pub(crate) fn find(&self, provider: &str, model: &str, host: &str) -> Vec<Record> {
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
            // A record whose id could not have named it (edited by hand) is not used.
            .filter(|r| file_name(&r.id).is_ok())
            .filter(|r| r.provider == provider && r.model == model && r.host == host)
            .collect();
        found.sort_by(|a, b| (a.submitted, &a.id).cmp(&(b.submitted, &b.id)));
        found
    }

    /// Writes `record` atomically (a temp file renamed over the record).
    pub(crate) fn write(&self, record: &Record) -> io::Result<()> {
        let target = file_name(&record.id)
            .map(|name| self.dir.join(name))
            .map_err(|why| io::Error::new(io::ErrorKind::InvalidInput, why))?;
        fs::create_dir_all(&self.dir)?;
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

    /// Removes the record of batch `id` (a missing one is no error), and a record of it that
    /// an earlier version named otherwise (`_` for every character but letters, digits and
    /// `-`), when that file holds this very batch.
    pub(crate) fn remove(&self, id: &str) -> io::Result<()> {
        let gone = |path: PathBuf| match fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
        let old = self.dir.join(format!("{}.json", legacy_name(id)));
        let old_is_this = crate::evals::read_capped(&old, RECORD_LIMIT, "a batch record")
            .ok()
            .and_then(|text| serde_json::from_str::<Record>(&text).ok())
            .is_some_and(|r| r.id == id);
        if old_is_this && Some(&old) != self.path(id).as_ref() {
            gone(old)?;
        }
        match self.path(id) {
            Some(path) => gone(path),
            None => Ok(()),
        }
    }
}

/// The longest file name of a record, with room for the temp file's suffix under the 255
/// bytes most file systems allow.
const NAME_MAX: usize = 200;

/// The file name of batch `id`'s record, one to one with the id: lowercase ASCII letters,
/// digits, `-` and `_` stand for themselves, and every other byte of the id (an uppercase
/// letter too, so that two ids apart only by case stay apart on a case-insensitive disk) is
/// `%` and two uppercase hex digits. The ids the providers give (`msgbatch_01Hk…`,
/// `batch_abc123`) stay readable; `b.1` and `b_1` get two files. An id that cannot name a
/// record (empty, a control character, a name past [`NAME_MAX`] bytes) is refused, saying why.
pub(crate) fn file_name(id: &str) -> Result<String, String> {
    if id.is_empty() {
        return Err("it is empty".into());
    }
    if id.chars().any(char::is_control) {
        return Err("it holds a control character".into());
    }
    let mut name = String::with_capacity(id.len() + 5);
    for b in id.bytes() {
        if b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_' {
            name.push(char::from(b));
        } else {
            name.push_str(&format!("%{b:02X}"));
        }
    }
    name.push_str(".json");
    if name.len() > NAME_MAX {
        return Err(format!(
            "it is {} bytes long, too long to name a record file",
            id.len()
        ));
    }
    Ok(name)
}

/// Batch `id` as messages show it: as it is when it is plain printable ASCII, else quoted
/// with its control and other characters escaped (`"b\nPASS"`), so that an id cannot break a
/// line of the console or a report, or pass for something else.
pub(crate) fn shown(id: &str) -> String {
    if !id.is_empty() && id.chars().all(|c| c.is_ascii_graphic()) {
        id.to_owned()
    } else {
        format!("\"{}\"", id.escape_default())
    }
}

/// The name an earlier version gave the record of `id` (without `.json`).
fn legacy_name(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
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
                .is_some_and(|p| p.ends_with("batches/msgbatch%2F1.json"))
        );
        assert_eq!(records.find("anthropic", "m", "h:1"), vec![r.clone()]);
        assert!(records.find("anthropic", "other", "h:1").is_empty());
        assert!(records.find("openai", "m", "h:1").is_empty());
        records.remove(&r.id).unwrap_or_else(|e| panic!("{e}"));
        assert!(records.find("anthropic", "m", "h:1").is_empty());
        assert!(records.remove(&r.id).is_ok());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn record_names_are_one_to_one_with_the_ids_and_refuse_what_cannot_name_a_file() {
        let ids = [
            "b.1",
            "b_1",
            "B_1",
            "b%2E1",
            "msgbatch_01HkcTjaV5",
            "batch_abc123",
            "b/1",
            "é",
        ];
        let names: Vec<String> = ids
            .iter()
            .map(|id| file_name(id).unwrap_or_else(|e| panic!("{id}: {e}")))
            .collect();
        let mut folded: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
        folded.sort();
        folded.dedup();
        assert_eq!(folded.len(), ids.len(), "{names:?}");
        assert_eq!(file_name("b_1").as_deref(), Ok("b_1.json"));
        assert_eq!(file_name("b.1").as_deref(), Ok("b%2E1.json"));
        assert_eq!(
            file_name("batch_abc123").as_deref(),
            Ok("batch_abc123.json")
        );
        assert!(
            names
                .iter()
                .all(|n| !n.contains('/') && !n.starts_with('.'))
        );
        assert_eq!(file_name(""), Err("it is empty".into()));
        assert_eq!(
            file_name("b\nPASS"),
            Err("it holds a control character".into())
        );
        assert!(file_name(&"x".repeat(300)).is_err_and(|e| e.contains("too long")));
    }

    #[test]
    fn a_record_an_earlier_version_named_is_removed_with_its_batch_and_no_other() {
        let dir =
            std::env::temp_dir().join(format!("toolproof-batch-legacy-{}", std::process::id()));
        let records = Records::new(&dir);
        let record =
            |id: &str| Record::new(id.into(), "anthropic", "m", "h".into(), 1, BTreeMap::new());
        let _ = fs::create_dir_all(dir.join("batches"));
        // `msgbatch_A.1`, recorded by an earlier version as `msgbatch_A_1.json`.
        let old = dir.join("batches/msgbatch_A_1.json");
        let text = serde_json::to_string(&record("msgbatch_A.1")).unwrap_or_default();
        assert!(fs::write(&old, &text).is_ok());
        records
            .remove("msgbatch_A.1")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!old.exists());
        // `b_1.json` holds batch `b_1`: removing `b.1` leaves it.
        let b_1 = record("b_1");
        records.write(&b_1).unwrap_or_else(|e| panic!("{e}"));
        records.remove("b.1").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(records.find("anthropic", "m", "h"), vec![b_1]);
        let _ = fs::remove_dir_all(&dir);
    }
}
