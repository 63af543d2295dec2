import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { NodeStreamableHTTPServerTransport, toNodeHandler } from "@modelcontextprotocol/node";
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type McpServer,
} from "@modelcontextprotocol/server";
import { clientKeyOf } from "./internal/client-key.js";
import { JsonDepthScanner } from "./internal/json-depth-scanner.js";
import { type SessionEntry, SessionTable } from "./internal/session-table.js";

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
  /** Largest accepted request body in bytes (default 4 MiB); larger bodies get 413 before parsing. */
  maxBodyBytes?: number;
  /**
   * Deepest nesting of arrays/objects accepted in a JSON body (default 64). Checked by a streaming scan
   * of the raw bytes while the body is read, so a deeper body is refused (400, JSON-RPC -32700)
   * before `JSON.parse` builds anything.
   */
  maxJsonDepth?: number;
  /**
   * An established session (one that sent `notifications/initialized` or any other message after
   * `initialize`) is closed after this long without an accepted request of its own (default 30
   * minutes). Requests for other sessions and rejected requests do not count; a running request does.
   */
  sessionIdleMs?: number;
  /** A session that never got past `initialize` is closed this long after it was opened (default 30 s). */
  pendingSessionMs?: number;
  /**
   * Most open sessions (default 1000). When the table is full, a new session evicts the least recently
   * active session that never got past `initialize`; established sessions are never evicted, so when
   * they alone fill the table a new session gets 503.
   */
  maxSessions?: number;
  /**
   * Most open sessions per client address (default 100; 0: no per-client cap): per IPv4 address, per
   * /64 for IPv6. Loopback clients are exempt (every local program shares 127.0.0.1) and share the
   * global cap. At the cap, that client's own oldest pending session is evicted, else 503.
   */
  maxSessionsPerClient?: number;
}

/** Counters of a running HTTP server, for monitoring and tests. */
export interface HttpServerStats {
  /** Open sessions. */
  sessions: number;
  /** Open sessions that never got past `initialize`. */
  pendingSessions: number;
  /** Sessions opened since start. */
  sessionsOpened: number;
  /** Pending sessions evicted to make room for a new one. */
  sessionsEvicted: number;
  /** Sessions closed by `pendingSessionMs` or `sessionIdleMs`. */
  sessionsExpired: number;
  /** New sessions refused with 503 (table or per-client cap full of established sessions). */
  sessionsRefused: number;
  /** Request bodies refused before they were parsed or handled: too large, too deep or not JSON. */
  bodiesRefused: number;
  /** Of `bodiesRefused`: over `maxBodyBytes` (413). */
  bodiesTooLarge: number;
  /** Of `bodiesRefused`: nested deeper than `maxJsonDepth` (400). */
  bodiesTooDeep: number;
  /** 2026-07-28 requests handed to the protocol layer, each served by a server of its own (no session). */
  statelessRequests: number;
  /**
   * Of `statelessRequests`: refused with an HTTP error status by the protocol layer (malformed `_meta`,
   * header/body mismatch, unsupported version, removed or unknown method...), each with its JSON-RPC error.
   */
  statelessRefused: number;
}

/** A running Streamable HTTP server. */
export interface HttpServerHandle {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string;
  /** The underlying Node HTTP server. */
  server: Server;
  /** Number of open MCP sessions (of 2025-era clients: 2026-07-28 clients open none). */
  sessionCount(): number;
  /** Counters: sessions opened, evicted, expired, refused; request bodies refused. */
  stats(): HttpServerStats;
  /** Close every session and the listener. */
  close(): Promise<void>;
}

/** What the session table holds per session; filled in while `initialize` is handled. */
interface SessionSlot {
  server?: McpServer;
  transport?: NodeStreamableHTTPServerTransport;
}

const DEFAULTS = {
  maxBodyBytes: 4 * 1024 * 1024,
  maxJsonDepth: 64,
  sessionIdleMs: 30 * 60_000,
  pendingSessionMs: 30_000,
  maxSessions: 1000,
  maxSessionsPerClient: 100,
} as const;

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
  id: string | number | null = null,
) {
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id }, headers);
}

