// `pnpm bench`: what governance costs per call against a real third-party server. The official
// filesystem server (@modelcontextprotocol/server-filesystem, a devDependency of example-servers) is
// spawned once per variant and trial over stdio (3 trials, BENCH_TRIALS), and its cheapest tool (`list_allowed_directories`: no arguments,
// no filesystem access, one short text part plus structuredContent checked against its output schema)
// is called side by side, in alternating batches in one run, through:
//   1. the raw SDK Client (SDK stdio transport; listTools first, so it checks the output schema too),
//   2. MCPClientManager.callTool,
//   3. the whole governed MCPToolExecutor.execute (registry lookup, policy decision, argument check,
//      STARTED/COMPLETED events with listeners, bounded rendering),
//   4. LangChain's MCP adapters, when `@langchain/mcp-adapters` is installed (it is not a dependency),
//   5. a bare pipe client (bare-client.ts: no SDK, no check of any kind). It is not a competitor: what
//      it reaches with 64 calls in flight is the server's own limit, which bounds every client's ratio.
// Figures: per-call median with one call at a time, and calls/s with 64 calls in flight; ratios are to
// the raw SDK Client (≤ 1.00× latency and ≥ 1.20× throughput are the targets).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_STARTED,
  MCPToolExecutor,
} from "@agentforge/agent-runtime";
import {
  type Figures,
  formatMs,
  formatRatio,
  heading,
  printFigure,
  printTable,
  summarize,
} from "@agentforge/bench";
import { MCPClientManager } from "@agentforge/mcp-client";
import type { MCPServerConfig } from "@agentforge/mcp-config";
import { MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BareStdioClient } from "./bare-client.js";

const TOOL = "list_allowed_directories";
const IN_FLIGHT = 64;
const BARE = "bare pipe client (server's limit)";
const scale = Number(process.env.BENCH_SCALE) > 0 ? Number(process.env.BENCH_SCALE) : 1;

// The official server is a devDependency of example-servers, resolved from there.
const require = createRequire(import.meta.url);
const official = createRequire(require.resolve("@agentforge/example-servers/package.json")).resolve(
  "@modelcontextprotocol/server-filesystem/dist/index.js",
);

interface Variant {
  name: string;
  call: () => Promise<unknown>;
  /** The variant's own server process, for its CPU time (Linux /proc). */
  serverPid?: () => number | undefined;
}

/** CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat; undefined off Linux. */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the line (12 and 13 after the command), in clock ticks.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
/** Linux's USER_HZ: /proc reports CPU time in hundredths of a second on every common build. */
const CLOCK_TICKS = 100;

/**
 * Where each variant's time goes with 64 calls in flight: the server's CPU per call (its own process),
 * this process's CPU per call, and how busy the server was while the variant's batches ran — the server's
 * CPU per call bounds any client's throughput.
 */
interface CpuAccount {
  wallMs: number;
  serverMs: number;
  clientMs: number;
  calls: number;
}

const emptyAccount = (): CpuAccount => ({ wallMs: 0, serverMs: 0, clientMs: 0, calls: 0 });

/** CPU time `ms` spread over the calls of `account`, in µs per call. */
const perCall = (ms: number, account: CpuAccount) => `${((ms * 1000) / account.calls).toFixed(1)} µs`;

/** LangChain's MCP adapters, when installed anywhere this package can resolve them (never required). */
async function langchainVariant(
  serverArgs: string[],
): Promise<{ variant: Variant; close: () => Promise<void> } | string> {
  const specifier = "@langchain/mcp-adapters";
  let adapters: {
    MultiServerMCPClient: new (
      config: unknown,
    ) => {
      getTools(): Promise<{ name: string; invoke(input: unknown): Promise<unknown> }[]>;
      close(): Promise<void>;
    };
  };
  try {
    adapters = await import(specifier);
  } catch {
    return "not installed (not a dependency of this repo), so not measured";
  }
  const client = new adapters.MultiServerMCPClient({
    mcpServers: { fs: { transport: "stdio", command: process.execPath, args: serverArgs } },
  });
  const tool = (await client.getTools()).find((t) => t.name.endsWith(TOOL));
  if (!tool) throw new Error(`LangChain adapters: no ${TOOL} tool`);
  return {
    variant: { name: "LangChain MCP adapters", call: () => tool.invoke({}) },
    close: () => client.close(),
  };
}

