// agentforge-sequential-thinking side by side with the official server
// (@modelcontextprotocol/server-sequential-thinking, a devDependency), both spawned as real stdio servers:
// cold start (spawn → initialize → tools/list), a thought round trip, and RSS after 2,000 thoughts.
// Ratios are ours / official.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { compare, formatRatio, heading, printFigure, printTable, summarize } from "@agentforge/bench";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const require = createRequire(import.meta.url);
const ours = require
  .resolve("@agentforge/example-servers/package.json")
  .replace("package.json", "dist/bin/sequential-thinking.js");
const official = require.resolve("@modelcontextprotocol/server-sequential-thinking/dist/index.js");

async function connect(script: string): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script],
    env: { PATH: process.env.PATH ?? "", DISABLE_THOUGHT_LOGGING: "true" },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(transport);
  return { client, transport };
}

const rssMiB = (pid: number | null) =>
  pid ? Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024 : Number.NaN;

heading(
  "sequential-thinking: official server vs agentforge-sequential-thinking (ratios are ours / official)",
);
heading("cold start: spawn → initialize → tools/list");
const starts: [number[], number[]] = [[], []];
for (let i = 0; i < 15; i++) {
  for (const [index, script] of [official, ours].entries()) {
    const started = performance.now();
    const { client } = await connect(script);
    await client.listTools();
    starts[index]?.push(performance.now() - started);
    await client.close();
  }
}
const cold = [summarize("official", starts[0]), summarize("ours", starts[1])];
printTable(cold);

const servers = [await connect(official), await connect(ours)];
try {
  let n = 0;
  const thought = (client: Client) =>
    client.callTool({
      name: "sequentialthinking",
      arguments: {
        thought: `thought ${++n}`,
        nextThoughtNeeded: true,
        thoughtNumber: n,
        totalThoughts: n + 1,
      },
    });
  await compare("one thought round trip", [
    { name: "official", fn: () => thought((servers[0] as { client: Client }).client) },
    { name: "ours", fn: () => thought((servers[1] as { client: Client }).client) },
  ]);
  for (const { client } of servers) for (let i = 0; i < 2000; i++) await thought(client);
  heading("memory after the round trips and 2,000 more thoughts");
  const rss = servers.map((s) => rssMiB(s.transport.pid));
  printFigure("official: RSS", `${rss[0]?.toFixed(1)} MiB`);
  printFigure("ours: RSS", `${rss[1]?.toFixed(1)} MiB`);
  printFigure("ratio ours / official (RSS)", formatRatio(rss[1] ?? 0, rss[0] ?? 1));
  printFigure(
    "ratio ours / official (cold start, median)",
    formatRatio(cold[1]?.medianMs ?? 0, cold[0]?.medianMs ?? 1),
  );
} finally {
  await Promise.all(servers.map((s) => s.client.close()));
}
