// Run by scripts/consumer-check.mjs inside a throw-away npm project with the packed tarballs installed.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  discoverAll,
  MCPClientManager,
  MCPConnectionError,
  MCPServerNotFoundError,
} from "@agentforge/mcp-client";
import { parseMCPServerConfigs } from "@agentforge/mcp-config";

// A tiny real MCP server, written next to the consumer's node_modules so it finds the SDK.
const server = join(process.cwd(), "mcp-client-check-server.mjs");
writeFileSync(
  server,
  `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
const s = new McpServer({ name: "check", version: "1.0.0" });
s.registerTool("add", { description: "Add", inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({
  content: [{ type: "text", text: String(a + b) }],
}));
s.registerTool("pid", { description: "pid" }, () => ({ content: [{ type: "text", text: String(process.pid) }] }));
await s.connect(new StdioServerTransport());
`,
);
const configs = parseMCPServerConfigs(
  `servers:
  - { name: calc, enabled: true, transport: stdio, command: "\${NODE}", args: ["${server}"] }
  - { name: missing, enabled: true, transport: stdio, command: agentforge-no-such-command }
  - { name: off, transport: stdio, command: node }
`,
);
const manager = new MCPClientManager(configs, { logDir: false });
try {
  const result = await manager.callTool("calc", "add", { a: 2, b: 3 });
  assert.equal(result.content[0].text, "5");
  const pids = new Set();
  for (let i = 0; i < 20; i++) pids.add((await manager.callTool("calc", "pid")).content[0].text);
  assert.equal(pids.size, 1, "the connection is reused");
  const discovery = await discoverAll(manager);
  assert.deepEqual(
    discovery.servers.map((s) => `${s.serverName}:${s.status}`),
    ["calc:ok", "missing:failed"],
  );
  assert.ok(discovery.tools.some((tool) => tool.identity === "calc.add"));
  const failure = discovery.servers[1].error;
  assert.ok(MCPConnectionError.isInstance(failure) && failure.code === "COMMAND_NOT_FOUND");
  await assert.rejects(
    manager.callTool("off", "x"),
    (e) => MCPServerNotFoundError.isInstance(e) && e.code === "SERVER_DISABLED",
  );
  assert.equal((await manager.healthCheck("calc")).status, "healthy");
} finally {
  await manager.closeAll();
}
console.log("mcp-client (import): ok");
