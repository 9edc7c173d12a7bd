//! Servers that fail: missing, dying, hanging, talking nonsense.

use super::harness::{Case, fake_server};

#[test]
fn a_missing_server_binary_is_reported_with_every_report() {
    let out = Case::new("missing-binary")
        .yaml("server:\n  command: [\"./no-such-server\"]\n")
        .run();
    out.sound(1).says("no-such-server");
    let report = out.report();
    assert_eq!(report["phases"]["checks"]["status"], "error");
}

#[test]
fn a_server_that_exits_before_answering_is_named_with_its_stderr() {
    let out = Case::new("exits-early")
        .yaml(&fake_server(&["--fault", "exit-before-initialize"], ""))
        .run();
    out.sound(1).says("exited with code 1");
}