/** A whole number option, checked once at start so a typo fails loudly instead of disabling a guard. */
function limitOption(options: ServeHttpOptions, name: keyof typeof DEFAULTS, min: number): number {
  const value = options[name] ?? DEFAULTS[name];
  if (!Number.isSafeInteger(value) || value < min) {
    throw new Error(
      `serveHttp: option ${name} must be a whole number of at least ${min}, got ${String(value)}`,
    );
  }
  return value;
}

/** Whether the response went out as a success (a handler that threw before answering did not). */
function accepted(res: ServerResponse): boolean {
  return res.headersSent && res.statusCode < 400;
}

function isJsonContentType(header: string | undefined): boolean {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() === "application/json";
}

type BodyOutcome =
  | { kind: "ok"; raw: Buffer }
  | { kind: "too-large" }
  | { kind: "too-deep" }
  | { kind: "aborted" };

/**
 * Read a request body, refusing it as soon as it is over `limit` bytes (a declared Content-Length over
 * the limit without reading anything) or nests JSON deeper than `maxDepth`. On refusal the rest of the
 * body is read and discarded, never buffered.
 */
function readBody(req: IncomingMessage, limit: number, maxDepth: number): Promise<BodyOutcome> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ kind: "too-large" });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const scanner = new JsonDepthScanner(maxDepth);
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const refuse = (outcome: BodyOutcome) => {
      cleanup();
      chunks.length = 0;
      // Read and drop the rest, and answer only once the client has sent it all: a response that ends
      // while the upload goes on makes Node.js close the connection, and the client (still writing) sees
      // a reset instead of the answer. A client that keeps sending past another `limit` bytes loses the
      // connection.
      let drained = 0;
      const answer = () => resolve(outcome);
      req.on("data", (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > limit) req.socket.destroy();
      });
      req.once("end", answer);
      req.once("close", answer);
      req.on("error", () => undefined);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return refuse({ kind: "too-large" });
      if (!scanner.push(chunk)) return refuse({ kind: "too-deep" });
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve({ kind: "ok", raw: Buffer.concat(chunks, size) });
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      resolve({ kind: "aborted" }); // the client went away mid-body: nobody to answer
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/** Whether a parsed body holds any message other than `initialize` (it then establishes a session). */
function hasRealMessage(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => m !== null && typeof m === "object" && !isInitializeRequest(m));
}

