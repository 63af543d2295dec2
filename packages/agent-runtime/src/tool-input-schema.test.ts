import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { describe, expect, it } from "vitest";
import { checkToolArguments, normalizeToolInputSchema } from "./tool-input-schema.js";

const CANARY = "canary-7f3a9c-secret";

describe("normalizeToolInputSchema", () => {
  it("always gives an object schema, whatever the server sent", () => {
    for (const input of [null, undefined, true, false, 42, "schema", [1, 2], { type: "string" }, {}]) {
      const schema = normalizeToolInputSchema(input);
      expect(schema.type).toBe("object");
      expect(schema.properties).toEqual({});
    }
    expect(
      normalizeToolInputSchema({ type: ["object", "null"], properties: { a: { type: "string" } } }),
    ).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
    });
  });

  it("keeps the useful parts of an ordinary schema", () => {
    const schema = normalizeToolInputSchema({
      type: "object",
      description: "read a file",
      properties: {
        path: { type: "string", description: "where", minLength: 1 },
        mode: { enum: ["a", "b"], default: "a" },
        tail: { type: "integer", minimum: 0 },
        paths: { type: "array", items: { type: "string" }, maxItems: 5 },
        edit: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["path", "path", 3],
      additionalProperties: false,
      $schema: "http://json-schema.org/draft-07/schema#",
    });
    expect(schema).toEqual({
      type: "object",
      description: "read a file",
      properties: {
        path: { type: "string", description: "where", minLength: 1 },
        mode: { enum: ["a", "b"], default: "a" },
        tail: { type: "integer", minimum: 0 },
        paths: { type: "array", items: { type: "string" }, maxItems: 5 },
        edit: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["path"],
      additionalProperties: false,
    });
  });

  it("expands $refs and bounds self-references and cycles instead of overflowing", () => {
    const selfRef = normalizeToolInputSchema({ $ref: "#" });
    expect(selfRef).toEqual({ type: "object", properties: {} });

    const cyclic = normalizeToolInputSchema({
      type: "object",
      properties: { node: { $ref: "#/$defs/node" }, tree: { $ref: "#/$defs/tree" }, root: { $ref: "#" } },
      $defs: {
        node: { $ref: "#/$defs/node" },
        tree: {
          type: "object",
          properties: { children: { type: "array", items: { $ref: "#/$defs/tree" } } },
        },
      },
    });
    const text = JSON.stringify(cyclic);
    expect(text).not.toContain("$ref");
    expect(text).not.toContain("$defs");
    expect(cyclic.properties).toMatchObject({
      node: {},
      tree: { type: "object", properties: { children: { type: "array", items: {} } } },
    });
    // LangChain converts it without recursing forever.
    expect(() => convertToOpenAITool({ name: "t", description: "d", schema: cyclic })).not.toThrow();
  });

  it("bounds depth and size", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 5000; i++) deep = { type: "object", properties: { a: deep } };
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 50_000; i++) wide[`p${i}`] = { type: "string", description: "x".repeat(5000) };
    for (const input of [deep, { type: "object", properties: wide }]) {
      const schema = normalizeToolInputSchema(input);
      expect(schema.type).toBe("object");
      expect(JSON.stringify(schema).length).toBeLessThanOrEqual(100_000);
    }
  });

  it("cleans the descriptions and titles a model reads, at every depth (escapes, bidi, lone surrogates)", () => {
    const hostile = "a\u001b]52;c;eA==\u0007b\u202ec\u2028d\ud83d";
    const schema = normalizeToolInputSchema({
      type: "object",
      description: hostile,
      properties: {
        x: { type: "string", description: hostile, title: hostile },
        y: { $ref: "#/$defs/y", description: hostile },
        z: {
          type: "array",
          items: { type: "object", properties: { w: { type: "string", title: hostile } } },
        },
      },
      $defs: { y: { type: "number" } },
    });
    const clean = "abc\nd\ufffd";
    expect(schema.description).toBe(clean);
    expect(schema.properties).toEqual({
      x: { type: "string", description: clean, title: clean },
      y: { type: "number", description: clean },
      z: { type: "array", items: { type: "object", properties: { w: { type: "string", title: clean } } } },
    });
  });

  it("hostile property names stay plain data (no prototype pollution)", () => {
    const input = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string","polluted":true},"constructor":{"type":"number"}},"required":["__proto__"]}',
    );
    const schema = normalizeToolInputSchema(input);
    expect(Object.keys(schema.properties as object)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(schema.properties)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const roundTrip = JSON.parse(JSON.stringify(schema)).properties;
    expect(Object.getOwnPropertyDescriptor(roundTrip, "__proto__")?.value).toEqual({ type: "string" });
    const issues = checkToolArguments(schema, JSON.parse('{"__proto__": 5}'));
    expect(issues).toEqual([{ path: "__proto__", message: "must be string (got integer)" }]);
  });
});

