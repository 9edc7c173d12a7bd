//! Secret redaction: every value that came from `${VAR}` expansion is replaced by `***` in every
//! string of the [`RunReport`] before a renderer sees it.
//!
//! Redacting the model, not the rendered text, is deliberate: it happens before any escaping (an
//! XML- or JSON-escaped secret would no longer match the raw value) and it can never break the
//! syntax of a format (a secret such as `true` or `name` replaced inside JSON or XML markup would).

use std::borrow::Cow;

use serde_json::Value;

use crate::outcome::{
    BaseComparison, CacheAudit, ChecksResults, EvalsResults, Finding, FindingChanges, Generator,
    HistoryRecord, Inventory, ModelChange, NotRemoved, Phase, Phases, RunReport, ServerError,
    ServerSummary, TestChanges, TestResult, ToolSummary,
};

/// Shortest secret that is redacted; shorter values would garble ordinary words and numbers.
pub(crate) const MIN_SECRET_CHARS: usize = 4;

/// What a secret is replaced with.
pub(crate) const MASK: &str = "***";

/// A set of secrets ready to apply: too short ones dropped, longest first so a secret that
/// contains another is masked whole.
#[derive(Debug, Clone)]
pub(crate) struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// Prepares `secrets` for use.
    pub(crate) fn new(secrets: &[String]) -> Self {
        let mut secrets: Vec<String> = secrets
            .iter()
            .filter(|s| s.chars().count() >= MIN_SECRET_CHARS)
            .cloned()
            .collect();
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        Redactor { secrets }
    }

    /// Whether there is nothing to redact.
    pub(crate) fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `text` with every secret replaced by [`MASK`].
    pub(crate) fn apply<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), MASK));
            }
        }
        out
    }

    /// `text` with every secret replaced, in place.
    pub(crate) fn apply_in_place(&self, text: &mut String) {
        if let Cow::Owned(new) = self.apply(text) {
            *text = new;
        }
    }

    /// Every string and object key of `value` redacted, in place.
    pub(crate) fn value(&self, value: &mut Value) {
        value.redact(self);
    }

    /// `value` redacted through its JSON form: every string and key, whatever the nesting.
    /// Left as it is in the (never seen) case that its JSON form does not read back.
    pub(crate) fn serde<T: serde::Serialize + serde::de::DeserializeOwned>(&self, value: &mut T) {
        if self.is_empty() {
            return;
        }
        let Ok(mut json) = serde_json::to_value(&*value) else {
            return;
        };
        json.redact(self);
        if let Ok(clean) = serde_json::from_value(json) {
            *value = clean;
        }
    }
}

/// Something that holds strings to redact.
trait Redact {
    fn redact(&mut self, r: &Redactor);
}

impl Redact for String {
    fn redact(&mut self, r: &Redactor) {
        r.apply_in_place(self);
    }
}

impl<T: Redact> Redact for Option<T> {
    fn redact(&mut self, r: &Redactor) {
        if let Some(v) = self {
            v.redact(r);
        }
    }
}

impl<T: Redact> Redact for Vec<T> {
    fn redact(&mut self, r: &Redactor) {
        for v in self {
            v.redact(r);
        }
    }
}

