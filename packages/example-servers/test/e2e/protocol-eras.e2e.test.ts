// Every server, over stdio and over Streamable HTTP, with the clients that exist: the v2 SDK client
// negotiating (`auto`: server/discover, then 2026-07-28), pinned to 2026-07-28, on the 2025 handshake
// (`legacy`, its default), and the v1 SDK client (`@modelcontextprotocol/sdk`, 2025 only). Real child
// processes; each client lists the tools and makes one call.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import type { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  connectHttp,
  connectHttpV1,
  connectStdio,
  connectStdioV1,
  type Era,
  startBin,
  stopAll,
  textOf,
} from "./helpers.js";

const root = mkdtempSync(join(tmpdir(), "af-eras-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const open: (Client | ClientV1)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
  await stopAll();
});
const keep = <T extends Client | ClientV1>(client: T): T => {
  open.push(client);
  return client;
};

// PostgreSQL: TEST_DATABASE_URL's server when there is one; else the embedded engine (slower to start).
const database: Record<string, string> = process.env.TEST_DATABASE_URL
  ? { DATABASE_URL: process.env.TEST_DATABASE_URL }
  : {};

const SERVERS: {
  name: string;
  args: string[];
  env: Record<string, string>;
  tools: string[];
  call: { name: string; arguments: Record<string, unknown> };
  expected: RegExp;
}[] = [
  {
    name: "local-tools",
    args: [],
    env: {},
    tools: ["current_time", "echo", "word_count"],
    call: { name: "echo", arguments: { text: "every era" } },
    expected: /^every era$/,
  },
  {
    name: "filesystem",
    args: [root],
    env: {},
    tools: [
      "directory_tree",
      "get_file_info",
      "list_allowed_directories",
      "list_directory",
      "list_directory_with_sizes",
      "read_file",
      "read_media_file",
      "read_multiple_files",
      "read_text_file",
      "search_files",
    ],
    call: { name: "list_allowed_directories", arguments: {} },
    expected: /^Allowed directories:\n/,
  },
  {
    name: "sequential-thinking",
    args: [],
    env: { DISABLE_THOUGHT_LOGGING: "true" },
    tools: ["sequentialthinking"],
    call: {
      name: "sequentialthinking",
      arguments: { thought: "t", nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 },
    },
    expected: /"thoughtHistoryLength": 1/,
  },
  {
    name: "postgres",
    args: [],
    env: database,
    tools: ["describe_table", "execute_query", "list_schemas", "list_tables"],
    call: { name: "execute_query", arguments: { sql: "SELECT 1 AS one" } },
    expected: /"rows":\[\[1\]\]/,
  },
];

/** The v2 client modes, and the era each must end up in against our servers. */
const MODES: { era: Era; expectedEra: "modern" | "legacy" }[] = [
  { era: "auto", expectedEra: "modern" },
  { era: "2026-07-28", expectedEra: "modern" },
  { era: "legacy", expectedEra: "legacy" },
];

// An embedded PostgreSQL starts on the first call: give it the time a busy machine needs.
const TIMEOUT = { timeout: 170_000 };

async function exercise(client: Client | ClientV1, server: (typeof SERVERS)[number]) {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(server.tools);
  const result =
    "getProtocolEra" in client
      ? await client.callTool(server.call, TIMEOUT)
      : await client.callTool(server.call, undefined, TIMEOUT);
  expect(result.isError, textOf(result)).toBeFalsy();
  expect(textOf(result)).toMatch(server.expected);
}

describe.each(SERVERS)("$name", (server) => {
  it.each(MODES)("over stdio, the v2 client ($era) → $expectedEra era", async ({ era, expectedEra }) => {
    const client = keep(await connectStdio(server.name, server.args, server.env, era));
    expect(client.getProtocolEra()).toBe(expectedEra);
    await exercise(client, server);
  });

  it("over stdio, the v1 client (2025-11-25)", async () => {
    await exercise(keep(await connectStdioV1(server.name, server.args, server.env)), server);
  });

  it("over Streamable HTTP, the v2 client in every mode and the v1 client, on one endpoint", async () => {
    const bin = await startBin(server.name, ["--http", ...server.args], { env: server.env });
    for (const { era, expectedEra } of MODES) {
      const client = keep(await connectHttp(bin.url, undefined, era));
      expect(client.getProtocolEra(), era).toBe(expectedEra);
      await exercise(client, server);
    }
    await exercise(keep(await connectHttpV1(bin.url)), server);
  });
});
