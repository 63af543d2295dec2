// `pnpm --filter @agentforge/mcp-client bench:eras`: the manager's call path against the raw v2 SDK client,
// on both protocol revisions, over stdio and Streamable HTTP, against a first-party server
// (@agentforge/example-servers' local-tools, built dist; it serves both revisions). Per call: the median
// of one `echo` call at a time. In flight: 64 calls sent at once, repeated, as calls per second.
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { compare, formatRatio, heading, printFigure } from "@agentforge/bench";
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
const BATCHES = Number(process.env.BENCH_BATCHES) || 40;

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

async function rawClient(mode: VersionNegotiationMode, url?: string): Promise<Client> {
  const client = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(
    url
      ? new StreamableHTTPClientTransport(new URL(url))
      : new StdioClientTransport({ command: process.execPath, args: [serverBin], stderr: "ignore" }),
  );
  return client;
}

function config(revision: string, url?: string): MCPServerConfig {
  const common = {
    name: "bench",
    enabled: true,
    connectionTimeout: 60,
    toolTimeout: 60,
    resetTimeoutOnProgress: false,
    protocolVersion: revision as "2025-11-25" | "2026-07-28",
  };
  return url
    ? { ...common, transport: "http", url, headers: {}, auth: { type: "none" } }
    : { ...common, transport: "stdio", command: process.execPath, args: [serverBin], env: {} };
}

async function throughput(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let batch = 0; batch < BATCHES; batch++) {
    await Promise.all(Array.from({ length: IN_FLIGHT }, call));
  }
  return (BATCHES * IN_FLIGHT) / ((performance.now() - started) / 1000);
}

const http = await startHttp();
const summary: string[] = [];
try {
  for (const transport of ["stdio", "http"] as const) {
    for (const era of ERAS) {
      const url = transport === "http" ? http.url : undefined;
      const raw = await rawClient(era.mode, url);
      const manager = new MCPClientManager([config(era.revision, url)], { logDir: false });
      const viaRaw = () => raw.callTool({ name: "echo", arguments: args });
      const viaManager = () => manager.callTool("bench", "echo", args);
      for (let i = 0; i < 500; i++) {
        await viaRaw();
        await viaManager();
      }
      const negotiated = manager.connectionStatus("bench").protocolVersion;
      const [rawFigures, managerFigures] = await compare(
        `${transport}, ${era.revision} (manager negotiated ${negotiated}; raw ${raw.getNegotiatedProtocolVersion()}): one call at a time`,
        [
          { name: "raw v2 Client.callTool", fn: viaRaw },
          { name: "MCPClientManager.callTool", fn: viaManager },
        ],
      );
      heading(`${transport}, ${era.revision}: ${IN_FLIGHT} calls in flight x ${BATCHES}`);
      // Alternate the order so a load change hits both alike.
      const rawA = await throughput(viaRaw);
      const managerA = await throughput(viaManager);
      const managerB = await throughput(viaManager);
      const rawB = await throughput(viaRaw);
      const rawRate = (rawA + rawB) / 2;
      const managerRate = (managerA + managerB) / 2;
      printFigure("raw v2 client", Math.round(rawRate), "calls/s");
      printFigure("manager", Math.round(managerRate), "calls/s");
      summary.push(
        `${transport.padEnd(6)} ${era.revision}  per call ${formatRatio(managerFigures?.medianMs ?? 0, rawFigures?.medianMs ?? 1)} of raw; 64 in flight ${Math.round(managerRate)} vs ${Math.round(rawRate)} calls/s (${formatRatio(managerRate, rawRate)})`,
      );
      await manager.closeAll();
      await raw.close();
    }
  }
} finally {
  http.child.kill("SIGTERM");
}
heading("summary (manager vs raw v2 client)");
for (const line of summary) console.log(`  ${line}`);
