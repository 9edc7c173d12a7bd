"""Runs a composite action.yml on this machine the way the GitHub runner does.

Each step gets the runner's files and variables (GITHUB_OUTPUT per step, GITHUB_ENV, GITHUB_PATH,
GITHUB_STEP_SUMMARY, RUNNER_TEMP, RUNNER_TOOL_CACHE, RUNNER_OS, RUNNER_ARCH, GITHUB_ACTION_PATH,
the event file…); `${{ }}` expressions in `if:`, `env:`, `with:` and the outputs are evaluated
for the contexts a composite action sees (inputs, steps, github, runner); `run:` steps run with
`bash --noprofile --norc -eo pipefail`; the actions toolproof's action uses
(actions/setup-python, actions/cache/restore, actions/cache/save, actions/upload-artifact,
actions/download-artifact) are played by local stand-ins that keep caches and artifacts in
folders, and must be pinned by a full commit SHA. Artifacts belong to a workflow run (its
`run_id`) and their names are unique in it, as on GitHub; the jobs of one workflow (a matrix and
its merge job) share them by sharing the `artifacts` folder.
"""

import fnmatch
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import yaml

SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
TOKEN = re.compile(
    r"\s*(\|\||&&|==|!=|\(|\)|'(?:[^']|'')*'|[A-Za-z_][\w.-]*(?:\.[A-Za-z_][\w-]*)*|\S)"
)


class Expr:
    """A tiny evaluator for the expressions action.yml uses: `a || b`, `a && b`, `==`, `!=`,
    `'strings'`, `always()`, `success()`, `failure()` and context paths."""

    def __init__(self, text, lookup, status):
        self.tokens = [t for t in TOKEN.findall(text) if t.strip()]
        self.pos = 0
        self.lookup = lookup
        self.status = status

    def value(self):
        v = self.or_()
        if self.pos != len(self.tokens):
            raise ValueError(f"unexpected {self.tokens[self.pos]!r}")
        return v

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self):
        t = self.tokens[self.pos]
        self.pos += 1
        return t

    def or_(self):
        v = self.and_()
        while self.peek() == "||":
            self.take()
            right = self.and_()
            v = v if truthy(v) else right
        return v

    def and_(self):
        v = self.cmp()
        while self.peek() == "&&":
            self.take()
            right = self.cmp()
            v = right if truthy(v) else v
        return v

    def cmp(self):
        v = self.primary()
        while self.peek() in ("==", "!="):
            op = self.take()
            right = self.primary()
            same = str(v).lower() == str(right).lower()
            v = same if op == "==" else not same
        return v

    def primary(self):
        t = self.take()
        if t == "(":
            v = self.or_()
            self.take()
            return v
        if t.startswith("'"):
            return t[1:-1].replace("''", "'")
        if self.peek() == "(":
            self.take()
            self.take()
            return {"always": True, "success": self.status == "success",
                    "failure": self.status == "failure"}[t]
        return self.lookup(t)


def truthy(v):
    return v not in ("", None, False, 0, "false")


def substitute(text, lookup, status="success"):
    """`text` with every `${{ expr }}` replaced by its value."""
    def one(m):
        v = Expr(m.group(1), lookup, status).value()
        return "true" if v is True else "false" if v is False else str(v if v is not None else "")
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text), flags=re.S)


