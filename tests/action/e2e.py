#!/usr/bin/env python3
"""toolproof's GitHub Action, end to end on this machine.

The action is the tree a release tag ships: scripts/release-tag.sh writes the manifest of an
archive of this build, commits it and tags the commit in a scratch repository, and the tagged
tree is exported without .git, as the runner downloads an action. action.yml runs the way the
runner runs it (tests/action/runner.py), with no cargo on PATH, the release download pointed at
the archive served on 127.0.0.1 and the REST API at the fake GitHub (fake_github in tests/support).
Checks: the bundled demo passes and the outputs (exit-code written once), the job summary, the
history cache and the artifact (toolproof-reports/ at its root) are there; a tampered archive is
refused; a runner with no release archive is an error naming the version and platform, and
`version: source` builds the checkout under a key of its version and sources; on a pull request
one comment is created, a second run updates that same comment, and its body shows what changed
against the base branch; a matrix of two shards and its merge job (the workflow the guide shows)
write one history line, one job summary and one comment, and the merge's verdict is the
unsharded run's while a shard's failed gate leaves its own job green. Last,
scripts/release-dry-run.sh plays the same release from a clone of
HEAD and runs the demo with what the install step installed.

Usage: e2e.py TARGET_DIR (the cargo target folder holding debug/toolproof and the examples)
"""

import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
from pathlib import Path

from runner import Runner

ROOT = Path(__file__).resolve().parents[2]
VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "Cargo.toml").read_text(), re.M).group(1)
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


def tagged_action(dist: Path) -> Path:
    """The action as its release tag ships it: this work tree's action, scripts and sources in a
    scratch repository, tagged by scripts/release-tag.sh with a manifest of `dist`, and the
    tagged tree exported without .git."""
    repo = Path(tempfile.mkdtemp(prefix="toolproof-e2e-repo-"))
    for name in ("action.yml", "Cargo.toml", "Cargo.lock", "LICENSE"):
        shutil.copy(ROOT / name, repo / name)
    for name in ("action", "scripts", "src"):
        shutil.copytree(ROOT / name, repo / name,
                        ignore=shutil.ignore_patterns("v[0-9]*.json", "__pycache__"))
    ident = ["-c", "user.name=e2e", "-c", "user.email=e2e@toolproof.invalid"]
    git = lambda *a: subprocess.run(["git", *ident, *a], cwd=repo, check=True,
                                    capture_output=True, text=True)
    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "the work tree")
    tag = subprocess.run([str(repo / "scripts/release-tag.sh"), "--partial", VERSION, str(dist)], cwd=repo,
                         capture_output=True, text=True)
    check(tag.returncode == 0, "scripts/release-tag.sh commits the manifest and tags the commit",
          tag.stdout + tag.stderr)
    tagged = git("show", f"v{VERSION}:action/manifests/v{VERSION}.json").stdout
    check(json.loads(tagged)["assets"]["Linux-X64"]["sha256"] == sha256(dist / archive_name()),
          "the tagged tree's manifest holds the archive's SHA-256", tagged)
    out = Path(tempfile.mkdtemp(prefix="toolproof-e2e-action-"))
    export = subprocess.run(f"git archive v{VERSION} | tar -x -C '{out}'", shell=True, cwd=repo)
    assert export.returncode == 0
    return out


def archive_name() -> str:
    return f"toolproof-{VERSION}-x86_64-unknown-linux-gnu.tar.gz"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def path_without_cargo(*extra: Path) -> str:
    """PATH less every folder holding a cargo, after `extra`: the runner has no Rust."""
    dirs = [d for d in os.environ["PATH"].split(os.pathsep) if d and not (Path(d) / "cargo").exists()]
    return os.pathsep.join([str(e) for e in extra] + dirs)


def stand_in_cargo(root: Path, bins: Path) -> Path:
    """A folder with a `cargo` that records its call and installs this build."""
    fake_bin = root / "fake-bin"
    fake_bin.mkdir()
    (fake_bin / "cargo").write_text(
        "#!/usr/bin/env bash\n"
        f"echo \"$*\" >> {root}/cargo-calls\n"
        "while [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=\"$2\"; shift; done\n"
        f"mkdir -p \"$root/bin\" && cp {bins}/toolproof \"$root/bin/toolproof\"\n")
    (fake_bin / "cargo").chmod(0o755)
    return fake_bin