describe("checkToolArguments", () => {
  const schema = normalizeToolInputSchema({
    type: "object",
    properties: {
      path: { type: "string" },
      mode: { enum: ["head", "tail"] },
      count: { type: "integer", minimum: 1 },
      options: {
        type: "object",
        properties: { depth: { type: "number" } },
        required: ["depth"],
        additionalProperties: false,
      },
      edits: { type: "array", items: { type: "object", properties: { oldText: { type: "string" } } } },
      either: { anyOf: [{ type: "string" }, { type: "boolean" }] },
    },
    required: ["path"],
  });

  it("names each field path and what was expected, never the value", () => {
    const issues = checkToolArguments(schema, {
      path: 12345,
      mode: CANARY,
      count: 0,
      options: { [CANARY]: 1 },
      edits: [{ oldText: "ok" }, { oldText: 7 }],
      either: 3,
    });
    expect(issues).toEqual([
      { path: "path", message: "must be string (got integer)" },
      { path: "mode", message: 'must be one of "head", "tail"' },
      { path: "count", message: "must be >= 1" },
      { path: "options.depth", message: "is required" },
      // A field NAME is named (it is not a value); values never are.
      { path: `options.${CANARY}`, message: "is not a known field of this tool" },
      { path: "edits[1].oldText", message: "must be string (got integer)" },
      { path: "either", message: "does not match any of the shapes the schema allows" },
    ]);
    expect(JSON.stringify(issues.filter((i) => !i.path.includes(CANARY)))).not.toContain(CANARY);
  });

  it("accepts valid arguments and leaves unknown keywords to the server", () => {
    expect(checkToolArguments(schema, { path: "a.txt", mode: "head", edits: [], either: true })).toEqual([]);
    const patterned = normalizeToolInputSchema({
      type: "object",
      properties: { id: { type: "string", pattern: "^(a+)+$", format: "uuid" } },
    });
    expect(checkToolArguments(patterned, { id: `${"a".repeat(40)}!` })).toEqual([]);
  });

  it("lets a required field with a default be left out (the server fills it in)", () => {
    // Playwright MCP's browser_take_screenshot: zod's JSON Schema lists defaulted fields as required.
    const screenshot = normalizeToolInputSchema({
      type: "object",
      properties: {
        scale: { type: "string", enum: ["css", "device"], default: "css" },
        filename: { type: "string" },
      },
      required: ["scale", "filename"],
      additionalProperties: false,
    });
    expect(checkToolArguments(screenshot, {})).toEqual([{ path: "filename", message: "is required" }]);
    expect(checkToolArguments(screenshot, { filename: "a.png", scale: "inches" })).toEqual([
      { path: "scale", message: expect.stringContaining("css") },
    ]);
  });

  it("reports a missing field and arguments that are not an object", () => {
    expect(checkToolArguments(schema, {})).toEqual([{ path: "path", message: "is required" }]);
    for (const [value, got] of [
      [null, "null"],
      [[1], "array"],
      ["text", "string"],
      [5, "integer"],
      [undefined, "undefined"],
    ] as const) {
      expect(checkToolArguments(schema, value)).toEqual([
        { path: "(root)", message: `must be an object of named arguments (got ${got})` },
      ]);
    }
  });

  it("reports at most 8 issues", () => {
    const many = normalizeToolInputSchema({
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, { type: "string" }])),
    });
    const args = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, i]));
    expect(checkToolArguments(many, args)).toHaveLength(8);
  });
});