def read_outputs(path):
    """`name=value` and `name<<DELIM` … `DELIM` entries of a GITHUB_OUTPUT-style file."""
    out = {}
    lines = Path(path).read_text().split("\n") if Path(path).exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            i += 1
            while lines[i] != delim:
                value.append(lines[i])
                i += 1
            out[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        i += 1
    return out


class Result:
    def __init__(self):
        self.outputs = {}
        self.steps = {}
        self.conclusion = "success"
        self.logs = []
        # Each run step's GITHUB_OUTPUT names in the order written, repeats kept.
        self.output_names = {}


class Runner:
    """One job's runner: the folders and variables that outlive a step."""

    def __init__(self, root, github, env=None, artifacts=None):
        self.root = Path(root)
        self.github = github
        self.env = dict(env or {})
        for name in ("temp", "tool-cache", "caches", "artifacts", "workspace"):
            (self.root / name).mkdir(parents=True, exist_ok=True)
        # This workflow run's artifacts, by name.
        self.artifacts = Path(artifacts or self.root / "artifacts") / str(github.get("run_id", "1"))
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.summary = self.root / "step-summary.md"

    def run(self, action_dir, inputs):
        action_dir = Path(action_dir)
        spec = yaml.safe_load((action_dir / "action.yml").read_text())
        assert spec["runs"]["using"] == "composite", "toolproof's action is composite"
        result = Result()
        given = {k: v for k, v in inputs.items()}
        defaults = {k: (v or {}).get("default", "") for k, v in spec.get("inputs", {}).items()}
        path_extra = []
        env_extra = {}

        def lookup(path):
            parts = path.split(".")
            if parts[0] == "inputs":
                name = parts[1]
                if name in given:
                    return given[name]
                return substitute(defaults.get(name, ""), lookup)
            if parts[0] == "steps":
                step = result.steps.get(parts[1], {})
                return step.get(parts[2], {}).get(parts[3], "") if len(parts) > 3 else step.get(parts[2], "")
            if parts[0] == "github":
                v = {**self.github, "action_path": str(action_dir)}
                for p in parts[1:]:
                    v = v.get(p, "") if isinstance(v, dict) else ""
                return v
            if parts[0] == "runner":
                return {"os": "Linux", "arch": "X64", "temp": str(self.root / "temp")}.get(parts[1], "")
            if parts[0] in ("true", "false"):
                return parts[0] == "true"
            raise ValueError(f"unknown context {path}")

        for step in spec["runs"]["steps"]:
            sid = step.get("id", f"step{len(result.steps)}")
            cond = step.get("if", "success()")
            cond = cond[3:-2] if cond.strip().startswith("${{") else cond
            run_it = truthy(Expr(cond, lookup, result.conclusion).value())
            if cond and "always()" not in cond and "failure()" not in cond and result.conclusion != "success":
                run_it = False
            if not run_it:
                result.steps[sid] = {"outputs": {}, "outcome": "skipped"}
                continue
            env = {k: substitute(v, lookup, result.conclusion) for k, v in (step.get("env") or {}).items()}
            if "uses" in step:
                with_ = {k: substitute(v, lookup, result.conclusion) for k, v in (step.get("with") or {}).items()}
                ok, outputs = self.uses(step["uses"], with_)
            else:
                ok, outputs = self.shell(step["run"], env, action_dir, path_extra, env_extra, result,
                                         sid)
            result.steps[sid] = {"outputs": outputs, "outcome": "success" if ok else "failure"}
            if not ok:
                result.conclusion = "failure"
        result.outputs = {
            k: substitute(v.get("value", ""), lookup, result.conclusion)
            for k, v in spec.get("outputs", {}).items()
        }
        return result

    def base_env(self, action_dir):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "INPUT_"))}
        env.update({
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION_PATH": str(action_dir),
            "GITHUB_WORKSPACE": str(self.root / "workspace"),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "RUNNER_TEMP": str(self.root / "temp"),
            "RUNNER_TOOL_CACHE": str(self.root / "tool-cache"),
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
        })
        for key, name in (("repository", "GITHUB_REPOSITORY"), ("event_path", "GITHUB_EVENT_PATH"),
                          ("event_name", "GITHUB_EVENT_NAME"), ("api_url", "GITHUB_API_URL"),
                          ("server_url", "GITHUB_SERVER_URL"), ("ref_name", "GITHUB_REF_NAME"),
                          ("head_ref", "GITHUB_HEAD_REF"), ("base_ref", "GITHUB_BASE_REF"),
                          ("sha", "GITHUB_SHA"), ("run_id", "GITHUB_RUN_ID"),
                          ("run_attempt", "GITHUB_RUN_ATTEMPT")):
            if self.github.get(key):
                env[name] = str(self.github[key])
        env.update(self.env)
        return env

    def shell(self, script, step_env, action_dir, path_extra, env_extra, result, sid):
        files = {name: Path(tempfile.mkstemp(dir=self.root / "temp", prefix=name)[1])
                 for name in ("output", "path", "env")}
        env = self.base_env(action_dir)
        env.update(env_extra)
        env.update(step_env)
        env["PATH"] = os.pathsep.join(path_extra + [env.get("PATH", "")])
        env["GITHUB_OUTPUT"] = str(files["output"])
        env["GITHUB_PATH"] = str(files["path"])
        env["GITHUB_ENV"] = str(files["env"])
        script_file = files["output"].with_suffix(".sh")
        script_file.write_text(script)
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script_file)],
            cwd=self.root / "workspace", env=env, capture_output=True, text=True,
        )
        result.logs.append(proc.stdout + proc.stderr)
        path_extra[:0] = [p for p in files["path"].read_text().splitlines() if p]
        env_extra.update(read_outputs(files["env"]))
        result.output_names[sid] = [
            re.split(r"<<|=", line, maxsplit=1)[0]
            for line in files["output"].read_text().splitlines()
            if re.match(r"^[\w-]+(=|<<)", line)
        ]
        return proc.returncode == 0, read_outputs(files["output"])

    def uses(self, ref, with_):
        assert SHA_PIN.match(ref), f"{ref} is not pinned by a full commit SHA"
        name = ref.split("@")[0]
        workspace = self.root / "workspace"
        caches = self.root / "caches"
        if name == "actions/cache/restore":
            keys = [with_["key"]] + [k for k in with_.get("restore-keys", "").splitlines() if k]
            saved = sorted(caches.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
            for i, key in enumerate(keys):
                match = [p for p in saved if (p.name == key if i == 0 else p.name.startswith(key))]
                if match:
                    for item in match[0].iterdir():
                        shutil.copy(item, workspace / with_["path"])
                    return True, {"cache-hit": str(i == 0).lower(), "cache-matched-key": match[0].name}
            return True, {"cache-hit": "false"}
        if name == "actions/cache/save":
            source = workspace / with_["path"]
            if not source.exists():
                return False, {}
            target = caches / with_["key"]
            if target.exists():
                return False, {}
            target.mkdir()
            shutil.copy(source, target / source.name)
            return True, {}
        if name == "actions/setup-python":
            # The runner's own Python stands in; only the request is recorded.
            return True, {"python-version": with_["python-version"]}
        if name == "actions/upload-artifact":
            # As upload-artifact lays an artifact out: the paths' least common ancestor is its
            # root (a single folder's contents are at the root; a single file sits there).
            target = self.artifacts / with_["name"]
            if target.exists():
                # upload-artifact v4 and later: a name is taken once per workflow run.
                print(f"an artifact named {with_['name']} already exists in this run")
                return False, {}
            target.mkdir(parents=True)
            paths = [workspace / line.strip() for line in with_["path"].splitlines() if line.strip()]
            paths = [p.resolve() for p in paths if p.exists()]
            if not paths:
                return True, {}
            if len(paths) == 1:
                root = paths[0] if paths[0].is_dir() else paths[0].parent
            else:
                root = Path(os.path.commonpath(paths))
            for p in paths:
                files = [f for f in p.rglob("*") if f.is_file()] if p.is_dir() else [p]
                for f in files:
                    dest = target / f.relative_to(root)
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(f, dest)
            return True, {"artifact-id": "1"}
        if name == "actions/download-artifact":
            # By `name`, or every artifact of the run matching `pattern`; each into its own
            # folder under `path` (named after it) unless `merge-multiple` is true.
            dest = Path(with_.get("path") or workspace)
            dest = dest if dest.is_absolute() else workspace / dest
            pattern = with_.get("pattern") or "*"
            chosen = [a for a in sorted(self.artifacts.iterdir())
                      if (a.name == with_["name"] if with_.get("name") else fnmatch.fnmatchcase(a.name, pattern))]
            if with_.get("name") and not chosen:
                return False, {}
            single = with_.get("name") or with_.get("merge-multiple", "false") == "true"
            for a in chosen:
                shutil.copytree(a, dest if single else dest / a.name, dirs_exist_ok=True)
            dest.mkdir(parents=True, exist_ok=True)
            return True, {"download-path": str(dest)}
        raise AssertionError(f"no stand-in for {ref}")
