// A Node.js major beside the system one, for the checks that must run under the versions users run: the
// npm package `node@<major>`, installed once into node_modules/.cache/agentforge-node/<major> (never
// replacing the system Node.js).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;

/** `{ binary, version }` of Node.js `major`, installing it on first use. */
export function nodeBinary(major) {
  const prefix = join(root, "node_modules", ".cache", "agentforge-node", String(major));
  const binary = join(prefix, "node_modules", ".bin", "node");
  const run = (cmd, args) =>
    execFileSync(cmd, args, { cwd: prefix, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  if (!existsSync(binary)) {
    mkdirSync(prefix, { recursive: true });
    writeFileSync(join(prefix, "package.json"), '{ "private": true }\n');
    run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", `node@${major}`]);
  }
  const version = run(binary, ["--version"]).trim();
  if (!version.startsWith(`v${major}.`))
    throw new Error(`${binary} is ${version}, expected Node.js ${major}`);
  return { binary, version };
}