impl Redact for Value {
    fn redact(&mut self, r: &Redactor) {
        match self {
            Value::String(s) => s.redact(r),
            Value::Array(items) => items.redact(r),
            Value::Object(map) => {
                let old = std::mem::take(map);
                for (mut key, mut value) in old {
                    key.redact(r);
                    value.redact(r);
                    map.insert(key, value);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

// The impls below destructure exhaustively: a new field is a compile error here until someone
// decides whether it needs redacting.

impl Redact for RunReport {
    fn redact(&mut self, r: &Redactor) {
        let RunReport {
            schema_version: _,
            generator,
            command,
            target,
            config_file,
            server,
            started_at: _,
            duration_ms: _,
            passed: _,
            exit_code: _,
            error,
            inventory,
            stdout_noise,
            stdout_noise_total: _,
            interrupted: _,
            shard: _,
            config_warnings,
            phases,
            cache_audit,
            history,
            config_digest: _,
            secrets: _,
            absent: _,
        } = self;
        generator.redact(r);
        command.redact(r);
        target.redact(r);
        config_file.redact(r);
        server.redact(r);
        error.redact(r);
        inventory.redact(r);
        stdout_noise.redact(r);
        config_warnings.redact(r);
        phases.redact(r);
        if let Some(audit) = cache_audit {
            audit.redact(r);
        }
        history.redact(r);
    }
}

impl Redact for HistoryRecord {
    fn redact(&mut self, r: &Redactor) {
        let HistoryRecord {
            path,
            recorded: _,
            error,
            base,
        } = self;
        path.redact(r);
        error.redact(r);
        base.redact(r);
    }
}

impl Redact for BaseComparison {
    fn redact(&mut self, r: &Redactor) {
        let BaseComparison {
            base_ref,
            run,
            models,
            checks,
            tests,
        } = self;
        base_ref.redact(r);
        if let Some(run) = run {
            run.commit.redact(r);
        }
        for m in models {
            let ModelChange {
                model,
                accuracy: _,
                base_accuracy: _,
                newly_missed,
                newly_passing,
            } = m;
            model.redact(r);
            newly_missed.redact(r);
            newly_passing.redact(r);
        }
        if let Some(FindingChanges { new, fixed }) = checks {
            for key in new.iter_mut().chain(fixed) {
                key.check.redact(r);
                key.tool.redact(r);
            }
        }
        if let Some(TestChanges {
            newly_failing,
            fixed,
        }) = tests
        {
            newly_failing.redact(r);
            fixed.redact(r);
        }
    }
}

impl Redact for CacheAudit {
    fn redact(&mut self, r: &Redactor) {
        let CacheAudit {
            dir,
            answers,
            stale,
            removed: _,
            not_removed,
            error,
        } = self;
        dir.redact(r);
        for answer in answers {
            answer.label.redact(r);
        }
        stale.redact(r);
        for NotRemoved { file, error } in not_removed {
            file.redact(r);
            error.redact(r);
        }
        error.redact(r);
    }
}

impl Redact for Generator {
    fn redact(&mut self, _: &Redactor) {
        let Generator {
            name: _,
            version: _,
        } = self;
    }
}

impl Redact for ServerSummary {
    fn redact(&mut self, r: &Redactor) {
        let ServerSummary {
            name,
            version,
            title,
            protocol_version,
            era,
            transport,
            capabilities,
        } = self;
        name.redact(r);
        version.redact(r);
        title.redact(r);
        protocol_version.redact(r);
        era.redact(r);
        transport.redact(r);
        capabilities.redact(r);
    }
}

impl Redact for ServerError {
    fn redact(&mut self, r: &Redactor) {
        let ServerError { message, stderr } = self;
        message.redact(r);
        stderr.redact(r);
    }
}

impl Redact for Inventory {
    fn redact(&mut self, r: &Redactor) {
        let Inventory {
            tools,
            resources,
            prompts,
            errors,
            tool_list_tokens: _,
        } = self;
        tools.redact(r);
        resources.redact(r);
        prompts.redact(r);
        errors.redact(r);
    }
}

impl Redact for ToolSummary {
    fn redact(&mut self, r: &Redactor) {
        let ToolSummary {
            name,
            title,
            summary,
            annotations,
            has_output_schema: _,
            tokens: _,
            definition,
        } = self;
        name.redact(r);
        title.redact(r);
        summary.redact(r);
        annotations.redact(r);
        definition.redact(r);
    }
}

impl<T: Redact> Redact for Phase<T> {
    fn redact(&mut self, r: &Redactor) {
        let Phase {
            status: _,
            reason,
            duration_ms: _,
            results,
        } = self;
        reason.redact(r);
        results.redact(r);
    }
}

impl Redact for Phases {
    fn redact(&mut self, r: &Redactor) {
        let Phases {
            checks,
            tests,
            evals,
            lint,
            stress,
            bench,
            fuzz,
            protocol,
            surface,
        } = self;
        checks.redact(r);
        tests.redact(r);
        evals.redact(r);
        lint.redact(r);
        stress.redact(r);
        bench.redact(r);
        fuzz.redact(r);
        protocol.redact(r);
        if let Some(surface) = surface {
            r.serde(surface);
        }
    }
}

impl Redact for EvalsResults {
    /// Through the JSON form: every string and key in it, whatever the nesting.
    fn redact(&mut self, r: &Redactor) {
        r.serde(self);
    }
}

impl Redact for crate::outcome::LintResults {
    /// Through the JSON form: messages quote case names, prompts and tool names.
    fn redact(&mut self, r: &Redactor) {
        r.serde(self);
    }
}

impl Redact for crate::outcome::StressResults {
    /// Through the JSON form: model names, case names and picked tools.
    fn redact(&mut self, r: &Redactor) {
        r.serde(self);
    }
}

impl Redact for crate::outcome::BenchResults {
    /// Through the JSON form: names, failures and first errors.
    fn redact(&mut self, r: &Redactor) {
        r.serde(self);
    }
}

impl Redact for crate::outcome::ProtocolResults {
    /// Through the JSON form: details quote what the server sent.
    fn redact(&mut self, r: &Redactor) {
        r.serde(self);
    }
}

impl Redact for crate::outcome::FuzzResults {
    /// Through the JSON form, like the evals: inputs are arbitrary JSON.
    fn redact(&mut self, r: &Redactor) {
        r.serde(self);
    }
}

impl Redact for ChecksResults {
    fn redact(&mut self, r: &Redactor) {
        let ChecksResults {
            strict: _,
            tools,
            disabled,
            findings,
        } = self;
        tools.redact(r);
        disabled.redact(r);
        findings.redact(r);
    }
}

impl Redact for Finding {
    fn redact(&mut self, r: &Redactor) {
        let Finding {
            tool,
            tool_index: _,
            check,
            severity: _,
            message,
            hint,
            fails: _,
        } = self;
        tool.redact(r);
        check.redact(r);
        message.redact(r);
        hint.redact(r);
    }
}

impl Redact for TestResult {
    fn redact(&mut self, r: &Redactor) {
        let TestResult {
            name,
            tool,
            status: _,
            failures,
            latency_ms: _,
            attempts: _,
            is_error: _,
            text,
            stderr,
            tags,
            line: _,
            server_requests,
            warnings,
        } = self;
        for request in server_requests {
            request.answer.redact(r);
            request.problem.redact(r);
        }
        name.redact(r);
        tool.redact(r);
        failures.redact(r);
        warnings.redact(r);
        text.redact(r);
        stderr.redact(r);
        tags.redact(r);
    }
}

impl RunReport {
    /// This report with every string redacted of [`RunReport::secrets`] (borrowed unchanged
    /// when there is nothing to redact). Every renderer calls this first.
    pub fn redacted(&self) -> Cow<'_, RunReport> {
        let redactor = Redactor::new(&self.secrets);
        if redactor.is_empty() {
            return Cow::Borrowed(self);
        }
        let mut copy = self.clone();
        copy.redact(&redactor);
        Cow::Owned(copy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_secrets_are_left_alone() {
        let r = Redactor::new(&["abc".into(), "".into()]);
        assert!(r.is_empty());
        assert_eq!(r.apply("abc"), "abc");
    }

    #[test]
    fn longest_secret_wins() {
        let r = Redactor::new(&["token".into(), "token-123456".into()]);
        assert_eq!(r.apply("a token-123456 b token"), "a *** b ***");
    }

    #[test]
    fn secrets_are_counted_in_characters() {
        let r = Redactor::new(&["ключ".into()]);
        assert_eq!(r.apply("der ключ"), "der ***");
    }
}
