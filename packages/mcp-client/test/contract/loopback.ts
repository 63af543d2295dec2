/**
 * Helpers of the contract tests: a real SDK client and server joined by the SDK's own in-memory
 * transport, and a bare transport whose incoming messages the test delivers one by one.
 */
import { Client, InMemoryTransport, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestFailure } from "../../src/internal/lifecycle/classify-error.js";
import { Redactor } from "../../src/internal/shared/redactor.js";

/**
 * A connected real client (the v2 SDK's, as the manager uses) and server (a v1 SDK server, as many
 * deployed servers are) pair; `close` ends both.
 */
export async function linked(server: Server): Promise<{ client: Client; close: () => Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "contract", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    client,
    close: async () => {
      await client.close().catch(() => {});
      await server.close().catch(() => {});
    },
  };
}

/** What `requestError` needs for an HTTP-like connection (no stdio process to describe). */
export function failure(overrides: Partial<RequestFailure> = {}): RequestFailure {
  return {
    serverName: "contract",
    method: "tools/call",
    toolName: "tool",
    kind: "streamable-http",
    stdio: undefined,
    redactor: new Redactor(),
    timeoutMs: 50,
    elapsedMs: 50,
    cancelled: false,
    totalTimeoutMs: undefined,
    ...overrides,
  };
}

/**
 * A transport whose incoming messages the test hands to the client itself, synchronously, the way
 * `MCPStdioTransport` hands over the lines of one stdout chunk. What the client sends is recorded.
 */
export class HandFedTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sent: JSONRPCMessage[] = [];
  private waiters: (() => void)[] = [];

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
    for (const wake of this.waiters.splice(0)) wake();
    // Answer the handshake like a server would.
    if ("method" in message && message.method === "initialize" && "id" in message) {
      queueMicrotask(() =>
        this.onmessage?.({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            protocolVersion: (message.params as { protocolVersion: string }).protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "hand-fed", version: "1.0.0" },
          },
        }),
      );
    }
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** The next request the client sends with `method`. */
  async request(method: string): Promise<JSONRPCMessage & { id: string | number; params?: unknown }> {
    for (;;) {
      const found = this.sent.find((message) => "method" in message && message.method === method);
      if (found && "id" in found) return found as JSONRPCMessage & { id: string | number };
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}
