import { describe, expect, it } from "vitest";
import { toJsonb } from "./sql-values.js";

describe("toJsonb", () => {
  it("replaces NUL (refused by jsonb) in keys and values, but not an escaped backslash before u0000", () => {
    const json = toJsonb({ "k\0": "a\0b", literal: "\\u0000", nested: ["\0"] });
    expect(JSON.parse(json)).toEqual({ "k\uFFFD": "a\uFFFDb", literal: "\\u0000", nested: ["\uFFFD"] });
  });
});