/** The headers of a Node.js request as web `Headers` (what the SDK's request classification reads). */
function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/** The id of a single JSON-RPC request, so that an error about it names it (null for anything else). */
function requestIdOf(body: unknown): string | number | null {
  if (body === null || typeof body !== "object" || Array.isArray(body) || !("id" in body)) return null;
  const { id } = body as { id: unknown };
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/**
 * Serve MCP over Streamable HTTP at `/mcp`, to clients of both protocol eras on the one endpoint:
 *
 * - 2025-era clients (`initialize`, protocol 2025-11-25 and earlier) get a session (`Mcp-Session-Id`)
 *   with one `McpServer` of its own, so per-session state such as sequential-thinking's history never
 *   leaks between clients; the session table's limits apply to them.
 * - 2026-07-28 clients (per-request `_meta`, no session) are served statelessly: every request by a
 *   server of its own from `createMcpServer`, with nothing kept between requests, so several processes
 *   behind a load balancer without session affinity serve them alike.
 *
 * Guards, in the order a request meets them: Host and Origin checks against DNS rebinding, bearer
 * token, Content-Type, session lookup (an unknown session gets 404 before its body is read), body size
 * limit and JSON nesting limit (checked while the body streams in, before it is parsed), then the era:
 * the session table's caps for a 2025 `initialize`, the SDK's per-request checks (`_meta`, the
 * `MCP-Protocol-Version` header against the body, supported versions, removed methods) for 2026-07-28.
 * See `ServeHttpOptions` for the limits and their defaults.
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
  const maxBody = limitOption(options, "maxBodyBytes", 1);
  const maxDepth = limitOption(options, "maxJsonDepth", 1);
  const idleMs = limitOption(options, "sessionIdleMs", 1);
  const pendingMs = limitOption(options, "pendingSessionMs", 1);
  const maxSessions = limitOption(options, "maxSessions", 1);
  const maxPerClient = limitOption(options, "maxSessionsPerClient", 0);
  let allowedHosts: Set<string> | undefined;
  let closing = false;

  const counters = {
    sessionsOpened: 0,
    sessionsEvicted: 0,
    sessionsExpired: 0,
    sessionsRefused: 0,
    bodiesTooLarge: 0,
    bodiesTooDeep: 0,
    bodiesInvalidJson: 0,
    statelessRequests: 0,
    statelessRefused: 0,
  };
  const closeSlot = (slot: SessionSlot) => slot.server?.close().catch(() => undefined);
  const sessions = new SessionTable<SessionSlot>(
    {
      maxSessions,
      maxSessionsPerClient: maxPerClient,
      pendingSessionMs: pendingMs,
      sessionIdleMs: idleMs,
    },
    (entry, reason) => {
      if (reason === "evicted") counters.sessionsEvicted++;
      else counters.sessionsExpired++;
      void closeSlot(entry.value);
    },
  );

  const authorized = (req: IncomingMessage): boolean => {
    if (!tokenDigest) return true;
    const header = req.headers.authorization ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), tokenDigest);
  };

  const refuseSession = (res: ServerResponse, refusal: { scope: "server" | "client"; limit: number }) => {
    counters.sessionsRefused++;
    const message =
      refusal.scope === "client"
        ? `Too many sessions from this client address (limit ${refusal.limit}): close sessions you no longer use (DELETE /mcp) or try again later`
        : `Too many sessions (limit ${refusal.limit}), all in use: try again later`;
    rpcError(res, 503, -32000, message, { "retry-after": String(Math.max(1, Math.ceil(pendingMs / 1000))) });
  };

  /** Read, bound and parse a POST body; answers the request itself and returns undefined on refusal. */
  const readJson = async (
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ body: unknown } | undefined> => {
    const outcome = await readBody(req, maxBody, maxDepth);
    if (outcome.kind === "aborted") return undefined;
    // A connection that carried a refused body is closed after the answer (and says so), so that no
    // client reuses a socket the server is about to drop: its next request gets a fresh connection.
    const closing = { connection: "close" };
    if (outcome.kind === "too-large") {
      counters.bodiesTooLarge++;
      rpcError(res, 413, -32600, `Request body over ${maxBody} bytes`, closing);
      return undefined;
    }
    if (outcome.kind === "too-deep") {
      counters.bodiesTooDeep++;
      rpcError(res, 400, -32700, `Parse error: JSON nested deeper than ${maxDepth} levels`, closing);
      return undefined;
    }
    try {
      return { body: JSON.parse(outcome.raw.toString("utf8")) as unknown };
    } catch {
      counters.bodiesInvalidJson++;
      rpcError(res, 400, -32700, "Parse error: the body is not JSON");
      return undefined;
    }
  };

  const postToSession = async (
    req: IncomingMessage,
    res: ServerResponse,
    entry: SessionEntry<SessionSlot>,
  ) => {
    const parsed = await readJson(req, res);
    if (!parsed) return;
    const transport = entry.value.transport;
    if (!sessions.has(entry) || !transport) {
      return rpcError(res, 404, -32001, "Session not found; initialize a new session");
    }
    sessions.begin(entry);
    try {
      await transport.handleRequest(req, res, parsed.body);
    } finally {
      sessions.end(entry, accepted(res), hasRealMessage(parsed.body));
    }
  };

  // 2026-07-28: the SDK's per-request entry, strict (2025-era traffic never reaches it: it is routed to
  // the sessions above). It checks the `_meta` envelope, the standard headers against the body and the
  // version, refuses removed and unknown methods, and builds one server per request.
  const stateless = createMcpHandler(() => createMcpServer(), {
    legacy: "reject",
    maxRequestBodySize: maxBody,
    onerror: (error) => {
      // A refused request was answered with its JSON-RPC error, and is counted below by its status; the
      // entry reports it here too (as "Rejected inbound request (...)"). Anything else is a fault.
      if (!error.message.startsWith("Rejected inbound request")) {
        process.stderr.write(`HTTP (2026-07-28) request failed: ${error.message}\n`);
      }
    },
  });
  const serveStateless = toNodeHandler(stateless, {
    maxRequestBodySize: maxBody,
    onerror: (error) => process.stderr.write(`HTTP (2026-07-28) request failed: ${error.message}\n`),
  });

  /** A POST without a session: a 2026-07-28 request, or a 2025-era `initialize` opening one. */
  const postWithoutSession = async (req: IncomingMessage, res: ServerResponse) => {
    const parsed = await readJson(req, res);
    if (!parsed) return;
    const { body } = parsed;
    // Only the headers and the parsed body matter to the classification (the Host was checked above; a
    // fixed URL keeps an odd one from failing the Request's construction).
    const request = new Request("http://localhost/mcp", { method: "POST", headers: webHeaders(req) });
    if (!(await isLegacyRequest(request, body, { maxRequestBodySize: maxBody }))) {
      if (closing) return rpcError(res, 503, -32000, "The server is shutting down", {}, requestIdOf(body));
      counters.statelessRequests++;
      await serveStateless(req, res, body);
      if (res.statusCode >= 400) counters.statelessRefused++;
      return;
    }
    const initialize = Array.isArray(body)
      ? body.some((m) => isInitializeRequest(m))
      : isInitializeRequest(body);
    if (!initialize) {
      return rpcError(
        res,
        400,
        -32000,
        "Bad request: no Mcp-Session-Id; send initialize first (2025-11-25 and earlier), or per-request _meta (2026-07-28)",
        {},
        requestIdOf(body),
      );
    }
    const clientKey = clientKeyOf(req.socket.remoteAddress);
    const admission = sessions.canAdmit(clientKey);
    if (admission !== true) return refuseSession(res, admission);
    return openSession(req, res, clientKey, body);
  };

  const openSession = async (
    req: IncomingMessage,
    res: ServerResponse,
    clientKey: string | undefined,
    body: unknown,
  ) => {
    if (closing) return rpcError(res, 503, -32000, "The server is shutting down");
    const id = randomUUID();
    const slot: SessionSlot = {};
    const entry = sessions.open(id, clientKey, slot);
    if (!("id" in entry)) return refuseSession(res, entry);
    sessions.begin(entry);
    let initialized = false;
    try {
      slot.server = await createMcpServer();
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        onsessioninitialized: () => {
          initialized = true;
          counters.sessionsOpened++;
        },
      });
      slot.transport = transport;
      transport.onclose = () => {
        sessions.delete(id);
      };
      if (closing || !sessions.has(entry)) return rpcError(res, 503, -32000, "The server is shutting down");
      await slot.server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      sessions.end(entry, accepted(res), false);
      if (!initialized) {
        sessions.delete(id);
        await closeSlot(slot);
      }
    }
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
      if (!isJsonContentType(req.headers["content-type"])) {
        return rpcError(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json");
      }
      if (sessionId) {
        const entry = sessions.get(sessionId);
        if (!entry) return rpcError(res, 404, -32001, "Session not found; initialize a new session");
        return postToSession(req, res, entry);
      }
      return postWithoutSession(req, res);
    }
    if (req.method === "GET" || req.method === "DELETE") {
      const entry = sessionId ? sessions.get(sessionId) : undefined;
      const transport = entry?.value.transport;
      if (!entry || !transport) {
        return rpcError(res, sessionId ? 404 : 400, -32000, "Unknown or missing Mcp-Session-Id");
      }
      await transport.handleRequest(req, res);
      if (!accepted(res)) return;
      if (req.method === "DELETE") {
        sessions.delete(entry.id);
        await closeSlot(entry.value);
      } else {
        sessions.touch(entry);
      }
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

  // Expired sessions are also dropped when they are looked up or when room is needed; the sweep
  // releases the rest.
  const sweeper = setInterval(() => sessions.sweep(), Math.max(25, Math.min(pendingMs, idleMs, 60_000) / 2));
  sweeper.unref();

  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/mcp`,
    server,
    sessionCount: () => sessions.size,
    stats: () => ({
      sessions: sessions.size,
      pendingSessions: sessions.pendingCount,
      sessionsOpened: counters.sessionsOpened,
      sessionsEvicted: counters.sessionsEvicted,
      sessionsExpired: counters.sessionsExpired,
      sessionsRefused: counters.sessionsRefused,
      bodiesRefused: counters.bodiesTooLarge + counters.bodiesTooDeep + counters.bodiesInvalidJson,
      bodiesTooLarge: counters.bodiesTooLarge,
      bodiesTooDeep: counters.bodiesTooDeep,
      statelessRequests: counters.statelessRequests,
      statelessRefused: counters.statelessRefused,
    }),
    async close() {
      closing = true;
      clearInterval(sweeper);
      await Promise.all([stateless.close(), ...sessions.clear().map((entry) => closeSlot(entry.value))]);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
