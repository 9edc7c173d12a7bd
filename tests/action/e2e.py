#!/usr/bin/env python3
"""toolproof's GitHub Action, end to end on this machine.

action.yml runs the way the runner runs it (tests/action/runner.py), with the release download
pointed at an archive served on 127.0.0.1 and the REST API at the fake GitHub
(examples/fake_github.rs). Checks: the bundled demo passes and the outputs, the job summary,
the history cache and the artifact are there; a tampered archive is refused; on a pull request
one comment is created, a second run updates that same comment, and its body shows what changed
against the base branch.

Usage: e2e.py TARGET_DIR (the cargo target folder holding debug/toolproof and the examples)
"""

import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
from pathlib import Path

from runner import Runner

ROOT = Path(__file__).resolve().parents[2]
VERSION = "0.0.0-e2e"
FAILURES = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)
        if detail:
            print("     " + str(detail).replace("\n", "\n     ")[:4000])


def archive(bins: Path, out: Path, tamper=False) -> str:
    """A release archive like the release workflow's, and its SHA-256."""
    stage = Path(tempfile.mkdtemp())
    (stage / "toolproof").write_bytes((bins / "toolproof").read_bytes())
    (stage / "toolproof").chmod(0o755)
    if tamper:
        with open(stage / "toolproof", "ab") as f:
            f.write(b"\0tampered")
    with tarfile.open(out, "w:gz") as tar:
        tar.add(stage / "toolproof", arcname="toolproof/toolproof")
    return hashlib.sha256(out.read_bytes()).hexdigest()


def serve(folder: Path) -> str:
    """Serves `folder` on 127.0.0.1; returns the base URL."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=str(folder), **k)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def action_copy(dest: Path, file: str, sha: str) -> Path:
    """action.yml and action/ as a user's checkout of the action, with a manifest for VERSION."""
    shutil.copy(ROOT / "action.yml", dest / "action.yml")
    shutil.copytree(ROOT / "action", dest / "action")
    manifest = {"version": VERSION, "assets": {"Linux-X64": {"file": file, "sha256": sha}}}
    (dest / "action" / "manifests" / f"v{VERSION}.json").write_text(json.dumps(manifest))
    return dest


def demo_workspace(workspace: Path, bins: Path, extra_evals=""):
    """The bundled demo, pointed at this build's demo server and picker."""
    text = (ROOT / "examples/demo/toolproof.yaml").read_text()
    text = text.replace("../../target/release/examples/", str(bins / "examples") + "/")
    (workspace / "toolproof.yaml").write_text(text + extra_evals)


def github(event_path: Path, **kw):
    base = {
        "repository": "acme/weather-mcp",
        "api_url": kw.pop("api_url", "http://127.0.0.1:9"),
        "server_url": "https://github.example",
        "run_id": kw.pop("run_id", "100"),
        "run_attempt": "1",
        "sha": "0" * 40,
        "token": "ghs_e2e_token_0123456789",
        "action_ref": f"v{VERSION}",
        "action_repository": "toolproof/toolproof",
        "event_path": str(event_path),
        "event": {"repository": {"default_branch": "main"}},
    }
    base.update(kw)
    return base


def demo_passes(bins, served, url, sha, file):
    root = Path(tempfile.mkdtemp(prefix="toolproof-e2e-"))
    (root / "action-src").mkdir()
    action = action_copy(root / "action-src", file, sha)
    event = root / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}))
    runner = Runner(root / "runner", github(event, event_name="push", ref_name="main"),
                    env={"TOOLPROOF_DOWNLOAD_BASE": url})
    demo_workspace(root / "runner" / "workspace", bins)
    result = runner.run(action, {})
    log = "\n".join(result.logs)
    check(result.conclusion == "success", "the demo passes through the action", log)
    out = result.outputs
    check(out.get("exit-code") == "0", "output exit-code is 0", out)
    check(out.get("passed") == "true", "output passed is true", out)
    check(out.get("tests-failed") == "0" and out.get("check-errors") == "0",
          "outputs tests-failed and check-errors are 0", out)
    check(out.get("accuracy") not in (None, ""), "output accuracy is set", out)
    check(Path(out.get("junit", "/nonexistent")).is_file(), "the JUnit report path is an output", out)
    summary = runner.summary.read_text() if runner.summary.exists() else ""
    check("toolproof passed" in summary, "the job summary is written", summary[:500])
    caches = [p.name for p in (root / "runner" / "caches").iterdir()]
    check(len(caches) == 1 and caches[0].startswith("toolproof-history-toolproof-history.jsonl-main-"),
          "the history file is saved to the cache", caches)
    artifact = root / "runner" / "artifacts" / "toolproof-reports"
    kept = sorted(p.name for p in artifact.rglob("*") if p.is_file()) if artifact.exists() else []
    check({"junit.xml", "report.json", "report.html", "toolproof-history.jsonl"} <= set(kept),
          "the reports and the history are uploaded", kept)
    tool_cache = root / "runner" / "tool-cache" / "toolproof" / VERSION / "Linux-X64"
    check((tool_cache / "toolproof").is_file(), "the binary is kept in the tool cache")


