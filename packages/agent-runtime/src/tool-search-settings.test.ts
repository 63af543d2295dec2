import { describe, expect, it } from "vitest";
import { MCP_TOOL_SEARCH_DEFAULTS, resolveToolSearchSettings } from "./tool-search-settings.js";

describe("resolveToolSearchSettings", () => {
  it("fills in the defaults; later layers override field by field; a mode string only the mode", () => {
    expect(resolveToolSearchSettings([])).toEqual(MCP_TOOL_SEARCH_DEFAULTS);
    expect(
      resolveToolSearchSettings([
        { threshold: { tools: 10 }, alwaysLoad: ["a.*"] },
        { threshold: { chars: 5 }, maxSearches: 7 },
        "on",
        undefined,
      ]),
    ).toEqual({ mode: "on", threshold: { tools: 10, chars: 5 }, alwaysLoad: ["a.*"], maxSearches: 7 });
    // The defaults object is never changed by a resolution.
    expect(MCP_TOOL_SEARCH_DEFAULTS.threshold).toEqual({ tools: 30, chars: 40_000 });
  });

  it.each([
    ["always", /expected "auto", "on", "off" or settings/],
    [{ mode: "sometimes" }, /mode must be "auto", "on" or "off"/],
    [{ threshold: { tools: -1 } }, /threshold\.tools must be an integer >= 0, got -1/],
    [{ threshold: { chars: 1.5 } }, /threshold\.chars must be an integer >= 0/],
    [{ maxSearches: 0 }, /maxSearches must be an integer >= 1, got 0/],
    [{ alwaysLoad: ["*"] }, /alwaysLoad\[0\]: .*every tool of every server/],
    [{ alwaysLoad: "a.*" }, /alwaysLoad must be a list/],
    [[], /expected "auto", "on", "off" or an object/],
  ])("refuses %j, naming the field", (layer, message) => {
    expect(() => resolveToolSearchSettings([layer as never], "here")).toThrow(message);
    expect(() => resolveToolSearchSettings([layer as never], "here")).toThrow(/^here: /);
  });
});
