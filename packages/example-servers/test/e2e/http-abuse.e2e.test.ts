// The --http mode under abuse: hostile bodies are refused before they are parsed, and the session table
// cannot be filled by bare `initialize` requests. Real HTTP on 127.0.0.1 port 0, the real SDK client,
// the built bins as child processes; time is driven through the server's own timeout options.
import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
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

/** A real SDK client with its own session; returns the client and its session id. */
async function connect(
  url: string,
  token?: string,
): Promise<{ client: Client; sessionId: string; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {},
  );
  const client = new Client({ name: "e2e-real", version: "0.0.0" });
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
