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

const supported = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"];

let binary;
try {
  binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
} catch (err) {
  const version = require("../package.json").version;
  process.stderr.write(
    supported.includes(platform)
      ? `loopbreaker: the package ${pkg}, which holds the binary for ${platform}, is not installed.\n` +
          `  npm installs it with loopbreaker, as an optional dependency, from the same registry; it is\n` +
          `  missing when loopbreaker came from a tarball alone, or when optional dependencies were left out.\n` +
          `  Install both: npm install -g loopbreaker\n` +
          `  or, from a release's tarballs (dist/npm), both in one command:\n` +
          `    npm install -g ./loopbreaker-${version}.tgz ./loopbreaker-${platform}-${version}.tgz\n` +
          `  Other ways to install: docs/install.md.\n`
      : `loopbreaker: there is no loopbreaker binary for ${platform}: the releases have ${supported.join(", ")}.\n` +
          `  Build it from source with Go (docs/install.md).\n`
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
