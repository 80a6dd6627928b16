#!/usr/bin/env node
// The `continuity` command of the npm package: runs the binary for this
// OS and CPU, which npm installed beside this package as one of its
// optionalDependencies (@continuity-md/continuity-<os>-<cpu>, each holding
// one binary, chosen by its "os" and "cpu" fields). Nothing is downloaded
// at install time. Arguments, stdin, stdout, stderr and the exit code pass
// through unchanged, so hooks can run it as they run the binary.
"use strict";

const { spawnSync } = require("node:child_process");

const supported = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-arm64", "win32-x64"];
const platform = `${process.platform}-${process.arch}`;
const pkg = `@continuity-md/continuity-${platform}`;

function fail(message) {
  process.stderr.write(`continuity: ${message}\n`);
  process.exit(1);
}

if (!supported.includes(platform)) {
  fail(`no binary for ${platform} in the npm package; build it with \`go install github.com/continuity-md/continuity/cmd/continuity@latest\``);
}

let bin;
try {
  bin = require.resolve(`${pkg}/bin/continuity${process.platform === "win32" ? ".exe" : ""}`);
} catch {
  fail(`${pkg} is not installed (was npm run with --omit=optional?); reinstall @continuity-md/continuity with its optional dependencies`);
}

const run = spawnSync(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
if (run.error) {
  fail(`run ${bin}: ${run.error.message}`);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status ?? 1);
