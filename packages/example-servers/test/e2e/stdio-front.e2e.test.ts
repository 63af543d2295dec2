// The bins' stdio front: the opening messages of both protocol eras (initialize and tools/list; or
// server/discover and tools/list with a per-request _meta envelope) are answered from a snapshot with no
// SDK, zod or tool code loaded (checked by recording every module the process loads), and the connection
// is then handed to the SDK's stdio entry with the same bytes on the wire as a connection the SDK serves
// from its first message.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { binPath } from "./helpers.js";

const RECORDER = fileURLToPath(new URL("./fixtures/record-loads.mjs", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "af-stdio-front-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const children = new Set<ChildProcess>();
afterEach(async () => {
  await Promise.all(
    [...children].map(async (child) => {
      children.delete(child);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }),
  );
});

interface Session {
  child: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  send(...messages: object[]): void;
  /** Send one raw line. */
  sendRaw(line: string): void;
  /** The reply with this id (waits for it). */
  reply(id: number | string): Promise<Record<string, unknown>>;
}

let sessions = 0;

/** A bin spawned over stdio, spoken to in raw JSON lines; with `recordLoads`, loads go to a log file. */
function session(
  name: string,
  args: string[],
  env: Record<string, string> = {},
  recordLoads?: string,
): Session {
  const child = spawn(
    process.execPath,
    [...(recordLoads ? ["--import", RECORDER] : []), binPath(name), ...args],
    {
      env: {
        PATH: process.env.PATH ?? "",
        DISABLE_THOUGHT_LOGGING: "true",
        ...env,
        ...(recordLoads ? { RECORD_LOADS_TO: recordLoads } : {}),
      },
      stdio: ["pipe", "pipe", "ignore"],
    },
  );
  children.add(child);
  const lines: string[] = [];
  let pending = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts);
  });
  const find = (id: number | string) =>
    lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((reply) => reply.id === id);
  return {
    child,
    lines,
    send: (...messages) => child.stdin?.write(messages.map((m) => `${JSON.stringify(m)}\n`).join("")),
    sendRaw: (line) => child.stdin?.write(`${line}\n`),
    async reply(id) {
      await expect.poll(() => find(id) !== undefined, { timeout: 120_000 }).toBe(true);
      return find(id) as Record<string, unknown>;
    },
  };
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: { roots: {} },
    clientInfo: { name: "e2e", version: "1" },
  },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };
const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});
/** The per-request envelope of a 2026-07-28 client. */
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "e2e", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** A request as a 2026-07-28 client sends it: the envelope in params._meta. */
const modern = (message: object) => ({
  ...message,
  params: { ...(message as { params?: Record<string, unknown> }).params, _meta: META },
});
const DISCOVER = modern({ jsonrpc: "2.0", id: 1, method: "server/discover" });
const MODERN_LIST = modern(LIST);

/** The opening of a connection in each era: [messages, id of the reply to wait for] steps. */
const OPENINGS: { era: string; steps: [object[], number][] }[] = [
  {
    era: "2025-era",
    steps: [
      [[INITIALIZE], 1],
      [[INITIALIZED, LIST], 2],
    ],
  },
  {
    era: "2026-07-28",
    steps: [
      [[DISCOVER], 1],
      [[MODERN_LIST], 2],
    ],
  },
];

/** The package files and dependencies behind the modules a process loaded (through their sourcemaps). */
function loadedSources(log: string): { files: string[]; sources: string[]; packages: string[] } {
  const entries = readFileSync(log, "utf8").split("\n").filter(Boolean);
  const files = entries
    .filter((entry) => entry.startsWith("import file://"))
    .map((entry) => fileURLToPath(entry.slice("import ".length)));
  const sources: string[] = [];
  for (const file of files.filter((f) => f.includes("/example-servers/dist/"))) {
    const map = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
    sources.push(...map.sources);
  }
  const packages = [
    ...files.filter((f) => f.includes("/node_modules/")),
    ...entries.filter((entry) => entry.startsWith("require ")).map((entry) => entry.slice("require ".length)),
  ];
  return { files, sources, packages };
}

/** What must not be loaded before the first tools/call: the SDK, zod, ajv, database drivers, the tools. */
const HEAVY =
  /node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?(@modelcontextprotocol|zod|ajv|hono|@hono|pg|pg-[a-z]+|libpg-query|@electric-sql)\/|\/src\/(filesystem\/(create-filesystem-server|read-text|directory-tree|search-files|glob-matcher)|local-tools\/create-|sequential-thinking\/create-|postgres\/(create-|open-|check-read-only|internal\/(backend|read-only-runner|pglite-host))|serve-http|serve-stdio\.ts)/;

