// The bins' stdio fronts answer initialize, tools/list and ping from generated snapshots, without the SDK.
// These tests hold them to the live servers: for every message the front answers, its reply must equal
// the SDK server's reply, for default and non-default options; what it does not answer goes to the SDK.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { createFilesystemServer } from "../src/filesystem/create-filesystem-server.js";
import { filesystemLimits } from "../src/filesystem/filesystem-limits.js";
import { PROTOCOL_VERSIONS } from "../src/internal/protocol-versions.js";
import { fastReply, type StdioSnapshot } from "../src/internal/serve-stdio-lazily.js";
import {
  filesystemSnapshot,
  localToolsSnapshot,
  postgresSnapshot,
  sequentialThinkingSnapshot,
} from "../src/internal/stdio-snapshots.js";
import { createLocalToolsServer } from "../src/local-tools/create-local-tools-server.js";
import { createPostgresServer } from "../src/postgres/create-postgres-server.js";
import { type PostgresDatabaseOptions, resolvePostgresOptions } from "../src/postgres/postgres-options.js";
import { createSequentialThinkingServer } from "../src/sequential-thinking/create-sequential-thinking-server.js";
import { exchange } from "./stdio-snapshot-capture.js";

const root = mkdtempSync(join(tmpdir(), "af-snapshot-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const initialize = (params: unknown, id: unknown = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params,
});
const clientInfo = { name: "test", version: "1.0.0" };
const plainInit = initialize({ protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo });

/** Messages the front answers itself (each checked against the SDK's reply in a fresh session). */
const FAST: { name: string; before?: object; message: object }[] = [
  { name: "initialize", message: plainInit },
  ...SUPPORTED_PROTOCOL_VERSIONS.map((version) => ({
    name: `initialize with protocol version ${version}`,
    message: initialize({ protocolVersion: version, capabilities: {}, clientInfo }, "init-1"),
  })),
  {
    name: "initialize with an unknown protocol version (negotiated down to the latest)",
    message: initialize({ protocolVersion: "1999-01-01", capabilities: {}, clientInfo }),
  },
  {
    name: "initialize with the usual client capabilities",
    message: initialize({
      protocolVersion: "2025-06-18",
      capabilities: {
        roots: { listChanged: true },
        sampling: { context: {}, tools: {} },
        elicitation: { form: { applyDefaults: true }, url: {} },
        experimental: { vendor: { on: true } },
        extensions: { "acme/ext": {} },
        tasks: {},
        futureCapability: [1, 2],
      },
      clientInfo: { ...clientInfo, title: "Test", websiteUrl: "https://example.invalid", description: "d" },
    }),
  },
  {
    name: "tools/list without params",
    before: plainInit,
    message: { jsonrpc: "2.0", id: 2, method: "tools/list" },
  },
  {
    name: "tools/list with empty params",
    before: plainInit,
    message: { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
  },
  {
    name: "tools/list with a cursor (one page: the cursor changes nothing)",
    before: plainInit,
    message: { jsonrpc: "2.0", id: "x", method: "tools/list", params: { cursor: "abc" } },
  },
  { name: "tools/list before initialize", message: { jsonrpc: "2.0", id: 7, method: "tools/list" } },
  { name: "ping", before: plainInit, message: { jsonrpc: "2.0", id: 3, method: "ping" } },
  { name: "ping with empty params", message: { jsonrpc: "2.0", id: 3, method: "ping", params: {} } },
];

/** Messages the front must leave to the SDK. */
const HANDED_OVER: { name: string; message: unknown; initialized?: boolean }[] = [
  { name: "not JSON", message: "{ nope" },
  { name: "an array (batch)", message: [plainInit] },
  { name: "a tools/call", message: { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "x" } } },
  { name: "an unknown method", message: { jsonrpc: "2.0", id: 4, method: "resources/list" } },
  { name: "a second initialize", message: plainInit, initialized: true },
  {
    name: "initialize without clientInfo",
    message: initialize({ protocolVersion: "2025-06-18", capabilities: {} }),
  },
  {
    name: "initialize with a numeric version",
    message: initialize({ protocolVersion: 1, capabilities: {}, clientInfo }),
  },
  {
    name: "initialize with a malformed capability",
    message: initialize({
      protocolVersion: "2025-06-18",
      capabilities: { roots: { listChanged: "yes" } },
      clientInfo,
    }),
  },
  {
    name: "initialize with a non-empty tasks capability",
    message: initialize({ protocolVersion: "2025-06-18", capabilities: { tasks: { list: {} } }, clientInfo }),
  },
  {
    name: "initialize with clientInfo icons",
    message: initialize({
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { ...clientInfo, icons: [] },
    }),
  },
  {
    name: "initialize with _meta",
    message: initialize({ protocolVersion: "2025-06-18", capabilities: {}, clientInfo, _meta: {} }),
  },
  {
    name: "a fractional id",
    message: initialize({ protocolVersion: "2025-06-18", capabilities: {}, clientInfo }, 1.5),
  },
  { name: "a null id", message: { jsonrpc: "2.0", id: null, method: "ping" } },
  { name: "an extra top-level key", message: { ...plainInit, extra: true } },
  { name: "jsonrpc 1.0", message: { ...plainInit, jsonrpc: "1.0" } },
  {
    name: "tools/list with _meta",
    message: { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: {} } },
  },
  {
    name: "tools/list with array params",
    message: { jsonrpc: "2.0", id: 2, method: "tools/list", params: [] },
  },
  {
    name: "ping with _meta",
    message: { jsonrpc: "2.0", id: 2, method: "ping", params: { _meta: { progressToken: 1 } } },
  },
  {
    name: "a cancellation",
    message: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
  },
  {
    name: "initialized with params",
    message: { jsonrpc: "2.0", method: "notifications/initialized", params: { a: 1 } },
  },
  { name: "a response", message: { jsonrpc: "2.0", id: 9, result: {} } },
];