def tampered_is_refused(bins, served, url, file, sha):
    root = Path(tempfile.mkdtemp(prefix="toolproof-e2e-"))
    (root / "action-src").mkdir()
    action = action_copy(root / "action-src", file, sha)
    event = root / "event.json"
    event.write_text("{}")
    runner = Runner(root / "runner", github(event, event_name="push", ref_name="main"),
                    env={"TOOLPROOF_DOWNLOAD_BASE": url})
    demo_workspace(root / "runner" / "workspace", bins)
    result = runner.run(action, {})
    log = "\n".join(result.logs)
    check(result.conclusion == "failure", "a tampered archive fails the step", log)
    check("checksum mismatch" in log and "refused" in log, "the log says the download was refused", log)
    check(result.steps.get("run", {}).get("outcome") == "skipped", "toolproof never ran", result.steps)


def no_release_for_the_runner_builds_from_the_checkout(bins, url, sha, file):
    """An ARM64 runner: the manifest has no archive for it, so the action builds its checkout
    with cargo (a stand-in `cargo` on PATH records the call and installs this build)."""
    root = Path(tempfile.mkdtemp(prefix="toolproof-e2e-src-"))
    (root / "action-src").mkdir()
    action = action_copy(root / "action-src", file, sha)
    fake_bin = root / "fake-bin"
    fake_bin.mkdir()
    (fake_bin / "cargo").write_text(
        "#!/usr/bin/env bash\n"
        f"echo \"$*\" >> {root}/cargo-calls\n"
        "while [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=\"$2\"; shift; done\n"
        f"mkdir -p \"$root/bin\" && cp {bins}/toolproof \"$root/bin/toolproof\"\n")
    (fake_bin / "cargo").chmod(0o755)
    event = root / "event.json"
    event.write_text("{}")
    runner = Runner(root / "runner", github(event, event_name="push", ref_name="main"),
                    env={"TOOLPROOF_DOWNLOAD_BASE": url, "RUNNER_ARCH": "ARM64",
                         "PATH": f"{fake_bin}:{os.environ['PATH']}"})
    demo_workspace(root / "runner" / "workspace", bins)
    result = runner.run(action, {})
    log = "\n".join(result.logs)
    calls = (root / "cargo-calls").read_text() if (root / "cargo-calls").exists() else ""
    check("has no release for Linux-ARM64" in log, "the log says there is no release for the runner", log)
    check(calls.startswith("install --locked --quiet --path ") and "--bin toolproof" in calls,
          "the action's checkout is built with cargo install --locked", calls)
    check(result.outputs.get("passed") == "true", "the run then passes", log)


def fake_github(bins: Path, folder: Path, token: str):
    """The fake GitHub API (examples/fake_github.rs) with three comments by others on PR 42."""
    proc = subprocess.Popen(
        [str(bins / "examples" / "fake_github"), "--repo", "acme/weather-mcp", "--pr", "42",
         "--comments", "3", "--require-token", token,
         "--state", str(folder / "comments.json"), "--log", str(folder / "requests.jsonl")],
        stdout=subprocess.PIPE, text=True,
    )
    line = proc.stdout.readline().strip()
    assert line.startswith("listening on "), line
    return proc, line.removeprefix("listening on ")