def demo_workspace(workspace: Path, bins: Path, extra_evals=""):
    """The bundled demo, pointed at this build's demo server and picker."""
    text = (ROOT / "examples/demo/toolproof.yaml").read_text()
    text = text.replace("../../target/release/", str(bins) + "/")
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


def demo_passes(bins, action, url):
    root = Path(tempfile.mkdtemp(prefix="toolproof-e2e-"))
    event = root / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}))
    runner = Runner(root / "runner", github(event, event_name="push", ref_name="main"),
                    env={"TOOLPROOF_DOWNLOAD_BASE": url, "PATH": path_without_cargo()})
    demo_workspace(root / "runner" / "workspace", bins)
    result = runner.run(action, {"badge": "svg"})
    log = "\n".join(result.logs)
    check(result.conclusion == "success", "the demo passes through the action", log)
    check(f"downloading {archive_name()}" in log, "the release archive is downloaded, no cargo", log)
    out = result.outputs
    check(out.get("exit-code") == "0", "output exit-code is 0", out)
    written = result.output_names.get("run", [])
    check(written.count("exit-code") == 1, "exit-code is written to GITHUB_OUTPUT once", written)
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
    artifact = runner.artifacts / "toolproof-reports"
    kept = sorted(str(p.relative_to(artifact)) for p in artifact.rglob("*") if p.is_file()) \
        if artifact.exists() else []
    badge = Path(out.get("badge", "/nonexistent"))
    check(badge.name == "badge.svg" and badge.read_text().startswith("<svg"),
          "the badge input writes the badge beside the reports, its path an output", out)
    sarif = Path(out.get("sarif", "/nonexistent"))
    check(sarif.name == "results.sarif" and json.loads(sarif.read_text())["version"] == "2.1.0",
          "the SARIF log is written beside the reports, its path the sarif output", out)
    want = {f"toolproof-reports/{n}" for n in
            ("junit.xml", "report.json", "report.html", "results.sarif", "badge.svg",
             "toolproof-history.jsonl")}
    check(want <= set(kept) and all(k.startswith("toolproof-reports/") for k in kept),
          "the artifact holds toolproof-reports/ at its root, with the reports and the history", kept)
    tool_cache = root / "runner" / "tool-cache" / "toolproof" / VERSION / "Linux-X64"
    check((tool_cache / "toolproof").is_file(), "the binary is kept in the tool cache under its version")
    check("replaying the committed eval cache (--offline)" in log,
          "offline: auto replays the cache with no provider credential set", log)
    # Any provider's key turns `offline: auto` off, not only Anthropic's and OpenAI's.
    keyed = Runner(root / "keyed", github(event, event_name="push", ref_name="main"),
                   env={"TOOLPROOF_DOWNLOAD_BASE": url, "PATH": path_without_cargo(),
                        "GEMINI_API_KEY": "gemini-key-of-the-job"})
    demo_workspace(root / "keyed" / "workspace", bins)
    result = keyed.run(action, {})
    log = "\n".join(result.logs)
    check(result.conclusion == "success"
          and "replaying the committed eval cache" not in log
          and "gemini-key-of-the-job" not in log,
          "with GEMINI_API_KEY set, offline: auto asks the model (and never prints the key)", log)


def tampered_is_refused(bins, action, url):
    root = Path(tempfile.mkdtemp(prefix="toolproof-e2e-"))
    event = root / "event.json"
    event.write_text("{}")
    runner = Runner(root / "runner", github(event, event_name="push", ref_name="main"),
                    env={"TOOLPROOF_DOWNLOAD_BASE": url, "PATH": path_without_cargo()})
    demo_workspace(root / "runner" / "workspace", bins)
    result = runner.run(action, {})
    log = "\n".join(result.logs)
    check(result.conclusion == "failure", "a tampered archive fails the step", log)
    check("checksum mismatch" in log and "refused" in log, "the log says the download was refused", log)
    check(result.steps.get("run", {}).get("outcome") == "skipped", "toolproof never ran", result.steps)