interface Case {
  server: string;
  options: string;
  snapshot: StdioSnapshot;
  create: () => McpServer;
}

const fsCase = (maxMediaBytes?: number): Case => ({
  server: "filesystem",
  options: maxMediaBytes === undefined ? "defaults" : `maxMediaBytes ${maxMediaBytes}`,
  snapshot: filesystemSnapshot(filesystemLimits({ maxMediaBytes })),
  create: () => createFilesystemServer({ roots: [root], ...(maxMediaBytes ? { maxMediaBytes } : {}) }),
});
const pgCase = (options: PostgresDatabaseOptions): Case => ({
  server: "postgres",
  options: JSON.stringify(options),
  snapshot: postgresSnapshot(resolvePostgresOptions(options).limits),
  create: () => createPostgresServer(options),
});

const CASES: Case[] = [
  {
    server: "local-tools",
    options: "defaults",
    snapshot: localToolsSnapshot(),
    create: () => createLocalToolsServer(),
  },
  {
    server: "sequential-thinking",
    options: "defaults",
    snapshot: sequentialThinkingSnapshot(),
    create: () => createSequentialThinkingServer({ logThoughts: false }),
  },
  fsCase(),
  fsCase(5 * 1024 * 1024),
  fsCase(1000),
  pgCase({}),
  pgCase({ maxRowsLimit: 500, defaultMaxRows: 500, statementTimeoutMs: 1234 }),
  pgCase({ maxRowsLimit: 10_000, defaultMaxRows: 20, url: "postgres://u@127.0.0.1:1/db" }),
];

describe("stdio snapshots", () => {
  it("carry the SDK's protocol versions", () => {
    expect(PROTOCOL_VERSIONS).toEqual({
      latest: LATEST_PROTOCOL_VERSION,
      supported: SUPPORTED_PROTOCOL_VERSIONS,
    });
  });

  describe.each(CASES)("$server ($options)", ({ snapshot, create }) => {
    it.each(FAST)("answers $name exactly as the SDK server does", async ({ before, message }) => {
      const line = JSON.stringify(message);
      const initialized = before !== undefined;
      const fast = fastReply(snapshot, line, initialized);
      expect(fast, "the front answers it itself").toBeDefined();
      const id = (message as { id: string | number }).id;
      const live = await exchange(create(), [...(before ? [before] : []), message] as never);
      expect(fast?.reply).toEqual(live.get(id));
      expect(`${JSON.stringify(fast?.reply)}`).toBe(JSON.stringify(live.get(id)));
    });
  });

  it.each(HANDED_OVER)("leaves $name to the SDK", ({ message, initialized }) => {
    const line = typeof message === "string" ? message : JSON.stringify(message);
    for (const { snapshot } of CASES) expect(fastReply(snapshot, line, initialized ?? false)).toBeUndefined();
  });

  it("takes the initialized notification without a reply", () => {
    const line = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(fastReply(localToolsSnapshot(), line, true)).toEqual({ kind: "initialized" });
  });
});
