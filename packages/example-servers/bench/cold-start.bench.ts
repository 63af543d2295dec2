// Cold start of every stdio bin side by side with the official reference server (devDependencies): spawn
// → initialize → tools/list, then the first tools/call of the same session (where our bins load the SDK
// and the tools). Each round spawns every variant once, in a rotating order, so the noise of this shared
// machine hits all of them alike; medians of COLD_START_SAMPLES rounds (default 21, at least 15).
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

/**
 * Spawn, send initialize, then (on its reply) notifications/initialized and tools/list, then one
 * tools/call; times are from spawn to each reply. Raw JSON lines keep the client's own cost out.
 */
function coldStart(variant: Variant): Promise<Sample> {
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
    let listMs = 0;
    let pending = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      pending += chunk;
      for (let end = pending.indexOf("\n"); end !== -1; end = pending.indexOf("\n")) {
        const reply = JSON.parse(pending.slice(0, end)) as { id?: number; error?: unknown };
        pending = pending.slice(end + 1);
        if (reply.error) reject(new Error(`${variant.name}: ${JSON.stringify(reply.error)}`));
        if (reply.id === 1) {
          send({ jsonrpc: "2.0", method: "notifications/initialized" });
          send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
        } else if (reply.id === 2) {
          listMs = performance.now() - started;
          send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: variant.call });
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
  });
}

/** Sample every variant `SAMPLES` times, alternating (order rotating per round), after one warm-up each. */
async function alternate(variants: Variant[]): Promise<{ list: Figures[]; call: Figures[] }> {
  const samples = variants.map(() => [] as Sample[]);
  for (const variant of variants) await coldStart(variant);
  for (let round = 0; round < SAMPLES; round++) {
    for (let k = 0; k < variants.length; k++) {
      const index = (round + k) % variants.length;
      const variant = variants[index];
      if (variant) samples[index]?.push(await coldStart(variant));
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
    : method === "tools/list" ? { tools: [] } : { content: [] };
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\\n");
});
`,
);

const bare: Variant = {
  name: "bare Node.js (no SDK)",
  args: [join(work, "bare.mjs")],
  call: { name: "none", arguments: {} },
};

const pairs: { title: string; ours: Variant; official?: Variant }[] = [
  {
    title: "filesystem",
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
  heading(`cold start: spawn → initialize → tools/list (median of ${SAMPLES}, Node.js ${process.version})`);
  const summary: [string, string][] = [];
  for (const pair of pairs) {
    heading(pair.title);
    const variants = [pair.official, pair.ours, bare].filter((v): v is Variant => v !== undefined);
    const { list, call } = await alternate(variants);
    console.log("  spawn → tools/list answered");
    printTable(list);
    console.log("  spawn → tools/list → first tools/call answered (ours loads the SDK and the tools here)");
    printTable(call);
    const [theirs, mine] = pair.official ? [list[0], list[1]] : [undefined, list[0]];
    if (theirs && mine) summary.push([pair.title, formatRatio(mine.medianMs, theirs.medianMs)]);
  }
  heading("summary: median spawn → tools/list, ours / official (target ≤ 0.5×)");
  for (const [title, ratio] of summary) printFigure(title, ratio);
} finally {
  rmSync(work, { recursive: true, force: true });
}