/** Variants take turns (rotating order) for `rounds` rounds of `batch` samples each; one sample per op. */
async function interleaved(
  variants: Variant[],
  rounds: number,
  batch: number,
  op: (v: Variant) => Promise<unknown>,
  accounts?: CpuAccount[],
  keep?: number[][],
) {
  const samples = variants.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const index = (round + k) % variants.length;
      const variant = variants[index] as Variant;
      const out = samples[index] as number[];
      const account = accounts?.[index];
      const pid = variant.serverPid?.();
      const serverBefore = account ? processCpuMs(pid) : undefined;
      const clientBefore = account ? process.cpuUsage() : undefined;
      const batchStarted = performance.now();
      for (let i = 0; i < batch; i++) {
        const started = performance.now();
        await op(variant);
        out.push(performance.now() - started);
      }
      if (account && clientBefore) {
        const client = process.cpuUsage(clientBefore);
        const serverAfter = processCpuMs(pid);
        account.wallMs += performance.now() - batchStarted;
        account.clientMs += (client.user + client.system) / 1000;
        if (serverBefore !== undefined && serverAfter !== undefined)
          account.serverMs += serverAfter - serverBefore;
        account.calls += batch * IN_FLIGHT;
      }
    }
  }
  if (keep) {
    samples.forEach((list, index) => {
      keep[index] = [...(keep[index] ?? []), ...list];
    });
  }
  return variants.map((variant, index) => summarize(variant.name, samples[index] as number[]));
}

const inFlight = (variant: Variant) => Promise.all(Array.from({ length: IN_FLIGHT }, variant.call));

/** Fresh server processes per trial: one server process alone can be ±10% off its siblings. */
const TRIALS = Math.max(1, Number(process.env.BENCH_TRIALS) > 0 ? Number(process.env.BENCH_TRIALS) : 3);

interface Trial {
  variants: Variant[];
  seen: { started: number; completed: number; failed: number };
  close: () => Promise<void>;
}

/** A stdio server to measure against: its arguments after the Node.js executable, and a text its reply holds. */
interface BenchServer {
  args: string[];
  replyHolds: string;
}

/** Every variant with a server process of its own, connected and checked. */
async function startTrial(server: BenchServer, withLangChain: boolean): Promise<Trial> {
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const closeOne of closers.reverse()) await closeOne().catch(() => undefined);
  };
  try {
    // 1. Raw SDK client.
    const raw = new Client({ name: "bench-raw", version: "0" });
    const rawTransport = new StdioClientTransport({
      command: process.execPath,
      args: server.args,
      stderr: "ignore",
    });
    await raw.connect(rawTransport);
    closers.push(() => raw.close());
    await raw.listTools(); // caches the output-schema validators, as any real client would have them
    const rawCall = () => raw.callTool({ name: TOOL, arguments: {} });

    // 2. Manager; 3. governed executor on its own manager (its own server process).
    const config = (name: string): MCPServerConfig =>
      ({
        name,
        enabled: true,
        transport: "stdio",
        command: process.execPath,
        args: server.args,
        env: {},
        connectionTimeout: 60,
        toolTimeout: 30,
        resetTimeoutOnProgress: false,
      }) as MCPServerConfig;
    const manager = new MCPClientManager([config("fs")], { logDir: false });
    closers.push(() => manager.closeAll());
    await manager.listTools("fs");
    const governedManager = new MCPClientManager([config("fs")], { logDir: false });
    closers.push(() => governedManager.closeAll());
    const registry = new MCPToolRegistry();
    registry.register("fs", await governedManager.listTools("fs"));
    const executor = new MCPToolExecutor({
      clientManager: governedManager,
      registry,
      policy: new MCPPermissionPolicy({ agent: ["fs.*"] }),
    });
    const seen = { started: 0, completed: 0, failed: 0 };
    executor.on(MCP_TOOL_CALL_STARTED, () => {
      seen.started++;
    });
    executor.on(MCP_TOOL_CALL_COMPLETED, () => {
      seen.completed++;
    });
    executor.on(MCP_TOOL_CALL_FAILED, () => {
      seen.failed++;
    });
    const identity = `fs.${TOOL}`;
    // Sanity: the governed path renders the server's text.
    const check = await executor.execute("agent", identity, {});
    if (!check.text.includes(server.replyHolds)) throw new Error(`unexpected result text: ${check.text}`);

    const variants: Variant[] = [
      { name: "raw SDK Client.callTool", call: rawCall, serverPid: () => rawTransport.pid ?? undefined },
      {
        name: "MCPClientManager.callTool",
        call: () => manager.callTool("fs", TOOL, {}),
        serverPid: () => manager.connectionStatus("fs").pid,
      },
      {
        name: "MCPToolExecutor.execute (governed)",
        call: () => executor.execute("agent", identity, {}),
        serverPid: () => governedManager.connectionStatus("fs").pid,
      },
    ];
    if (withLangChain) {
      const langchain = await langchainVariant(server.args);
      if (typeof langchain !== "string") {
        variants.push(langchain.variant);
        closers.push(langchain.close);
      }
    }
    // 5. The server's limit.
    const bare = await BareStdioClient.start(process.execPath, server.args);
    closers.push(() => bare.close());
    variants.push({
      name: BARE,
      call: () => bare.request("tools/call", { name: TOOL, arguments: {} }),
      serverPid: () => bare.pid,
    });
    return { variants, seen, close };
  } catch (error) {
    await close();
    throw error;
  }
}

