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

// A tiny real MCP server written with the official v2 server SDK (what a user's own server would use;
// test/consumer/deps.json installs it), next to the consumer's node_modules so it finds it. serveStdio
// answers both revisions, so the default protocol_version (auto) negotiates 2026-07-28.
const server = join(process.cwd(), "mcp-client-check-server.mjs");
writeFileSync(
  server,
  `import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
await serveStdio(() => {
  const s = new McpServer({ name: "check", version: "1.0.0" }, { capabilities: { tools: {} } });
  s.registerTool("add", { description: "Add", inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  s.registerTool("pid", { description: "pid", inputSchema: z.object({}) }, () => ({
    content: [{ type: "text", text: String(process.pid) }],
  }));
  return s;
});
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
  const health = await manager.healthCheck("calc");
  assert.equal(health.status, "healthy");
  assert.equal(health.protocolVersion, "2026-07-28");
} finally {
  await manager.closeAll();
}
console.log("mcp-client (import): ok");
