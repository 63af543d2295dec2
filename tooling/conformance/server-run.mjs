#!/usr/bin/env node
// Runs the official MCP conformance suite's SERVER scenarios against the four first-party servers of
// @agentforge/example-servers, at both protocol revisions:
//   node tooling/conformance/server-run.mjs [server ...]      (default: all four)
// Needs packages/example-servers built (its dist/bin). It installs the suite and Node.js 22 on first use
// (install-suite.mjs), starts each server as its own bin with `--http --port 0` on 127.0.0.1 (waiting for
// its "listening on" line), runs `server --url URL --requirements <revision>` for 2025-11-25 and
// 2026-07-28, prints a table per server and revision (scenario, result, check counts), writes
// results/server/summary.json with the suite's own results beside it, ends every server it started, and
// exits 1 when a REQUIRED scenario fails (the others are reported only).
//
// "Not applicable" checks: the suite probes some requirements through diagnostic fixture tools
// (test_missing_capability, test_streaming_elicitation, test_logging_tool) and through prompts and
// resources. Our servers are tools-only servers without those fixtures; the suite reports such a check as
// a FAILURE whose message says it could not be exercised. NOT_APPLICABLE lists exactly those checks; one
// of them is excused only when its message says exactly that (and, for prompts/resources, when the
// server advertises no such capability) — any other failure of the same check still fails the scenario.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installSuite } from "./install-suite.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const SUITE_VERSION = "0.2.0-alpha.12";
const bins = join(here, "..", "..", "packages", "example-servers", "dist", "bin");
const resultsDir = join(here, "results", "server");
const REVISIONS = ["2025-11-25", "2026-07-28"];

/** Scenarios that must pass, per revision. */
const REQUIRED = {
  "2025-11-25": [
    "server-initialize",
    "ping",
    "tools-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
  ],
  "2026-07-28": [
    "server-stateless",
    "tools-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
    "caching",
  ],
};

const untestable = (check) => (check.errorMessage ?? "").startsWith("Not testable:");
const methodNotFound = (capability) => (check, capabilities) =>
  /returned JSON-RPC error -32601/.test(check.errorMessage ?? "") && !(capability in capabilities);

/** Checks of required scenarios that cannot apply to a tools-only server without fixture tools. */
const NOT_APPLICABLE = {
  "server-stateless": {
    // needs a tool that requires the sampling capability (-32021): no tool of ours needs one
    "sep-2575-server-rejects-undeclared-capability": untestable,
    "sep-2575-missing-capability-http-400": untestable,
    // needs a tool that streams an elicitation: none of ours asks the client anything
    "sep-2575-http-server-no-independent-requests-on-stream": untestable,
    // needs a tool that logs: ours log nothing to the client
    "sep-2575-server-no-log-without-loglevel": untestable,
  },
  caching: {
    // prompts/list and resources/* of a server with neither: -32601 is the right answer
    "sep-2549-prompts-list-caching-hints": methodNotFound("prompts"),
    "sep-2549-resources-list-caching-hints": methodNotFound("resources"),
    "sep-2549-resources-templates-list-caching-hints": methodNotFound("resources"),
  },
};

const work = mkdtempSync(join(tmpdir(), "af-conformance-"));
const databaseUrl = process.env.TEST_DATABASE_URL;
const SERVERS = {
  "local-tools": { args: [] },
  filesystem: { args: [work] },
  "sequential-thinking": { args: [] },
  // The suite only lists tools and checks the protocol; TEST_DATABASE_URL's server when set, else the
  // embedded engine (it starts in a few seconds).
  postgres: { args: [], env: databaseUrl ? { DATABASE_URL: databaseUrl } : {} },
};

const running = new Set();

/** Start a bin over HTTP on 127.0.0.1, port 0; resolves with its URL once it printed it. */
function startServer(name) {
  const { args, env = {} } = SERVERS[name];
  const child = spawn(process.execPath, [join(bins, `${name}.js`), "--http", "--port", "0", ...args], {
    env: { ...process.env, DISABLE_THOUGHT_LOGGING: "true", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let stderr = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} printed no URL within 120 s:\n${stderr}`)),
      120_000,
    );
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, stderr: () => stderr });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready:\n${stderr}`));
    });
  });
}

/** End a server: SIGTERM, SIGKILL after 5 s; resolves once it exited. */
function stopServer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  return exited.finally(() => clearTimeout(timer));
}

/** Run a command to completion, collecting its output. */
function run(command, args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: here, stdio: ["ignore", "pipe", "pipe"] });
    running.add(child);
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("close", (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, output });
    });
  });
}

/** The server's 2026-07-28 capabilities, from its server/discover (to tell a missing feature apart). */
async function discoverCapabilities(url) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "agentforge-conformance", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "server/discover",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } }),
  });
  const body = await response.json();
  if (!body.result?.capabilities) throw new Error(`server/discover failed: ${JSON.stringify(body)}`);
  return body.result.capabilities;
}

