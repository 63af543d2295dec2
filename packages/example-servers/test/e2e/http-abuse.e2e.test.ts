// The --http mode under abuse: hostile bodies are refused before they are parsed, the session table
// cannot be filled by bare `initialize` requests, and malformed 2026-07-28 requests get their JSON-RPC
// error (with their id) without a session or a server of their own. Real HTTP on 127.0.0.1 port 0, the
// real SDK client, the built bins as child processes; time is driven through the server's own timeout
// options.
import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLocalToolsServer } from "../../src/local-tools/create-local-tools-server.js";
import { type HttpServerHandle, type ServeHttpOptions, serveHttp } from "../../src/serve-http.js";
import { runBin, startBin, stopAll, textOf } from "./helpers.js";

const handles: HttpServerHandle[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await Promise.all(handles.splice(0).map((h) => h.close()));
  await stopAll();
});

async function serve(options: ServeHttpOptions = {}): Promise<HttpServerHandle> {
  const handle = await serveHttp(() => createLocalToolsServer(), options);
  handles.push(handle);
  return handle;
}

/** A real SDK client with its own (2025-era) session; returns the client and its session id. */
async function connect(
  url: string,
  token?: string,
): Promise<{ client: Client; sessionId: string; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {},
  );
  const client = new Client(
    { name: "e2e-real", version: "0.0.0" },
    { versionNegotiation: { mode: "legacy" } },
  );
  clients.push(client);
  await client.connect(transport);
  return { client, sessionId: transport.sessionId ?? expect.fail("no session id"), transport };
}

async function echo(client: Client, text: string): Promise<string> {
  return textOf(await client.callTool({ name: "echo", arguments: { text } }));
}

interface RawReply {
  status: number;
  text: string;
  sessionId: string | null;
  error?: { code: number; message: string };
}

/** One raw POST to the MCP endpoint, as a hostile or bare client sends it. */
async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<RawReply> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
  const text = await res.text();
  let error: RawReply["error"];
  try {
    error = (JSON.parse(text) as { error?: RawReply["error"] }).error;
  } catch {
    // an SSE reply
  }
  return { status: res.status, text, sessionId: res.headers.get("mcp-session-id"), error };
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "bare", version: "0" },
  },
});
const sessionHeaders = (sessionId: string, extra: Record<string, string> = {}) => ({
  "mcp-session-id": sessionId,
  "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
  ...extra,
});
/** A bare initialize: opens a session and never says another word. */
async function bareInitialize(url: string, headers: Record<string, string> = {}): Promise<RawReply> {
  return post(url, initialize, headers);
}
const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
/** 4,000,000 bytes of nested brackets: under the 4 MiB body limit, two million levels deep. */
const nestedBomb = () => `${"[".repeat(2_000_000)}${"]".repeat(2_000_000)}`;

