//! Writing reports to disk: whole files atomically (temp file in the same folder, fsync,
//! rename), job summaries by appending. Also the text-level secret redaction primitive.
//!
//! Redaction policy: renderers redact the [`RunReport`](crate::outcome::RunReport) before they
//! render it (see [`super::redact`]), so what reaches this module is already clean; the writer
//! does not redact again, because replacing text inside finished XML or JSON could break it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// `text` with every secret of 4 or more characters replaced by `***` (longest first).
#[cfg(test)]
pub(crate) fn redact(text: &str, secrets: &[String]) -> String {
    super::redact::Redactor::new(secrets)
        .apply(text)
        .into_owned()
}

/// Adds the path to an I/O error, keeping its kind.
fn context(e: io::Error, what: &str, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("cannot {what} {}: {e}", path.display()))
}

/// Writes `bytes` to `path` so that readers see either the old file or the whole new one:
/// parent folders are created, the data goes to a temporary file beside `path`, is flushed to
/// disk, and is renamed over `path`.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_dir(path);
    fs::create_dir_all(&dir).map_err(|e| context(e, "create the folder", &dir))?;
    let tmp = temp_path(path, &dir);
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| context(e, "create", &tmp))?;
        file.write_all(bytes)
            .map_err(|e| context(e, "write", &tmp))?;
        file.sync_all().map_err(|e| context(e, "flush", &tmp))?;
        drop(file);
        crate::process::unless_leaving(|| fs::rename(&tmp, path))
            .map_err(|e| context(e, "replace", path))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
        return result;
    }
    // Make the rename itself durable; not every platform can open a folder, so this is best
    // effort.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Appends `text` to the Markdown file at `path` (GitHub job summaries are appended to by every
/// step), creating it and its folders when needed. A newline separates it from earlier content
/// that did not end with one, and the text always ends with a newline.
pub(crate) fn append_summary(path: &Path, text: &str) -> io::Result<()> {
    let dir = parent_dir(path);
    fs::create_dir_all(&dir).map_err(|e| context(e, "create the folder", &dir))?;
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| context(e, "open", path))?;
    let needs_separator =
        file.metadata().map(|m| m.len() > 0).unwrap_or(false) && !ends_with_newline(path);
    let mut chunk = String::with_capacity(text.len() + 2);
    if needs_separator {
        chunk.push('\n');
    }
    chunk.push_str(text);
    if !chunk.ends_with('\n') {
        chunk.push('\n');
    }
    crate::process::unless_leaving(|| file.write_all(chunk.as_bytes()).and_then(|()| file.flush()))
        .map_err(|e| context(e, "append to", path))
}

fn ends_with_newline(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = File::open(path) else {
        return true;
    };
    if f.seek(SeekFrom::End(-1)).is_err() {
        return true;
    }
    let mut last = [0u8; 1];
    f.read_exact(&mut last)
        .map(|()| last[0] == b'\n')
        .unwrap_or(true)
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn temp_path(path: &Path, dir: &Path) -> PathBuf {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the target dir, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("toolproof-write-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn atomic_write_creates_folders_and_replaces() -> io::Result<()> {
        let s = Scratch::new("atomic");
        let path = s.0.join("a/b/report.xml");
        write_atomic(&path, b"first")?;
        write_atomic(&path, b"second")?;
        assert_eq!(fs::read_to_string(&path)?, "second");
        let leftovers: Vec<_> = fs::read_dir(path.parent().unwrap_or(&s.0))?
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "temp files left: {leftovers:?}");
        Ok(())
    }

    #[test]
    fn atomic_write_error_names_the_path() {
        let s = Scratch::new("blocked");
        let blocker = s.0.join("file");
        assert!(write_atomic(&blocker, b"x").is_ok());
        let err = write_atomic(&blocker.join("report.json"), b"x").err();
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.starts_with("cannot create the folder "), "{msg}");
        assert!(msg.contains("file"), "{msg}");
    }

    #[test]
    fn summaries_are_appended_with_newlines() -> io::Result<()> {
        let s = Scratch::new("summary");
        let path = s.0.join("step/summary.md");
        append_summary(&path, "# one")?;
        append_summary(&path, "## two\n")?;
        fs::write(&path, format!("{}no newline", fs::read_to_string(&path)?))?;
        append_summary(&path, "three")?;
        assert_eq!(
            fs::read_to_string(&path)?,
            "# one\n## two\nno newline\nthree\n"
        );
        Ok(())
    }

    #[test]
    fn redact_masks_secrets_of_four_or_more_characters() {
        let secrets = vec!["abc".to_string(), "s3cret-token".to_string()];
        assert_eq!(redact("key=s3cret-token abc", &secrets), "key=*** abc");
    }
}
