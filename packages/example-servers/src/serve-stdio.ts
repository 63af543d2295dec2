import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/** A server connected to this process's stdin/stdout. */
export interface StdioServerHandle {
  /** Resolves when the client goes away (stdin ends or the transport closes). */
  closed: Promise<void>;
  /** Close the server and its transport. */
  close(): Promise<void>;
}

/**
 * Serve one `McpServer` over this process's stdin/stdout. Stdout carries protocol messages only, so
 * `console.log` is redirected to stderr. The returned `closed` promise settles at stdin EOF.
 */
export async function serveStdio(server: McpServer): Promise<StdioServerHandle> {
  // Anything a dependency logs must not corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const transport = new StdioServerTransport();
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  transport.onclose = () => markClosed();
  process.stdin.once("end", () => markClosed());
  process.stdin.once("close", () => markClosed());
  await server.connect(transport);
  return {
    closed,
    async close() {
      await server.close().catch(() => undefined);
      markClosed();
    },
  };
}
