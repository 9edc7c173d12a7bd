//! `toolproof merge` given hostile inputs: a report whose shard count no `--shard` takes (it
//! once built a name for each "missing" shard until memory ran out), a device that never ends
//! and a file past the size limit, and a report whose server printed a line of megabytes.

use serde_json::{Value, json};

use super::harness::{Case, Outcome, fake_server};

/// A real report: `toolproof run` against the fake server, one passing test.
fn a_report() -> Value {
    let out = Case::new("merge-source")
        .yaml(&fake_server(
            &[],
            "checks:\n  enabled: false\ntests:\n  - {name: echo, tool: echo, args: {text: hi}}\n",
        ))
        .run();
    out.sound(0);
    out.report()
}

/// `toolproof merge FILES…` in a folder holding `files`, with every report.
fn merge(name: &str, files: &[(&str, Vec<u8>)], inputs: &[&str]) -> Outcome {
    let mut args = vec!["merge"];
    args.extend_from_slice(inputs);
    files
        .iter()
        .fold(Case::new(name), |case, (file, bytes)| {
            case.file(file, bytes)
        })
        .args(&args)
        .run()
}

fn bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

#[test]
fn a_shard_count_past_what_shard_takes_is_refused_naming_the_file() {
    let report = a_report();
    for (index, count) in [(1u64, 1001u64), (1, 4_294_967_295), (5, 4)] {
        let mut bad = report.clone();
        bad["shard"] = json!({"index": index, "count": count});
        let out = merge(
            "merge-shard-count",
            &[("good.json", bytes(&report)), ("bad.json", bytes(&bad))],
            &["bad.json"],
        );
        out.sound(2)
            .says(&format!(
                "bad.json is not a shard toolproof writes: its `shard` must be K/N with 1 ≤ K ≤ N ≤ 1000 (for example 2/4), got `{index}/{count}`"
            ))
            .says("hint: ");
    }
}

#[test]
fn a_device_or_a_file_past_the_limit_is_refused_not_loaded() {
    // Sparse: 2 GiB that take no disk.
    let dir =
        std::env::temp_dir().join(format!("toolproof-fault-merge-huge-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let made = std::fs::File::create(dir.join("huge.json")).and_then(|f| f.set_len(2 << 30));
    assert!(made.is_ok(), "{made:?}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolproof"))
        .args(["merge", "huge.json", "--json", "m.json"])
        .current_dir(&dir)
        .output()
        .expect("run toolproof");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "cannot read huge.json: it is larger than the 64 MiB limit for a JSON report"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let out = merge("merge-device", &[], &["/dev/zero"]);
    out.sound(2)
        .says("cannot read /dev/zero: it is not a regular file")
        .says("hint: ");
}

#[test]
fn a_noise_line_of_megabytes_is_cut_as_a_live_run_cuts_it() {
    let mut report = a_report();
    let line = "n".repeat(8 << 20);
    report["stdout_noise"] = json!([line]);
    report["stdout_noise_total"] = json!(1);
    let out = merge(
        "merge-noise",
        &[("noisy.json", bytes(&report))],
        &["noisy.json"],
    );
    out.sound(0);
    let merged = out.report();
    let kept = merged["stdout_noise"][0].as_str().unwrap_or("");
    assert!(
        kept.len() < 5 << 10 && kept.ends_with(&format!("… (cut: {} bytes)", 8 << 20)),
        "{} bytes kept",
        kept.len()
    );
    assert_eq!(merged["stdout_noise_total"], 1);
    for (what, text) in [
        ("stdout", out.stdout.clone()),
        ("stderr", out.stderr.clone()),
        ("summary", out.read("summary.md")),
        ("html", out.read("report.html")),
        ("junit", out.read("junit.xml")),
    ] {
        assert!(text.len() < 1 << 20, "{what}: {} bytes", text.len());
    }
}
