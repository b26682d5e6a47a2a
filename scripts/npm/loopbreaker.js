#!/usr/bin/env node
// The `loopbreaker` command of the npm package: it runs the loopbreaker
// binary of the platform package npm installed beside it (one of the
// optionalDependencies, picked by their os and cpu fields), with the same
// arguments, standard streams and exit status. Nothing is downloaded.
"use strict";

const { spawn } = require("child_process");
const path = require("path");

const platform = `${process.platform}-${process.arch}`;
const pkg = `@loopbreaker/${platform}`;
const exe = process.platform === "win32" ? "loopbreaker.exe" : "loopbreaker";

let binary;
try {
  binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
} catch (err) {
  process.stderr.write(
    `loopbreaker: the package ${pkg}, which holds the binary for ${platform}, is not installed.\n` +
      `  It is an optional dependency of loopbreaker: install again without --omit=optional / --no-optional\n` +
      `  (npm install -g loopbreaker), or use another way to install (see docs/install.md:\n` +
      `  the archives, brew, install.sh, go install). Supported: linux, darwin, win32 on x64 and arm64.\n`
  );
  process.exit(1);
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
// A signal sent to this launcher alone (not to the process group) is passed
// on, so that loopbreaker ends the way it would when run directly.
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => {
  process.stderr.write(`loopbreaker: cannot run ${binary}: ${err.message}; reinstall with npm install -g loopbreaker\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