describe("request bodies are bounded before they are parsed", () => {
  it("refuses a 4 MB body of nested brackets with 400 / -32700, and a normal client works right after", async () => {
    const handle = await serve();
    const bomb = nestedBomb();
    const replies = await Promise.all(Array.from({ length: 8 }, () => post(handle.url, bomb)));
    for (const reply of replies) {
      expect(reply.status).toBe(400);
      expect(reply.error).toEqual({
        code: -32700,
        message: "Parse error: JSON nested deeper than 64 levels",
      });
    }
    expect(handle.stats()).toMatchObject({ bodiesTooDeep: 8, bodiesRefused: 8, sessions: 0 });

    const { client, sessionId } = await connect(handle.url);
    expect(await echo(client, "still here")).toBe("still here");
    // the same bomb inside an established session: refused, and the session goes on
    const inSession = await post(handle.url, bomb, sessionHeaders(sessionId));
    expect(inSession.status).toBe(400);
    expect(inSession.error?.code).toBe(-32700);
    expect(handle.stats().bodiesTooDeep).toBe(9);
    expect(await echo(client, "after the bomb")).toBe("after the bomb");
  });

  it("accepts nesting up to maxJsonDepth and refuses one level more, brackets inside strings not counted", async () => {
    const handle = await serve({ maxJsonDepth: 8 });
    const { client, sessionId } = await connect(handle.url);
    const call = (args: unknown) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "echo", arguments: args },
      });
    // message 1 + params 2 + arguments 3: the text value sits at depth 3, whatever brackets it holds
    const flat = await post(handle.url, call({ text: "[[[[[[[[[[[[{{{{{{{{" }), sessionHeaders(sessionId));
    expect(flat.status).toBe(200);
    expect(flat.text).toContain("[[[[[[[[[[[[{{{{{{{{");
    const atLimit = await post(
      handle.url,
      call({ text: "x", extra: [[[[[1]]]]] }),
      sessionHeaders(sessionId),
    );
    expect(atLimit.status).toBe(200); // depth 8: accepted (the tool itself rejects the extra argument or not)
    const tooDeep = await post(
      handle.url,
      call({ text: "x", extra: [[[[[[1]]]]]] }),
      sessionHeaders(sessionId),
    );
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.error?.message).toBe("Parse error: JSON nested deeper than 8 levels");
    expect(handle.stats().bodiesTooDeep).toBe(1);
    expect(await echo(client, "ok")).toBe("ok");
  });

  it("answers an unknown session with 404 before reading the body, and a huge body with 413", async () => {
    const handle = await serve({ maxBodyBytes: 64 * 1024 });
    const unknown = await post(handle.url, nestedBomb(), sessionHeaders("no-such-session"));
    expect(unknown.status).toBe(404);
    expect(handle.stats().bodiesRefused).toBe(0); // never read, so never scanned or parsed
    const large = await post(handle.url, JSON.stringify({ text: "x".repeat(100_000) }));
    expect(large.status).toBe(413);
    expect(handle.stats()).toMatchObject({ bodiesTooLarge: 1, bodiesRefused: 1 });
    const wrongType = await post(handle.url, initialize, { "content-type": "text/plain" });
    expect(wrongType.status).toBe(415);
    const notJson = await post(handle.url, "{ not json");
    expect(notJson.status).toBe(400);
    expect(notJson.error?.code).toBe(-32700);
    expect(handle.stats()).toMatchObject({ bodiesRefused: 2, sessions: 0 });
  });

  it.skipIf(!process.platform.startsWith("linux"))(
    "the bin's peak memory stays flat under eight concurrent bombs (generous sanity bound)",
    async () => {
      const bin = await startBin("local-tools", ["--http"]);
      const peakRssKb = () => {
        const status = readFileSync(`/proc/${bin.child.pid}/status`, "utf8");
        return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
      };
      const before = peakRssKb();
      const bomb = nestedBomb();
      const replies = await Promise.all(Array.from({ length: 8 }, () => post(bin.url, bomb)));
      expect(replies.map((r) => r.status)).toEqual(Array(8).fill(400));
      // Parsing these bodies used to cost about 750 MB; buffering them costs 32 MB.
      expect(peakRssKb() - before).toBeLessThan(250 * 1024);
      const { client } = await connect(bin.url);
      expect(await echo(client, "fine")).toBe("fine");
    },
  );
});

/** The per-request envelope of a 2026-07-28 client. */
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bare", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** A 2026-07-28 request with the standard headers a conforming client sends. */
function modernPost(
  url: string,
  message: { id: number; method: string; params?: Record<string, unknown> },
  headers: Record<string, string> = {},
): Promise<RawReply & { id?: unknown }> {
  const params = message.params ?? { _meta: META };
  const name: Record<string, string> = typeof params.name === "string" ? { "mcp-name": params.name } : {};
  return post(url, JSON.stringify({ jsonrpc: "2.0", ...message, params }), {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": message.method,
    ...name,
    ...headers,
  }).then((reply) => {
    let id: unknown;
    try {
      id = (JSON.parse(reply.text) as { id?: unknown }).id;
    } catch {
      // an SSE reply
    }
    return { ...reply, id };
  });
}

