// `pnpm bench`: what the executor (registry lookup, policy decision, events, span, result rendering)
// costs on top of a raw SDK callTool — in memory (pure overhead) and over stdio (what users see).

import { MCP_TOOL_CALL_COMPLETED, type MCPToolCallClient, MCPToolExecutor } from "@agentforge/agent-runtime";
import { compare, formatRatio, printFigure } from "@agentforge/bench";
import { createLocalToolsServer } from "@agentforge/example-servers";
import { MCPClientManager } from "@agentforge/mcp-client";
import type { MCPServerConfig } from "@agentforge/mcp-config";
import { MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { STDIO_TEST_SERVER, stdioTestServer } from "@agentforge/test-servers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
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
  const rows = await compare("agent-runtime: executor vs raw SDK callTool, in-memory transport (echo)", [
    { name: "raw SDK client.callTool", fn: () => client.callTool({ name: "echo", arguments: args }) },
    { name: "MCPToolExecutor.execute", fn: () => executor.execute("agent", "mem.echo", args) },
  ]);
  const [raw, ours] = rows;
  if (raw && ours) {
    printFigure(
      "executor overhead per call (median)",
      `${((ours.medianMs - raw.medianMs) * 1000).toFixed(1)} µs`,
    );
    printFigure("ratio (target ≤ 1.10×)", formatRatio(ours.medianMs, raw.medianMs));
  }
  printFigure("completed events seen", events);
  await client.close();
}

async function overStdio() {
  const manager = new MCPClientManager([stdioTestServer("bench")], { logDir: false });
  const registry = new MCPToolRegistry();
  registry.register("bench", await manager.listTools("bench"));
  const executor = new MCPToolExecutor({
    clientManager: manager,
    registry,
    policy: new MCPPermissionPolicy({ agent: ["bench.*"] }),
  });
  const raw = new Client({ name: "bench-raw", version: "0" });
  await raw.connect(
    new StdioClientTransport({ command: process.execPath, args: [STDIO_TEST_SERVER], stderr: "ignore" }),
  );
  const rows = await compare("agent-runtime: executor vs raw SDK callTool, stdio (echo on the test server)", [
    { name: "raw SDK client.callTool", fn: () => raw.callTool({ name: "echo", arguments: args }) },
    { name: "MCPToolExecutor.execute", fn: () => executor.execute("agent", "bench.echo", args) },
  ]);
  const [base, ours] = rows;
  if (base && ours) {
    printFigure(
      "executor overhead per call (median)",
      `${((ours.medianMs - base.medianMs) * 1000).toFixed(1)} µs`,
    );
    printFigure("ratio (target ≤ 1.10×)", formatRatio(ours.medianMs, base.medianMs));
  }
  await raw.close();
  await manager.closeAll();
}

await inMemory();
await overStdio();
