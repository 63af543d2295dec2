import { afterEach, describe, expect, it, vi } from "vitest";
import { Semaphore } from "./semaphore.js";

describe("Semaphore", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("grants up to the limit, then serves waiters in FIFO order", async () => {
    const semaphore = new Semaphore(2);
    const a = await semaphore.acquire(1000);
    const b = await semaphore.acquire(1000);
    const order: string[] = [];
    const c = semaphore.acquire(1000).then((release) => {
      order.push("c");
      return release;
    });
    const d = semaphore.acquire(1000).then((release) => {
      order.push("d");
      return release;
    });
    expect(semaphore.waiting).toBe(2);
    a();
    a(); // a second release of the same slot is ignored
    (await c)();
    b();
    (await d)();
    expect(order).toEqual(["c", "d"]);
    expect(semaphore.inUse).toBe(0);
  });

  it("rejects a waiter with 'timeout' or 'aborted'", async () => {
    vi.useFakeTimers();
    const semaphore = new Semaphore(1);
    const held = await semaphore.acquire(1000);
    const timedOut = semaphore.acquire(50);
    vi.advanceTimersByTime(60);
    await expect(timedOut).rejects.toBe("timeout");
    const controller = new AbortController();
    const aborted = semaphore.acquire(1000, controller.signal);
    controller.abort();
    await expect(aborted).rejects.toBe("aborted");
    expect(semaphore.waiting).toBe(0);
    held();
    expect(semaphore.inUse).toBe(0);
  });
});