def no_release_for_the_runner_is_an_error(bins, action, url):
    """An ARM64 runner: the tagged manifest has no archive for it. That is an error naming the
    version and the platform; nothing is built behind the user's back."""
    root = Path(tempfile.mkdtemp(prefix="toolproof-e2e-arm-"))
    fake_bin = stand_in_cargo(root, bins)
    event = root / "event.json"
    event.write_text("{}")
    runner = Runner(root / "runner", github(event, event_name="push", ref_name="main"),
                    env={"TOOLPROOF_DOWNLOAD_BASE": url, "RUNNER_ARCH": "ARM64",
                         "PATH": path_without_cargo(fake_bin)})
    demo_workspace(root / "runner" / "workspace", bins)
    result = runner.run(action, {})
    log = "\n".join(result.logs)
    check(result.conclusion == "failure", "a runner with no release archive fails the step", log)
    check(f"toolproof {VERSION} has no release archive for Linux-ARM64" in log
          and "version: source" in log,
          "the error names the version and the platform and says how to build instead", log)
    check(not (root / "cargo-calls").exists(), "nothing is built from source unasked")


def version_source_builds_the_checkout(bins, action, url):
    """`version: source` builds the action's checkout with cargo (a stand-in here), kept in the
    tool cache under the crate's version and a hash of the sources."""
    root = Path(tempfile.mkdtemp(prefix="toolproof-e2e-src-"))
    fake_bin = stand_in_cargo(root, bins)
    event = root / "event.json"
    event.write_text("{}")
    runner = Runner(root / "runner", github(event, event_name="push", ref_name="main"),
                    env={"TOOLPROOF_DOWNLOAD_BASE": url, "PATH": path_without_cargo(fake_bin)})
    demo_workspace(root / "runner" / "workspace", bins)
    result = runner.run(action, {"version": "source"})
    log = "\n".join(result.logs)
    calls = (root / "cargo-calls").read_text() if (root / "cargo-calls").exists() else ""
    check(calls.startswith("install --locked --quiet --path ") and "--bin toolproof" in calls,
          "version: source builds the action's checkout with cargo install --locked", calls)
    keys = [p.name for p in (root / "runner" / "tool-cache" / "toolproof").iterdir()]
    check(len(keys) == 1 and re.fullmatch(rf"source-{re.escape(VERSION)}-[0-9a-f]{{16}}", keys[0]),
          "the source build is kept under its version and a hash of its sources", keys)
    check(result.outputs.get("passed") == "true", "the run then passes", log)


