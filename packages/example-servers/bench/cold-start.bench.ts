// Cold start of every stdio bin side by side with the official reference server (devDependencies), for
// both kinds of client: a 2025-era client (spawn → initialize → tools/list) and a 2026-07-28 client
// (spawn → server/discover → tools/list, with the per-request _meta envelope; the official servers speak
// 2025-11-25 only, so that client falls back there: discover's error → initialize → tools/list, as the
// SDK's `auto` mode does). Then the first tools/call of the same connection (where our bins load the SDK
// and the tools). Each round spawns every variant once, in a rotating order, so the noise of this shared
// machine hits all of them alike; medians of COLD_START_SAMPLES rounds (default 21, at least 15).
// Raw JSON lines, in place: the v2 SDK client's `auto` mode runs its probe in a sibling process of its
// own over stdio, which this leaves out (it costs a second spawn of the same server).
// A bare Node.js process that answers the same two requests without any SDK is the floor. Postgres
// compares on TEST_DATABASE_URL's server (the official server needs one); without it, ours runs alone on
// its embedded PGlite. Ratios are ours / official: below 1× means we start faster.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Figures, formatRatio, heading, printFigure, printTable, summarize } from "@agentforge/bench";

const require = createRequire(import.meta.url);
const dist = require.resolve("@agentforge/example-servers/package.json").replace("package.json", "dist/bin/");
const official = (name: string) => require.resolve(`@modelcontextprotocol/server-${name}/dist/index.js`);
const SAMPLES = Math.max(15, Number(process.env.COLD_START_SAMPLES) || 21);
const databaseUrl = process.env.TEST_DATABASE_URL;

/** One way to start a server, and the cheap first call made after tools/list. */
interface Variant {
  name: string;
  args: string[];
  env?: Record<string, string>;
  call: { name: string; arguments: Record<string, unknown> };
}

interface Sample {
  listMs: number;
  callMs: number;
}

/** Which client: the 2025 handshake, or 2026-07-28 (discover first, 2025 fallback on an error). */
type ClientEra = "2025" | "2026";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/**
 * Spawn, open the connection as `era`'s client, list the tools, then make one tools/call; times are
 * from spawn to the tools/list and tools/call replies. Raw JSON lines keep the client's own cost out.
 */
function coldStart(variant: Variant, era: ClientEra): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, variant.args, {
      env: { PATH: process.env.PATH ?? "", DISABLE_THOUGHT_LOGGING: "true", ...variant.env },
      stdio: ["pipe", "pipe", "ignore"],
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${variant.name}: no reply within 60 s`));
    }, 60_000);
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    let modern = false;
    /** A request as this connection's era sends it (with the envelope once 2026-07-28 is in use). */
    const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
      send({ jsonrpc: "2.0", id, method, params: modern ? { ...params, _meta: META } : params });
    const initialize = () =>
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "bench", version: "0" },
        },
      });
    let listMs = 0;
    let pending = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      pending += chunk;
      for (let end = pending.indexOf("\n"); end !== -1; end = pending.indexOf("\n")) {
        const reply = JSON.parse(pending.slice(0, end)) as { id?: number; error?: unknown; result?: unknown };
        pending = pending.slice(end + 1);
        if (reply.id === 0) {
          // server/discover: 2026-07-28 when served, else the 2025 handshake
          if (reply.result) {
            modern = true;
            request(2, "tools/list");
          } else initialize();
          continue;
        }
        if (reply.error) reject(new Error(`${variant.name}: ${JSON.stringify(reply.error)}`));
        if (reply.id === 1) {
          send({ jsonrpc: "2.0", method: "notifications/initialized" });
          request(2, "tools/list");
        } else if (reply.id === 2) {
          listMs = performance.now() - started;
          request(3, "tools/call", variant.call);
        } else if (reply.id === 3) {
          const callMs = performance.now() - started;
          clearTimeout(timer);
          child.once("exit", () => resolve({ listMs, callMs }));
          child.stdin.end();
          setTimeout(() => child.kill("SIGKILL"), 5000).unref();
        }
      }
    });
    child.once("error", reject);
    if (era === "2025") initialize();
    else send({ jsonrpc: "2.0", id: 0, method: "server/discover", params: { _meta: META } });
  });
}

/** Sample every variant `SAMPLES` times, alternating (order rotating per round), after one warm-up each. */
async function alternate(variants: Variant[], era: ClientEra): Promise<{ list: Figures[]; call: Figures[] }> {
  const samples = variants.map(() => [] as Sample[]);
  for (const variant of variants) await coldStart(variant, era);
  for (let round = 0; round < SAMPLES; round++) {
    for (let k = 0; k < variants.length; k++) {
      const index = (round + k) % variants.length;
      const variant = variants[index];
      if (variant) samples[index]?.push(await coldStart(variant, era));
    }
  }
  return {
    list: variants.map((v, i) =>
      summarize(
        v.name,
        (samples[i] ?? []).map((s) => s.listMs),
      ),
    ),
    call: variants.map((v, i) =>
      summarize(
        v.name,
        (samples[i] ?? []).map((s) => s.callMs),
      ),
    ),
  };
}

const work = mkdtempSync(join(tmpdir(), "af-cold-start-"));
const root = join(work, "root");
mkdirSync(root);
/** A server with no SDK at all: the floor of any Node.js MCP server's cold start. */
writeFileSync(
  join(work, "bare.mjs"),
  `import { createInterface } from "node:readline";
createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method } = JSON.parse(line);
  if (id === undefined) return;
  const result = method === "initialize"
    ? { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "bare", version: "0" } }
    : method === "server/discover" ? { supportedVersions: ["2026-07-28"], capabilities: { tools: {} } }
    : method === "tools/list" ? { tools: [] } : { content: [] };
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\\n");
});
`,
);

/**
 * The same server without the stdio front: a script that loads the bin's own lazy modules (the bundled
 * SDK and the tools) at start and serves them with the SDK's serveStdio, as a plain v2 server does. What
 * the front saves is ours ÷ this.
 */
function withoutFront(server: string, module: string, create: string, args: string[] = []): Variant {
  const file = join(work, `no-front-${server}.mjs`);
  writeFileSync(
    file,
    `const { serveStdio } = await import(${JSON.stringify(`${dist}lazy/sdk-stdio.js`)});