describe("2026-07-28 requests: stateless, checked by the SDK, refused with their id", () => {
  it("serves them without a session or a server kept between requests, and counts them", async () => {
    const handle = await serve();
    const list = await modernPost(handle.url, { id: 1, method: "tools/list" });
    expect(list.status).toBe(200);
    expect(list.sessionId).toBeNull();
    const result = (JSON.parse(list.text) as { result: Record<string, unknown> }).result;
    expect(result).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    expect((result.tools as { name: string }[]).map((t) => t.name)).toEqual([
      "current_time",
      "echo",
      "word_count",
    ]);
    const called = await modernPost(handle.url, {
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "stateless" }, _meta: META },
    });
    expect(called.text).toContain("stateless");
    expect(handle.stats()).toMatchObject({ sessions: 0, statelessRequests: 2, statelessRefused: 0 });
  });

  it("refuses malformed envelopes, header mismatches, unknown versions and removed methods, naming the request", async () => {
    const handle = await serve();
    const cases: {
      name: string;
      reply: Promise<RawReply & { id?: unknown }>;
      status: number;
      code: number;
    }[] = [
      {
        name: "no clientCapabilities",
        reply: modernPost(handle.url, {
          id: 11,
          method: "server/discover",
          params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
        }),
        status: 400,
        code: -32602,
      },
      {
        name: "header and body disagree",
        reply: modernPost(handle.url, { id: 12, method: "tools/list" }, { "mcp-method": "prompts/list" }),
        status: 400,
        code: -32020,
      },
      {
        name: "an unsupported revision",
        reply: modernPost(
          handle.url,
          {
            id: 13,
            method: "server/discover",
            params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
          },
          { "mcp-protocol-version": "2099-01-01" },
        ),
        status: 400,
        code: -32022,
      },
      {
        name: "initialize (removed)",
        reply: modernPost(handle.url, { id: 14, method: "initialize" }),
        status: 404,
        code: -32601,
      },
      {
        name: "ping (removed)",
        reply: modernPost(handle.url, { id: 15, method: "ping" }),
        status: 404,
        code: -32601,
      },
      {
        name: "an unknown method",
        reply: modernPost(handle.url, { id: 16, method: "nope/nope" }),
        status: 404,
        code: -32601,
      },
    ];
    for (const [i, { name, reply, status, code }] of cases.entries()) {
      const answer = await reply;
      expect({ name, status: answer.status, code: answer.error?.code, id: answer.id }).toEqual({
        name,
        status,
        code,
        id: 11 + i,
      });
    }
    expect(handle.stats()).toMatchObject({ sessions: 0, statelessRequests: 6, statelessRefused: 6 });
  });

  it("a claim-less request without a session is a 2025-era one: 400, naming the request and both ways in", async () => {
    const handle = await serve();
    const reply = await post(handle.url, ping(21));
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ id: 21, error: { code: -32000 } });
    expect(reply.error?.message).toMatch(/send initialize first .* or per-request _meta \(2026-07-28\)/);
  });

  it("the guards apply to them too: token, body size, JSON depth", async () => {
    const handle = await serve({ token: "modern-token", maxBodyBytes: 64 * 1024 });
    expect((await modernPost(handle.url, { id: 1, method: "tools/list" })).status).toBe(401);
    const auth = { authorization: "Bearer modern-token" };
    expect((await modernPost(handle.url, { id: 2, method: "tools/list" }, auth)).status).toBe(200);
    const large = await modernPost(
      handle.url,
      {
        id: 3,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "x".repeat(100_000) }, _meta: META },
      },
      auth,
    );
    expect(large.status).toBe(413);
    const deep = await post(handle.url, `${"[".repeat(20_000)}${"]".repeat(20_000)}`, {
      ...auth,
      "mcp-protocol-version": "2026-07-28",
    });
    expect(deep.status).toBe(400);
    expect(handle.stats()).toMatchObject({ bodiesTooLarge: 1, bodiesTooDeep: 1, statelessRequests: 1 });
  });

  it("a table full of established 2025 sessions does not keep 2026-07-28 clients out", async () => {
    const handle = await serve({ maxSessions: 1 });
    const { client } = await connect(handle.url);
    expect((await bareInitialize(handle.url)).status).toBe(503);
    const modern = new Client(
      { name: "e2e-modern", version: "0.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    clients.push(modern);
    await modern.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    expect(modern.getProtocolEra()).toBe("modern");
    expect(await echo(modern, "still served")).toBe("still served");
    expect(await echo(client, "and the session too")).toBe("and the session too");
    expect(handle.stats()).toMatchObject({ sessions: 1, sessionsRefused: 1 });
  });
});

