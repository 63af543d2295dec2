#!/usr/bin/env node
// A real MCP server over HTTP on 127.0.0.1: Streamable HTTP (or only the legacy HTTP+SSE transport),
// with an optional bearer-token check, OAuth client-credentials authorization server, and TLS/mTLS.
// Prints `ready <url>` on stderr once listening (see ../README.md for the flags).
import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { HOSTILE_TEXT, hostileFill } from "./lib/hostile-text.mjs";
import { createOAuthServer } from "./lib/oauth-server.mjs";
import { createState, createTestServer, parseArgs } from "./lib/test-server.mjs";

const options = parseArgs(process.argv.slice(2));
const state = createState();
const tls = typeof options.tlsCert === "string";
const envValue = (name) => (typeof name === "string" ? process.env[name] : undefined);
const expectedToken = envValue(options.tokenEnv);
const oauthClientId = typeof options.oauthClientId === "string" ? options.oauthClientId : undefined;
const oauthClientSecret = envValue(options.oauthClientSecretEnv);
const issuedTokens = new Set();
let origin = "";
const oauthServer = options.authServer ? createOAuthServer(options, () => origin) : undefined;

const same = (a, b) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

function json(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function authorized(req) {
  const header = req.headers.authorization ?? "";
  const token = header.startsWith("Bearer ") ? header.slice(7) : "";
  if (oauthClientId) return issuedTokens.has(token);
  if (expectedToken !== undefined) return same(token, expectedToken);
  return true;
}

function deny(req, res) {
  const headers = oauthClientId
    ? { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` }
    : { "www-authenticate": "Bearer" };
  // --echo-auth repeats the request headers, like careless servers do, so clients can prove they redact them.
  const body = options.echoAuth
    ? { error: "invalid_token", received: req.headers }
    : { error: "invalid_token" };
  json(res, 401, body, headers);
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

function oauthRoutes(req, res, url) {
  if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
    json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
    return true;
  }
  if (url.pathname === "/.well-known/oauth-authorization-server") {
    json(res, 200, {
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      response_types_supported: ["code"],
      grant_types_supported: ["client_credentials"],
      token_endpoint_auth_methods_supported: ["client_secret_basic"],
    });
    return true;
  }
  if (url.pathname === "/token" && req.method === "POST") {
    readBody(req).then((body) => {
      const params = new URLSearchParams(body);
      const basic = (req.headers.authorization ?? "").replace(/^Basic /, "");
      const [id, secret] = Buffer.from(basic, "base64").toString("utf8").split(":").map(decodeURIComponent);
      if (
        id !== oauthClientId ||
        secret === undefined ||
        !oauthClientSecret ||
        !same(secret, oauthClientSecret)
      ) {
        json(res, 401, { error: "invalid_client", error_description: "unknown client or wrong secret" });
        return;
      }
      if (params.get("grant_type") !== "client_credentials") {
        json(res, 400, { error: "unsupported_grant_type" });
        return;
      }
      const token = randomBytes(24).toString("hex");
      issuedTokens.add(token);
      json(res, 200, {
        access_token: token,
        token_type: "Bearer",
        expires_in: 3600,
        scope: params.get("scope") ?? undefined,
      });
    });
    return true;
  }
  return false;
}

const sessions = new Map(); // session id -> transport (Streamable HTTP or SSE)

async function streamable(req, res, parsedBody) {
  const sessionId = req.headers["mcp-session-id"];
  if (typeof sessionId === "string") {
    const transport = sessions.get(sessionId);
    if (!transport) {
      json(res, 404, { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
      return;
    }
    await transport.handleRequest(req, res, parsedBody);
    return;
  }
  if (req.method !== "POST") {
    json(res, 400, { jsonrpc: "2.0", error: { code: -32000, message: "No session" }, id: null });
    return;
  }
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await createTestServer(options, state).connect(transport);
  await transport.handleRequest(req, res, parsedBody);
}

async function legacySse(req, res, url) {
  if (req.method === "GET" && url.pathname === "/mcp") {
    const transport = new SSEServerTransport("/messages", res);
    sessions.set(transport.sessionId, transport);
    res.on("close", () => sessions.delete(transport.sessionId));
    await createTestServer(options, state).connect(transport);
    return;
  }
  if (req.method === "POST" && url.pathname === "/messages") {
    const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
    if (!transport) {
      json(res, 404, { error: "unknown session" });
      return;
    }
    await transport.handlePostMessage(req, res);
    return;
  }
  // What an old HTTP+SSE server answers to a Streamable HTTP POST on its SSE URL.
  json(res, 405, { error: "method not allowed" }, { allow: "GET" });
}

async function handle(req, res) {
  const url = new URL(req.url ?? "/", origin);
  if (oauthClientId && oauthRoutes(req, res, url)) return;
  if (oauthServer && (await oauthServer.handle(req, res, url, () => readBody(req)))) return;
  if (url.pathname === "/admin/drop-sessions" && req.method === "POST") {
    const dropped = sessions.size;
    for (const transport of [...sessions.values()]) await transport.close();
    sessions.clear();
    json(res, 200, { dropped });
    return;
  }
  if (url.pathname === "/admin/stats") {
    json(res, 200, state);
    return;
  }
  if (options.hostileErrorBody && url.pathname === "/mcp") {
    // --hostile-error-body: every MCP request is answered 500 with a body that attacks its reader.
    res.writeHead(500, { "content-type": "text/plain" });
    res.end(`${HOSTILE_TEXT}\n${hostileFill(20_000)}`);
    return;
  }
  if (url.pathname !== "/mcp" && url.pathname !== "/messages") {
    json(res, 404, { error: `nothing at ${url.pathname}` });
    return;
  }
  let parsedBody;
  if (oauthServer) {
    if (req.method === "POST") parsedBody = JSON.parse((await readBody(req)) || "null");
    const denial = oauthServer.check(req, parsedBody);
    if (denial) {
      const error = denial.error ?? (denial.status === 401 ? "invalid_token" : "insufficient_scope");
      json(res, denial.status, { error }, { "www-authenticate": denial.header, ...denial.headers });
      return;
    }
  } else if (!authorized(req)) {
    deny(req, res);
    return;
  }
  if (options.hostileText && !options.legacySse && req.method === "POST" && parsedBody === undefined) {
    // --hostile-text: `escape_http_error` is answered with HTTP 500 and a hostile body.
    parsedBody = JSON.parse((await readBody(req)) || "null");
    if (parsedBody?.method === "tools/call" && parsedBody.params?.name === "escape_http_error") {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`${HOSTILE_TEXT}\n${hostileFill(20_000)}`);
      return;
    }
  }
  if (options.legacySse) await legacySse(req, res, url);
  else await streamable(req, res, parsedBody);
}

const listener = (req, res) => {
  handle(req, res).catch((error) => {
    process.stderr.write(`test server: ${error?.stack ?? error}\n`);
    if (!res.headersSent) json(res, 500, { error: "internal" });
  });
};
const server = tls
  ? createHttpsServer(
      {
        cert: readFileSync(options.tlsCert),
        key: readFileSync(options.tlsKey),
        ...(typeof options.tlsCa === "string" ? { ca: readFileSync(options.tlsCa) } : {}),
        requestCert: Boolean(options.requireClientCert),
        rejectUnauthorized: Boolean(options.requireClientCert),
      },
      listener,
    )
  : createHttpServer(listener);

server.listen(Number(options.port ?? 0), "127.0.0.1", () => {
  const { port } = server.address();
  origin = `${tls ? "https" : "http"}://127.0.0.1:${port}`;
  process.stderr.write(`ready ${origin}/mcp\n`);
});
const stop = () => {
  for (const transport of sessions.values()) transport.close().catch(() => {});
  server.close(() => process.exit(0));
  server.closeAllConnections?.();
  setTimeout(() => process.exit(0), 1000).unref();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
