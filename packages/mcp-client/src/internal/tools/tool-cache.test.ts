import { describe, expect, it } from "vitest";
import { declaresHeaders } from "./tool-cache.js";

describe("declaresHeaders (which tools need the SDK's Mcp-Param-* mirroring)", () => {
  it("a property annotated x-mcp-header, at any depth: yes", () => {
    expect(
      declaresHeaders({
        type: "object",
        properties: { region: { type: "string", "x-mcp-header": "Region" } },
      }),
    ).toBe(true);
    expect(
      declaresHeaders({
        type: "object",
        properties: { a: { type: "object", properties: { b: { type: "string", "x-mcp-header": "B" } } } },
      }),
    ).toBe(true);
  });

  it("an annotation where the spec forbids it still counts (the SDK's own scan then decides)", () => {
    expect(declaresHeaders({ type: "object", anyOf: [{ properties: { x: { "x-mcp-header": "X" } } }] })).toBe(
      true,
    );
    expect(declaresHeaders({ type: "array", items: { type: "string", "x-mcp-header": "Item" } })).toBe(true);
  });

  it("no annotation, the word only in a description or a name, or no schema: no", () => {
    expect(declaresHeaders({ type: "object", properties: { text: { type: "string" } } })).toBe(false);
    expect(
      declaresHeaders({
        type: "object",
        description: "sends x-mcp-header values",
        properties: { "x-mcp-header-like": { type: "string", description: "x-mcp-header" } },
      }),
    ).toBe(false);
    expect(declaresHeaders(undefined)).toBe(false);
  });

  it("a schema nested beyond 64 levels is not walked further (no stack overflow on hostile input)", () => {
    let deep: Record<string, unknown> = { type: "string", "x-mcp-header": "Deep" };
    for (let i = 0; i < 10_000; i++) deep = { type: "object", properties: { p: deep } };
    expect(declaresHeaders(deep)).toBe(false);
  });
});
