import { describe, expect, it } from "vitest";
import { expandPlaceholders, placeholderNames, placeholderProblem } from "./placeholders.js";

const env: Record<string, string> = { A: "1", EMPTY: "" };
const lookup = (name: string) => env[name];

describe("placeholders", () => {
  it.each([
    ["plain", "plain"],
    ["${A}", "1"],
    ["x${A}y${A}", "x1y1"],
    ["${B:-def}", "def"],
    ["${EMPTY:-def}", "def"],
    ["${EMPTY}", ""],
    ["${B:-}", ""],
    ["${B:-a:-b}", "a:-b"],
    ["$${A}", "${A}"],
    ["cost $5", "cost $5"],
  ])("%s → %s", (input, output) => {
    expect(expandPlaceholders(input, lookup)).toBe(output);
  });

  it("reports the first missing variable", () => {
    expect(expandPlaceholders("${A}${MISSING}${OTHER}", lookup)).toEqual({ missing: "MISSING" });
  });

  it.each(["${A", "${}", "${1A}", "${A-B}", "${A:def}", "${ A }"])("%s is malformed", (input) => {
    expect(placeholderProblem(input)).toBeTruthy();
  });

  it("lists names once, in order", () => {
    expect(placeholderNames("${B}${A:-x}${B}$${C}")).toEqual(["B", "A"]);
  });
});
