import { getEventListeners } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { keepAliveFetch } from "./keep-alive-fetch.js";
import { SignalFanout } from "./signal-fanout.js";

/** A full garbage collection (the flag is set at run time; a new context then sees `gc`). */
function collect(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

describe("SignalFanout", () => {
  it("aborts every signal still alive with the source's reason; one listener on the source", () => {
    const source = new AbortController();
    const fanout = new SignalFanout(source.signal);
    const signals = Array.from({ length: 50 }, () => fanout.signal());
    expect(getEventListeners(source.signal, "abort")).toHaveLength(1);
    expect(signals.some((signal) => signal.aborted)).toBe(false);
    const reason = new Error("transport closed");
    source.abort(reason);
    expect(signals.every((signal) => signal.aborted && signal.reason === reason)).toBe(true);
    // After the source aborted, a new signal is born aborted.
    const late = fanout.signal();
    expect(late.aborted).toBe(true);
    expect(late.reason).toBe(reason);
  });

  it("forgets the signals of requests that are done: bounded by the live ones, not by the calls made", async () => {
    const source = new AbortController();
    const fanout = new SignalFanout(source.signal);
    const kept = Array.from({ length: 10 }, () => fanout.signal());
    // 100,000 requests, a thousand per turn of the event loop, a collection after each turn.
    for (let round = 0; round < 100; round++) {
      for (let i = 0; i < 1_000; i++) fanout.signal();
      await new Promise((resolve) => setImmediate(resolve));
      collect();
    }
    // Remembered: the live ten, and at most about twice what was handed out since the last collection
    // (the sweep runs when the count doubles) — not the 100,010 handed out.
    expect(fanout.size).toBeLessThan(5_000);
    source.abort(new Error("closed"));
    expect(kept.every((signal) => signal.aborted)).toBe(true);
  });
});

describe("keepAliveFetch with a signal per request", () => {
  it.each([
    [1, "sent once"],
    [2, "sent again by a retry (the SDK's DPoP nonce retry reuses the request's init)"],
  ])("keeps none of them alive once their requests are done (%i send: %s)", async (sends) => {
    const server = createServer((_request, response) => response.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const { fetch, close } = keepAliveFetch();
    const transport = new AbortController();
    const sent: WeakRef<AbortSignal>[] = [];
    const alive = () => sent.filter((ref) => ref.deref() !== undefined).length;
    try {
      for (let i = 0; i < 300; i++) {
        // What the SDK's 2026-07-28 transport passes: the transport's signal and the request's, combined.
        const signal = AbortSignal.any([transport.signal, new AbortController().signal]);
        sent.push(new WeakRef(signal));
        for (let n = 0; n < sends; n++) expect(await (await fetch(url, { signal })).text()).toBe("ok");
      }
      // undici removes its listener from a signal once its Request is collected (a finalizer, run some
      // turns later): collect and yield until they are gone, or give up after many rounds. A listener of
      // ours on such a signal would make Node keep it (and all it holds) as long as the transport's signal
      // lives: all 300 would stay.
      for (let round = 0; round < 100 && alive() >= 30; round++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        collect();
      }
      expect(alive()).toBeLessThan(30);
    } finally {
      await close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
