#!/usr/bin/env node
// `pnpm demo`: runs the demo app's documentation job on the sample project, once the app exists.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const root = new URL("..", import.meta.url).pathname;
const app = `${root}apps/demo/package.json`;
if (!existsSync(app)) {
  console.error(
    "The demo app (apps/demo, the `agentforge` CLI) is not built yet: it lands with the tool-loop + demo issue.\n" +
      "Nothing was run. Today you can run the tests: pnpm test",
  );
  process.exit(1);
}
const result = spawnSync("pnpm", ["--filter", "@agentforge/demo", "demo"], { cwd: root, stdio: "inherit" });
process.exit(result.status ?? 1);
