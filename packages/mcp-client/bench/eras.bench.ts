// `pnpm --filter @agentforge/mcp-client bench:eras`: the manager's call path against the raw v2 SDK client,
// on both protocol revisions, over stdio and Streamable HTTP, against a first-party server
// (@agentforge/example-servers' local-tools, built dist; it serves both revisions).
//
// Paired A/B: every figure is measured in rounds, each round running the raw client and the manager once
// in alternating order, so a change of load on this shared machine lands on both sides of the pair alike.
// Printed: the median over rounds of each side and the median of the per-round ratios (with their
// interquartile range, how much the pairs disagree).
//   - per call: the median latency of BENCH_CALLS sequential `echo` calls;
//   - in flight: BENCH_BATCHES batches of 64 calls sent at once, as calls per second;
//   - client CPU: CPU time of this process (user + system) per call, which waiting for the
//     server (another process) does not count, so it holds steadier under load than wall time.
// Fairness is checked before measuring (and the bench fails if it does not hold): both sides reach the
// same server (same URL, or the same binary and arguments), negotiated the same revision, get the same
// result for the same payload, and are warmed up alike. The figures are printed, never asserted.
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import {
  formatRatio,
  heading,
  median,
  type PairedFigure,
  pairedRounds,
  pairedSummary,
  printFigure,
  type RoundFigures,
} from "@agentforge/bench";
import { MCPClientManager } from "@agentforge/mcp-client";
import type { MCPServerConfig } from "@agentforge/mcp-config";
import {
  Client,
  StreamableHTTPClientTransport,
  type VersionNegotiationMode,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const require = createRequire(import.meta.url);
const serverBin = join(
  dirname(require.resolve("@agentforge/example-servers/package.json")),
  "dist",
  "bin",
  "local-tools.js",
);
const ERAS = [
  { revision: "2025-11-25", mode: "legacy" as VersionNegotiationMode },
  { revision: "2026-07-28", mode: { pin: "2026-07-28" } as VersionNegotiationMode },
] as const;
const args = { text: "hello" };
const IN_FLIGHT = 64;
const envInt = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
const ROUNDS = envInt("BENCH_ROUNDS", 20);
const CALLS = envInt("BENCH_CALLS", 100);
const BATCHES = envInt("BENCH_BATCHES", 4);
const WARMUP_CALLS = envInt("BENCH_WARMUP", 500);

/** Start local-tools over HTTP on a free loopback port; resolves with its URL once it listens. */
function startHttp(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [serverBin, "--http", "--port", "0"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`local-tools exited (${code}): ${stderr}`)));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const match = /listening on (\S+)/.exec(stderr);
      if (match?.[1]) {
        child.removeAllListeners("exit");
        resolve({ url: match[1], child });
      }
    });
  });
}

/** The server each side reaches: the same for both, or the comparison is not fair. */
interface Target {
  url?: string;
  command: string;
  args: string[];
}

async function rawClient(mode: VersionNegotiationMode, target: Target): Promise<Client> {
  const client = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(
    target.url
      ? new StreamableHTTPClientTransport(new URL(target.url))
      : new StdioClientTransport({ command: target.command, args: target.args, stderr: "ignore" }),
  );
  return client;
}

function config(revision: string, target: Target): MCPServerConfig {
  const common = {
    name: "bench",
    enabled: true,
    connectionTimeout: 60,
    toolTimeout: 60,
    resetTimeoutOnProgress: false,
    protocolVersion: revision as "2025-11-25" | "2026-07-28",
  };
  return target.url
    ? { ...common, transport: "http", url: target.url, headers: {}, auth: { type: "none" } }
    : { ...common, transport: "stdio", command: target.command, args: target.args, env: {} };
}

/** A side of the pair: its call, and how many calls it has made (to check both were warmed up alike). */
interface Side {
  name: string;
  calls: number;
  call: () => Promise<unknown>;
}

function side(name: string, call: () => Promise<unknown>): Side {
  const out: Side = {
    name,
    calls: 0,
    call: () => {
      out.calls++;
      return call();
    },
  };
  return out;
}

const cpuMicros = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

/** One round of sequential calls: median latency (ms) and client CPU per call (µs). */
async function sequentialRound(s: Side): Promise<RoundFigures> {
  const samples: number[] = new Array(CALLS);
  const cpu = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await s.call();
    samples[i] = performance.now() - started;
  }
  return { medianMs: median(samples), cpuUs: cpuMicros(cpu) / CALLS };
}

/** One round of `BATCHES` batches of 64 concurrent calls: calls/s and client CPU per call (µs). */
async function inFlightRound(s: Side): Promise<RoundFigures> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let batch = 0; batch < BATCHES; batch++) {
    await Promise.all(Array.from({ length: IN_FLIGHT }, s.call));
  }
  const seconds = (performance.now() - started) / 1000;
  return { callsPerSec: (BATCHES * IN_FLIGHT) / seconds, cpuUs: cpuMicros(cpu) / (BATCHES * IN_FLIGHT) };
}