const server = await import(${JSON.stringify(`${dist}lazy/${module}.js`)});
serveStdio(() => server.${create});
`,
  );
  return {
    name: "ours without the front (SDK at start)",
    args: [file, ...args],
    call: { name: "", arguments: {} },
  };
}

const bare: Variant = {
  name: "bare Node.js (no SDK)",
  args: [join(work, "bare.mjs")],
  call: { name: "none", arguments: {} },
};

const pairs: { title: string; ours: Variant; official?: Variant; noFront: Variant }[] = [
  {
    title: "filesystem",
    noFront: withoutFront(
      "filesystem",
      "filesystem",
      "createFilesystemServer({ roots: [process.argv[2]] })",
      [root],
    ),
    ours: {
      name: "ours (agentforge-filesystem)",
      args: [`${dist}filesystem.js`, root],
      call: { name: "list_allowed_directories", arguments: {} },
    },
    official: {
      name: "official (server-filesystem)",
      args: [official("filesystem"), root],
      call: { name: "list_allowed_directories", arguments: {} },
    },
  },
  {
    title: "sequential-thinking",
    noFront: withoutFront("sequential-thinking", "sequential-thinking", "createSequentialThinkingServer()"),
    ours: {
      name: "ours (agentforge-sequential-thinking)",
      args: [`${dist}sequential-thinking.js`],
      call: {
        name: "sequentialthinking",
        arguments: { thought: "t", nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 },
      },
    },
    official: {
      name: "official (server-sequential-thinking)",
      args: [official("sequential-thinking")],
      call: {
        name: "sequentialthinking",
        arguments: { thought: "t", nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 },
      },
    },
  },
  {
    title: databaseUrl ? "postgres (TEST_DATABASE_URL)" : "postgres (embedded PGlite; no official figures)",
    noFront: withoutFront(
      "postgres",
      "postgres",
      "createPostgresServer(process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : {})",
    ),
    ours: {
      name: "ours (agentforge-postgres)",
      args: [`${dist}postgres.js`],
      ...(databaseUrl ? { env: { DATABASE_URL: databaseUrl } } : {}),
      call: { name: "execute_query", arguments: { sql: "SELECT 1 AS one" } },
    },
    ...(databaseUrl
      ? {
          official: {
            name: "official (server-postgres)",
            args: [official("postgres"), databaseUrl],
            call: { name: "query", arguments: { sql: "SELECT 1 AS one" } },
          },
        }
      : {}),
  },
  {
    title: "local-tools (no official counterpart: against the smallest official server)",
    noFront: withoutFront("local-tools", "local-tools", "createLocalToolsServer()"),
    ours: {
      name: "ours (agentforge-local-tools)",
      args: [`${dist}local-tools.js`],
      call: { name: "echo", arguments: { text: "hi" } },
    },
    official: {
      name: "official (server-sequential-thinking)",
      args: [official("sequential-thinking")],
      call: {
        name: "sequentialthinking",
        arguments: { thought: "t", nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 },
      },
    },
  },
];

try {
  const summary: [string, string][] = [];
  for (const era of ["2025", "2026"] as const) {
    const opening =
      era === "2025" ? "initialize → tools/list" : "server/discover → tools/list (official: → initialize)";
    heading(
      `cold start, ${era === "2025" ? "2025-era" : "2026-07-28"} client: spawn → ${opening} (median of ${SAMPLES}, Node.js ${process.version})`,
    );
    for (const pair of pairs) {
      heading(`${pair.title} — ${era === "2025" ? "2025-era" : "2026-07-28"} client`);
      // The server without the front makes the same call with the same environment as ours.
      const noFront: Variant = {
        ...pair.noFront,
        call: pair.ours.call,
        ...(pair.ours.env ? { env: pair.ours.env } : {}),
      };
      const variants = [pair.official, pair.ours, noFront, bare].filter((v): v is Variant => v !== undefined);
      const { list, call } = await alternate(variants, era);
      console.log("  spawn → tools/list answered");
      printTable(list);
      console.log("  spawn → tools/list → first tools/call answered (ours loads the SDK and the tools here)");
      printTable(call);
      const offset = pair.official ? 1 : 0;
      const [theirs, mine, plain] = [pair.official ? list[0] : undefined, list[offset], list[offset + 1]];
      if (theirs && mine && plain) {
        summary.push([`${pair.title}, ${era} client`, formatRatio(mine.medianMs, theirs.medianMs)]);
        summary.push([`  without the front`, formatRatio(plain.medianMs, theirs.medianMs)]);
      } else if (mine && plain) {
        summary.push([
          `${pair.title}, ${era} client: ours / without the front`,
          formatRatio(mine.medianMs, plain.medianMs),
        ]);
      }
    }
  }
  heading("summary: median spawn → tools/list, ours / official (target ≤ 0.5×)");
  for (const [title, ratio] of summary) printFigure(title, ratio);
} finally {
  rmSync(work, { recursive: true, force: true });
}
