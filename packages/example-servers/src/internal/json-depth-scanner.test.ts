import { describe, expect, it } from "vitest";
import { JsonDepthScanner, jsonNestsDeeperThan } from "./json-depth-scanner.js";

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("JsonDepthScanner", () => {
  it("accepts nesting up to the limit and refuses one level more", () => {
    expect(jsonNestsDeeperThan(nested(64), 64)).toBe(false);
    expect(jsonNestsDeeperThan(nested(65), 64)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":{"b":[1,{"c":[]}]}}', 5)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":{"b":[1,{"c":[]}]}}', 4)).toBe(true);
  });

  it("measures depth, not the number of containers", () => {
    const wide = `[${Array.from({ length: 10_000 }, () => '{"x":[1,2]}').join(",")}]`;
    expect(jsonNestsDeeperThan(wide, 3)).toBe(false);
    expect(jsonNestsDeeperThan(wide, 2)).toBe(true);
  });

  it("ignores brackets inside strings, including after escaped quotes and backslashes", () => {
    expect(jsonNestsDeeperThan(JSON.stringify({ text: "[[[[[[[[{{{{{{" }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify({ text: 'a "quoted" [[[[ \\ ]]]] [[[' }), 1)).toBe(false);
    // a string ending in a backslash: the next quote closes it, the brackets after it count
    expect(jsonNestsDeeperThan('["\\\\",[[[]]]]', 3)).toBe(true);
    expect(jsonNestsDeeperThan('["\\\\",[[[]]]]', 4)).toBe(false);
    // an escaped quote does not close the string
    expect(jsonNestsDeeperThan('["\\"[[[[[[", 1]', 1)).toBe(false);
  });

  it("keeps its state across chunk boundaries, even inside an escape or a UTF-8 character", () => {
    const text = Buffer.from(JSON.stringify({ s: 'é "[[[[" \\ 世界', deep: [[[[1]]]] }), "utf8");
    const depthOf = (limit: number) => {
      for (let cut = 1; cut < text.length; cut++) {
        const scanner = new JsonDepthScanner(limit);
        const ok = scanner.push(text.subarray(0, cut)) && scanner.push(text.subarray(cut));
        if (ok !== !jsonNestsDeeperThan(text, limit)) return `cut at ${cut} disagrees`;
      }
      return jsonNestsDeeperThan(text, limit);
    };
    expect(depthOf(5)).toBe(false);
    expect(depthOf(4)).toBe(true);
  });

  it("stops at the first byte over the limit and reports the deepest level seen", () => {
    const scanner = new JsonDepthScanner(3);
    expect(scanner.push(Buffer.from("[[["))).toBe(true);
    expect(scanner.deepest).toBe(3);
    expect(scanner.push(Buffer.from("[]]]]"))).toBe(false);
    expect(scanner.deepest).toBe(4);
  });

  it("never lets JSON.parse build a tree deeper than the scan saw", () => {
    // Whatever the scan accepts parses (or fails) no deeper than the limit.
    const samples = ['[1,"]]]]",[2]]', '{"a":"\\u005b[["}', '[[["\\"]]]"]]]', '["unterminated [[[['];
    const depthOfValue = (value: unknown): number =>
      value !== null && typeof value === "object"
        ? 1 + Math.max(0, ...Object.values(value as object).map(depthOfValue))
        : 0;
    for (const sample of samples) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(sample);
      } catch {
        continue;
      }
      const scanner = new JsonDepthScanner(100);
      scanner.push(Buffer.from(sample));
      expect(depthOfValue(parsed)).toBeLessThanOrEqual(scanner.deepest);
    }
  });
});
