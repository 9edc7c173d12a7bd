//! The file `--overrides` names (and `toolproof tune` writes): `overrides:` holding the mapping
//! `evals.overrides` holds, read with the config's own parser and messages.

use std::path::Path;

use super::super::de::{self, KeyPath, Located};
use super::super::node;
use super::super::{ConfigError, Overrides, OverridesFile};
use super::{invalid_yaml, read_capped};

/// The overrides in `path`; an error naming the file, line and key when it cannot be used.
pub(crate) fn read_overrides(path: &Path) -> Result<Overrides, ConfigError> {
    let bytes = read_capped(path).map_err(|err| {
        err.into_config_error(path, |err| {
            ConfigError::new(format!(
                "cannot read the overrides file {}: {err}",
                path.display()
            ))
            .hint("pass the YAML `toolproof tune` wrote, e.g. --overrides toolproof-tune.yaml")
        })
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ConfigError::new("the file is not valid UTF-8")
            .in_file(path)
            .hint("save the file as UTF-8")
    })?;
    let root = match node::parse(&text) {
        Ok(Some(root)) => root,
        Ok(None) => return Ok(Overrides::new()),
        Err(err) => return Err(invalid_yaml(err, path)),
    };
    let (file, errors) = de::from_node_all::<OverridesFile>(&root, KeyPath::root());
    let errors: Vec<ConfigError> = errors
        .into_iter()
        .map(|Located { message, hint, pos }| {
            let mut e = ConfigError::new(message).in_file(path);
            if pos.line > 0 {
                e = e.at(pos.line, pos.column);
            }
            e.hint = hint.or_else(|| {
                Some("the file holds `overrides:`, then per tool `description:` and optionally `properties:`".to_owned())
            });
            e
        })
        .collect();
    match (file, ConfigError::all(errors)) {
        (_, Some(all)) => Err(all),
        (Some(f), None) => Ok(f.overrides),
        (None, None) => Err(ConfigError::new("invalid overrides file").in_file(path)),
    }
}