def pr_comment_is_one_comment_that_shows_what_changed(bins, url, sha, file):
    root = Path(tempfile.mkdtemp(prefix="toolproof-e2e-pr-"))
    (root / "action-src").mkdir()
    action = action_copy(root / "action-src", file, sha)
    token = "ghs_e2e_token_0123456789"
    proc, api = fake_github(bins, root, token)
    workspace = root / "runner" / "workspace"
    try:
        push = root / "push.json"
        push.write_text(json.dumps({"ref": "refs/heads/main"}))
        pr = root / "pr.json"
        pr.write_text(json.dumps({"number": 42, "pull_request": {"number": 42}}))
        inputs = {"pr-comment": "always", "fail": "false"}

        def job(event, run_id, **ctx):
            # Every job starts from a fresh checkout: the history comes back from the cache.
            (workspace / "toolproof-history.jsonl").unlink(missing_ok=True)
            runner = Runner(root / "runner", github(event, api_url=api, run_id=run_id, **ctx),
                            env={"TOOLPROOF_DOWNLOAD_BASE": url})
            runner.summary.unlink(missing_ok=True)
            return runner.run(action, inputs)

        workspace.mkdir(parents=True)
        demo_workspace(workspace, bins)
        main_run = job(push, "200", event_name="push", ref_name="main")
        check(main_run.outputs.get("passed") == "true", "the main branch run passes",
              "\n".join(main_run.logs))
        pr_ctx = dict(event_name="pull_request", ref_name="42/merge", head_ref="feature",
                      base_ref="main")
        first = job(pr, "201", **pr_ctx)
        comments = json.loads((root / "comments.json").read_text()) if (root / "comments.json").exists() else []
        ours = [c for c in comments if "toolproof:pr-comment" in c["body"]]
        check(len(ours) == 1, "the first pull-request run creates one comment",
              "\n".join(first.logs))
        # The pull request now breaks one row, though the run still meets min_accuracy: the
        # row expects another tool of the server (a tool it does not have would be a set-lint
        # error, which fails the run).
        text = (workspace / "toolproof.yaml").read_text()
        (workspace / "toolproof.yaml").write_text(text.replace(
            "prompt: List my notes\n      expect_tool: list_notes",
            "prompt: List my notes\n      expect_tool: add_note"))
        second = job(pr, "202", **pr_ctx)
        check(second.outputs.get("passed") == "true", "the second run still passes its gates",
              second.outputs)
        comments = json.loads((root / "comments.json").read_text())
        ours = [c for c in comments if "toolproof:pr-comment" in c["body"]]
        check(len(comments) == 4 and len(ours) == 1,
              "the second run updates the same comment instead of adding one", comments)
        body = ours[0]["body"] if ours else ""
        check("main" in body and "list notes" in body and "newly" in body.lower(),
              "the comment shows the row that newly misses against main", body[:3000])
        requests = [json.loads(l) for l in (root / "requests.jsonl").read_text().splitlines()]
        writes = [r["method"] for r in requests if r["method"] in ("POST", "PATCH")]
        check(writes == ["POST", "PATCH"], "one POST, then one PATCH", writes)
        everything = "\n".join(first.logs + second.logs) + (root / "requests.jsonl").read_text()
        check(everything.count(token) == sum(1 for r in requests if r["headers"].get("authorization")),
              "the token appears only in the Authorization headers the fake received")
    finally:
        proc.kill()


def main():
    target = Path(sys.argv[1]).resolve()
    bins = target / "debug"
    served = Path(tempfile.mkdtemp(prefix="toolproof-release-"))
    file = f"toolproof-{VERSION}-x86_64-unknown-linux-gnu.tar.gz"
    (served / f"v{VERSION}").mkdir()
    sha = archive(bins, served / f"v{VERSION}" / file)
    url = serve(served)
    demo_passes(bins, served, url, sha, file)

    bad = Path(tempfile.mkdtemp(prefix="toolproof-release-bad-"))
    (bad / f"v{VERSION}").mkdir()
    archive(bins, bad / f"v{VERSION}" / file, tamper=True)
    tampered_is_refused(bins, bad, serve(bad), file, sha)

    no_release_for_the_runner_builds_from_the_checkout(bins, url, sha, file)
    pr_comment_is_one_comment_that_shows_what_changed(bins, url, sha, file)

    if FAILURES:
        print(f"0 passed, {len(FAILURES)} failed")
        sys.exit(1)
    print("action end to end: all checks passed")


if __name__ == "__main__":
    main()
