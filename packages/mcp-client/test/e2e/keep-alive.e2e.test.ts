// Kept-alive sockets that the server closes as a request arrives (issue #24): a real HTTP MCP server
// (its own process) behind a TCP proxy on 127.0.0.1 that closes a client socket at the moment the test
// chooses, through the manager. No sleeps: the proxy acts on the request's bytes.
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";
import { httpTestServer, type RunningHttpTestServer, startHttpTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import { MCPConnectionError, type MCPDisconnectedEvent } from "../../src/index.js";
import { staleAfterMs } from "../../src/internal/transport/keep-alive-fetch.js";
import { cleanup, manager, onCleanup, rejectionOf, textOf } from "./helpers.js";

afterEach(cleanup);

/**
 * What the proxy does with a `tools/call` request:
 * - `forward`: pass it on (and the answer back);
 * - `close` / `reset`: close the client's socket (FIN / RST) without passing the request on, as a
 *   server closing an idle kept-alive socket just as the request arrives;
 * - `run-then-close`: pass it on, and once the server answers, close the client's socket without one
 *   byte of the answer (the server read the request and ran the tool);
 * - `status-line`: pass it on, send the client the answer's first line only, then close.
 */
type Action = "forward" | "close" | "reset" | "run-then-close" | "status-line";

interface ToolCallSeen {
  /** The client socket had carried an earlier request. */
  reused: boolean;
  action: Action;
}

interface Proxy {
  url: string;
  /** What to do with the next `tools/call` requests, in order (then `forward`). */
  plan(...actions: Action[]): void;
  /** Every `tools/call` the proxy received, in order. */
  toolCalls: ToolCallSeen[];
  /**
   * Answer `Keep-Alive: timeout=1` in place of the server's `timeout=5`: undici then closes each socket
   * after its answer (less than its 2 s margin is left), so every request goes out on a fresh socket.
   */
  freshSockets: boolean;
  /** Close every idle client socket (all but the SSE streams of GET requests) now; resolves the count. */
  closeIdle(): number;
}

const HEADER_END = Buffer.from("\r\n\r\n");

/** The length of the first complete HTTP request in `buffer` (Content-Length framed), if any. */
function requestLength(buffer: Buffer): number | undefined {
  const end = buffer.indexOf(HEADER_END);
  if (end < 0) return undefined;
  const head = buffer.subarray(0, end).toString("latin1");
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const total = end + HEADER_END.length + (length ? Number(length[1]) : 0);
  return buffer.length >= total ? total : undefined;
}

async function startProxy(target: URL): Promise<Proxy> {
  const queue: Action[] = [];
  const sockets = new Set<Socket>();
  const proxy: Proxy = {
    url: "",
    plan: (...actions) => queue.push(...actions),
    toolCalls: [],
    freshSockets: false,
    closeIdle: () => {
      const idle = [...clients].filter((client) => !streams.has(client));
      for (const client of idle) client.destroy();
      return idle.length;
    },
  };
  const clients = new Set<Socket>();
  const streams = new WeakSet<Socket>();
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    clients.add(client);
    client.on("close", () => clients.delete(client));
    let pending = Buffer.alloc(0);
    let requests = 0;
    let onAnswer: ((chunk: Buffer) => void) | undefined;
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
    upstream.on("data", (chunk: Buffer) => {
      if (onAnswer) return onAnswer(chunk);
      const text = chunk.toString("latin1");
      client.write(
        proxy.freshSockets
          ? Buffer.from(text.replace(/Keep-Alive: timeout=\d+/i, "Keep-Alive: timeout=1"), "latin1")
          : chunk,
      );
    });
    client.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let length = requestLength(pending); length !== undefined; length = requestLength(pending)) {
        const request = pending.subarray(0, length);
        pending = pending.subarray(length);
        const reused = requests++ > 0;
        if (request.subarray(0, 4).toString("latin1") === "GET ") streams.add(client);
        if (!request.toString("utf8").includes('"method":"tools/call"')) {
          upstream.write(request);
          continue;
        }
        const action = queue.shift() ?? "forward";
        proxy.toolCalls.push({ reused, action });
        if (action === "close") return end();
        if (action === "reset") {
          upstream.destroy();
          client.resetAndDestroy();
          return;
        }
        if (action === "run-then-close") onAnswer = end;
        if (action === "status-line") {
          onAnswer = (answer) => {
            client.write(answer.subarray(0, answer.indexOf("\r\n") + 2));
            end();
          };
        }
        upstream.write(request);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no proxy port");
  proxy.url = `http://127.0.0.1:${address.port}${target.pathname}`;
  onCleanup(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return proxy;
}

interface Stats {
  calls: Record<string, number>;
}

/** How many times the server ran `tool` (`echo` has no annotations; `add` is `readOnlyHint: true`). */
async function runs(running: RunningHttpTestServer, tool = "echo"): Promise<number> {
  const stats = (await (await fetch(`${running.origin}/admin/stats`)).json()) as Stats;
  return stats.calls[tool] ?? 0;
}
const echoRuns = (running: RunningHttpTestServer) => runs(running, "echo");

/** A test server behind a proxy, and a manager connected through it (one warm-up call made). */
async function setUp(freshSockets = false) {
  const running = await startHttpTestServer();
  onCleanup(() => running.stop());
  const proxy = await startProxy(new URL(running.url));
  proxy.freshSockets = freshSockets;
  const m = manager([httpTestServer("remote", proxy.url)]);
  expect(textOf(await m.callTool("remote", "echo", { text: "warm-up" }))).toBe("warm-up");
  const disconnected: MCPDisconnectedEvent[] = [];
  m.on("disconnected", (event) => disconnected.push(event));
  const seenBefore = proxy.toolCalls.length;
  return { running, proxy, m, disconnected, newToolCalls: () => proxy.toolCalls.slice(seenBefore) };
}

describe("kept-alive sockets closed by the server", () => {
  it.each([
    { action: "close", wire: "FIN" },
    { action: "reset", wire: "RST" },
  ] as const)(
    "a call of a read-only tool whose reused socket is closed ($wire) as it arrives is sent again once on a fresh socket and runs once",
    async ({ action }) => {
      const { running, proxy, m, disconnected, newToolCalls } = await setUp();
      await m.listTools("remote"); // the annotations say `add` is read-only
      proxy.plan(action);
      expect(textOf(await m.callTool("remote", "add", { a: 2, b: 3 }))).toBe("5");
      expect(newToolCalls()).toEqual([
        { reused: true, action },
        { reused: false, action: "forward" },
      ]);
      expect(await runs(running, "add")).toBe(1);
      expect(disconnected).toEqual([]); // transparent: the MCP connection stayed up
      // The connection keeps working afterwards.
      expect(textOf(await m.callTool("remote", "echo", { text: "after" }))).toBe("after");
      expect(await echoRuns(running)).toBe(2);
    },
  );

  it("a call of a tool not marked read-only or idempotent is never sent twice: the same race → CONNECTION_LOST", async () => {
    const { running, proxy, m, newToolCalls } = await setUp();
    await m.listTools("remote");
    proxy.plan("close");
    const error = await rejectionOf(m.callTool("remote", "echo", { text: "maybe ran" }));
    expect(error).toMatchObject({ code: "CONNECTION_LOST", serverName: "remote" });
    // The server could have read it before closing (a crash mid-request looks the same): not repeated.
    expect(newToolCalls()).toEqual([{ reused: true, action: "close" }]);
    expect(await echoRuns(running)).toBe(1); // only the warm-up ran
  });

  it("a kept-alive socket the server closed while idle, the close not read yet when a read-only call goes out: the call runs once", async () => {
    const { running, proxy, m, disconnected, newToolCalls } = await setUp();
    await m.listTools("remote");
    expect(proxy.closeIdle()).toBeGreaterThan(0);
    // Called in the same turn: the client has not read the close yet when the call goes out.
    expect(textOf(await m.callTool("remote", "add", { a: 20, b: 22 }))).toBe("42");
    expect(newToolCalls()).toEqual([{ reused: false, action: "forward" }]);
    expect(await runs(running, "add")).toBe(1);
    expect(disconnected).toEqual([]);
  });

  it("a socket idle nearly as long as its server keeps idle sockets, its timer not fired (a busy event loop), is not written on: a plain call goes on a fresh socket and runs once", async () => {
    const { running, m, disconnected, newToolCalls } = await setUp();
    await m.listTools("remote");
    // Keep the event loop busy past the limit, as a loaded machine does: undici's idle timer cannot close
    // the socket, which the server (it announces `Keep-Alive: timeout=5`) may be closing right now.
    const busyUntil = performance.now() + staleAfterMs(5_000) + 300;
    while (performance.now() < busyUntil) {
      // busy
    }
    expect(textOf(await m.callTool("remote", "echo", { text: "fresh" }))).toBe("fresh");
    // The proxy saw it once, on a new socket: the stale one was closed before a byte was written.
    expect(newToolCalls()).toEqual([{ reused: false, action: "forward" }]);
    expect(await echoRuns(running)).toBe(2); // the warm-up, and this one once
    expect(disconnected).toEqual([]);
  });

  it("a reused socket closed after the first bytes of the answer → CONNECTION_LOST, not sent again", async () => {
    const { running, proxy, m, newToolCalls } = await setUp();
    proxy.plan("status-line");
    const error = await rejectionOf(m.callTool("remote", "echo", { text: "once" }));
    expect(MCPConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "CONNECTION_LOST", serverName: "remote" });
    expect(newToolCalls()).toEqual([{ reused: true, action: "status-line" }]);
    expect(await echoRuns(running)).toBe(2); // ran exactly once
  });

  it("a fresh socket the server closes after reading the request, without answering → CONNECTION_LOST, not sent again", async () => {
    const { running, proxy, m, newToolCalls } = await setUp(true);
    proxy.plan("run-then-close");
    const error = await rejectionOf(m.callTool("remote", "echo", { text: "once" }));
    expect(error).toMatchObject({ code: "CONNECTION_LOST", serverName: "remote" });
    expect(newToolCalls()).toEqual([{ reused: false, action: "run-then-close" }]);
    expect(await echoRuns(running)).toBe(2); // the warm-up, and this one once
  });

  it("a second failure (the fresh socket closed too) is not retried again → CONNECTION_LOST", async () => {
    const { running, proxy, m, newToolCalls } = await setUp();
    await m.listTools("remote");
    proxy.plan("close", "close");
    const error = await rejectionOf(m.callTool("remote", "add", { a: 1, b: 1 }));
    expect(error).toMatchObject({ code: "CONNECTION_LOST", serverName: "remote" });
    expect(newToolCalls()).toEqual([
      { reused: true, action: "close" },
      { reused: false, action: "close" },
    ]);
    expect(await runs(running, "add")).toBe(0);
  });
});
