//! Where a finished report goes. The one writer of a run's output checks every report
//! destination before the run starts, writes each format asked for (the renderers in
//! [`crate::report`] return text; this module only writes it), and owns stdout. Posting the
//! pull-request comment is a step of its own after the files are written ([`post`]): the
//! writer makes no network call.
//!
//! Regular files (and paths that do not exist yet) are written atomically: a temp file beside
//! the real target, then a rename, so a symlink to a file stays a symlink. Anything else, a
//! character device such as `/dev/null`, a FIFO, a socket, or `/dev/stdout` itself, is opened
//! and written in place, never replaced. A report sent to stdout (`-`, or a path that is the
//! same file as stdout) moves the console report to stderr. A reader that goes away early (a
//! broken pipe, `| head -1`) ends output quietly; the exit code stays the run's own. Under
//! GitHub Actions it then appends the step outputs and writes the PR comment to
//! `--pr-comment-file` when one is given (`github.rs`).

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

mod github;
pub(crate) mod post;

use crate::outcome::RunReport;
use crate::report::junit::JunitOptions;
use crate::report::places::Places;
use crate::report::step_outputs::Written;
use crate::report::write::{append_summary, write_atomic};
use crate::report::{annotations, badge, cache, console, html, inspect, json, junit, markdown};
use crate::settings::{CommandKind, Outputs, PrComment, Target};

/// A checked destination.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Dest {
    /// This process's stdout.
    Stdout,
    /// A regular file (or one to create): temp file and rename, at this resolved path.
    File(PathBuf),
    /// A device, FIFO or socket: opened and written in place.
    Special(PathBuf),
}

/// A report destination that cannot be written: found before the run starts, exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the {what} to {}: {source}", path.display())]
pub(crate) struct DestinationError {
    what: &'static str,
    path: PathBuf,
    #[source]
    source: io::Error,
}

impl DestinationError {
    /// What to do about it.
    pub(crate) fn hint(&self) -> &'static str {
        if self.what == HISTORY {
            "the history is read back and replaced as a whole: give the path of a regular file"
        } else {
            "give a path in a folder you can write to, or `-` for stdout"
        }
    }
}

/// What the history file is called in messages.
const HISTORY: &str = "history file";

/// A report asked for: its name, where to, its format, and whether it is appended to.
type Wanted<'a> = (&'static str, Option<&'a Target>, Format, bool);

/// A report format written to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Junit,
    Json,
    Html,
    Markdown,
    /// The evals badge: SVG or a shields.io endpoint JSON, by the file's extension.
    Badge,
    /// `inspect --save-tools`: the server's tools as a snapshot.
    Tools,
    /// SARIF 2.1.0.
    Sarif,
}

/// One report to write.
#[derive(Debug, Clone)]
struct Job {
    what: &'static str,
    shown: PathBuf,
    dest: Dest,
    format: Format,
    append: bool,
}

/// The checked destinations of one run and the stdout it owns.
#[derive(Debug)]
pub(crate) struct ReportWriter {
    command: CommandKind,
    jobs: Vec<Job>,
    color: bool,
    width: usize,
    annotations: bool,
    junit: JunitOptions,
    places: Places,
    out: Stream,
    /// Whether the console report goes to stderr (a report took stdout).
    console_to_stderr: bool,
    github: github::GithubJobs,
}

/// What [`ReportWriter::deliver`] leaves: the exit code, the pull-request comment still to post
/// ([`post::comment`]), and the console to say how that went.
#[derive(Debug)]
pub(crate) struct Delivered {
    /// The process exit code.
    pub code: i32,
    /// The comment to post, when one is wanted and no `--pr-comment-file` took it.
    pub comment: Option<PrComment>,
    writer: ReportWriter,
}