const BINS: {
  name: string;
  args: string[];
  env?: Record<string, string>;
  firstCall: object;
  /** A module the first call must have loaded (proves the recording sees the heavy modules). */
  loadedByCall: RegExp;
}[] = [
  {
    name: "local-tools",
    args: [],
    firstCall: call(3, "echo", { text: "hi" }),
    loadedByCall: /local-tools\/create-/,
  },
  {
    name: "sequential-thinking",
    args: [],
    firstCall: call(3, "sequentialthinking", {
      thought: "t",
      nextThoughtNeeded: false,
      thoughtNumber: 1,
      totalThoughts: 1,
    }),
    loadedByCall: /sequential-thinking\/create-/,
  },
  {
    name: "filesystem",
    args: [work],
    firstCall: call(3, "list_allowed_directories", {}),
    loadedByCall: /filesystem\/create-filesystem-server/,
  },
  {
    name: "postgres",
    args: [],
    // An unreachable server: the call loads pg and the SQL parser and fails fast, without starting PGlite.
    env: { DATABASE_URL: "postgres://reader@127.0.0.1:1/shop" },
    firstCall: call(3, "execute_query", { sql: "SELECT 1" }),
    loadedByCall: /postgres\/create-postgres-server/,
  },
];

describe("stdio front", () => {
  it.each(OPENINGS.flatMap(({ era, steps }) => BINS.map((bin) => ({ ...bin, era, steps }))))(
    "$name ($era): the opening loads no SDK, zod, ajv, driver or tool module; the first call does",
    async ({ name, args, env, firstCall, loadedByCall, era, steps }) => {
      const log = join(work, `loads-${name}-${sessions++}.txt`);
      writeFileSync(log, "");
      const bin = session(name, args, env, log);
      const [[opening, openingId], [listing, listId]] = steps as [[object[], number], [object[], number]];
      bin.send(...opening);
      const first = (await bin.reply(openingId)).result as Record<string, unknown>;
      if (era === "2025-era") expect(first).toMatchObject({ serverInfo: { name: `agentforge-${name}` } });
      else {
        expect(first).toMatchObject({
          supportedVersions: ["2026-07-28"],
          _meta: { "io.modelcontextprotocol/serverInfo": { name: `agentforge-${name}` } },
        });
      }
      bin.send(...listing);
      const list = (await bin.reply(listId)).result as { tools: { name: string }[] };
      expect(list.tools.length).toBeGreaterThan(0);

      const before = loadedSources(log);
      // The recording works: it saw the bin and its chunks...
      expect(before.files).toContain(binPath(name));
      expect(before.sources.some((source) => source.includes(`src/bin/${name}.ts`))).toBe(true);
      // ...and nothing heavy among them.
      expect(before.sources.filter((source) => HEAVY.test(source))).toEqual([]);
      expect(
        before.packages.filter((file) => HEAVY.test(file) || /^(pg|libpg-query|@electric-sql)/.test(file)),
      ).toEqual([]);

      bin.send(era === "2025-era" ? firstCall : modern(firstCall));
      const result = await bin.reply(3);
      expect(result.error).toBeUndefined();
      const after = loadedSources(log);
      expect(after.sources.some((source) => loadedByCall.test(source))).toBe(true);
      expect(
        after.sources.some((source) => /node_modules\/.*@modelcontextprotocol\/server\//.test(source)),
      ).toBe(true);
      expect(after.sources.some((source) => /node_modules\/.*zod\//.test(source))).toBe(true);
      if (name === "postgres") {
        expect(
          after.packages.some((file) => /node_modules\/(\.pnpm\/pg@[^/]+\/node_modules\/)?pg\//.test(file)),
        ).toBe(true);
      }
    },
  );

  const SAME_BYTES = [
    { name: "local-tools", args: [], tool: call(3, "echo", { text: "same bytes" }) },
    { name: "filesystem", args: [work], tool: call(3, "read_text_file", { path: "missing.txt" }) },
    {
      name: "sequential-thinking",
      args: [],
      tool: call(3, "sequentialthinking", {
        thought: "t",
        nextThoughtNeeded: "true",
        thoughtNumber: "2",
        totalThoughts: 1,
      }),
    },
  ];
  it.each(OPENINGS.flatMap(({ era, steps }) => SAME_BYTES.map((c) => ({ ...c, era, opening: steps }))))(
    "$name ($era): a front-served connection and an SDK-served one send the same bytes",
    async ({ name, args, tool, era, opening }) => {
      const as = (message: object) => (era === "2025-era" ? message : modern(message));
      const ping = as({ jsonrpc: "2.0", id: 4, method: "ping" }); // removed in 2026-07-28: -32601
      const badCall = as(call(5, "echo", { text: 42 }));
      const unknown = as({ jsonrpc: "2.0", id: 6, method: "resources/list" });
      // Served by the front until the tools/call, then by the SDK (the era's opening replayed, its
      // replies dropped).
      const steps: [object[], number][] = [
        ...opening,
        [[ping], 4],
        [[as(tool)], 3],
        [[badCall], 5],
        [[unknown], 6],
      ];
      const front = session(name, args);
      for (const [messages, id] of steps) {
        front.send(...messages);
        await front.reply(id);
      }
      // Served by the SDK from the start: a line that is not JSON goes first, which the front hands over
      // and the SDK drops without a reply or any change of state.
      const sdk = session(name, args);
      sdk.sendRaw("{ not json");
      for (const [messages, id] of steps) {
        sdk.send(...messages);
        await sdk.reply(id);
      }
      expect(front.lines).toHaveLength(6);
      expect(front.lines).toEqual(sdk.lines);
    },
  );

  it("a burst sent before the server loaded is answered in order, initialize once", async () => {
    const bin = session("local-tools", []);
    bin.send(
      INITIALIZE,
      INITIALIZED,
      LIST,
      call(3, "echo", { text: "one" }),
      { jsonrpc: "2.0", id: 4, method: "ping" },
      call(5, "word_count", { text: "two words" }),
      { ...LIST, id: 6 },
    );
    for (const id of [1, 2, 3, 4, 5, 6]) await bin.reply(id);
    const replies = bin.lines.map(
      (line) => JSON.parse(line) as { id: number; result: Record<string, unknown> },
    );
    // The front answered 1 and 2 at once; the SDK the rest (in its own order), and initialize only once.
    expect(replies.slice(0, 2).map((r) => r.id)).toEqual([1, 2]);
    expect(replies.map((r) => r.id).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    const byId = new Map(replies.map((r) => [r.id, r.result]));
    expect(byId.get(3)?.content).toEqual([{ type: "text", text: "one" }]);
    expect(byId.get(4)).toEqual({});
    expect(byId.get(5)?.structuredContent).toEqual({ words: 2, characters: 9, lines: 1 });
    expect(byId.get(6)).toEqual(byId.get(2));
  });

  it("a 2026-07-28 burst sent before the server loaded is answered, the opening once", async () => {
    const bin = session("local-tools", []);
    bin.send(
      DISCOVER,
      MODERN_LIST,
      modern(call(3, "echo", { text: "one" })),
      modern({ ...DISCOVER, id: 4 }),
      modern(call(5, "word_count", { text: "two words" })),
      { ...MODERN_LIST, id: 6 },
    );
    for (const id of [1, 2, 3, 4, 5, 6]) await bin.reply(id);
    const replies = bin.lines.map(
      (line) => JSON.parse(line) as { id: number; result: Record<string, unknown> },
    );
    expect(replies.slice(0, 2).map((r) => r.id)).toEqual([1, 2]);
    expect(replies.map((r) => r.id).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    const byId = new Map(replies.map((r) => [r.id, r.result]));
    expect(byId.get(3)?.content).toEqual([{ type: "text", text: "one" }]);
    expect(byId.get(4)).toEqual(byId.get(1));
    expect(byId.get(5)?.structuredContent).toEqual({ words: 2, characters: 9, lines: 1 });
    expect(byId.get(6)).toEqual(byId.get(2));
  });

  it("exits with code 0 when stdin ends, before or after the hand-over", async () => {
    for (const handOver of [false, true]) {
      const bin = session("sequential-thinking", []);
      bin.send(INITIALIZE, INITIALIZED, LIST);
      await bin.reply(2);
      if (handOver) {
        bin.send(
          call(3, "sequentialthinking", {
            thought: "t",
            nextThoughtNeeded: false,
            thoughtNumber: 1,
            totalThoughts: 1,
          }),
        );
        await bin.reply(3);
      }
      const exited = new Promise<number | null>((resolve) => bin.child.once("exit", (code) => resolve(code)));
      bin.child.stdin?.end();
      expect(await exited).toBe(0);
    }
  });
});
