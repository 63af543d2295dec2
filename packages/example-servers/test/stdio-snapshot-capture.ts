// The initialize and tools/list results of a live server, as its SDK sends them (JSON on the wire), for
// the stdio snapshots' generator (scripts/write-stdio-snapshots.ts) and their test.
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Raw replies of a live server to `messages` (requests get one reply each, by id). */
export async function exchange(
  server: McpServer,
  messages: JSONRPCMessage[],
): Promise<Map<string | number, Record<string, unknown>>> {
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const replies = new Map<string | number, Record<string, unknown>>();
  const expected = messages.filter((m) => "id" in m).length;
  let done: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    done = resolve;
  });
  client.onmessage = (message) => {
    if ("id" in message && message.id !== undefined) {
      replies.set(message.id, JSON.parse(JSON.stringify(message)) as Record<string, unknown>);
      if (replies.size === expected) done();
    }
  };
  await server.connect(serverSide);
  await client.start();
  for (const message of messages) await client.send(message);
  await all;
  await server.close();
  return replies;
}

/** A live server's initialize (for `protocolVersion`) and tools/list results. */
export async function capture(
  server: McpServer,
  protocolVersion: string,
): Promise<{ initialize: Record<string, unknown>; toolsList: Record<string, unknown> }> {
  const replies = await exchange(server, [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: "snapshot", version: "0" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
  ]);
  return {
    initialize: replies.get(1)?.result as Record<string, unknown>,
    toolsList: replies.get(2)?.result as Record<string, unknown>,
  };
}
