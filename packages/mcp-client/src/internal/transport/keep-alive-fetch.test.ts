import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { type Attempt, closedBeforeAnswer, IDLE_SOCKET_MS } from "./keep-alive-fetch.js";

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

describe("IDLE_SOCKET_MS", () => {
  it("is below the shortest common server keep-alive timeout (gunicorn's 2 s)", () => {
    expect(IDLE_SOCKET_MS).toBeLessThan(2_000);
  });
});
