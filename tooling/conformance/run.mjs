#!/usr/bin/env node
// Runs the official MCP conformance suite's client scenarios against @agentforge/mcp-client (its built
// dist, through client.mjs), at the frozen requirement sets of both protocol revisions.
//   node tooling/conformance/run.mjs                              # both revisions, every scenario
//   node tooling/conformance/run.mjs --requirements 2026-07-28    # one revision
//   node tooling/conformance/run.mjs --requirements 2026-07-28 auth/iss-supported tools_call
// Needs packages/mcp-client built. The suite (0.2.0-alpha.12) and Node.js 22 are installed on first use
// by install-suite.mjs. What a revision requires is read from the suite itself (`list --requirements`):
// its "Client scenarios" are scored (exit 1 when one fails); its client extensions are run and
// reported only. Each scenario runs at that revision's wire version; one table per revision is printed
// and results/client/summary.json written (the suite's own results beside it).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installSuite } from "./install-suite.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const SUITE_VERSION = "0.2.0-alpha.12";
const REVISIONS = ["2025-11-25", "2026-07-28"];
const clientDist = join(here, "..", "..", "packages", "mcp-client", "dist", "index.js");
const resultsRoot = join(here, "results", "client");

/** The client scenarios a revision scores, and its client extensions (reported, never scored). */
function requirements(node, suite, revision) {
  const listed = spawnSync(node, [suite, "list", "--requirements", revision], { encoding: "utf8" });
  if (listed.status !== 0) {
    console.error(`conformance: could not list the ${revision} requirements\n${listed.stderr}`);
    process.exit(2);
  }
  const scored = [];
  const reported = [];
  let section = "";
  for (const line of listed.stdout.split("\n")) {
    if (/^Client scenarios/.test(line)) section = "client";
    else if (/^\S/.test(line)) section = "other";
    else if (/^ {2}\S.*\(\d+\):$/.test(line)) section = /^ {2}extension/.test(line) ? "extension" : "other";
    const item = /^\s+- (\S+)(?: \[(\w+)\])?$/.exec(line);
    if (!item) continue;
    if (section === "client") scored.push(item[1]);
    else if (section === "extension" && item[2] === "client") reported.push(item[1]);
  }
  return { scored, reported };
}

/** Run one scenario at `revision`; pass = the suite exited 0 (no check FAILURE). */
function run(node, suite, revision, scenario) {
  const out = join(resultsRoot, revision, scenario.replaceAll("/", "_"));
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = spawnSync(
    node,
    [
      suite,
      "client",
      "--command",
      `node ${join(here, "client.mjs")}`,
      "--scenario",
      scenario,
      "--spec-version",
      revision,
      "--force",
      "--timeout",
      "60000",
      "-o",
      out,
    ],
    { cwd: here, encoding: "utf8", timeout: 180_000 },
  );
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  writeFileSync(join(out, "run.log"), output);
  // The suite writes <out>/<scenario>-<timestamp>/checks.json (an `auth/x` scenario one folder deeper).
  let checks = [];
  for (const entry of readdirSync(out, { recursive: true })) {
    if (String(entry).endsWith("checks.json"))
      checks = JSON.parse(readFileSync(join(out, String(entry)), "utf8"));
  }
  const failed = checks.filter((check) => check.status === "FAILURE").map((check) => check.id);
  const passedChecks = checks.filter((check) => check.status === "SUCCESS").length;
  return {
    scenario,
    passed: result.status === 0 && failed.length === 0,
    checks: `${passedChecks}/${checks.length}`,
    failedChecks: failed,
  };
}

const args = process.argv.slice(2);
let revisions = REVISIONS;
const at = args.indexOf("--requirements");
if (at >= 0) {
  revisions = [args[at + 1]];
  args.splice(at, 2);
}
if (!existsSync(clientDist)) {
  console.error(
    "conformance: build @agentforge/mcp-client first (pnpm --filter @agentforge/mcp-client build)",
  );
  process.exit(2);
}
const { node, suite } = installSuite({ version: SUITE_VERSION });
const summary = {};
let scoredFailures = 0;
for (const revision of revisions) {
  const { scored, reported } = requirements(node, suite, revision);
  const chosen = args.length ? args : [...scored, ...reported];
  const rows = [];
  console.log(`\nclient leg, --requirements ${revision} (suite ${SUITE_VERSION})`);
  console.log(`${"scenario".padEnd(44)} ${"result".padEnd(22)} checks`);
  for (const scenario of chosen) {
    const isScored = scored.includes(scenario);
    const row = { ...run(node, suite, revision, scenario), scored: isScored };
    rows.push(row);
    const mark = row.passed ? "pass" : isScored ? "FAIL" : "fail (not scored)";
    const detail = row.failedChecks.length ? `  failed: ${row.failedChecks.join(", ")}` : "";
    console.log(`${scenario.padEnd(44)} ${mark.padEnd(22)} ${row.checks}${detail}`);
  }
  const scoredRows = rows.filter((row) => row.scored);
  const passed = scoredRows.filter((row) => row.passed).length;
  scoredFailures += scoredRows.length - passed;
  console.log(`${revision}: ${passed}/${scoredRows.length} scored scenarios pass`);
  summary[revision] = { scored: `${passed}/${scoredRows.length}`, scenarios: rows };
}
mkdirSync(resultsRoot, { recursive: true });
writeFileSync(join(resultsRoot, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
if (scoredFailures > 0) {
  console.error(`conformance: ${scoredFailures} scored client scenario(s) failed (logs in ${resultsRoot})`);
  process.exit(1);
}
