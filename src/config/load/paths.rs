//! Relative paths of a loaded config made absolute from the config file's folder.

use std::path::{Component, Path, PathBuf};

use crate::config::Config;

/// Joins `rel` to `base` unless it is absolute, dropping `.` components.
fn join_clean(base: &Path, rel: &Path) -> PathBuf {
    base.join(rel)
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// A program path with a `/` that is relative resolves from `base`; bare names stay for PATH.
fn resolve_program(command: &mut [String], base: &Path) {
    if let Some(program) = command.first_mut()
        && program.contains('/')
        && Path::new(program.as_str()).is_relative()
        && let Some(resolved) = join_clean(base, Path::new(program.as_str())).to_str()
    {
        *program = resolved.to_owned();
    }
}

/// Makes every relative path in the config absolute, from `base_dir`.
pub(crate) fn resolve_paths(config: &mut Config, base_dir: &Path) {
    let server = &mut config.server;
    if let Some(command) = &mut server.command {
        resolve_program(command, base_dir);
        server.cwd = Some(match &server.cwd {
            Some(cwd) => join_clean(base_dir, cwd),
            None => base_dir.to_path_buf(),
        });
    } else if let Some(cwd) = &server.cwd {
        server.cwd = Some(join_clean(base_dir, cwd));
    }
    if let Some(baseline) = config.bench.as_mut().and_then(|b| b.baseline.as_mut()) {
        *baseline = join_clean(base_dir, baseline);
    }
    if let Some(evals) = &mut config.evals {
        evals.cache_dir = join_clean(base_dir, &evals.cache_dir);
        for path in [&mut evals.system_file, &mut evals.cases_file]
            .into_iter()
            .flatten()
        {
            *path = join_clean(base_dir, path);
        }
        if let Some(command) = &mut evals.command {
            resolve_program(command, base_dir);
        }
        for neighbour in &mut evals.neighbours {
            for path in [&mut neighbour.tools_file, &mut neighbour.cases_file]
                .into_iter()
                .flatten()
            {
                *path = join_clean(base_dir, path);
            }
            if let Some(command) = &mut neighbour.command {
                resolve_program(command, base_dir);
            }
        }
        if let Some(stress) = &mut evals.stress {
            for path in &mut stress.distractors_from {
                *path = join_clean(base_dir, path);
            }
        }
    }
}
