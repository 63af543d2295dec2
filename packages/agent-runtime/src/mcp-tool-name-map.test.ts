import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MCPToolNameMap, MODEL_TOOL_NAME_PATTERN, modelToolName } from "./mcp-tool-name-map.js";

describe("MCPToolNameMap", () => {
  it("maps identities to readable model names and back", () => {
    const map = new MCPToolNameMap([
      "filesystem.read_text_file",
      "local-tools.echo",
      "docs.api.search",
      "s3.bucket/list",
    ]);
    expect(map.toModelName("filesystem.read_text_file")).toBe("filesystem__read_text_file");
    expect(map.toModelName("local-tools.echo")).toBe("local-tools__echo");
    expect(map.toModelName("docs.api.search")).toBe("docs__api_search");
    expect(map.toModelName("s3.bucket/list")).toBe("s3__bucket_list");
    expect(map.toIdentity("filesystem__read_text_file")).toBe("filesystem.read_text_file");
    expect(map.toIdentity("filesystem__write_file")).toBeUndefined();
  });

  it("disambiguates collisions and long names with a hash", () => {
    const map = new MCPToolNameMap([
      "docs.api_search",
      "docs.api.search",
      "a__b.c",
      "a.b__c",
      `srv.${"x".repeat(80)}`,
    ]);
    const names = map.entries().map(([, name]) => name);
    expect(new Set(names).size).toBe(5);
    for (const name of names) expect(name).toMatch(MODEL_TOOL_NAME_PATTERN);
    expect(map.toModelName("docs.api_search")).toBe("docs__api_search");
    expect(map.toModelName("docs.api.search")).toMatch(/^docs__api_search_[0-9a-z]{7}$/);
    for (const [identity, name] of map.entries()) expect(map.toIdentity(name)).toBe(identity);
  });

  it("is collision-free and reversible for any set of identities", () => {
    const identity = fc
      .tuple(fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,30}$/), fc.stringMatching(/^[A-Za-z0-9_.\-/]{1,80}$/))
      .map(([s, t]) => `${s}.${t}`);
    fc.assert(
      fc.property(fc.uniqueArray(identity, { maxLength: 40 }), (identities) => {
        const map = new MCPToolNameMap(identities);
        const names = identities.map((id) => map.toModelName(id) ?? "");
        expect(new Set(names).size).toBe(identities.length);
        identities.forEach((id, i) => {
          expect(names[i]).toMatch(MODEL_TOOL_NAME_PATTERN);
          expect(map.toIdentity(names[i] ?? "")).toBe(id);
        });
      }),
    );
  });

  it("modelToolName keeps only allowed characters", () => {
    expect(modelToolName("a.b.c/d e")).toBe("a__b_c_d_e");
  });

  it("hostile tool names map to model-safe names and back, without touching prototypes", () => {
    const identities = [
      "evil.__proto__",
      "evil.constructor",
      "evil.toString",
      "evil.not model safe/name with spaces",
      `evil.${"x".repeat(200)}`,
      "evil.ünïcode",
      "evil.",
      "__proto__",
    ];
    const map = new MCPToolNameMap(identities);
    for (const identity of identities) {
      const name = map.toModelName(identity) ?? "";
      expect(name).toMatch(MODEL_TOOL_NAME_PATTERN);
      expect(map.toIdentity(name)).toBe(identity);
    }
    expect(map.toIdentity("__proto__")).toBe("__proto__");
    expect(map.toIdentity("constructor")).toBeUndefined();
    expect(map.toIdentity("toString")).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
