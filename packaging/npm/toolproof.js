#!/usr/bin/env node
// The `toolproof` command of the npm package. toolproof is a native binary: npm installs the
// one for this machine as an optional dependency, a package per platform whose `os`, `cpu` and
// `libc` fields make npm skip the others. This script finds that package, runs its binary with
// the same arguments and standard streams, passes signals on, and exits as the binary did.
// TOOLPROOF_BINARY, when set, names the binary to run instead.
'use strict';

const { spawn } = require('child_process');
const os = require('os');
const path = require('path');
const pkg = require('../package.json');

function fail(message, hints) {
  process.stderr.write(`error: ${message}\n`);
  for (const hint of hints) process.stderr.write(`hint: ${hint}\n`);
  process.exit(1);
}

// Node reports the glibc version it runs on, and none on musl (Alpine).
function isMusl() {
  if (process.platform !== 'linux') return false;
  try {
    return !process.report.getReport().header.glibcVersionRuntime;
  } catch {
    return false;
  }
}

// The platform packages that can run here, best first. The static musl build also runs on
// glibc: it serves there when npm installed only it (npm releases that ignore `libc` install
// both, and so does a lockfile, which does not record `libc`).
function candidates() {
  const key = `${process.platform}-${process.arch}`;
  if (process.platform !== 'linux') return [key];
  return isMusl() ? [`${key}-musl`] : [key, `${key}-musl`];
}

function findBinary() {
  const fromEnv = process.env.TOOLPROOF_BINARY;
  if (fromEnv) return fromEnv;
  const keys = candidates();
  const names = keys.map((key) => `${pkg.name}-${key}`);
  const supported = names.filter((name) => name in (pkg.optionalDependencies || {}));
  for (const name of supported) {
    try {
      return path.join(path.dirname(require.resolve(`${name}/package.json`)), 'toolproof');
    } catch {
      // Not installed: try the next one.
    }
  }
  const platform = keys[0];
  const elsewhere = `install it another way (release archives, the GitHub Action, cargo): ${pkg.homepage}`;
  if (supported.length === 0) {
    fail(`${pkg.name} has no toolproof binary for this platform (${platform})`, [
      elsewhere,
      'or set TOOLPROOF_BINARY to the path of a toolproof binary',
    ]);
  }
  fail(
    `toolproof's binary for ${platform} is not installed: the package ${supported[0]} is missing`,
    [
      `npm installs it as an optional dependency of ${pkg.name}: install without --omit=optional or --no-optional (npm install --include=optional)`,
      `or set TOOLPROOF_BINARY to the path of a toolproof binary, or ${elsewhere}`,
    ],
  );
}

const binary = findBinary();

// A signal sent to this process (a cancelled CI job, `kill`) goes on to toolproof, which stops
// cleanly and writes its reports. Ctrl-C in a terminal reaches toolproof directly, since it is
// in the terminal's foreground process group: passing SIGINT on too would count as a second
// Ctrl-C, which makes toolproof exit at once. So SIGINT is passed on only away from a terminal.
// The handlers are in place before the binary starts (they run once this script's first pass
// is over, when `child` is set), so no signal meant for it is lost.
const onTerminal = process.stdin.isTTY || process.stdout.isTTY || process.stderr.isTTY;
const forwarded = onTerminal ? ['SIGTERM', 'SIGHUP'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
let child;
const handlers = {};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  handlers[signal] = () => {
    if (forwarded.includes(signal)) child.kill(signal);
  };
  process.on(signal, handlers[signal]);
}
child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });

child.on('error', (err) => {
  fail(`could not run ${binary}: ${err.message}`, [
    process.env.TOOLPROOF_BINARY
      ? 'TOOLPROOF_BINARY must name an executable toolproof binary'
      : `reinstall ${pkg.name}, or set TOOLPROOF_BINARY to the path of a toolproof binary`,
  ]);
});

child.on('exit', (code, signal) => {
  if (signal) {
    // End the same way, so that whoever started us sees the signal.
    for (const [name, handler] of Object.entries(handlers)) process.removeListener(name, handler);
    process.kill(process.pid, signal);
    // Signals Node ignores (SIGPIPE) come back here: exit with the code a shell would show.
    process.exit(128 + (os.constants.signals[signal] || 0));
  }
  process.exit(code);
});
