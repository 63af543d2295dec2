import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

/** Options of `serveHttp`. */
export interface ServeHttpOptions {
  /** Interface to bind (default `127.0.0.1`). Anything but loopback requires `token`. */
  host?: string;
  /** Port to bind (default 0: any free port; read the bound one from the result). */
  port?: number;
  /** Bearer token every request must carry. Required off loopback. */
  token?: string;
  /**
   * Host header values accepted (DNS-rebinding guard). Default on loopback: `127.0.0.1:<port>`,
   * `localhost:<port>`, `[::1]:<port>`. Default off loopback: any (the token protects it).
   */
  allowedHosts?: string[];
  /** Largest accepted request body in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /** Sessions idle longer than this are closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Most concurrent sessions (default 1000); beyond it new sessions get 503. */
  maxSessions?: number;
}

/** A running Streamable HTTP server. */
export interface HttpServerHandle {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string;
  /** The underlying Node HTTP server. */
  server: Server;
  /** Number of open MCP sessions. */
  sessionCount(): number;
  /** Close every session and the listener. */
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  lastSeen: number;
}

/** True for addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
) {
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | "too-large"> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return "too-large";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return "too-large";
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Serve MCP over Streamable HTTP at `/mcp`, one `McpServer` per session (so per-session state such as
 * sequential-thinking's history never leaks between clients). Guards: bearer token, Host and Origin
 * checks against DNS rebinding, body size limit, idle-session expiry, session cap.
 */
export async function serveHttp(
  createMcpServer: () => McpServer | Promise<McpServer>,
  options: ServeHttpOptions = {},
): Promise<HttpServerHandle> {
  const host = options.host ?? "127.0.0.1";
  const loopback = isLoopbackHost(host);
  if (!loopback && !options.token) {
    throw new Error(
      `refusing to serve on ${host} without a bearer token: set MCP_HTTP_TOKEN (anything but loopback must be authenticated)`,
    );
  }
  const tokenDigest = options.token ? digest(options.token) : undefined;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? 1000;
  const sessions = new Map<string, Session>();
  let allowedHosts: Set<string> | undefined;

  const closeSession = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.server.close().catch(() => undefined);
  };

  const authorized = (req: IncomingMessage): boolean => {
    if (!tokenDigest) return true;
    const header = req.headers.authorization ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), tokenDigest);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const hostHeader = req.headers.host ?? "";
    if (allowedHosts && !allowedHosts.has(hostHeader.toLowerCase())) {
      return rpcError(res, 403, -32000, "Forbidden: Host header not allowed");
    }
    const origin = req.headers.origin;
    if (origin && allowedHosts) {
      let originHost = "";
      try {
        originHost = new URL(origin).host.toLowerCase();
      } catch {
        // an unparsable Origin is refused below
      }
      if (!allowedHosts.has(originHost)) return rpcError(res, 403, -32000, "Forbidden: Origin not allowed");
    }
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/mcp") return sendJson(res, 404, { error: "not found: the MCP endpoint is /mcp" });
    if (!authorized(req)) {
      return rpcError(res, 401, -32001, "Unauthorized: a valid bearer token is required", {
        "www-authenticate": 'Bearer realm="mcp"',
      });
    }
    const sessionHeader = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;

    if (req.method === "POST") {
      const raw = await readBody(req, maxBody);
      if (raw === "too-large") return rpcError(res, 413, -32600, `Request body over ${maxBody} bytes`);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        return rpcError(res, 400, -32700, "Parse error: the body is not JSON");
      }
      if (sessionId) {
        const session = sessions.get(sessionId);
        if (!session) return rpcError(res, 404, -32001, "Session not found; initialize a new session");
        session.lastSeen = Date.now();
        return session.transport.handleRequest(req, res, body);
      }
      const initialize = Array.isArray(body)
        ? body.some((m) => isInitializeRequest(m))
        : isInitializeRequest(body);
      if (!initialize) return rpcError(res, 400, -32000, "Bad request: no session id; send initialize first");
      if (sessions.size >= maxSessions)
        return rpcError(res, 503, -32000, "Too many sessions; try again later");
      const server = await createMcpServer();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server, lastSeen: Date.now() });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (req.method === "GET" || req.method === "DELETE") {
      const session = sessionId ? sessions.get(sessionId) : undefined;
      if (!session) return rpcError(res, sessionId ? 404 : 400, -32000, "Unknown or missing Mcp-Session-Id");
      session.lastSeen = Date.now();
      await session.transport.handleRequest(req, res);
      if (req.method === "DELETE" && sessionId) await closeSession(sessionId);
      return;
    }
    res.setHeader("allow", "GET, POST, DELETE");
    return rpcError(res, 405, -32000, "Method not allowed");
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(
        `HTTP request failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      if (!res.headersSent) rpcError(res, 500, -32603, "Internal error");
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  if (options.allowedHosts) allowedHosts = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
  else if (loopback)
    allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${host}:${port}`]);

  const sweeper = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, session] of sessions) if (session.lastSeen < cutoff) void closeSession(id);
    },
    Math.min(idleMs, 60_000),
  );
  sweeper.unref();

  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/mcp`,
    server,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweeper);
      await Promise.all([...sessions.keys()].map(closeSession));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
