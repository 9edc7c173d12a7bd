//! Which top-level module of `src/` uses which: every `crate::<module>` path, in `use` trees
//! (grouped ones too) and inline, from every source file, tests included. Modules depend one
//! way: no module reaches itself through the others. Where a test needs something above its
//! module (the report's golden tests need the engines to build their fixtures), it lives above
//! both (`src/golden/`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `from → to` with one `file:line` that shows it.
type Graph = BTreeMap<String, BTreeMap<String, String>>;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules: `src/<m>.rs` and `src/<m>/`, less the crate roots.
fn modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .expect("read src/")
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".rs").unwrap_or(&name).to_owned();
            (e.path().is_dir() || name.ends_with(".rs")).then_some(stem)
        })
        .filter(|m| m != "lib" && m != "main")
        .collect()
}

/// The leading identifier of `text`.
fn ident(text: &str) -> &str {
    let text = text.trim_start();
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The modules a file names: after each `crate::`, the identifier, or for a group
/// (`crate::{a, b::c}`) the first identifier of each top-level item.
fn named(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let line = code[..at].matches('\n').count() + 1;
        let rest = &code[at + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            out.push((line, ident(rest).to_owned()));
            continue;
        };
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    out.push((line, ident(&group[start..i]).to_owned()));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.push((line, ident(&group[start..i]).to_owned()));
                    start = i + 1;
                }
                _ => {}
            }
        }
    }
    out
}

fn graph(src: &Path) -> Graph {
    let mods = modules(src);
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let rel = file.strip_prefix(src).expect("under src/");
        let first = rel.components().next().expect("a path");
        let first = first.as_os_str().to_string_lossy();
        let from = first.strip_suffix(".rs").unwrap_or(&first).to_owned();
        if !mods.contains(&from) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("read a source file");
        // Comments name modules without using them.
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        for (line, to) in named(&code) {
            if to != from && mods.contains(&to) {
                graph
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| format!("src/{}:{line}", rel.display()));
            }
        }
    }
    graph
}

/// Whether `to` reaches `from` through the graph.
fn reaches(graph: &Graph, start: &str, goal: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut todo = vec![start.to_owned()];
    while let Some(m) = todo.pop() {
        if m == goal {
            return true;
        }
        if seen.insert(m.clone()) {
            todo.extend(graph.get(&m).into_iter().flat_map(|t| t.keys().cloned()));
        }
    }
    false
}

#[test]
fn no_top_level_module_reaches_itself_through_its_imports() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = graph(&src);
    assert!(
        graph.len() > 10,
        "the scan found the modules: {:?}",
        graph.keys()
    );
    let mut cycles = Vec::new();
    for (from, tos) in &graph {
        for (to, evidence) in tos {
            if reaches(&graph, to, from) {
                cycles.push(format!("{from} → {to} ({evidence}) closes a cycle"));
            }
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn grouped_and_inline_paths_are_both_read() {
    let code = "use crate::{a::b, c, d::{e, f}};\nlet x = crate::g::h();";
    let found: Vec<String> = named(code).into_iter().map(|(_, m)| m).collect();
    assert_eq!(found, ["a", "c", "d", "g"]);
}

/// The module table of `docs/development.md` ("Where to change what"), in its order.
fn documented_modules(doc: &str) -> Vec<String> {
    let section = doc
        .split("## Where to change what")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or("");
    section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_guide_lists_every_module_bottom_up_and_names_only_paths_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/development.md")).expect("read the guide");
    let listed = documented_modules(&doc);
    let found = modules(&root.join("src"));
    let listed_set: BTreeSet<String> = listed.iter().cloned().collect();
    assert_eq!(
        listed_set, found,
        "the module table of docs/development.md and the modules of src/ differ"
    );
    let graph = graph(&root.join("src"));
    let at = |m: &str| listed.iter().position(|l| l == m);
    let mut upward = Vec::new();
    for (from, tos) in &graph {
        for (to, evidence) in tos {
            if at(to) > at(from) {
                upward.push(format!("{from} uses {to}, listed above it ({evidence})"));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "the table is not bottom-up:\n{}",
        upward.join("\n")
    );
    let missing: Vec<&str> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.starts_with("src/") && !span.contains([' ', '<']))
        .filter(|path| !root.join(path.trim_end_matches('/')).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "docs/development.md names paths that do not exist: {missing:?}"
    );
}
