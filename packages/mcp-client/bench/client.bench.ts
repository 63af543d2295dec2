// `pnpm bench`: what the manager costs on top of the raw SDK client, what connection reuse buys, how
// discovery scales, and how a 50 MB reply is read. Runs against dist/ (self-reference by package name).
import {
  type Figures,
  formatMs,
  formatRatio,
  heading,
  printFigure,
  printTable,
  summarize,
} from "@agentforge/bench";
import { discoverAll, discoverTools, MCPClientManager, MCPStdioTransport } from "@agentforge/mcp-client";
import { STDIO_TEST_SERVER, stdioTestServer } from "@agentforge/test-servers";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const MB = 1024 * 1024;
const args = { a: 1, b: 2 };
const clientInfo = { name: "bench", version: "1.0.0" };

async function sdkClient(maxBufferSize?: number): Promise<Client> {
  const client = new Client(clientInfo);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [STDIO_TEST_SERVER],
      stderr: "ignore",
      ...(maxBufferSize ? { maxBufferSize } : {}),
    }),
  );
  return client;
}

async function clientOverOurTransport(): Promise<Client> {
  const client = new Client(clientInfo);
  await client.connect(
    new MCPStdioTransport({ command: process.execPath, args: [STDIO_TEST_SERVER], stderrLogPath: false }),
  );
  return client;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; result?: T; error?: Error }> {
  const started = performance.now();
  try {
    const result = await fn();
    return { ms: performance.now() - started, result };
  } catch (error) {
    return { ms: performance.now() - started, error: error as Error };
  }
}

const raw = await sdkClient();
const rawOurs = await clientOverOurTransport();
const manager = new MCPClientManager([stdioTestServer("bench")], { logDir: false });
// Warm up every client and its server process (JIT on both sides) before measuring any of them.
for (let i = 0; i < 3000; i++) {
  await raw.callTool({ name: "add", arguments: args });
  await rawOurs.callTool({ name: "add", arguments: args });
  await manager.callTool("bench", "add", args);
}

/**
 * Interleaved measurement: the variants take turns (in rotating order) for `rounds` rounds of `batch`
 * operations each, so machine noise (this box is shared) hits them alike. One sample per operation.
 */
async function interleaved(
  title: string,
  variants: { name: string; fn: () => Promise<unknown> }[],
  rounds: number,
  batch: number,
): Promise<Figures[]> {
  heading(title);
  const samples = variants.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const index = (round + k) % variants.length;
      const variant = variants[index] as (typeof variants)[number];
      const out = samples[index] as number[];
      for (let i = 0; i < batch; i++) {
        const started = performance.now();
        await variant.fn();
        out.push(performance.now() - started);
      }
    }
  }
  const rows = variants.map((variant, index) => summarize(variant.name, samples[index] as number[]));
  printTable(rows);
  return rows;
}

// 1. Sequential calls on one connection.
const sequential = await interleaved(
  "stdio: one trivial tool call at a time, one connection (interleaved, 40 × 250 calls per variant)",
  [
    {
      name: "raw SDK Client (SDK stdio transport)",
      fn: () => raw.callTool({ name: "add", arguments: args }),
    },
    {
      name: "raw SDK Client (MCPStdioTransport)",
      fn: () => rawOurs.callTool({ name: "add", arguments: args }),
    },
    { name: "MCPClientManager.callTool", fn: () => manager.callTool("bench", "add", args) },
  ],
  40,
  250,
);
const [rawSeq, rawOursSeq, managerSeq] = sequential;
if (rawSeq && rawOursSeq && managerSeq) {
  printFigure("sequential calls/s, raw SDK Client", rawSeq.opsPerSec);
  printFigure("sequential calls/s, MCPClientManager", managerSeq.opsPerSec);
  printFigure(
    "manager / raw SDK Client, median latency (target <= 1.10)",
    formatRatio(managerSeq.medianMs, rawSeq.medianMs),
  );
  printFigure(
    "manager / raw SDK Client on the same transport (manager alone)",
    formatRatio(managerSeq.medianMs, rawOursSeq.medianMs),
  );
}

// 2. 64 calls in flight.
const IN_FLIGHT = 64;
const batch = (call: () => Promise<unknown>) => () => Promise.all(Array.from({ length: IN_FLIGHT }, call));
const concurrent = await interleaved(
  `stdio: ${IN_FLIGHT} calls in flight, one connection (one sample = ${IN_FLIGHT} calls; interleaved)`,
  [
    {
      name: "raw SDK Client (SDK stdio transport)",
      fn: batch(() => raw.callTool({ name: "add", arguments: args })),
    },
    {
      name: "raw SDK Client (MCPStdioTransport)",
      fn: batch(() => rawOurs.callTool({ name: "add", arguments: args })),
    },
    { name: "MCPClientManager.callTool", fn: batch(() => manager.callTool("bench", "add", args)) },
  ],
  30,
  20,
);
for (const row of concurrent)
  printFigure(`calls/s with ${IN_FLIGHT} in flight, ${row.name}`, row.opsPerSec * IN_FLIGHT);