/** Throws unless both sides reach the same server, on the same revision, and answer the payload alike. */
async function checkFairness(
  revision: string,
  raw: Client,
  rawSide: Side,
  manager: MCPClientManager,
  managerSide: Side,
  target: Target,
): Promise<void> {
  const managed = await manager.getClient("bench");
  const problems: string[] = [];
  const rawVersion = raw.getNegotiatedProtocolVersion();
  const managerVersion = manager.connectionStatus("bench").protocolVersion;
  if (rawVersion !== revision || managerVersion !== revision) {
    problems.push(`negotiated ${rawVersion} (raw) and ${managerVersion} (manager), expected ${revision}`);
  }
  if (!isDeepStrictEqual(raw.getServerVersion(), managed.getServerVersion())) {
    problems.push("the two sides reached servers with different serverInfo");
  }
  const managerConfig = manager.getConfig("bench");
  const sameTarget =
    managerConfig.transport === "stdio"
      ? target.url === undefined &&
        managerConfig.command === target.command &&
        isDeepStrictEqual(managerConfig.args, target.args)
      : managerConfig.transport === "http" && managerConfig.url === target.url;
  if (!sameTarget) problems.push("the manager's server config is not the raw client's target");
  const [rawResult, managerResult] = [await rawSide.call(), await managerSide.call()];
  if (!isDeepStrictEqual(rawResult, managerResult)) {
    problems.push(
      `same payload, different results: ${JSON.stringify(rawResult)} vs ${JSON.stringify(managerResult)}`,
    );
  }
  if (rawSide.calls !== managerSide.calls || rawSide.calls < WARMUP_CALLS) {
    problems.push(`warm-up calls: ${rawSide.calls} (raw) and ${managerSide.calls} (manager)`);
  }
  if (problems.length > 0) throw new Error(`unfair comparison (${revision}): ${problems.join("; ")}`);
}

function line(label: string, figure: PairedFigure, unit: string, digits = 0): string {
  const show = (value: number) => (digits === 0 ? String(Math.round(value)) : value.toFixed(digits));
  return `${label.padEnd(12)} raw ${show(figure.baseline)} ${unit}, manager ${show(figure.candidate)} ${unit}: ${formatRatio(figure.ratio, 1)} (IQR ${figure.ratioLow.toFixed(2)}–${figure.ratioHigh.toFixed(2)})`;
}

const http = await startHttp();
const summary: string[] = [];
try {
  for (const transport of ["stdio", "http"] as const) {
    for (const era of ERAS) {
      const target: Target =
        transport === "http"
          ? { url: http.url, command: process.execPath, args: [serverBin] }
          : { command: process.execPath, args: [serverBin] };
      const raw = await rawClient(era.mode, target);
      const manager = new MCPClientManager([config(era.revision, target)], { logDir: false });
      try {
        const rawSide = side("raw", () => raw.callTool({ name: "echo", arguments: args }));
        const managerSide = side("manager", () => manager.callTool("bench", "echo", args));
        // Warm-up, alike for both: sequential calls interleaved, then one round of each measurement.
        for (let i = 0; i < WARMUP_CALLS - BATCHES * IN_FLIGHT - CALLS; i++) {
          await rawSide.call();
          await managerSide.call();
        }
        await pairedRounds(
          1,
          () => sequentialRound(rawSide),
          () => sequentialRound(managerSide),
        );
        await pairedRounds(
          1,
          () => inFlightRound(rawSide),
          () => inFlightRound(managerSide),
        );
        await checkFairness(era.revision, raw, rawSide, manager, managerSide, target);

        heading(`${transport}, ${era.revision}: ${ROUNDS} paired rounds (raw v2 Client vs MCPClientManager)`);
        const sequential = await pairedRounds(
          ROUNDS,
          () => sequentialRound(rawSide),
          () => sequentialRound(managerSide),
        );
        const inFlight = await pairedRounds(
          ROUNDS,
          () => inFlightRound(rawSide),
          () => inFlightRound(managerSide),
        );
        const perCall = pairedSummary(sequential, "medianMs");
        const perCallCpu = pairedSummary(sequential, "cpuUs");
        const rate = pairedSummary(inFlight, "callsPerSec");
        const rateCpu = pairedSummary(inFlight, "cpuUs");
        const lines = [
          line("per call", perCall, "ms", 3),
          line("  CPU/call", perCallCpu, "µs"),
          line(`${IN_FLIGHT} in flight`, rate, "calls/s"),
          line("  CPU/call", rateCpu, "µs"),
        ];
        for (const text of lines) console.log(`  ${text}`);
        printFigure("calls per side (warm-up included)", rawSide.calls);
        summary.push(
          `${transport.padEnd(6)} ${era.revision}  per call ${formatRatio(perCall.ratio, 1)} of raw (CPU ${formatRatio(perCallCpu.ratio, 1)}); ${IN_FLIGHT} in flight ${formatRatio(rate.ratio, 1)} of raw's calls/s (CPU ${formatRatio(rateCpu.ratio, 1)})`,
        );
      } finally {
        await manager.closeAll();
        await raw.close();
      }
    }
  }
} finally {
  http.child.kill("SIGTERM");
}
heading(
  "summary: manager ÷ raw v2 client, median of per-round ratios (targets: per call ≤ 1.00×, in flight ≥ 1.00×)",
);
for (const text of summary) console.log(`  ${text}`);
