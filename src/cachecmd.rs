//! `toolproof cache status` and `toolproof cache prune`: compare the committed eval answer
//! cache with the keys the current cases, models and tool list produce.

use std::collections::HashSet;

use crate::cli::{CacheArgs, CacheCommand};
use crate::config::{ConfigError, EvalConfig, LoadedConfig, Provider};
use crate::evals::cache::{Cache, Lookup};
use crate::evals::engine::{self, Overrides, Resolved};
use crate::mcp::Client;
use crate::mcp::types::Tool;
use crate::run::{self, EXIT_FAILED, EXIT_OK};

/// Runs a `cache` subcommand and returns the exit code.
pub fn run(cmd: CacheCommand) -> i32 {
    match cmd {
        CacheCommand::Status(args) => status(&args),
        CacheCommand::Prune(args) => prune(&args.cache, args.apply),
    }
}

struct Prepared {
    cfg: EvalConfig,
    resolved: Resolved,
    tools: Vec<Tool>,
}

fn prepare(args: &CacheArgs) -> Result<Prepared, i32> {
    let loaded: LoadedConfig =
        crate::resolve_server(&args.server).map_err(|e| run::usage_error(&e))?;
    let Some(cfg) = loaded.config.evals.clone() else {
        return Err(run::usage_error(
            &ConfigError::new("the config has no `evals:` section").hint(
                "the cache holds answers to eval cases; pass the config that has them with -c",
            ),
        ));
    };
    let overrides = Overrides {
        model: args.model.clone(),
        ..Overrides::default()
    };
    let resolved =
        engine::resolve(&cfg, &overrides).map_err(|e| run::usage_error(&ConfigError::new(e)))?;
    if resolved.provider == Provider::Command {
        return Err(run::usage_error(&ConfigError::new(
            "the command provider is never cached: there is nothing to show",
        )));
    }
    let (spec, opts) = run::server_spec(&loaded);
    let mut client = Client::connect(spec, opts).map_err(|e| {
        eprintln!("error: could not connect to the server: {}", e.error);
        EXIT_FAILED
    })?;
    let tools = client.list_tools();
    client.close();
    let tools = tools.map_err(|e| {
        eprintln!("error: could not list the server's tools: {e}");
        EXIT_FAILED
    })?;
    Ok(Prepared {
        cfg,
        resolved,
        tools,
    })
}

fn status(args: &CacheArgs) -> i32 {
    let p = match prepare(args) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let cache = Cache::new(&p.cfg.cache_dir);
    let keys = engine::all_keys(&p.tools, &p.cfg, &p.resolved);
    let several_models = p.resolved.models.len() > 1;
    let mut missing = 0;
    for (model, case, trial, key) in &keys {
        let state = match cache.read(key) {
            Lookup::Hit(_) => "cached ",
            Lookup::Miss => {
                missing += 1;
                "missing"
            }
            Lookup::Corrupt(_) => {
                missing += 1;
                "corrupt"
            }
        };
        let mut label = engine::case_name(&p.cfg.cases[*case]);
        if several_models {
            label.push_str(&format!(" [{model}]"));
        }
        if *trial > 1 {
            label.push_str(&format!(" (trial {trial})"));
        }
        println!("{state}  {}  {}", &key[..key.len().min(12)], clean(&label));
    }
    println!(
        "{} of {} answers cached in {}",
        keys.len() - missing,
        keys.len(),
        p.cfg.cache_dir.join("evals").display()
    );
    if missing > 0 {
        println!(
            "hint: run `toolproof eval` with the provider's API key to record the missing answers, then commit the cache"
        );
        EXIT_FAILED
    } else {
        EXIT_OK
    }
}

fn prune(args: &CacheArgs, apply: bool) -> i32 {
    let p = match prepare(args) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let keep: HashSet<String> = engine::all_keys(&p.tools, &p.cfg, &p.resolved)
        .into_iter()
        .map(|(_, _, _, key)| key)
        .collect();
    let cache = Cache::new(&p.cfg.cache_dir);
    match cache.prune(&keep, apply) {
        Ok(files) => {
            for f in &files {
                println!(
                    "{} {}",
                    if apply { "removed" } else { "would remove" },
                    f.display()
                );
            }
            if files.is_empty() {
                println!("nothing to prune: every cache file belongs to a current case");
            } else if apply {
                println!("removed {} file(s)", files.len());
            } else {
                println!(
                    "{} file(s) no current case can hit; run again with --apply to remove them",
                    files.len()
                );
            }
            EXIT_OK
        }
        Err(e) => {
            eprintln!("error: could not prune {}: {e}", p.cfg.cache_dir.display());
            EXIT_FAILED
        }
    }
}

fn clean(s: &str) -> String {
    crate::mcp::error::shorten(s, 100)
}
