import { describe, expect, it } from "vitest";
import { isInside } from "./is-inside.js";

describe("isInside", () => {
  it("accepts the base and what is under it", () => {
    expect(isInside("/srv/base", "/srv/base")).toBe(true);
    expect(isInside("/srv/base", "/srv/base/a/b")).toBe(true);
    expect(isInside("/srv/base", "/srv/base/..hidden")).toBe(true);
  });

  it("refuses parents, siblings with a common prefix, and other roots", () => {
    expect(isInside("/srv/base", "/srv")).toBe(false);
    expect(isInside("/srv/base", "/srv/base-2")).toBe(false);
    expect(isInside("/srv/base", "/srv/base/../other")).toBe(false);
    expect(isInside("/srv/base", "/etc")).toBe(false);
  });
});
