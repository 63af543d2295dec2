import type { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";

/** A server connected to this process's stdin/stdout. */
export interface StdioServerHandle {
  /** Resolves when the client goes away (stdin ends or the transport closes). */
  closed: Promise<void>;
  /** Close the server and its transport. */
  close(): Promise<void>;
}

/** Builds the server for one stdio connection (see `serveStdio`). */
export type CreateMcpServer = () => McpServer | Promise<McpServer>;

/**
 * Serve MCP over this process's stdin/stdout. Stdout carries protocol messages only, so `console.log`
 * is redirected to stderr. The returned `closed` promise settles at stdin EOF.
 *
 * Given a factory, the connection serves both protocol eras: a client that opens with `initialize`
 * (2025-11-25 and earlier) and a client that sends per-request `_meta` (2026-07-28, opening with
 * `server/discover` or any request) each get a server from the factory, pinned for the connection. The
 * factory may be called twice when a client probes with `server/discover` and then falls back to
 * `initialize` (the probe's server is closed). Given a server instance, the connection serves 2025-era
 * clients only, as a server connected to a stdio transport always has.
 */
export async function serveStdio(server: McpServer | CreateMcpServer): Promise<StdioServerHandle> {
  // Anything a dependency logs must not corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  process.stdin.once("end", () => markClosed());
  process.stdin.once("close", () => markClosed());
  const transport = new StdioServerTransport();
  if (typeof server !== "function") {
    transport.onclose = () => markClosed();
    await server.connect(transport);
    return {
      closed,
      async close() {
        await server.close().catch(reportCloseFailure);
        markClosed();
      },
    };
  }
  const handle = sdkServeStdio(server, { transport, onerror: reportStdioError });
  return {
    closed,
    async close() {
      await handle.close().catch(reportCloseFailure);
      markClosed();
    },
  };
}

/** Out-of-band errors of the stdio entry (a malformed line, a failed send): logged, never on stdout. */
export function reportStdioError(error: Error): void {
  process.stderr.write(`stdio: ${error.message}\n`);
}

function reportCloseFailure(error: unknown): void {
  process.stderr.write(
    `stdio: closing the server failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
}
