#!/usr/bin/env node
// Consumer check: pack every published package, install the tarballs with plain npm into a throw-away
// project outside the workspace, and run each package's test/consumer/check.{mjs,cjs} there — under the
// system Node.js (20) and under Node.js 22 and 24 (the npm packages node@22 / node@24, installed once into
// node_modules/.cache beside the system Node, never replacing it) — then type-check an import of every
// entry point with TypeScript's `node16` and `bundler` module resolution. This is what proves the packages
// are importable into other agent projects. `--node 20` runs the system Node.js only.
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
import { nodeBinary } from "./lib/node-binary.mjs";

const root = new URL("..", import.meta.url).pathname;
const keep = process.argv.includes("--keep");
const onlySystemNode =
  process.argv.includes("--node") && process.argv.at(process.argv.indexOf("--node") + 1) === "20";
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
        // What a TypeScript user has beside our packages (for the type check below): Node's types, and
        // the JSON Schema types the AI SDK's declarations import without depending on them.
        dependencies: { "@types/node": "^20.19.0", "@types/json-schema": "^7.0.15", ...extra, ...tarballs },
        overrides: tarballs,
      },
      null,
      2,
    ),
  );
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--ignore-scripts=false"], work);
  const nodes = [{ binary: process.execPath, version: process.version }];
  if (!onlySystemNode) nodes.push(nodeBinary(22), nodeBinary(24));
  let checks = 0;
  for (const { dir, manifest } of packages) {
    for (const file of ["check.mjs", "check.cjs"]) {
      const source = join(dir, "test", "consumer", file);
      if (!existsSync(source)) continue;
      const target = join(work, `${manifest.name.split("/")[1]}-${file}`);
      copyFileSync(source, target);
      for (const node of nodes) {
        process.stdout.write(`[node ${node.version}] ${run(node.binary, [target], work)}`);
        checks++;
      }
    }
  }
  // Types as a TypeScript user sees them: every public entry point imported, under both resolutions.
  const entries = packages.flatMap(({ manifest }) =>
    Object.keys(manifest.exports ?? {})
      .filter((key) => key !== "./package.json" && !key.endsWith(".json"))
      .map((key) => (key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`)),
  );
  writeFileSync(
    join(work, "entries.mts"),
    `${entries.map((entry, i) => `import * as entry${i} from "${entry}";`).join("\n")}\nexport const all = [${entries.map((_, i) => `entry${i}`).join(", ")}];\n`,
  );
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  const resolutions = [
    { module: "node16", moduleResolution: "node16" },
    { module: "esnext", moduleResolution: "bundler" },
  ];
  for (const { module, moduleResolution } of resolutions) {
    const config = {
      compilerOptions: {
        module,
        moduleResolution,
        target: "es2022",
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ["node"],
      },
      // An ES module user (.mts): what `import` from these packages gives under each resolution.
      files: ["entries.mts"],
    };
    writeFileSync(join(work, `tsconfig.${moduleResolution}.json`), JSON.stringify(config, null, 2));
    run(process.execPath, [tsc, "-p", `tsconfig.${moduleResolution}.json`], work);
    console.log(
      `types: ${entries.length} entry point(s) type-check with moduleResolution ${moduleResolution}`,
    );
  }
  console.log(
    `consumer check: ${packages.length} package(s) installed from tarballs with npm, ${checks} script run(s) passed on ${nodes.map((n) => n.version).join(", ")}`,
  );
} finally {
  if (keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
