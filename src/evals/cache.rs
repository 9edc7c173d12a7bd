//! Answer cache (stub until the cache lands).
#![allow(missing_docs, dead_code)]
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{ApiTool, Choice};

pub fn key(
    _provider: &str,
    _model: &str,
    _system: Option<&str>,
    _prompt: &str,
    _tools: &[ApiTool],
    _params: &Map<String, Value>,
    _trial: u32,
) -> String {
    String::new()
}
pub struct Cache {
    dir: PathBuf,
}
pub enum Lookup {
    Hit(Choice),
    Miss,
    Corrupt(String),
}
impl Cache {
    pub fn new(cache_dir: &Path) -> Cache {
        Cache {
            dir: cache_dir.join("evals"),
        }
    }
    pub fn read(&self, _key: &str) -> Lookup {
        Lookup::Miss
    }
    pub fn write(
        &self,
        _key: &str,
        _choice: &Choice,
        _provider: &str,
        _model: &str,
        _prompt: &str,
    ) -> std::io::Result<()> {
        Ok(())
    }
    pub fn keys(&self) -> std::io::Result<Vec<String>> {
        Ok(Vec::new())
    }
    pub fn prune(&self, _keep: &HashSet<String>, _apply: bool) -> std::io::Result<Vec<PathBuf>> {
        Ok(Vec::new())
    }
}
