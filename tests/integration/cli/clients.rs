//! The `client-*` checks through the binary: the fake server's `client-compat` tools, with
//! `checks.clients` unset (only `anthropic`), set to other clients, misspelt, and overruled by
//! `checks.disable`.

use super::*;

/// `(tool, check, message, hint)` of every `client-*` finding in a JSON report.
fn client_findings(report: &Value) -> Vec<(String, String, String, String)> {
    report["phases"]["checks"]["results"]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| {
            f["check"]
                .as_str()
                .is_some_and(|c| c.starts_with("client-"))
        })
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or("").to_owned();
            (s("tool"), s("check"), s("message"), s("hint"))
        })
        .collect()
}

fn compat_server(dir: &Dir, name: &str, checks: &str) {
    let cmd = yaml_list(&[&fake(), "--fault", "client-compat"]);
    dir.write(name, &format!("server:\n  command: {cmd}\n{checks}"));
}

#[test]
fn by_default_only_the_claude_root_rule_runs() {
    let dir = Dir::new("clients-default");
    compat_server(&dir, "toolproof.yaml", "");
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "warnings only: {out:?}");
    let got = client_findings(&dir.json("r.json"));
    assert_eq!(got.len(), 1, "{got:#?}");
    let (tool, check, message, hint) = &got[0];
    assert_eq!(
        (tool.as_str(), check.as_str()),
        ("pick_route", "client-anthropic")
    );
    assert!(
        message.starts_with("Claude API rule `root-combinator` at the root: the root has `anyOf`"),
        "{message}"
    );
    assert!(hint.starts_with("keep the root a plain object"), "{hint}");
    assert!(out.stdout.contains("client-anthropic"), "{}", out.stdout);
    assert!(out.stdout.contains("root-combinator"), "{}", out.stdout);
    let strict = toolproof_in(&dir.0, &["run", "--strict"], &[]);
    assert_eq!(strict.code, 1, "the warning fails under strict: {strict:?}");
}

#[test]
fn selected_clients_report_their_rules_and_unselected_ones_nothing() {
    let dir = Dir::new("clients-selected");
    compat_server(
        &dir,
        "toolproof.yaml",
        "checks:\n  clients: [gemini, openai-strict]\n",
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let got = client_findings(&dir.json("r.json"));
    let checks: Vec<&str> = got.iter().map(|f| f.1.as_str()).collect();
    assert!(checks.contains(&"client-gemini"), "{got:#?}");
    assert!(checks.contains(&"client-openai-strict"), "{got:#?}");
    assert!(
        !checks.iter().any(|c| c.starts_with("client-anthropic")),
        "anthropic is not in the list, so it does not run: {got:#?}"
    );
    let of = |tool: &str, check: &str| -> Vec<(String, String)> {
        got.iter()
            .filter(|f| f.0 == tool && f.1 == check)
            .map(|f| (f.2.clone(), f.3.clone()))
            .collect()
    };
    let gemini = of("fetch_page", "client-gemini");
    assert_eq!(gemini.len(), 3, "{gemini:#?}");
    assert!(
        gemini[0].0.starts_with(
            "Gemini rule `unknown-keyword` at the root: `$schema`, `additionalProperties`"
        ),
        "{gemini:#?}"
    );
    assert!(
        gemini[2]
            .0
            .starts_with("Gemini rule `list-value` at /properties/timeout:"),
        "{gemini:#?}"
    );
    assert!(
        gemini[2]
            .1
            .starts_with("give one `type` at /properties/timeout"),
        "{gemini:#?}"
    );
    assert_eq!(
        of("loose_query", "client-gemini"),
        vec![],
        "a plain schema suits Gemini"
    );
    let openai = of("strict_lookup", "client-openai-strict");
    assert_eq!(
        openai,
        vec![],
        "closed and all required suits OpenAI strict"
    );
    let loose = of("loose_query", "client-openai-strict");
    assert_eq!(loose.len(), 1, "{loose:#?}");
    assert_eq!(
        loose[0].1,
        "add `\"additionalProperties\": false` at the root"
    );
    assert!(
        out.stdout.contains("client-openai-strict"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("/properties/timeout"), "{}", out.stdout);
}

#[test]
fn claude_strict_rules_run_and_disable_turns_one_client_off() {
    let dir = Dir::new("clients-disable");
    compat_server(
        &dir,
        "toolproof.yaml",
        "checks:\n  clients: [anthropic, anthropic-strict]\n  disable: [client-anthropic]\n",
    );
    let out = toolproof_in(&dir.0, &["run", "--json", "r.json"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let got = client_findings(&dir.json("r.json"));
    assert!(
        got.iter().all(|f| f.1 == "client-anthropic-strict"),
        "{got:#?}"
    );
    assert!(
        got.iter().any(|f| f.0 == "fetch_page"
            && f.2.starts_with(
                "Claude strict tool use rule `constraints` at /properties/url: `maxLength`"
            )),
        "{got:#?}"
    );
}

#[test]
fn an_unknown_client_is_a_config_error_at_its_line() {
    let dir = Dir::new("clients-typo");
    compat_server(
        &dir,
        "toolproof.yaml",
        "checks:\n  clients:\n    - gemeni\n    - openai\n",
    );
    let out = toolproof_in(&dir.0, &["run"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains(
            "toolproof.yaml:5:7: unknown client `gemeni` in checks.clients, did you mean `gemini`?"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("toolproof.yaml:6:7: unknown client `openai` in checks.clients, did you mean `openai-strict`?"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(
            "hint: clients are `openai-strict`, `gemini`, `anthropic`, `anthropic-strict`"
        ),
        "{}",
        out.stderr
    );
}
