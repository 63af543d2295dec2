import { getEventListeners } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { describe, expect, it } from "vitest";
import {
  type Attempt,
  closedBeforeAnswer,
  IDLE_SOCKET_MS,
  keepAliveFetch,
  mayRepeat,
  staleAfterMs,
} from "./keep-alive-fetch.js";

/** An attempt on a socket that has read `bytesRead` bytes now, `bytesReadAtSend` when the request went out. */
function attempt(reused: boolean, bytesReadAtSend: number, bytesRead: number): Attempt {
  return { reused, bytesReadAtSend, socket: { bytesRead } as Socket };
}

/** What undici's fetch rejects with: `TypeError: fetch failed` around the socket error. */
function fetchFailed(code: string): TypeError {
  return new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) });
}

describe("closedBeforeAnswer (which failed requests are sent again)", () => {
  it.each(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"])(
    "a reused socket closed (%s) before a byte of the answer: yes",
    (code) => {
      expect(closedBeforeAnswer(attempt(true, 120, 120), fetchFailed(code))).toBe(true);
    },
  );

  it("a fresh socket: no (the server may have read the request)", () => {
    expect(closedBeforeAnswer(attempt(false, 0, 0), fetchFailed("UND_ERR_SOCKET"))).toBe(false);
  });

  it("bytes of the answer arrived: no", () => {
    expect(closedBeforeAnswer(attempt(true, 120, 137), fetchFailed("UND_ERR_SOCKET"))).toBe(false);
  });

  it("the request never reached a socket: no", () => {
    expect(closedBeforeAnswer({ reused: false, bytesReadAtSend: 0 }, fetchFailed("ECONNRESET"))).toBe(false);
  });

  it.each(["UND_ERR_HEADERS_TIMEOUT", "ECONNREFUSED", "UND_ERR_ABORTED"])(
    "another failure (%s): no",
    (code) => {
      expect(closedBeforeAnswer(attempt(true, 120, 120), fetchFailed(code))).toBe(false);
    },
  );

  it("an abort (not a TypeError): no", () => {
    const abort = Object.assign(new DOMException("aborted", "AbortError"), { cause: { code: "ECONNRESET" } });
    expect(closedBeforeAnswer(attempt(true, 120, 120), abort)).toBe(false);
  });
});

describe("mayRepeat (which requests can be sent twice without doing anything twice)", () => {
  const url = "http://127.0.0.1:1/mcp";
  const post = (body: unknown) => ({
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const readOnly = (name: string) => name === "add";
  const call = (name: string, id = 1) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name } });

  it("a request without a body (GET, DELETE): yes", () => {
    expect(mayRepeat(url, { method: "GET" }, readOnly)).toBe(true);
    expect(mayRepeat(url, undefined, readOnly)).toBe(true);
  });

  it("requests that change nothing, responses and notifications: yes", () => {
    expect(mayRepeat(url, post({ jsonrpc: "2.0", id: 1, method: "tools/list" }), readOnly)).toBe(true);
    expect(mayRepeat(url, post({ jsonrpc: "2.0", method: "notifications/initialized" }), readOnly)).toBe(
      true,
    );
    expect(mayRepeat(url, post({ jsonrpc: "2.0", id: 4, result: {} }), readOnly)).toBe(true);
  });

  it("a tools/call: only of a tool vouched for (read-only or idempotent)", () => {
    expect(mayRepeat(url, post(call("add")), readOnly)).toBe(true);
    expect(mayRepeat(url, post(call("send_email")), readOnly)).toBe(false);
    expect(mayRepeat(url, post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} }), readOnly)).toBe(
      false,
    );
    // A batch is repeated only when every message in it may be.
    expect(mayRepeat(url, post([call("add", 1), call("send_email", 2)]), readOnly)).toBe(false);
    expect(mayRepeat(url, post([call("add", 1), call("add", 2)]), readOnly)).toBe(true);
  });

  it("a body that is not JSON-RPC, a form, bytes or a Request object: no", () => {
    expect(mayRepeat(url, post("not json"), readOnly)).toBe(false);
    expect(mayRepeat(url, post("[1]"), readOnly)).toBe(false);
    expect(mayRepeat(url, { method: "POST", body: new URLSearchParams({ a: "b" }) }, readOnly)).toBe(false);
    expect(mayRepeat(url, { method: "POST", body: new Uint8Array([1]) }, readOnly)).toBe(false);
    expect(mayRepeat(new Request(url) as unknown as string, undefined, readOnly)).toBe(false);
  });
});

describe("staleAfterMs (how long a socket may have been idle and still be written on)", () => {
  it("a second under what the server announced, never under IDLE_SOCKET_MS; IDLE_SOCKET_MS without one", () => {
    expect(staleAfterMs(5_000)).toBe(4_000);
    expect(staleAfterMs(2_000)).toBe(IDLE_SOCKET_MS);
    expect(staleAfterMs(1_000)).toBe(IDLE_SOCKET_MS);
    expect(staleAfterMs(undefined)).toBe(IDLE_SOCKET_MS);
  });
});

describe("IDLE_SOCKET_MS", () => {
  it("is below the shortest common server keep-alive timeout (gunicorn's 2 s)", () => {
    expect(IDLE_SOCKET_MS).toBeLessThan(2_000);
  });
});

describe("keepAliveFetch and the transport's long-lived signal", () => {
  it("keeps at most five listeners on it however many requests; an abort of it still ends a request in flight", async () => {
    const held: ServerResponse[] = [];
    const server = createServer((request, response) => {
      if (request.url === "/hang") {
        held.push(response);
        return;
      }
      response.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { fetch, close } = keepAliveFetch();
    const transport = new AbortController();
    try {
      for (let i = 0; i < 40; i++) {
        const response = await fetch(`${base}/`, { signal: transport.signal });
        expect(await response.text()).toBe("ok");
      }
      // undici's Request kept a listener on the signal it was given until it was garbage-collected (40
      // here). Now: the fan-out's one, and those of the first four requests (they went with the signal
      // as it was: it could have been one request's own, sent again).
      expect(getEventListeners(transport.signal, "abort").length).toBeLessThanOrEqual(5);
      const hanging = fetch(`${base}/hang`, { signal: transport.signal });
      const reason = new Error("transport closed");
      transport.abort(reason);
      await expect(hanging).rejects.toBe(reason);
    } finally {
      for (const response of held) response.destroy();
      await close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
