//! Where report items point in the repository. A report names files as the user gave them
//! (`../x/toolproof.yaml`, an absolute path…); GitHub attaches an annotation, and JUnit readers
//! such as mikepenz/action-junit-report find a file, only by its path from the repository root.
//! Settings work those paths out once (from `GITHUB_WORKSPACE`, else the current folder) and
//! hand them over as [`Places`]; renderers only look them up, so they stay pure.

use super::redact::Redactor;

/// The repository paths of the files a report names, and the YAML lines of the config's
/// sections. The default knows nothing: every file stays as the report names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Places {
    /// `(as the report names it, as the repository knows it)`.
    paths: Vec<(String, String)>,
    /// Line of the `checks:` key in the config file, when it has one.
    checks_line: Option<u32>,
    /// Line of the `evals:` key in the config file, when it has one.
    evals_line: Option<u32>,
}

impl Places {
    /// Places from the files' repository paths and the sections' lines.
    pub(crate) fn new(
        paths: Vec<(String, String)>,
        checks_line: Option<u32>,
        evals_line: Option<u32>,
    ) -> Self {
        Places {
            paths,
            checks_line,
            evals_line,
        }
    }

    /// `file` as the repository knows it, or as given when settings did not resolve it.
    pub(crate) fn file<'a>(&'a self, file: &'a str) -> &'a str {
        self.paths
            .iter()
            .find(|(given, _)| given == file)
            .map_or(file, |(_, in_repo)| in_repo.as_str())
    }

    /// The same places with `secrets` masked in every path, as a renderer masks the report
    /// (so the paths still match the report's masked ones).
    pub(crate) fn redacted(&self, secrets: &[String]) -> Places {
        let redactor = Redactor::new(secrets);
        let mask = |p: &String| redactor.apply(p).into_owned();
        Places {
            paths: self.paths.iter().map(|(a, b)| (mask(a), mask(b))).collect(),
            ..self.clone()
        }
    }

    /// Line of the `checks:` key.
    pub(crate) fn checks_line(&self) -> Option<u32> {
        self.checks_line
    }

    /// Line of the `evals:` key.
    pub(crate) fn evals_line(&self) -> Option<u32> {
        self.evals_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_files_are_translated_and_others_kept() {
        let places = Places::new(
            vec![("../x/toolproof.yaml".into(), "x/toolproof.yaml".into())],
            Some(3),
            None,
        );
        assert_eq!(places.file("../x/toolproof.yaml"), "x/toolproof.yaml");
        assert_eq!(places.file("other.yaml"), "other.yaml");
        assert_eq!((places.checks_line(), places.evals_line()), (Some(3), None));
        assert_eq!(Places::default().file("a.yaml"), "a.yaml");
    }

    #[test]
    fn secrets_are_masked_on_both_sides() {
        let places = Places::new(
            vec![(
                "/srv/sk-live-123456/t.yaml".into(),
                "sk-live-123456/t.yaml".into(),
            )],
            None,
            None,
        );
        let masked = places.redacted(&["sk-live-123456".into()]);
        assert_eq!(masked.file("/srv/***/t.yaml"), "***/t.yaml");
    }
}
