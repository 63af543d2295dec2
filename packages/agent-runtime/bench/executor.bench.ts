// `pnpm bench`: what the executor itself (registry lookup, policy decision, argument check, events,
// result rendering) costs on top of a raw SDK callTool, over the SDK's in-memory transport, where no
// process or pipe hides it. What users see over stdio, against the official filesystem server, with the
// raw SDK client and the manager side by side, is governed.bench.ts.

import { MCP_TOOL_CALL_COMPLETED, type MCPToolCallClient, MCPToolExecutor } from "@agentforge/agent-runtime";
import { compare, formatRatio, printFigure } from "@agentforge/bench";
import { createLocalToolsServer } from "@agentforge/example-servers";
import type { MCPServerConfig } from "@agentforge/mcp-config";
import { MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";

const args = { text: "hello" };

async function inMemory() {
  const server = createLocalToolsServer();
  const client = new Client({ name: "bench", version: "0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  const config = { name: "mem", transport: "stdio", toolTimeout: 30 } as MCPServerConfig;
  const adapter: MCPToolCallClient = {
    callTool: (_server, tool, toolArgs, options) =>
      client.callTool(
        { name: tool, arguments: toolArgs ?? {} },
        undefined,
        options?.signal ? { signal: options.signal } : {},
      ) as never,
    getConfig: () => config,
  };
  const { tools } = await client.listTools();
  const registry = new MCPToolRegistry();
  registry.register(
    "mem",
    tools.map((t) => ({
      identity: `mem.${t.name}`,
      serverName: "mem",
      toolName: t.name,
      inputSchema: t.inputSchema,
    })),
  );
  const executor = new MCPToolExecutor({
    clientManager: adapter,
    registry,
    policy: new MCPPermissionPolicy({ agent: ["mem.*"] }),
  });
  let events = 0;
  executor.events.on(MCP_TOOL_CALL_COMPLETED, () => {
    events++;
  });
  const rows = await compare(
    "agent-runtime: executor vs raw SDK callTool, in-memory transport (echo)",
    [
      { name: "raw SDK client.callTool", fn: () => client.callTool({ name: "echo", arguments: args }) },
      { name: "MCPToolExecutor.execute", fn: () => executor.execute("agent", "mem.echo", args) },
    ],
    { rounds: 12 },
  ); // short alternating turns: GC and JIT pauses land on both variants alike
  const [raw, ours] = rows;
  if (raw && ours) {
    printFigure(
      "executor overhead per call (median)",
      `${((ours.medianMs - raw.medianMs) * 1000).toFixed(1)} µs`,
    );
    printFigure(
      "ratio (no I/O to hide it; over stdio see governed.bench.ts)",
      formatRatio(ours.medianMs, raw.medianMs),
    );
  }
  printFigure("completed events seen", events);
  await client.close();
}

await inMemory();
