// postinstall of @continuity-md/continuity, as esbuild does: where npm
// installed the binary for this OS and CPU (the optional dependency
// @continuity-md/continuity-<os>-<cpu>), copy it over the launcher
// bin/continuity, so that a hook starts the binary itself rather than
// Node first (Node's start costs more than most of continuity's commands).
// It downloads nothing. On Windows (npm runs bins through .cmd and .ps1
// shims that call node), with --ignore-scripts, or when anything here
// fails, the launcher stays, and it runs the same binary.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

if (process.platform !== "win32") {
  try {
    const bin = require.resolve(`@continuity-md/continuity-${process.platform}-${process.arch}/bin/continuity`);
    const launcher = path.join(__dirname, "bin", "continuity");
    const tmp = `${launcher}.${process.pid}.tmp`;
    fs.copyFileSync(bin, tmp);
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, launcher);
  } catch {
    // The launcher stays.
  }
}
