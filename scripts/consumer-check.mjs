#!/usr/bin/env node
// Consumer check: pack every published package, install the tarballs with plain npm into a throw-away
// project outside the workspace, and run each package's test/consumer/check.{mjs,cjs} there.
// This is what proves the packages are importable into other agent projects.
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const keep = process.argv.includes("--keep");
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });

const packages = readdirSync(join(root, "packages"))
  .map((dir) => join(root, "packages", dir))
  .filter((dir) => existsSync(join(dir, "package.json")))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => !manifest.private);

const work = mkdtempSync(join(tmpdir(), "agentforge-consumer-"));
try {
  const tarballs = {};
  for (const { dir, manifest } of packages) {
    const out = run("pnpm", ["pack", "--pack-destination", work], dir).trim().split("\n").at(-1);
    const file = out.endsWith(".tgz")
      ? out
      : readdirSync(work).find((f) => f.endsWith(".tgz") && f.includes(manifest.name.split("/")[1]));
    tarballs[manifest.name] = `file:${file.startsWith("/") ? file : join(work, file)}`;
  }
  // What a user adds beside our packages (optional peers such as @opentelemetry/api): test/consumer/deps.json.
  const extra = {};
  for (const { dir } of packages) {
    const file = join(dir, "test", "consumer", "deps.json");
    if (existsSync(file)) Object.assign(extra, JSON.parse(readFileSync(file, "utf8")));
  }
  // Overrides make every internal dependency resolve to its tarball, as if it came from the registry.
  writeFileSync(
    join(work, "package.json"),
    JSON.stringify(
      {
        name: "consumer",
        private: true,
        type: "commonjs",
        dependencies: { ...extra, ...tarballs },
        overrides: tarballs,
      },
      null,
      2,
    ),
  );
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--ignore-scripts=false"], work);
  let checks = 0;
  for (const { dir, manifest } of packages) {
    for (const file of ["check.mjs", "check.cjs"]) {
      const source = join(dir, "test", "consumer", file);
      if (!existsSync(source)) continue;
      const target = join(work, `${manifest.name.split("/")[1]}-${file}`);
      copyFileSync(source, target);
      process.stdout.write(run(process.execPath, [target], work));
      checks++;
    }
  }
  console.log(
    `consumer check: ${packages.length} package(s) installed from tarballs with npm, ${checks} script(s) passed`,
  );
} finally {
  if (keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
