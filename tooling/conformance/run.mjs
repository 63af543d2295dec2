#!/usr/bin/env node
// Runs the official MCP conformance suite's client scenarios against @agentforge/mcp-client.
//   node tooling/conformance/run.mjs [scenario ...]
// Needs packages/mcp-client built (its dist). On first use it installs the suite and Node.js 22 (the
// suite needs fs.globSync) into tooling/conformance/.cache with plain `npm install` (git-ignored,
// outside the pnpm workspace's lockfile). Prints one line per scenario, writes results/summary.json,
// and exits 1 when a scenario in EXPECTED_PASS fails (others are reported only).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const cache = join(here, ".cache");
const SUITE_VERSION = "0.1.16";
const NODE_VERSION = "22";
const node22 = join(cache, "node_modules", "node", "bin", "node");
const suite = join(cache, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const clientDist = join(here, "..", "..", "packages", "mcp-client", "dist", "index.js");

/** Client scenarios that must pass (issue 12): every non-draft auth scenario but cross-app access, plus these. */
const EXPECTED_PASS = [
  "initialize",
  "tools_call",
  "sse-retry",
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/client-credentials-jwt",
  "auth/client-credentials-basic",
  "elicitation-sep1034-client-defaults",
];
/** Run and reported, not required: drafts and the cross-app (IdP token exchange) extension. */
const REPORTED_ONLY = [
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/cross-app-access-complete-flow",
];

function install() {
  if (existsSync(node22) && existsSync(suite)) return;
  console.error(
    `installing @modelcontextprotocol/conformance@${SUITE_VERSION} and node@${NODE_VERSION} into ${cache}`,
  );
  mkdirSync(cache, { recursive: true });
  const npm = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      cache,
      "--no-save",
      "--no-audit",
      "--no-fund",
      `@modelcontextprotocol/conformance@${SUITE_VERSION}`,
      `node@${NODE_VERSION}`,
    ],
    { stdio: "inherit" },
  );
  if (npm.status !== 0 || !existsSync(node22) || !existsSync(suite)) {
    console.error("conformance: the npm install failed (see above)");
    process.exit(2);
  }
}

function run(scenario) {
  const result = spawnSync(
    node22,
    [
      suite,
      "client",
      "--command",
      `node ${join(here, "client.mjs")}`,
      "--scenario",
      scenario,
      "--timeout",
      "60000",
    ],
    { cwd: here, encoding: "utf8", timeout: 180_000 },
  );
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
  return {
    scenario,
    passed: result.status === 0,
    checks: summary
      ? `${summary[1]}/${summary[2]} passed, ${summary[3]} failed, ${summary[4]} warnings`
      : "no summary",
    output,
  };
}

if (!existsSync(clientDist)) {
  console.error(
    "conformance: build @agentforge/mcp-client first (pnpm --filter @agentforge/mcp-client build)",
  );
  process.exit(2);
}
install();
const chosen = process.argv.slice(2);
const scenarios = chosen.length ? chosen : [...EXPECTED_PASS, ...REPORTED_ONLY];
const results = [];
for (const scenario of scenarios) {
  const result = run(scenario);
  const expected = EXPECTED_PASS.includes(scenario);
  results.push({ ...result, expected });
  const mark = result.passed ? "PASS" : expected ? "FAIL" : "fail (not required)";
  console.log(`${mark.padEnd(20)} ${scenario.padEnd(44)} ${result.checks}`);
}
const resultsDir = join(here, "results");
mkdirSync(resultsDir, { recursive: true });
writeFileSync(
  join(resultsDir, "summary.json"),
  JSON.stringify(
    results.map(({ output: _output, ...rest }) => rest),
    null,
    2,
  ),
);
for (const result of results)
  writeFileSync(join(resultsDir, `${result.scenario.replaceAll("/", "_")}.log`), result.output);
const failed = results.filter((result) => result.expected && !result.passed);
if (failed.length) {
  console.error(
    `conformance: ${failed.length} required scenario(s) failed: ${failed.map((r) => r.scenario).join(", ")} (logs in ${resultsDir})`,
  );
  process.exit(1);
}
console.log(`conformance: all ${results.filter((r) => r.expected).length} required client scenarios passed`);
