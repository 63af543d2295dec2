// The in-memory stack of the executor benches: first-party local-tools joined to a raw SDK client by the
// SDK's in-memory transport (no process or pipe to hide the executor's own cost), the client as the
// executor's `clientManager` under the server name "mem", and a registry of its tools.
import type { MCPToolCallClient } from "@agentforge/agent-runtime";
import { createLocalToolsServer } from "@agentforge/example-servers";
import type { MCPServerConfig } from "@agentforge/mcp-config";
import { MCPToolRegistry } from "@agentforge/mcp-permissions";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";

export interface InMemoryStack {
  /** The raw SDK client (what the executor is compared with). */
  client: Client;
  /** The client as the executor's `clientManager`. */
  adapter: MCPToolCallClient;
  /** local-tools' tools as `mem.<tool>`, with their annotations. */
  registry: MCPToolRegistry;
}

export async function inMemoryLocalTools(): Promise<InMemoryStack> {
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
      ...(t.annotations ? { annotations: t.annotations as Record<string, unknown> } : {}),
    })),
  );
  return { client, adapter, registry };
}
