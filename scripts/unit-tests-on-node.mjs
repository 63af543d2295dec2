#!/usr/bin/env node
// Every published package's unit tests under Node.js 22 and 24 (the versions users run; CI's system
// Node.js is 20, which `pnpm test` covers). Each package's own `vitest run`, started with the other
// Node.js binary, so the tests and every process they spawn with `process.execPath` run on it.
// Usage: node scripts/unit-tests-on-node.mjs [22 24]
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { nodeBinary } from "./lib/node-binary.mjs";

const root = new URL("..", import.meta.url).pathname;
const majors = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["22", "24"];
for (const major of majors) {
  if (!/^\d+$/.test(major)) {
    console.error(`unit-tests-on-node: expected Node.js majors such as 22 24, got "${major}"`);
    process.exit(2);
  }
}

const packages = readdirSync(join(root, "packages"))
  .map((dir) => join(root, "packages", dir))
  .filter((dir) => existsSync(join(dir, "package.json")))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => !manifest.private && manifest.scripts?.test);

const failed = [];
for (const major of majors) {
  const node = nodeBinary(major);
  for (const { dir, manifest } of packages) {
    const vitest = join(dir, "node_modules", "vitest", "vitest.mjs");
    if (!existsSync(vitest)) {
      failed.push(`${manifest.name} on ${node.version}: vitest is not installed in ${dir}`);
      continue;
    }
    process.stdout.write(`\n== ${manifest.name} unit tests on Node.js ${node.version}\n`);
    const result = spawnSync(node.binary, [vitest, "run"], {
      cwd: dir,
      stdio: "inherit",
      // Tools the tests start by name (npx, node) resolve to the same Node.js first.
      env: { ...process.env, PATH: `${dirname(node.binary)}:${process.env.PATH ?? ""}` },
    });
    if (result.status !== 0) failed.push(`${manifest.name} on ${node.version} (exit ${result.status})`);
  }
}
if (failed.length > 0) {
  console.error(`\nunit tests failed: ${failed.join("; ")}`);
  process.exit(1);
}
console.log(`\nunit tests of ${packages.length} package(s) passed on Node.js ${majors.join(" and ")}`);