def release_dry_run(bins, dist):
    """scripts/release-dry-run.sh: HEAD tagged in a clone, installed by install.sh without cargo,
    and the demo run with what it installed."""
    proc = subprocess.run([str(ROOT / "scripts/release-dry-run.sh"), "--dist", str(dist),
                           "--examples", str(bins)],
                          capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    check(proc.returncode == 0 and "installed by the Action without cargo, checksum verified" in out
          and "PASSED  |" in out,
          "scripts/release-dry-run.sh tags, installs without cargo and runs the demo", out)


def fake_github(bins: Path, folder: Path, token: str):
    """The fake GitHub API (fake_github in tests/support) with three comments by others on PR 42."""
    proc = subprocess.Popen(
        [str(bins / "fake_github"), "--repo", "acme/weather-mcp", "--pr", "42",
         "--comments", "3", "--require-token", token,
         "--state", str(folder / "comments.json"), "--log", str(folder / "requests.jsonl")],
        stdout=subprocess.PIPE, text=True,
    )
    line = proc.stdout.readline().strip()
    assert line.startswith("listening on "), line
    return proc, line.removeprefix("listening on ")


def pr_comment_is_one_comment_that_shows_what_changed(bins, action, url):
    root = Path(tempfile.mkdtemp(prefix="toolproof-e2e-pr-"))
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
        # The restored history holds the main run's line: the pull request's run is judged
        # against it, row by row, whatever the verdict.
        # The run step's artifact folder (under RUNNER_TEMP) still holds the last run's reports.
        kept = root / "runner" / "temp" / "toolproof-artifact" / "toolproof-reports" / "report.json"
        report = json.loads(kept.read_text()) if kept.exists() else {}
        models = (((report.get("phases") or {}).get("evals") or {}).get("results") or {}).get("models") or []
        compared = [m.get("comparison") or {} for m in models]
        check(bool(compared) and all(c.get("verdict") not in (None, "no_base")
                                     and (c.get("base") or {}).get("ref") == "main" for c in compared),
              "the pull request's run compares each model with the base branch's history line",
              json.dumps(compared)[:3000])
        check("Selection " in body, "the comment says the verdict against main", body[:3000])
        requests = [json.loads(l) for l in (root / "requests.jsonl").read_text().splitlines()]
        writes = [r["method"] for r in requests if r["method"] in ("POST", "PATCH")]
        check(writes == ["POST", "PATCH"], "one POST, then one PATCH", writes)
        everything = "\n".join(first.logs + second.logs) + (root / "requests.jsonl").read_text()
        check(everything.count(token) == sum(1 for r in requests if r["headers"].get("authorization")),
              "the token appears only in the Authorization headers the fake received")
    finally:
        proc.kill()


def a_matrix_and_its_merge_job(bins, action, url):
    """The two-job workflow of docs/sharding.md: a matrix of `shard: K/2` jobs, each uploading
    its reports, then a `command: merge` job that downloads them. Every job gets the same
    inputs a user copies into both (pr-comment, history), on a pull request. One row of the
    demo is broken and min_accuracy raised, so the run fails: 10 of 11 cases right."""
    root = Path(tempfile.mkdtemp(prefix="toolproof-e2e-matrix-"))
    token = "ghs_e2e_token_0123456789"
    proc, api = fake_github(bins, root, token)
    artifacts = root / "artifacts"
    try:
        pr = root / "pr.json"
        pr.write_text(json.dumps({"number": 42, "pull_request": {"number": 42}}))
        ctx = dict(event_name="pull_request", ref_name="42/merge", head_ref="feature",
                   base_ref="main", api_url=api, run_id="300")

        def job(name, inputs):
            runner = Runner(root / name, github(pr, **ctx), artifacts=artifacts,
                            env={"TOOLPROOF_DOWNLOAD_BASE": url, "PATH": path_without_cargo()})
            workspace = root / name / "workspace"
            demo_workspace(workspace, bins)
            text = (workspace / "toolproof.yaml").read_text()
            (workspace / "toolproof.yaml").write_text(text.replace(
                "prompt: List my notes\n      expect_tool: list_notes",
                "prompt: List my notes\n      expect_tool: add_note").replace(
                "min_accuracy: 0.85", "min_accuracy: 0.95"))
            result = runner.run(action, {"pr-comment": "always", **inputs})
            summary = runner.summary.read_text() if runner.summary.exists() else ""
            return runner, result, summary, workspace

        shards = [job(f"shard{k}", {"shard": f"{k}/2"}) for k in (1, 2)]
        codes = []
        for k, (runner, result, summary, workspace) in enumerate(shards, start=1):
            log = "\n".join(result.logs)
            codes.append(result.outputs.get("exit-code"))
            check(result.conclusion == "success",
                  f"shard {k}/2: the job is green whatever its own gates say", log)
            check(result.outputs.get("exit-code") in ("0", "1"), f"shard {k}/2 ran", log)
            check(summary == "", f"shard {k}/2 writes no job summary", summary[:500])
            check(not (workspace / "toolproof-history.jsonl").exists()
                  and result.outputs.get("history", "") == "",
                  f"shard {k}/2 keeps no history", log)
            check(result.steps["history-restore"]["outcome"] == "skipped"
                  and result.steps["history-save"]["outcome"] == "skipped",
                  f"shard {k}/2 neither restores nor saves the history cache", result.steps)
            name = f"toolproof-reports-shard-{k}-of-2"
            check(result.outputs.get("artifact-name") == name
                  and (artifacts / "300" / name / "toolproof-reports" / "report.json").is_file(),
                  f"shard {k}/2 uploads its reports as {name}", sorted(
                      str(p.relative_to(artifacts)) for p in artifacts.rglob("*.json")))
        check(sorted(codes) == ["0", "1"],
              "the shard holding the broken row fails its gates, the other passes", codes)
        comments = json.loads((root / "comments.json").read_text()) \
            if (root / "comments.json").exists() else []
        check(not [c for c in comments if "toolproof:pr-comment" in c["body"]],
              "the shards post no comment", comments)

        runner, merged, summary, workspace = job("merge", {"command": "merge"})
        log = "\n".join(merged.logs)
        out = merged.outputs
        check(merged.steps["download"]["outcome"] == "success"
              and "merging 2 reports" in log, "the merge job downloads both shards' reports", log)
        check(merged.conclusion == "failure" and out.get("exit-code") == "1"
              and out.get("passed") == "false",
              "the merged verdict is the unsharded run's: it fails, 10 of 11 against 95%", out)
        check(out.get("accuracy") == "0.9091", "output accuracy is 10 of 11", out)
        check(summary.count("toolproof failed") == 1 and "(10/11)" in summary,
              "the merge writes the one job summary", summary[:800])
        history = workspace / "toolproof-history.jsonl"
        lines = history.read_text().splitlines() if history.exists() else []
        check(len(lines) == 1 and json.loads(lines[0]).get("cases") == 11,
              "the merge writes one history line, for all 11 cases", lines)
        caches = [p.name for p in (root / "merge" / "caches").iterdir()]
        check(len(caches) == 1, "the merge job saves the history cache", caches)
        comments = json.loads((root / "comments.json").read_text()) \
            if (root / "comments.json").exists() else []
        ours = [c for c in comments if "toolproof:pr-comment" in c["body"]]
        check(len(ours) == 1 and "list notes" in ours[0]["body"],
              "the merge posts the one comment, naming the missed row", comments)
        report = artifacts / "300" / "toolproof-reports" / "toolproof-reports" / "report.json"
        cases = json.loads(report.read_text())["phases"]["evals"]["results"]["models"][0]["cases"] \
            if report.exists() else []
        check(len(cases) == 11, "the merged reports are uploaded as toolproof-reports", report)
        requests = [json.loads(l) for l in (root / "requests.jsonl").read_text().splitlines()]
        check([r["method"] for r in requests if r["method"] in ("POST", "PATCH")] == ["POST"],
              "one comment request in the whole workflow", requests)

        # The reports named by a glob instead of downloaded; then a glob that matches nothing.
        ctx["run_id"] = "301"
        glob = f"{artifacts}/300/toolproof-reports-shard-*/toolproof-reports/report.json"
        _, named, _, _ = job("named", {"command": "merge", "reports": glob, "pr-comment": "off"})
        log = "\n".join(named.logs)
        check(named.steps["download"]["outcome"] == "skipped" and "merging 2 reports" in log
              and named.outputs.get("exit-code") == "1",
              "the reports input names the reports by a glob, and nothing is downloaded", log)
        ctx["run_id"] = "302"
        _, missing, _, _ = job("missing", {"command": "merge", "reports": "nowhere/*.json",
                                           "pr-comment": "off"})
        log = "\n".join(missing.logs)
        check(missing.conclusion == "failure" and missing.outputs.get("exit-code") == "2"
              and "nowhere/*.json" in log,
              "a reports glob that matches nothing fails the step, naming it", log)
    finally:
        proc.kill()


def main():
    target = Path(sys.argv[1]).resolve()
    bins = target / "debug"
    dist = Path(tempfile.mkdtemp(prefix="toolproof-dist-"))
    archive(bins, dist / archive_name())
    action = tagged_action(dist)
    served = Path(tempfile.mkdtemp(prefix="toolproof-release-"))
    (served / f"v{VERSION}").mkdir()
    shutil.copy(dist / archive_name(), served / f"v{VERSION}" / archive_name())
    url = serve(served)
    demo_passes(bins, action, url)

    bad = Path(tempfile.mkdtemp(prefix="toolproof-release-bad-"))
    (bad / f"v{VERSION}").mkdir()
    archive(bins, bad / f"v{VERSION}" / archive_name(), tamper=True)
    tampered_is_refused(bins, action, serve(bad))

    no_release_for_the_runner_is_an_error(bins, action, url)
    version_source_builds_the_checkout(bins, action, url)
    pr_comment_is_one_comment_that_shows_what_changed(bins, action, url)
    a_matrix_and_its_merge_job(bins, action, url)
    release_dry_run(bins, dist)

    if FAILURES:
        print(f"0 passed, {len(FAILURES)} failed")
        sys.exit(1)
    print("action end to end: all checks passed")


if __name__ == "__main__":
    # Every scratch folder of the run (each job's workspace holds a copy of the demo's binaries:
    # about a gigabyte in all) lives under one folder, removed when the run ends, pass or fail.
    tempfile.tempdir = tempfile.mkdtemp(prefix="toolproof-e2e-run-")
    try:
        main()
    finally:
        shutil.rmtree(tempfile.tempdir, ignore_errors=True)