const root = mkdtempSync(join(tmpdir(), "af-governed-bench-"));
const officialServer: BenchServer = { args: [official, root], replyHolds: root };
try {
  const langchain = await langchainVariant(officialServer.args);
  if (typeof langchain === "string") {
    heading("LangChain MCP adapters");
    printFigure("@langchain/mcp-adapters", langchain);
  } else {
    await langchain.close();
  }

  heading("machine");
  printFigure(
    "cores / load average (1, 5, 15 min) at start",
    `${availableParallelism()} / ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );

  // Short turns (50 calls, 5 batches), many rounds, over several trials with fresh server processes:
  // load changes on this shared machine, and differences between server processes, hit all alike.
  const seqRounds = Math.max(2, Math.round((200 * scale) / TRIALS));
  const batchRounds = Math.max(2, Math.round((120 * scale) / TRIALS));
  let names: string[] = [];
  const sequentialSamples: number[][] = [];
  const concurrentSamples: number[][] = [];
  const accounts: CpuAccount[] = [];
  const seen = { started: 0, completed: 0, failed: 0 };
  const addSeen = (more: Trial["seen"]) => {
    seen.started += more.started;
    seen.completed += more.completed;
    seen.failed += more.failed;
  };
  const perTrial: string[] = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    const {
      variants,
      seen: trialSeen,
      close,
    } = await startTrial(officialServer, typeof langchain !== "string");
    try {
      names = variants.map((v) => v.name);
      while (accounts.length < variants.length) accounts.push(emptyAccount());
      // Warm-up of both sides (JIT in this process and in each server process).
      for (let i = 0; i < (2000 * scale) / TRIALS; i++) for (const v of variants) await v.call();
      for (let i = 0; i < (20 * scale) / TRIALS; i++) for (const v of variants) await inFlight(v);
      const sequential = await interleaved(
        variants,
        seqRounds,
        50,
        (v) => v.call(),
        undefined,
        sequentialSamples,
      );
      const concurrent = await interleaved(variants, batchRounds, 5, inFlight, accounts, concurrentSamples);
      const [rawSeq] = sequential as [Figures];
      const [rawBatch] = concurrent as [Figures];
      const governedSeq = sequential[2];
      const governedBatch = concurrent[2];
      if (governedSeq && governedBatch) {
        perTrial.push(
          `per call ${formatRatio(governedSeq.medianMs, rawSeq.medianMs)}, throughput ${formatRatio(rawBatch.medianMs, governedBatch.medianMs)}`,
        );
      }
      addSeen(trialSeen);
    } finally {
      await close();
    }
  }

  heading(
    `official filesystem server over stdio: ${TOOL}, one call at a time (${TRIALS} trials with fresh servers; interleaved, ${seqRounds} × 50 per variant each)`,
  );
  const sequential = names.map((name, i) => summarize(name, sequentialSamples[i] ?? []));
  printTable(sequential);
  const [base] = sequential as [Figures];
  for (const row of sequential.slice(1)) {
    printFigure(
      `${row.name}: ratio (median; target ≤ 1.00×)`,
      `${formatRatio(row.medianMs, base.medianMs)} (${formatMs(row.medianMs - base.medianMs)} per call)`,
    );
  }

  heading(
    `official filesystem server over stdio: ${TOOL}, ${IN_FLIGHT} calls in flight (one sample = ${IN_FLIGHT} calls; ${TRIALS} trials; interleaved, ${batchRounds} × 5 per variant each)`,
  );
  const concurrent = names.map((name, i) => summarize(name, concurrentSamples[i] ?? []));
  printTable(concurrent);
  const callsPerSec = (row: Figures) => (IN_FLIGHT * 1000) / row.medianMs;
  const [baseBatch] = concurrent as [Figures];
  for (const row of concurrent) {
    printFigure(`${row.name}: calls/s (median batch)`, callsPerSec(row));
  }
  for (const row of concurrent.slice(1)) {
    printFigure(
      row.name === BARE
        ? `${row.name}: throughput ratio (the most any client can reach)`
        : `${row.name}: throughput ratio (target ≥ 1.20×)`,
      formatRatio(callsPerSec(row), callsPerSec(baseBatch)),
    );
  }
  const limit = concurrent.find((row) => row.name === BARE);
  if (limit) {
    for (const row of concurrent.filter((r) => r !== limit)) {
      printFigure(
        `${row.name}: share of the server's limit`,
        `${((100 * callsPerSec(row)) / callsPerSec(limit)).toFixed(0)} %`,
      );
    }
  }
  perTrial.forEach((line, i) => {
    printFigure(`governed / raw SDK, trial ${i + 1} alone`, line);
  });

  heading(
    `where the time goes with ${IN_FLIGHT} calls in flight (CPU time per call; the server's bounds throughput)`,
  );
  names.forEach((name, i) => {
    const account = accounts[i];
    if (!account || account.calls === 0) return;
    const server = account.serverMs > 0 ? perCall(account.serverMs, account) : "n/a (no /proc)";
    printFigure(`${name}: server CPU per call`, server);
    printFigure(`${name}: client CPU per call`, perCall(account.clientMs, account));
    if (account.serverMs > 0) {
      printFigure(
        `${name}: server busy while its batches ran`,
        `${((100 * account.serverMs) / account.wallMs).toFixed(0)} %`,
      );
    }
  });

  printFigure("load average (1 min) at the end", loadavg()[0]?.toFixed(2) ?? "?");

  // The same clients against a server that answers from prepared replies (canned-server.mjs): the
  // client is then the limit, so its own cost per call shows, free of the server's.
  const canned: BenchServer = {
    args: [fileURLToPath(new URL("./canned-server.mjs", import.meta.url))],
    replyHolds: "/tmp/canned",
  };
  const cannedTrial = await startTrial(canned, false);
  const cannedAccounts: CpuAccount[] = cannedTrial.variants.map(emptyAccount);
  let cannedRows: Figures[];
  try {
    for (let i = 0; i < 300 * scale; i++) for (const v of cannedTrial.variants) await inFlight(v);
    cannedRows = await interleaved(
      cannedTrial.variants,
      Math.max(2, Math.round(60 * scale)),
      5,
      inFlight,
      cannedAccounts,
    );
    addSeen(cannedTrial.seen);
  } finally {
    await cannedTrial.close();
  }
  heading(
    `client cost: the same clients, ${IN_FLIGHT} calls in flight, against a server answering from prepared replies (the client is the limit)`,
  );
  // Against this server the bare client is not the server's limit: it is the client without any check.
  cannedRows = cannedRows.map((row) =>
    row.name === BARE ? { ...row, name: "bare pipe client (no SDK, no checks)" } : row,
  );
  const [cannedBase] = cannedRows as [Figures];
  cannedRows.forEach((row, i) => {
    const account = cannedAccounts[i];
    if (!account || account.calls === 0) return;
    printFigure(`${row.name}: client CPU per call`, perCall(account.clientMs, account));
  });
  for (const row of cannedRows) printFigure(`${row.name}: calls/s (median batch)`, callsPerSec(row));
  for (const row of cannedRows.slice(1)) {
    printFigure(`${row.name}: throughput ratio`, formatRatio(callsPerSec(row), callsPerSec(cannedBase)));
  }

  heading("checks and events of the governed path");
  printFigure("STARTED events", String(seen.started));
  printFigure("COMPLETED events", String(seen.completed));
  printFigure("FAILED events", String(seen.failed));
  if (seen.started !== seen.completed || seen.failed > 0)
    throw new Error("governed calls lost events or failed");
} finally {
  rmSync(root, { recursive: true, force: true });
}