impl Delivered {
    /// Says how posting went: a line on the console, or a warning on stderr (a workflow
    /// command the Actions UI shows when annotations are on).
    pub(crate) fn say(&mut self, said: Result<String, String>) {
        match said {
            Ok(line) => self.writer.say(&line),
            Err(message) if self.writer.annotations => {
                to_stderr(&annotations::warning_command(
                    "toolproof PR comment",
                    &message,
                ));
            }
            Err(message) => to_stderr(&format!("warning: {message}")),
        }
    }
}

impl ReportWriter {
    /// Checks every destination before anything runs: missing folders are created, and a
    /// path that cannot be written is a usage error (exit 2) naming it.
    pub(crate) fn prepare(
        command: CommandKind,
        outputs: &Outputs,
    ) -> Result<ReportWriter, DestinationError> {
        let wanted: [Wanted<'_>; 7] = [
            ("tool snapshot", outputs.save_tools(), Format::Tools, false),
            ("JUnit report", outputs.junit(), Format::Junit, false),
            ("JSON report", outputs.json(), Format::Json, false),
            ("HTML report", outputs.html(), Format::Html, false),
            ("evals badge", outputs.badge(), Format::Badge, false),
            ("SARIF log", outputs.sarif(), Format::Sarif, false),
            (
                "Markdown summary",
                outputs.summary(),
                Format::Markdown,
                true,
            ),
        ];
        if let Some(path) = outputs.history() {
            check_history(path)?;
        }
        let stdout_id = file_id(Path::new("/dev/stdout"));
        let mut jobs = Vec::new();
        for (what, target, format, append) in wanted {
            let Some(target) = target else { continue };
            let (shown, dest) = match target {
                Target::Stdout => (PathBuf::from("-"), Dest::Stdout),
                Target::Path(path) => (path.clone(), check(what, path, stdout_id)?),
            };
            jobs.push(Job {
                what,
                shown,
                dest,
                format,
                append,
            });
        }
        Ok(ReportWriter {
            command,
            jobs,
            color: outputs.color(),
            width: outputs.width(),
            annotations: outputs.annotations(),
            junit: outputs.junit_options(),
            places: outputs.places().clone(),
            out: Stream::default(),
            console_to_stderr: false,
            github: github::GithubJobs::prepare(outputs.github(), stdout_id)?,
        })
    }

    /// Whether a report takes stdout (then the console report goes to stderr).
    fn stdout_taken(&self) -> bool {
        self.jobs.iter().any(|j| j.dest == Dest::Stdout)
    }

    /// Writes everything for `report`. The exit code is the report's, or 1 when a report
    /// could not be written (unless the run was interrupted).
    pub(crate) fn deliver(mut self, report: &RunReport) -> Delivered {
        let mut code = report.exit_code;
        let human = match self.command {
            CommandKind::Inspect { json: true } => json::render_inspect(report),
            CommandKind::Inspect { json: false } => inspect::render(&report.redacted()),
            CommandKind::CacheStatus | CommandKind::CachePrune { .. } => cache::render(report),
            CommandKind::Run
            | CommandKind::Eval
            | CommandKind::Lint
            | CommandKind::Bench
            | CommandKind::Fuzz
            | CommandKind::Protocol => console::render(
                report,
                &console::ConsoleOptions {
                    color: self.color,
                    width: self.width,
                },
            ),
        };
        // `inspect` says a failed connection on stderr, as mcp-toolproof does; stdout stays
        // for what the server offers.
        let failed_inspect =
            matches!(self.command, CommandKind::Inspect { json: false }) && report.error.is_some();
        self.console_to_stderr = self.stdout_taken() || failed_inspect;
        self.human(&human);
        let jobs = std::mem::take(&mut self.jobs);
        let mut written = Written::default();
        for job in &jobs {
            // No server, no tools: a snapshot is not written rather than written empty.
            if matches!(job.format, Format::Tools) && report.inventory.is_none() {
                continue;
            }
            let text = match job.format {
                Format::Badge => badge_text(&job.shown, report),
                format => self.render(format, report),
            };
            match self.write(job, &text) {
                Ok(()) if job.dest != Dest::Stdout => {
                    github::note_written(&mut written, job.what, &job.shown);
                    // The summary is added to what the file holds (a job summary gathers every
                    // step's), so the line says appended, not written.
                    let verb = if job.append {
                        "appended to"
                    } else {
                        "written to"
                    };
                    let line = format!("{} {verb} {}\n", job.what, job.shown.display());
                    self.human(&line);
                }
                Ok(()) => {}
                Err(e) => {
                    to_stderr(&format!(
                        "error: could not write the {} to {}: {e}",
                        job.what,
                        job.shown.display()
                    ));
                    if report.interrupted.is_none() {
                        code = code.max(crate::exit::EXIT_FAILED);
                    }
                }
            }
        }
        if self.annotations {
            let text = annotations::render_with(report, &self.places);
            self.human(&text);
        }
        let (code, comment) = self.github_steps(report, code, &written);
        Delivered {
            code,
            comment,
            writer: self,
        }
    }