// 3. Reconnect per call (what the Python system did).
heading("stdio: reconnect per call (spawn + handshake + call + close) vs the persistent connection");
const reconnectSamples: number[] = [];
for (let i = 0; i < 10; i++) {
  const started = performance.now();
  const client = await sdkClient();
  await client.callTool({ name: "add", arguments: args });
  await client.close();
  reconnectSamples.push(performance.now() - started);
}
const reconnect = summarize("raw SDK Client, reconnect per call", reconnectSamples);
printTable(managerSeq ? [{ ...managerSeq, name: "MCPClientManager (persistent)" }, reconnect] : [reconnect]);
if (managerSeq) {
  printFigure(
    "persistent calls/s / reconnect-per-call calls/s (target >= 500)",
    formatRatio(managerSeq.opsPerSec, reconnect.opsPerSec),
  );
}

await raw.close();
await rawOurs.close();
await manager.closeAll();

// 4. Discovery of 4 local servers in parallel vs the slowest alone.
// Cold: a fresh manager each time, so every sample spawns the servers and does the handshakes.
async function coldDiscovery(
  delays: number[],
  samples: number,
  mode: "parallel" | "sequential",
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const configs = delays.map((ms, j) => stdioTestServer(`s${j}`, { startupDelayMs: ms }));
    const fresh = new MCPClientManager(configs, { logDir: false });
    const started = performance.now();
    if (mode === "parallel") {
      const result = await discoverAll(fresh);
      if (result.servers.some((s) => s.status !== "ok")) throw new Error("discovery failed");
    } else {
      for (const config of configs) await discoverTools(fresh, config.name);
    }
    out.push(performance.now() - started);
    await fresh.closeAll();
  }
  return out;
}
const WAITS = [250, 500, 750, 1000];
heading(`discovery: 4 stdio servers that wait ${WAITS.join("/")} ms before they are ready`);
const slowest = summarize("slowest server alone", await coldDiscovery([1000], 5, "parallel"));
const parallel = summarize("discoverAll, 4 servers in parallel", await coldDiscovery(WAITS, 5, "parallel"));
const oneByOne = summarize("the same 4, one after the other", await coldDiscovery(WAITS, 5, "sequential"));
printTable([slowest, parallel, oneByOne]);
printFigure(
  "parallel / slowest alone (median; target <= 1.5)",
  formatRatio(parallel.medianMs, slowest.medianMs),
);
heading("discovery: 4 stdio servers with no wait (start-up is Node + SDK loading: CPU-bound on 2 cores)");
const one = summarize("one server alone", await coldDiscovery([0], 6, "parallel"));
const four = summarize(
  "discoverAll, 4 servers in parallel",
  await coldDiscovery([0, 0, 0, 0], 6, "parallel"),
);
const fourOneByOne = summarize(
  "the same 4, one after the other",
  await coldDiscovery([0, 0, 0, 0], 6, "sequential"),
);
printTable([one, four, fourOneByOne]);

// 5. A 50 MB reply.
heading("a 50 MB tool reply over stdio (target: handled or refused in < 3 s)");
const BIG = 50 * 1000 * 1000;
const big = new MCPClientManager([stdioTestServer("big")], { logDir: false });
const capped = new MCPClientManager([stdioTestServer("capped", {}, { maxMessageBytes: 10 * MB })], {
  logDir: false,
});
await big.callTool("big", "add", args);
await capped.callTool("capped", "add", args);
const handledSamples: number[] = [];
const refusedSamples: number[] = [];
let refusedMessage = "";
for (let i = 0; i < 3; i++) {
  const handled = await timed(() => big.callTool("big", "big", { bytes: BIG }));
  if (handled.error) throw handled.error;
  handledSamples.push(handled.ms);
  const refused = await timed(() => capped.callTool("capped", "big", { bytes: BIG }));
  if (!refused.error) throw new Error("expected the capped server to refuse");
  refusedMessage = refused.error.message;
  refusedSamples.push(refused.ms);
}
const afterRefusal = await timed(() => capped.callTool("capped", "add", args));
await big.closeAll();
await capped.closeAll();
printTable([
  summarize("MCPClientManager, 50 MB reply (limit 64 MiB)", handledSamples),
  summarize("MCPClientManager, refused (limit 10 MiB)", refusedSamples),
]);
printFigure(
  "next call on the same connection after the refusal",
  afterRefusal.error ? "failed" : formatMs(afterRefusal.ms),
);
printFigure("refusal message", `${refusedMessage.slice(0, 120)}…`);

const sdkDefault = await sdkClient();
const sdkDropped = await timed(() =>
  sdkDefault.callTool({ name: "big", arguments: { bytes: BIG } }, { timeout: 120_000 }),
);
printFigure(
  "raw SDK Client (10 MiB buffer), 50 MB reply",
  `${formatMs(sdkDropped.ms)}: ${sdkDropped.error ? sdkDropped.error.message : "ok"}`,
);
await sdkDefault.close().catch(() => {});
const sdkLarge = await sdkClient(64 * MB);
const sdkSlow = await timed(() =>
  sdkLarge.callTool({ name: "big", arguments: { bytes: BIG } }, { timeout: 300_000 }),
);
printFigure(
  "raw SDK Client (64 MiB buffer), 50 MB reply",
  `${formatMs(sdkSlow.ms)}${sdkSlow.error ? `: ${sdkSlow.error.message}` : ""}`,
);
await sdkLarge.close();