describe("the session table cannot be filled by bare initializes", () => {
  it("a flood of bare initializes (more than maxSessions) never evicts an established session", async () => {
    const handle = await serve({ maxSessions: 10 });
    const { client, sessionId } = await connect(handle.url);
    // One after the other, so each finds the previous ones idle and evictable (a concurrent flood whose
    // sessions are all still being initialized gets 503 instead: sessions with a request in flight are
    // never evicted).
    const flood: RawReply[] = [];
    for (let i = 0; i < 40; i++) flood.push(await bareInitialize(handle.url));
    expect(flood.every((reply) => reply.status === 200 && reply.sessionId)).toBe(true);
    const stats = handle.stats();
    expect(stats.sessions).toBe(10);
    expect(stats.pendingSessions).toBe(9);
    expect(stats.sessionsEvicted).toBe(31); // 41 opened, room for 10
    expect(stats.sessionsOpened).toBe(41);
    expect(await echo(client, "not evicted")).toBe("not evicted");
    // the flood's oldest sessions are gone, its newest still there
    const oldest = flood[0]?.sessionId ?? expect.fail("no session id");
    expect((await post(handle.url, ping(2), sessionHeaders(oldest))).status).toBe(404);
    const newest = flood.at(-1)?.sessionId ?? expect.fail("no session id");
    expect((await post(handle.url, ping(3), sessionHeaders(newest))).status).toBe(200);
    expect((await post(handle.url, ping(4), sessionHeaders(sessionId))).status).toBe(200);
  });

  it("when established sessions fill the table, a new session gets 503 and nobody is evicted", async () => {
    const handle = await serve({ maxSessions: 3 });
    const real = [await connect(handle.url), await connect(handle.url), await connect(handle.url)];
    const refused = await bareInitialize(handle.url);
    expect(refused.status).toBe(503);
    expect(refused.error?.message).toMatch(/Too many sessions \(limit 3\), all in use/);
    expect(handle.stats()).toMatchObject({ sessions: 3, sessionsRefused: 1, sessionsEvicted: 0 });
    for (const { client } of real) expect(await echo(client, "mine")).toBe("mine");
  });

  it("DELETE /mcp ends a session and frees its slot", async () => {
    const handle = await serve({ maxSessions: 1 });
    const { transport } = await connect(handle.url);
    expect((await bareInitialize(handle.url)).status).toBe(503);
    await transport.terminateSession();
    expect(handle.sessionCount()).toBe(0);
    expect((await bareInitialize(handle.url)).status).toBe(200);
  });

  it("expires a session that never got past initialize after pendingSessionMs (404 afterwards)", async () => {
    // 1 s: the real client's own initialize → initialized gap must stay below it on a busy machine
    const handle = await serve({ pendingSessionMs: 1_000 });
    const { client } = await connect(handle.url);
    const bare = await bareInitialize(handle.url);
    const bareId = bare.sessionId ?? expect.fail("no session id");
    expect(handle.stats()).toMatchObject({ sessions: 2, pendingSessions: 1 });
    await vi.waitFor(() => expect(handle.stats().pendingSessions).toBe(0), { timeout: 30_000, interval: 50 });
    expect(handle.stats()).toMatchObject({ sessions: 1, sessionsExpired: 1 });
    expect((await post(handle.url, ping(5), sessionHeaders(bareId))).status).toBe(404);
    expect(await echo(client, "established sessions are not pending")).toBe(
      "established sessions are not pending",
    );
  });

  it("expires an idle session; requests for another session and rejected requests do not extend it", async () => {
    // 4 s: far above the gap between two of `busy`'s requests even on a busy machine
    const handle = await serve({ sessionIdleMs: 4_000 });
    const idle = await connect(handle.url);
    const busy = await connect(handle.url);
    let rejected = 0;
    let n = 10;
    // Keep `busy` active and throw rejected requests at `idle` until `idle` expires.
    await vi.waitFor(
      async () => {
        expect((await post(handle.url, ping(n++), sessionHeaders(busy.sessionId))).status).toBe(200);
        const garbage = [
          "{ not json",
          `${"[".repeat(100)}${"]".repeat(100)}`,
          JSON.stringify({ not: "a JSON-RPC message" }),
        ];
        for (const body of garbage) {
          const reply = await post(handle.url, body, sessionHeaders(idle.sessionId));
          if (reply.status === 404) break; // expired: the loop ends at the next check
          expect(reply.status).toBe(400);
          rejected++;
        }
        expect(handle.stats().sessionsExpired).toBe(1);
      },
      { timeout: 60_000, interval: 100 },
    );
    expect(rejected).toBeGreaterThan(0);
    expect(handle.stats().sessions).toBe(1);
    expect((await post(handle.url, ping(n++), sessionHeaders(idle.sessionId))).status).toBe(404);
    expect(await echo(busy.client, "busy is alive")).toBe("busy is alive");
  });

  const lanAddress = Object.values(networkInterfaces())
    .flat()
    .find((info) => info?.family === "IPv4" && !info.internal)?.address;

  it.skipIf(!lanAddress)(
    "caps sessions per non-loopback client address, evicting that client's pending sessions first",
    async () => {
      const token = "per-client-token";
      const handle = await serve({ host: lanAddress, token, maxSessionsPerClient: 3 });
      const auth = { authorization: `Bearer ${token}` };
      const first = await connect(handle.url, token);
      for (let i = 0; i < 10; i++) expect((await bareInitialize(handle.url, auth)).status).toBe(200);
      expect(handle.stats()).toMatchObject({ sessions: 3, pendingSessions: 2, sessionsEvicted: 8 });
      const more = [await connect(handle.url, token), await connect(handle.url, token)];
      const refused = await bareInitialize(handle.url, auth);
      expect(refused.status).toBe(503);
      expect(refused.error?.message).toMatch(/Too many sessions from this client address \(limit 3\)/);
      for (const { client } of [first, ...more]) expect(await echo(client, "lan")).toBe("lan");
    },
  );
});