    fn render(&self, format: Format, report: &RunReport) -> String {
        match format {
            Format::Junit => junit::render_with(report, &self.junit),
            Format::Json => json::render(report),
            Format::Html => html::render(report),
            Format::Markdown => markdown::render(report),
            Format::Badge => badge::Badge::of(report).svg(),
            Format::Tools => crate::report::json::tool_snapshot(report),
            Format::Sarif => crate::report::sarif::render_with(report, &self.places),
        }
    }

    /// Writes a line on the console.
    fn say(&mut self, line: &str) {
        self.human(&format!("{line}\n"));
    }

    fn human(&mut self, text: &str) {
        if self.console_to_stderr {
            let _ = io::stderr().lock().write_all(text.as_bytes());
        } else {
            self.out.write(text.as_bytes());
        }
    }

    fn write(&mut self, job: &Job, text: &str) -> io::Result<()> {
        self.write_to(&job.dest, job.append, text)
    }

    /// Writes `text` to `dest`, appended or replacing what is there.
    fn write_to(&mut self, dest: &Dest, append: bool, text: &str) -> io::Result<()> {
        match dest {
            Dest::Stdout => {
                self.out.write(text.as_bytes());
                Ok(())
            }
            Dest::File(path) if append => append_summary(path, text),
            Dest::File(path) => write_atomic(path, text.as_bytes()),
            Dest::Special(path) => {
                let mut file = OpenOptions::new().write(true).append(append).open(path)?;
                file.write_all(text.as_bytes())?;
                file.flush()
            }
        }
    }
}

/// The evals badge for the file `shown`: a shields.io endpoint JSON when it ends in `.json`,
/// else the SVG.
fn badge_text(shown: &Path, report: &RunReport) -> String {
    let badge = badge::Badge::of(report);
    let json = shown
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json { badge.endpoint() } else { badge.svg() }
}

/// Writes a line to stderr; a closed stderr is no reason to panic.
pub(crate) fn to_stderr(line: &str) {
    let mut err = io::stderr().lock();
    let _ = err
        .write_all(line.as_bytes())
        .and_then(|()| err.write_all(b"\n"));
}

/// stdout, written until its reader goes away.
#[derive(Debug, Default)]
struct Stream {
    closed: bool,
}

impl Stream {
    fn write(&mut self, bytes: &[u8]) {
        if self.closed {
            return;
        }
        let mut out = io::stdout().lock();
        if out.write_all(bytes).and_then(|()| out.flush()).is_err() {
            // A closed pipe (`| head -1`) or a full disk: nothing more can be said there.
            self.closed = true;
        }
    }
}

