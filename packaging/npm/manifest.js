// Prints the package.json of one of toolproof's npm packages (scripts/build-npm.sh runs it):
//   node manifest.js main NAME VERSION DESCRIPTION LICENSE REPOSITORY KEY...
//   node manifest.js platform NAME VERSION DESCRIPTION LICENSE REPOSITORY KEY
// NAME is the main package's name; a platform package is NAME-KEY, where KEY is
// <os>-<cpu>[-musl] in Node's words (process.platform, process.arch). The main package lists
// the platform packages it was built with as exact-version optional dependencies; npm installs
// the one whose os, cpu and libc fit the machine and skips the others.
'use strict';

const [kind, name, version, description, license, repository, ...keys] = process.argv.slice(2);
const common = {
  version,
  license,
  homepage: repository,
  repository: { type: 'git', url: `git+${repository}.git` },
};

let manifest;
if (kind === 'main' && keys.length > 0) {
  manifest = {
    name,
    ...common,
    description,
    keywords: ['mcp', 'model-context-protocol', 'testing', 'ci', 'cli'],
    bin: { toolproof: 'bin/toolproof.js' },
    files: ['bin/toolproof.js'],
    engines: { node: '>=18' },
    optionalDependencies: Object.fromEntries(keys.map((key) => [`${name}-${key}`, version])),
  };
} else if (kind === 'platform' && keys.length === 1) {
  const [os, cpu, libc] = keys[0].split('-');
  manifest = {
    name: `${name}-${keys[0]}`,
    ...common,
    description: `The toolproof binary for ${keys[0]}: install ${name}, which runs it`,
    os: [os],
    cpu: [cpu],
    // npm reads libc only on Linux; naming glibc too keeps npm from installing the glibc build
    // on musl. Yarn PnP must unpack the package for its binary to run.
    ...(os === 'linux' ? { libc: [libc === 'musl' ? 'musl' : 'glibc'] } : {}),
    files: ['toolproof'],
    preferUnplugged: true,
  };
} else {
  process.stderr.write('usage: node manifest.js main|platform NAME VERSION DESCRIPTION LICENSE REPOSITORY KEY...\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
