// Installs the official MCP conformance suite and Node.js 22 (the suite needs fs.globSync) with plain
// `npm install` into a git-ignored folder of their own, one per suite version
// (.cache/suite-<version>/), outside the pnpm workspace's lockfile. Shared by the conformance runners.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The suite at `version` and node@`nodeVersion`, installed on first use. Returns the Node.js 22 binary
 * and the suite's CLI entry; exits the process with code 2 when the install fails.
 * @param {{ version: string, nodeVersion?: string }} options
 * @returns {{ node: string, suite: string, folder: string }}
 */
export function installSuite({ version, nodeVersion = "22" }) {
  const folder = join(here, ".cache", `suite-${version}`);
  const node = join(folder, "node_modules", "node", "bin", "node");
  const suite = join(folder, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
  if (existsSync(node) && existsSync(suite)) return { node, suite, folder };
  console.error(
    `installing @modelcontextprotocol/conformance@${version} and node@${nodeVersion} into ${folder}`,
  );
  mkdirSync(folder, { recursive: true });
  const npm = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      folder,
      "--no-save",
      "--no-audit",
      "--no-fund",
      `@modelcontextprotocol/conformance@${version}`,
      `node@${nodeVersion}`,
    ],
    { stdio: "inherit" },
  );
  if (npm.status !== 0 || !existsSync(node) || !existsSync(suite)) {
    console.error("conformance: the npm install failed (see above)");
    process.exit(2);
  }
  return { node, suite, folder };
}