/** Every scenario's checks from the suite's output folder (`server-<scenario>-<timestamp>/checks.json`). */
function readResults(folder) {
  const results = new Map();
  for (const entry of readdirSync(folder)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
    if (!scenario) continue;
    results.set(scenario, JSON.parse(readFileSync(join(folder, entry, "checks.json"), "utf8")));
  }
  return results;
}

/** A scenario's outcome: pass when no check FAILED (excused not-applicable checks aside). */
function judge(scenario, checks, capabilities, required) {
  const count = (status) => checks.filter((check) => check.status === status).length;
  const excused = [];
  const failed = checks.filter((check) => {
    if (check.status !== "FAILURE") return false;
    const rule = required ? NOT_APPLICABLE[scenario]?.[check.id] : undefined;
    if (rule?.(check, capabilities)) {
      excused.push(check.id);
      return false;
    }
    return true;
  });
  return {
    scenario,
    required,
    passed: checks.length > 0 && failed.length === 0,
    checks: {
      success: count("SUCCESS"),
      failure: count("FAILURE"),
      warning: count("WARNING"),
      skipped: count("SKIPPED"),
    },
    notApplicable: excused,
    failures: failed.map((check) => `${check.id}: ${check.errorMessage ?? check.status}`),
  };
}

async function main() {
  const chosen = process.argv.slice(2);
  for (const name of chosen) {
    if (!(name in SERVERS)) {
      console.error(
        `conformance: unknown server "${name}"; expected one of ${Object.keys(SERVERS).join(", ")}`,
      );
      process.exit(2);
    }
  }
  try {
    readdirSync(bins);
  } catch {
    console.error(
      "conformance: build @agentforge/example-servers first (pnpm --filter @agentforge/example-servers build)",
    );
    process.exit(2);
  }
  const { node, suite } = installSuite({ version: SUITE_VERSION });
  rmSync(resultsDir, { recursive: true, force: true });
  mkdirSync(resultsDir, { recursive: true });
  const started = Date.now();
  const summary = [];
  for (const name of chosen.length ? chosen : Object.keys(SERVERS)) {
    const server = await startServer(name);
    try {
      const capabilities = await discoverCapabilities(server.url);
      for (const revision of REVISIONS) {
        const folder = join(resultsDir, name, revision);
        mkdirSync(folder, { recursive: true });
        const { output } = await run(
          node,
          [suite, "server", "--url", server.url, "--requirements", revision, "-o", folder],
          600_000,
        );
        writeFileSync(join(folder, "suite-output.log"), output);
        const results = readResults(folder);
        const judged = [...results].map(([scenario, checks]) =>
          judge(scenario, checks, capabilities, REQUIRED[revision].includes(scenario)),
        );
        for (const scenario of REQUIRED[revision]) {
          if (!results.has(scenario)) {
            judged.push({
              scenario,
              required: true,
              passed: false,
              checks: {},
              notApplicable: [],
              failures: ["not run"],
            });
          }
        }
        judged.sort(
          (a, b) => Number(b.required) - Number(a.required) || a.scenario.localeCompare(b.scenario),
        );
        summary.push({ server: name, revision, scenarios: judged });
        printTable(name, revision, judged);
      }
    } finally {
      await stopServer(server.child);
    }
  }
  writeFileSync(join(resultsDir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  const failedRequired = summary.flatMap(({ server, revision, scenarios }) =>
    scenarios.filter((s) => s.required && !s.passed).map((s) => ({ server, revision, ...s })),
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (failedRequired.length) {
    console.error(
      `\nconformance: ${failedRequired.length} required server scenario(s) failed (${seconds} s):`,
    );
    for (const f of failedRequired)
      console.error(`  ${f.server} ${f.revision} ${f.scenario}: ${f.failures.join("; ")}`);
    console.error(`results in ${resultsDir}`);
    process.exitCode = 1;
  } else {
    console.log(`\nconformance: every required server scenario passed for every server (${seconds} s)`);
  }
}

function printTable(name, revision, judged) {
  console.log(`\n${name} @ ${revision}`);
  for (const s of judged) {
    const mark = s.passed ? "PASS" : s.required ? "FAIL" : "fail (not required)";
    const c = s.checks;
    const counts = `${c.success ?? 0} ok, ${c.failure ?? 0} failed, ${c.warning ?? 0} warnings, ${c.skipped ?? 0} skipped`;
    const na = s.notApplicable.length ? ` (not applicable: ${s.notApplicable.join(", ")})` : "";
    console.log(`  ${mark.padEnd(20)} ${(s.required ? "* " : "  ") + s.scenario.padEnd(48)} ${counts}${na}`);
  }
}

// End every process this runner started, whatever happens.
const stopAll = () => Promise.all([...running].map(stopServer));
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    void stopAll().then(() => process.exit(130));
  });
}
try {
  await main();
} catch (error) {
  console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await stopAll();
  rmSync(work, { recursive: true, force: true });
}
