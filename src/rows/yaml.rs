//! The rows as YAML in the set's own format (a list of cases, as `cases_file` holds), every
//! scalar written as a JSON string (a valid YAML double-quoted scalar, so no prompt can break
//! the file), arguments as JSON flow mappings; and `--append`: the rows added at the end of the
//! `cases_file`'s list, at its indentation, the file replaced whole (temp file and rename).

use std::path::Path;

use serde_json::Value;

use super::propose::Turn;

/// One row to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    /// The prompt.
    pub prompt: String,
    /// The tool expected, `None` for no tool.
    pub expect: Option<String>,
    /// Why it was proposed.
    pub why: String,
    /// The turns before it.
    pub context: Vec<Turn>,
}

fn q(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// The rows as YAML list items, each line prefixed by `indent`.
pub(crate) fn items(rows: &[Row], indent: &str) -> String {
    let mut out = String::new();
    for row in rows {
        let expect = row.expect.as_deref().map_or_else(|| "null".to_owned(), q);
        out.push_str(&format!("{indent}- prompt: {}\n", q(&row.prompt)));
        out.push_str(&format!("{indent}  expect_tool: {expect}\n"));
        out.push_str(&format!("{indent}  why: {}\n", q(&row.why)));
        out.push_str(&format!("{indent}  reviewed: false\n"));
        if row.context.is_empty() {
            continue;
        }
        out.push_str(&format!("{indent}  context:\n"));
        for turn in &row.context {
            match turn {
                Turn::User(text) => out.push_str(&format!("{indent}    - user: {}\n", q(text))),
                Turn::Assistant(text) => {
                    out.push_str(&format!("{indent}    - assistant: {}\n", q(text)));
                }
                Turn::Call { tool, args, result } => {
                    let args = match args {
                        Value::Object(_) => args.to_string(),
                        _ => "{}".to_owned(),
                    };
                    out.push_str(&format!("{indent}    - call: {}\n", q(tool)));
                    out.push_str(&format!("{indent}      args: {args}\n"));
                    out.push_str(&format!("{indent}      result: {}\n", q(result)));
                }
            }
        }
    }
    out
}

/// A whole file of rows, with a header saying what to do with them.
pub(crate) fn file(rows: &[Row], made_by: &str) -> String {
    format!(
        "# Rows proposed by `{made_by}`. Read each one: is the expected tool the one the user\n\
         # wanted? is the prompt free of personal data? Fix it, then set `reviewed: true`.\n{}",
        if rows.is_empty() {
            "[]\n".to_owned()
        } else {
            items(rows, "")
        }
    )
}

/// Why `--append` cannot add to a cases file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AppendError {
    /// The file's list is not a block list the rows can follow.
    #[error("{0}")]
    Shape(String),
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Appends `rows` to the list of the cases file at `path` (a bare list, or `cases:` with a
/// list); a missing file is created.
pub(crate) fn append(path: &Path, rows: &[Row]) -> Result<(), AppendError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(AppendError::Io(e)),
    };
    let indent = list_indent(&text).ok_or_else(|| {
        AppendError::Shape(format!(
            "{}: cannot tell where its list of cases is: a block list (`- prompt: …` lines, at the top or under `cases:`) is needed to append to",
            path.display()
        ))
    })?;
    let mut out = text;
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&items(rows, &indent));
    crate::report::write::write_atomic(path, out.as_bytes()).map_err(AppendError::Io)
}

/// The indentation of the list's items: that of the first `- ` line (the file is a bare list,
/// or a mapping whose only key is `cases:`); `""` for an empty file.
fn list_indent(text: &str) -> Option<String> {
    let meaningful: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    let Some(first) = meaningful.first() else {
        return Some(String::new());
    };
    if first.trim() == "[]" || first.trim_end().ends_with("[]") {
        return None;
    }
    let item = meaningful
        .iter()
        .find(|l| l.trim_start().starts_with("- "))?;
    let indent = &item[..item.len() - item.trim_start().len()];
    (first.starts_with('-') || first.trim_end() == "cases:").then(|| indent.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> Row {
        Row {
            prompt: "say \"hi\": #1".to_owned(),
            expect: Some("echo".to_owned()),
            why: "from a.jsonl:3: the model called echo".to_owned(),
            context: vec![
                Turn::User("first".to_owned()),
                Turn::Call {
                    tool: "add".to_owned(),
                    args: serde_json::json!({"a": 1}),
                    result: "2".to_owned(),
                },
            ],
        }
    }

    #[test]
    fn rows_are_yaml_the_loader_reads_back_and_append_keeps_the_list() {
        let dir = std::env::temp_dir().join(format!("toolproof-rows-yaml-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(
            dir.join("cases.yaml"),
            "cases:\n  - prompt: typed by hand\n    expect_tool: add\n",
        )
        .expect("cases file");
        append(&dir.join("cases.yaml"), &[row()]).expect("append");
        std::fs::write(
            dir.join("rows.yaml"),
            file(&[row()], "toolproof rows import"),
        )
        .expect("rows");
        let config = "server:\n  command: [x]\nevals:\n  provider: command\n  command: [x]\n  cases_file: FILE\n";
        for (name, count) in [("cases.yaml", 2), ("rows.yaml", 1)] {
            let path = dir.join("toolproof.yaml");
            std::fs::write(&path, config.replace("FILE", name)).expect("config");
            let loaded = crate::config::load(&path).expect("loads");
            let cases = &loaded.config.evals.as_ref().expect("evals").cases;
            assert_eq!(cases.len(), count, "{name}");
            let last = cases.last().expect("a case");
            assert_eq!(last.prompt, "say \"hi\": #1");
            assert_eq!(last.reviewed, Some(false));
            assert_eq!(last.turns().len(), 2);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_indent_of_the_list_is_kept_when_appending() {
        assert_eq!(
            list_indent("cases:\n  - prompt: a\n").as_deref(),
            Some("  ")
        );
        assert_eq!(list_indent("# c\n- prompt: a\n").as_deref(), Some(""));
        assert_eq!(list_indent("").as_deref(), Some(""));
        assert_eq!(list_indent("cases: []\n"), None);
    }
}