/// (device, inode) of what `path` names, following symlinks.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Decides how `path` is written and checks that it can be.
fn check(
    what: &'static str,
    path: &Path,
    stdout_id: Option<(u64, u64)>,
) -> Result<Dest, DestinationError> {
    let fail = |source: io::Error| DestinationError {
        what,
        path: path.to_path_buf(),
        source,
    };
    match fs::metadata(path) {
        Ok(meta) => {
            if stdout_id.is_some() && stdout_id == Some((meta.dev(), meta.ino())) {
                return Ok(Dest::Stdout);
            }
            let kind = meta.file_type();
            if kind.is_dir() {
                return Err(fail(io::Error::other("it is a folder")));
            }
            let real = fs::canonicalize(path).map_err(fail)?;
            if kind.is_file() {
                probe_folder(&real).map_err(fail)?;
                Ok(Dest::File(real))
            } else if kind.is_fifo() || kind.is_socket() {
                Ok(Dest::Special(real))
            } else {
                // Character and block devices: opening them tells whether we may write.
                OpenOptions::new().write(true).open(&real).map_err(fail)?;
                Ok(Dest::Special(real))
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let folder = parent(path);
            fs::create_dir_all(&folder).map_err(fail)?;
            probe_folder(path).map_err(fail)?;
            Ok(Dest::File(path.to_path_buf()))
        }
        Err(e) => Err(fail(e)),
    }
}

/// The history file is read whole and replaced through a temp file and a rename, so what is
/// there must be a regular file (or nothing yet): a device such as `/dev/full` would be read
/// without end, and renaming over it would replace the device itself.
fn check_history(path: &Path) -> Result<(), DestinationError> {
    match fs::metadata(path) {
        Ok(meta) if !meta.is_file() => Err(DestinationError {
            what: HISTORY,
            path: path.to_path_buf(),
            source: io::Error::other(if meta.is_dir() {
                "it is a folder"
            } else {
                "it is not a regular file"
            }),
        }),
        _ => Ok(()),
    }
}

/// Creates and removes a temp file beside `path`: the atomic write needs exactly that.
fn probe_folder(path: &Path) -> io::Result<()> {
    let folder = parent(path);
    let probe = folder.join(format!(".toolproof-probe.{}", std::process::id()));
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    fs::remove_file(&probe)
}

fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("toolproof-writer-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let _ = fs::create_dir_all(&dir);
        dir
    }

    #[test]
    fn missing_folders_are_created_and_files_written_atomically() {
        let dir = scratch("files");
        let path = dir.join("a/b/report.xml");
        assert_eq!(
            check("JUnit report", &path, None).ok(),
            Some(Dest::File(path.clone()))
        );
        assert!(dir.join("a/b").is_dir());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn devices_are_written_in_place_and_folders_refused() {
        let dest = check("JUnit report", Path::new("/dev/null"), None).ok();
        assert_eq!(dest, Some(Dest::Special(PathBuf::from("/dev/null"))));
        let dir = scratch("folder");
        let err = check("JSON report", &dir, None)
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("it is a folder")
                && e.starts_with("cannot write the JSON report to ")),
            "{err:?}"
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_history_file_must_be_a_regular_file_or_nothing_yet() {
        for (path, why) in [("/dev/full", "not a regular file"), ("/tmp", "a folder")] {
            let err = check_history(Path::new(path)).err();
            let text = err.as_ref().map(ToString::to_string).unwrap_or_default();
            assert!(
                text.starts_with(&format!("cannot write the history file to {path}: "))
                    && text.contains(why),
                "{text}"
            );
            assert!(err.is_some_and(|e| e.hint().contains("regular file")));
        }
        assert!(check_history(Path::new("/no/such/history.jsonl")).is_ok());
    }

    #[test]
    fn a_symlink_to_a_file_is_written_through() {
        let dir = scratch("link");
        let real = dir.join("real.json");
        fs::write(&real, "old").ok();
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&real, &link).ok();
        let dest = check("JSON report", &link, None).ok();
        let canonical = fs::canonicalize(&real).ok();
        assert_eq!(dest, canonical.map(Dest::File));
        let _ = fs::remove_dir_all(&dir);
    }
}
