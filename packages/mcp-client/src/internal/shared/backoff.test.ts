import { describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_BACKOFF } from "./backoff.js";

describe("backoffDelay", () => {
  it("is 0 before any failure, then doubles from the initial delay", () => {
    const options = { initialDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, options))).toEqual([0, 100, 200, 400, 800, 1000]);
  });

  it("stays bounded for huge failure counts", () => {
    expect(backoffDelay(10_000)).toBe(DEFAULT_BACKOFF.maxDelayMs);
  });
});
