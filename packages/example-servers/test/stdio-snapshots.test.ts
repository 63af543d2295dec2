// The bins' stdio fronts answer the opening messages of both protocol eras from generated snapshots,
// without the SDK: initialize, tools/list and ping for 2025-era clients, server/discover and tools/list
// with a plain per-request _meta envelope for 2026-07-28 clients. These tests hold them to the live
// servers served by the SDK's stdio entry: for every message the front answers, its reply must equal the
// SDK's reply byte for byte, for default and non-default options; what it does not answer goes to the SDK.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  LATEST_PROTOCOL_VERSION,
  type McpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { afterAll, describe, expect, it } from "vitest";
import { createFilesystemServer } from "../src/filesystem/create-filesystem-server.js";
import { filesystemLimits } from "../src/filesystem/filesystem-limits.js";
import { PROTOCOL_VERSIONS } from "../src/internal/protocol-versions.js";
import { type FrontState, fastReply, type StdioSnapshot } from "../src/internal/serve-stdio-lazily.js";
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
import { ENVELOPE, exchange } from "./stdio-snapshot-capture.js";

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

const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const envelope = (meta: Record<string, unknown> = ENVELOPE) => ({ _meta: meta });
const discover = (id: string | number = 10, meta?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "server/discover",
  params: envelope(meta),
});
const modernList = (id: string | number = 11, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/list",
  params: { ...envelope(), ...extra },
});
const { "io.modelcontextprotocol/clientInfo": _info, ...withoutClientInfo } = ENVELOPE;

/**
 * Messages the front answers itself, each after `before` (which the front answers too), checked
 * against the SDK's reply to the same sequence on a fresh connection.
 */
const FAST: { name: string; before?: object[]; message: object }[] = [
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
    name: "initialize naming the 2026 revision (a 2025-era handshake: negotiated down)",
    message: initialize({ protocolVersion: "2026-07-28", capabilities: {}, clientInfo }),
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
    before: [plainInit, INITIALIZED],
    message: { jsonrpc: "2.0", id: 2, method: "tools/list" },
  },
  {
    name: "tools/list with empty params",
    before: [plainInit],
    message: { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
  },
  {
    name: "tools/list with a cursor (one page: the cursor changes nothing)",
    before: [plainInit, INITIALIZED],
    message: { jsonrpc: "2.0", id: "x", method: "tools/list", params: { cursor: "abc" } },
  },
  { name: "tools/list before initialize", message: { jsonrpc: "2.0", id: 7, method: "tools/list" } },
  { name: "ping", before: [plainInit, INITIALIZED], message: { jsonrpc: "2.0", id: 3, method: "ping" } },
  { name: "ping with empty params", message: { jsonrpc: "2.0", id: 3, method: "ping", params: {} } },
  // 2026-07-28: per-request envelope, no handshake.
  { name: "server/discover (2026-07-28)", message: discover() },
  { name: "server/discover without clientInfo", message: discover(10, withoutClientInfo) },
  {
    name: "server/discover with the usual client capabilities",
    message: discover(10, {
      ...ENVELOPE,
      "io.modelcontextprotocol/clientCapabilities": {
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {}, url: {} },
        extensions: { "acme/ext": {} },
      },
      "io.modelcontextprotocol/clientInfo": { ...clientInfo, title: "Test" },
    }),
  },
  { name: "server/discover twice", before: [discover(9)], message: discover("again") },
  { name: "tools/list (2026-07-28) as the first message", message: modernList() },
  { name: "tools/list (2026-07-28) after server/discover", before: [discover()], message: modernList() },
  {
    name: "tools/list (2026-07-28) with a cursor",
    before: [discover()],
    message: modernList(12, { cursor: "abc" }),
  },
  {
    name: "server/discover after a 2026-07-28 request",
    before: [discover(), modernList()],
    message: discover(13),
  },
  {
    name: "initialize after server/discover (a client falling back)",
    before: [discover()],
    message: plainInit,
  },
  {
    name: "tools/list after falling back to initialize",
    before: [discover(), plainInit, INITIALIZED],
    message: { jsonrpc: "2.0", id: 2, method: "tools/list" },
  },
];