describe("the bins take the limits from the environment", () => {
  it("MCP_HTTP_MAX_SESSIONS and MCP_HTTP_MAX_JSON_DEPTH apply; a flood leaves the real client working", async () => {
    const bin = await startBin("local-tools", ["--http"], {
      env: { MCP_HTTP_MAX_SESSIONS: "3", MCP_HTTP_MAX_JSON_DEPTH: "10" },
    });
    const { client } = await connect(bin.url);
    for (let i = 0; i < 12; i++) expect((await bareInitialize(bin.url)).status).toBe(200);
    expect(await echo(client, "survived")).toBe("survived");
    const deep = await post(bin.url, `${"[".repeat(11)}${"]".repeat(11)}`);
    expect(deep.error).toEqual({ code: -32700, message: "Parse error: JSON nested deeper than 10 levels" });
  });

  it("MCP_HTTP_PENDING_SESSION_SECONDS expires bare sessions", async () => {
    const bin = await startBin("local-tools", ["--http"], {
      env: { MCP_HTTP_PENDING_SESSION_SECONDS: "0.2" },
    });
    const bare = await bareInitialize(bin.url);
    const bareId = bare.sessionId ?? expect.fail("no session id");
    // The probe is a rejected request (not JSON): 400 while the session lives, 404 once it expired.
    // A rejected request neither extends nor establishes a session (a ping would establish it).
    await vi.waitFor(
      async () => expect((await post(bin.url, "{ probe", sessionHeaders(bareId))).status).toBe(404),
      { timeout: 30_000, interval: 100 },
    );
  });

  it("a malformed limit is a usage error (exit code 2) naming the variable", async () => {
    const result = await runBin("local-tools", ["--http"], { MCP_HTTP_MAX_SESSIONS: "lots" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('MCP_HTTP_MAX_SESSIONS expects a whole number of at least 1, got "lots"');
  });
});
