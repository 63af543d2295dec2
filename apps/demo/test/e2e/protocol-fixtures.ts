// Fixtures of the protocol tests (progress, elicitation, resources and prompts): a roster with the test
// server `probe` (progress, elicitation/create), the official everything server and the example servers,
// and the scripted model turns that make a docs run report progress and meet an elicitation.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ModelServer } from "@agentforge/model-servers";
import { STDIO_TEST_SERVER } from "@agentforge/test-servers";
import { afterAll, afterEach } from "vitest";
import { killRunning } from "./cli.js";
import { exampleServer, type Served, stdioServer } from "./mcp-fixtures.js";

// The official everything server (a test dependency).
export const EVERYTHING_SERVER = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

/**
 * What a test file of served runs keeps: a temporary `base` folder (removed after the file), and the model
 * servers and `serve` processes it starts (stopped after each test, with every CLI child still running).
 */
export function servedRunsScope(prefix: string): { base: string; models: ModelServer[]; served: Served[] } {
  const base = mkdtempSync(join(tmpdir(), prefix));
  const models: ModelServer[] = [];
  const served: Served[] = [];
  afterEach(async () => {
    killRunning();
    await Promise.all(models.splice(0).map((server) => server.close()));
    await Promise.all(served.splice(0).map((s) => s.stop()));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  return { base, models, served };
}

/**
 * A roster file in a new folder under `base`: the filesystem server, then `more` (servers, permissions).
 * Every stdio server of these rosters is a `stdioServer` entry (given SERVER_START_SECONDS to start).
 */
export function writeRoster(base: string, more: string): string {
  const dir = mkdtempSync(join(base, "config-"));
  const file = join(dir, "mcp_servers.yaml");
  writeFileSync(
    file,
    `servers:
${exampleServer("filesystem")}
${more}`,
  );
  return file;
}

/** filesystem + the test server `probe` (progress, ask_client) + the everything server + local-tools. */
export function roster(base: string): string {
  return writeRoster(
    base,
    `${stdioServer("probe", [STDIO_TEST_SERVER, "--hostile"], { tool_timeout: 60 })}
${stdioServer("everything", [EVERYTHING_SERVER, "stdio"], { tool_timeout: 60 })}
${exampleServer("local-tools")}
  - name: off
    enabled: false
    transport: stdio
    command: \${NODE}
permissions:
  documentation: [filesystem.*, probe.progress, probe.ask_client]
`,
  );
}

/** The model's script: report progress and ask the user for a value in one round, then answer. */
export function progressAndElicitationScript() {
  return {
    turns: [
      {
        toolCalls: [
          { name: "probe__progress", args: { steps: 4, intervalMs: 150 } },
          { name: "probe__ask_client", args: { method: "elicitation/create" } },
        ],
      },
      { text: "# Bell\n\n## Purpose\nRings the harbour bell." },
    ],
  };
}
