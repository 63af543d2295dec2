// The main() of every server bin: parse flags, serve stdio or HTTP, shut down cleanly.
// It loads the SDK only when needed: over stdio, a bin with a snapshot answers the opening messages of
// either protocol era (initialize, server/discover, tools/list) from it and loads the SDK and its tools
// at the first other message (see serve-stdio-lazily.ts).
import type { McpServer } from "@modelcontextprotocol/server";
import { httpLimitsFromEnv } from "./http-env.js";
import { type CliRequest, type CliSpec, parseCli, UsageError, usage } from "./parse-cli.js";
import { type StdioSnapshot, serveStdioLazily } from "./serve-stdio-lazily.js";

/** What a bin prepares from its arguments before serving. */
export interface PreparedServer {
  /**
   * Builds a server: over stdio once per connection (twice when a client probes with server/discover
   * and falls back to initialize), over HTTP once per 2025-era session and once per 2026-07-28 request.
   */
  create: () => McpServer | Promise<McpServer>;
  /** Extra line printed on stderr at start, e.g. the allowed roots. */
  describe?: string;
  /** Releases what `prepare` acquired (pools, embedded databases). */
  close?: () => Promise<void>;
  /**
   * What the stdio front answers before `create` is called (initialize, server/discover, tools/list).
   * Without it, stdio loads the server at start.
   */
  stdioSnapshot?: StdioSnapshot;
}

export interface ServerCliSpec extends CliSpec {
  /** Validate arguments/environment and build the server factory. Throw UsageError for bad input. */
  prepare(request: Extract<CliRequest, { kind: "serve" }>): Promise<PreparedServer>;
}

const FORCE_EXIT_MS = 3000;

export async function runServerCli(
  spec: ServerCliSpec,
  argv: readonly string[] = process.argv.slice(2),
): Promise<void> {
  const reportCloseFailure = (what: string, error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${spec.bin}: closing ${what} failed (${reason}); exiting anyway\n`);
  };
  const fail = (message: string, code: number, showUsage: boolean) => {
    process.stderr.write(`${spec.bin}: ${message}\n${showUsage ? `\n${usage(spec)}` : ""}`);
    process.exit(code);
  };
  let request: CliRequest;
  try {
    request = parseCli(argv, spec);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error), 2, true);
  }
  if (request.kind !== "serve") {
    process.stdout.write(request.text);
    return;
  }
  let httpLimits: ReturnType<typeof httpLimitsFromEnv> = {};
  if (request.transport === "http") {
    try {
      httpLimits = httpLimitsFromEnv(process.env);
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error), 2, false);
    }
  }
  let prepared: PreparedServer;
  try {
    prepared = await spec.prepare(request);
  } catch (error) {
    if (error instanceof UsageError) return fail(error.message, 2, false);
    return fail(`cannot start: ${error instanceof Error ? error.message : String(error)}`, 1, false);
  }

  let closeServing: () => Promise<void> = async () => undefined;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(code), FORCE_EXIT_MS).unref();
    // A server that fails to close still exits; what failed is said on stderr, never dropped.
    await closeServing().catch((error: unknown) => reportCloseFailure("serving", error));
    await prepared.close?.().catch((error: unknown) => reportCloseFailure("the server", error));
    process.exit(code);
  };
  process.once("SIGINT", () => void shutdown(0));
  process.once("SIGTERM", () => void shutdown(0));

  const banner = `${spec.bin} ${spec.version}`;
  try {
    if (request.transport === "stdio") {
      const { stdioSnapshot } = prepared;
      const handle = stdioSnapshot
        ? serveStdioLazily(stdioSnapshot, async (input) => {
            // The SDK and the server's own modules load side by side; the first server built serves the
            // connection (the entry asks for it as the first replayed message arrives).
            let first: Promise<McpServer> | undefined = Promise.resolve(prepared.create());
            const [{ StdioServerTransport, serveStdio, reportStdioError }] = await Promise.all([
              import("./sdk-stdio.js"),
              first,
            ]);
            const create = () => {
              const server = first ?? prepared.create();
              first = undefined;
              return server;
            };
            const transport = new StdioServerTransport(input, process.stdout);
            return { transport, serve: () => serveStdio(create, { transport, onerror: reportStdioError }) };
          })
        : await (await import("../serve-stdio.js")).serveStdio(prepared.create);
      closeServing = () => handle.close();
      process.stderr.write(
        `${banner}: ready on stdio${prepared.describe ? ` (${prepared.describe})` : ""}\n`,
      );
      await handle.closed;
      await shutdown(0);
      return;
    }
    const token = process.env.MCP_HTTP_TOKEN || undefined;
    const hosts = process.env.MCP_ALLOWED_HOSTS?.split(",")
      .map((h) => h.trim())
      .filter(Boolean);
    const { serveHttp } = await import("../serve-http.js");
    const handle = await serveHttp(prepared.create, {
      host: request.host,
      port: request.port,
      ...httpLimits,
      ...(token ? { token } : {}),
      ...(hosts && hosts.length > 0 ? { allowedHosts: hosts } : {}),
    });
    closeServing = () => handle.close();
    process.stderr.write(
      `${banner}: listening on ${handle.url}${token ? " (bearer token required)" : ""}${prepared.describe ? ` (${prepared.describe})` : ""}\n`,
    );
  } catch (error) {
    await prepared.close?.().catch((closeError: unknown) => reportCloseFailure("the server", closeError));
    const message = error instanceof Error ? error.message : String(error);
    return fail(message, message.startsWith("refusing") ? 2 : 1, false);
  }
}
