//! Key paths: where a value sits in the document, written as the YAML reads (`tests[2].name`).

use std::fmt;

/// Where a value sits in the document: `tests[2].expect.is_error`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KeyPath(Vec<Seg>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

impl KeyPath {
    /// The top level.
    pub(crate) fn root() -> Self {
        KeyPath(Vec::new())
    }

    /// This path plus a mapping key.
    pub(crate) fn key(&self, key: &str) -> Self {
        let mut segs = self.0.clone();
        segs.push(Seg::Key(key.to_owned()));
        KeyPath(segs)
    }

    /// This path plus a list index.
    pub(crate) fn index(&self, index: usize) -> Self {
        let mut segs = self.0.clone();
        segs.push(Seg::Index(index));
        KeyPath(segs)
    }

    pub(crate) fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// How a message names the value: `` `tests[2].name` ``, or `the top level`.
    pub(crate) fn subject(&self) -> String {
        if self.is_root() {
            "the top level".to_owned()
        } else {
            format!("`{self}`")
        }
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) if is_plain_key(k) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                Seg::Key(k) => write!(f, "[{k:?}]")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

fn is_plain_key(k: &str) -> bool {
    !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
