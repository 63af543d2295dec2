import { describe, expect, it } from "vitest";
import { toJsonb, toText } from "./sql-values.js";

describe("toJsonb", () => {
  it("replaces NUL (refused by jsonb) in keys and values, but not an escaped backslash before u0000", () => {
    const json = toJsonb({ "k\0": "a\0b", literal: "\\u0000", nested: ["\0"] });
    expect(JSON.parse(json)).toEqual({ "k\uFFFD": "a\uFFFDb", literal: "\\u0000", nested: ["\uFFFD"] });
  });

  it("replaces lone surrogate halves (refused by jsonb) and keeps pairs and escaped look-alikes", () => {
    const json = toJsonb({
      high: "a\ud83d",
      low: "\ude00b",
      pair: "\ud83d\ude00",
      reversed: "\ude00\ud83d",
      "key\ud800": 1,
      literal: "\\ud83d",
      backslashThenLone: "\\\ud83d",
    });
    expect(JSON.parse(json)).toEqual({
      high: "a\uFFFD",
      low: "\uFFFDb",
      pair: "😀",
      reversed: "\uFFFD\uFFFD",
      "key\uFFFD": 1,
      literal: "\\ud83d",
      backslashThenLone: "\\\uFFFD",
    });
  });
});

describe("toText", () => {
  it("makes any string storable in a text column", () => {
    expect(toText("a\0b\ud83d")).toBe("a\uFFFDb\uFFFD");
    expect(toText(undefined)).toBeNull();
  });
});