/** Messages the front must leave to the SDK, after `before` (which the front answers). */
const HANDED_OVER: { name: string; before?: object[]; message: unknown }[] = [
  { name: "not JSON", message: "{ nope" },
  { name: "an array (batch)", message: [plainInit] },
  { name: "a tools/call", message: { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "x" } } },
  { name: "an unknown method", message: { jsonrpc: "2.0", id: 4, method: "resources/list" } },
  { name: "a second initialize", before: [plainInit], message: plainInit },
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
    before: [plainInit],
    message: { jsonrpc: "2.0", method: "notifications/initialized", params: { a: 1 } },
  },
  { name: "initialized before initialize", message: INITIALIZED },
  { name: "a response", message: { jsonrpc: "2.0", id: 9, result: {} } },
  // 2026-07-28
  { name: "server/discover without _meta", message: { jsonrpc: "2.0", id: 1, method: "server/discover" } },
  {
    name: "server/discover with an unknown revision",
    message: discover(1, { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" }),
  },
  {
    name: "server/discover without clientCapabilities",
    message: discover(1, {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": clientInfo,
    }),
  },
  {
    name: "server/discover with a log level",
    message: discover(1, { ...ENVELOPE, "io.modelcontextprotocol/logLevel": "debug" }),
  },
  {
    name: "server/discover with a progress token",
    message: discover(1, { ...ENVELOPE, progressToken: 1 }),
  },
  {
    name: "server/discover with extra params",
    message: { ...discover(1), params: { ...envelope(), extra: 1 } },
  },
  {
    name: "server/discover with a malformed clientInfo",
    message: discover(1, { ...ENVELOPE, "io.modelcontextprotocol/clientInfo": { name: 1 } }),
  },
  { name: "an enveloped ping (removed in 2026-07-28)", message: { ...discover(1), method: "ping" } },
  { name: "an enveloped initialize", message: { ...discover(1), method: "initialize" } },
  { name: "an enveloped tools/call", message: { ...discover(1), method: "tools/call" } },
  { name: "a 2026 request after initialize", before: [plainInit], message: modernList() },
  { name: "server/discover after initialize", before: [plainInit], message: discover() },
  { name: "initialize after a 2026-07-28 request", before: [modernList()], message: plainInit },
  {
    name: "a plain tools/list after a 2026-07-28 request",
    before: [modernList()],
    message: { jsonrpc: "2.0", id: 2, method: "tools/list" },
  },
  {
    name: "a plain tools/list after server/discover",
    before: [discover()],
    message: { jsonrpc: "2.0", id: 2, method: "tools/list" },
  },
  {
    name: "ping after server/discover",
    before: [discover()],
    message: { jsonrpc: "2.0", id: 2, method: "ping" },
  },
];

/** The front's state after it answered `lines` (each must be answered by the front). */
function stateAfter(snapshot: StdioSnapshot, lines: object[]): FrontState {
  let state: FrontState = { era: "new", initialized: false };
  for (const line of lines) {
    const fast = fastReply(snapshot, JSON.stringify(line), state);
    if (!fast) throw new Error(`the front does not answer ${JSON.stringify(line)}`);
    state = fast.state;
  }
  return state;
}

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
  it("carry the SDK's protocol versions", async () => {
    expect(PROTOCOL_VERSIONS).toMatchObject({
      latest: LATEST_PROTOCOL_VERSION,
      supported: SUPPORTED_PROTOCOL_VERSIONS,
    });
    const live = await exchange(() => createLocalToolsServer(), [discover(1)] as never);
    expect(PROTOCOL_VERSIONS.modern).toEqual(
      (live.get(1)?.result as { supportedVersions?: string[] } | undefined)?.supportedVersions,
    );
  });

  describe.each(CASES)("$server ($options)", ({ snapshot, create }) => {
    it.each(FAST)("answers $name exactly as the SDK does", async ({ before = [], message }) => {
      const fast = fastReply(snapshot, JSON.stringify(message), stateAfter(snapshot, before));
      expect(fast, "the front answers it itself").toBeDefined();
      const id = (message as { id: string | number }).id;
      const live = await exchange(create, [...before, message] as never);
      expect(live.get(id), "the SDK answers it").toBeDefined();
      expect(fast?.reply).toEqual(live.get(id));
      expect(`${JSON.stringify(fast?.reply)}`).toBe(JSON.stringify(live.get(id)));
      // and every earlier reply too, so the states line up
      for (const earlier of before) {
        if (!("id" in earlier)) continue;
        const line = JSON.stringify(earlier);
        const state = stateAfter(snapshot, before.slice(0, before.indexOf(earlier)));
        expect(JSON.stringify(fastReply(snapshot, line, state)?.reply)).toBe(
          JSON.stringify(live.get((earlier as { id: string | number }).id)),
        );
      }
    });
  });

  it.each(HANDED_OVER)("leaves $name to the SDK", ({ before = [], message }) => {
    const line = typeof message === "string" ? message : JSON.stringify(message);
    for (const { snapshot } of CASES) {
      expect(fastReply(snapshot, line, stateAfter(snapshot, before))).toBeUndefined();
    }
  });

  it("takes the initialized notification without a reply, and replays what decided the era", () => {
    const snapshot = localToolsSnapshot();
    const afterInit = stateAfter(snapshot, [plainInit]);
    expect(fastReply(snapshot, JSON.stringify(INITIALIZED), afterInit)).toEqual({
      kind: "initialized",
      state: { era: "legacy", initialized: true },
      replay: true,
    });
    const replayed = (lines: object[]) => {
      let state: FrontState = { era: "new", initialized: false };
      return lines.map((line) => {
        const fast = fastReply(snapshot, JSON.stringify(line), state);
        state = fast?.state ?? state;
        return fast?.replay;
      });
    };
    expect(replayed([plainInit, INITIALIZED, { jsonrpc: "2.0", id: 2, method: "tools/list" }])).toEqual([
      true,
      true,
      false,
    ]);
    expect(replayed([discover(), modernList(), discover(12), modernList(13)])).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(replayed([modernList(), modernList(12)])).toEqual([true, false]);
    expect(replayed([discover(), plainInit, INITIALIZED])).toEqual([true, true, true]);
    expect(
      replayed([
        { jsonrpc: "2.0", id: 2, method: "ping" },
        { jsonrpc: "2.0", id: 3, method: "ping" },
      ]),
    ).toEqual([true, false]);
  });
});
