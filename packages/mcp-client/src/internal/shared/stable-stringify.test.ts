import { describe, expect, it } from "vitest";
import { stableStringify } from "./stable-stringify.js";

describe("stableStringify", () => {
  it("ignores key order, at every depth, but not array order", () => {
    expect(stableStringify({ b: 1, a: { d: [2, 1], c: null } })).toBe(
      stableStringify({ a: { c: null, d: [2, 1] }, b: 1 }),
    );
    expect(stableStringify({ a: [1, 2] })).not.toBe(stableStringify({ a: [2, 1] }));
  });
});
