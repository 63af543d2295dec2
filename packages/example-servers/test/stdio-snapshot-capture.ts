// The replies of a live server, as the SDK's stdio entry (`serveStdio`, both protocol eras) sends them
// (JSON on the wire), for the stdio snapshots' generator (scripts/write-stdio-snapshots.ts) and their
// tests. The entry runs over an in-memory transport: the same code path as a bin after its hand-over.
import { InMemoryTransport, type JSONRPCMessage, type McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

/** Raw replies of a live server to `messages` (requests get one reply each, by id). */
export async function exchange(
  create: () => McpServer,
  messages: JSONRPCMessage[],
): Promise<Map<string | number, Record<string, unknown>>> {
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const replies = new Map<string | number, Record<string, unknown>>();
  const expected = messages.filter((m) => "id" in m && "method" in m).length;
  let done: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    done = resolve;
  });
  client.onmessage = (message) => {
    if ("id" in message && message.id !== undefined && !("method" in message)) {
      replies.set(message.id, JSON.parse(JSON.stringify(message)) as Record<string, unknown>);
      if (replies.size === expected) done();
    }
  };
  const errors: Error[] = [];
  const handle = serveStdio(create, { transport: serverSide, onerror: (error) => errors.push(error) });
  await client.start();
  for (const message of messages) await client.send(message);
  if (expected > 0) await all;
  await handle.close();
  if (errors.length > 0) throw new AggregateError(errors, "the SDK's stdio entry reported errors");
  return replies;
}

/** The 2026-07-28 per-request `_meta` envelope of a plain client. */
export const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "snapshot", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A live server's initialize (for `protocolVersion`), server/discover and tools/list results. */
export async function capture(
  create: () => McpServer,
  protocolVersion: string,
): Promise<{
  initialize: Record<string, unknown>;
  discover: Record<string, unknown>;
  toolsList: Record<string, unknown>;
}> {
  const legacy = await exchange(create, [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: "snapshot", version: "0" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
  ]);
  const modern = await exchange(create, [
    { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } },
  ]);
  return {
    initialize: legacy.get(1)?.result as Record<string, unknown>,
    discover: modern.get(1)?.result as Record<string, unknown>,
    toolsList: legacy.get(2)?.result as Record<string, unknown>,
  };
}
