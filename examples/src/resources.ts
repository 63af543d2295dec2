// Resources under the policy: an agent lists only the resources its grants cover, and reads them through
// the executor (one MCP_RESOURCE_READ event per read; a read it is not granted never reaches the server).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { createMCPToolkit, MCP_RESOURCE_READ, MCPPermissionDeniedError } from "@agentforge/agent-runtime";

const everything = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-everything/dist/index.js",
);
const toolkit = await createMCPToolkit({
  config: {
    servers: [
      {
        name: "everything",
        transport: "stdio",
        enabled: true,
        command: process.execPath,
        args: [everything],
      },
    ],
    permissions: {
      reader: { allow: [], resources: ["everything:demo://resource/static/document/*"] },
    },
  },
});
try {
  toolkit.on(MCP_RESOURCE_READ, (e) => console.log(`audit: ${e.agent} read ${e.uri}: ${e.outcome}`));
  const resources = await toolkit.listResources("reader");
  console.log(`granted resources: ${resources.length}`);
  assert.ok(resources.length > 0);
  assert.ok(resources.every((r) => r.uri.startsWith("demo://resource/static/document/")));

  const first = resources[0];
  assert.ok(first);
  const read = await toolkit.readResource("reader", first.serverName, first.uri);
  console.log(`${first.name}: ${read.text.slice(0, 60).replace(/\s+/g, " ")}…`);

  await assert.rejects(
    toolkit.readResource("reader", "everything", "demo://resource/session/secret"),
    (error) => MCPPermissionDeniedError.isInstance(error),
  );
} finally {
  await toolkit.close();
}
