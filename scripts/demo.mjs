#!/usr/bin/env node
// `pnpm demo`: build what the demo app needs (cached by turbo), then let the Documentation agent document
// the sample project shipped in apps/demo/sample-project. Extra arguments go to `agentforge docs`.
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: "inherit" }).status ?? 1;

const built = run("pnpm", [
  "exec",
  "turbo",
  "run",
  "build",
  "--filter=@agentforge/demo...",
  "--output-logs=errors-only",
]);
if (built !== 0) process.exit(built);
process.exit(
  run(process.execPath, [
    "apps/demo/dist/cli.js",
    "docs",
    "apps/demo/sample-project",
    ...process.argv.slice(2),
  ]),
);
