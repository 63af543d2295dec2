import { CallToolResultSchema, JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import { describe, expect, it } from "vitest";
import { plainResultResponse, plainToolResult } from "./fast-read.js";

// Every case goes through JSON text, as replies do.
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const responses: [string, unknown][] = [
  ["plain result response", { jsonrpc: "2.0", id: 7, result: { content: [] } }],
  ["string id", { jsonrpc: "2.0", id: "a-1", result: {} }],
  ["result with _meta", { jsonrpc: "2.0", id: 1, result: { _meta: { progressToken: 1 } } }],
  ["result with bad _meta", { jsonrpc: "2.0", id: 1, result: { _meta: 5 } }],
  ["extra top-level key", { jsonrpc: "2.0", id: 1, result: {}, extra: true }],
  ["wrong version", { jsonrpc: "1.0", id: 1, result: {} }],
  ["fractional id", { jsonrpc: "2.0", id: 1.5, result: {} }],
  ["huge id", { jsonrpc: "2.0", id: 2 ** 60, result: {} }],
  ["null id", { jsonrpc: "2.0", id: null, result: {} }],
  ["missing id", { jsonrpc: "2.0", result: {} }],
  ["array result", { jsonrpc: "2.0", id: 1, result: [] }],
  ["null result", { jsonrpc: "2.0", id: 1, result: null }],
  ["string result", { jsonrpc: "2.0", id: 1, result: "x" }],
  ["error response", { jsonrpc: "2.0", id: 1, error: { code: -1, message: "no" } }],
  ["request", { jsonrpc: "2.0", id: 1, method: "ping" }],
  ["notification", { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } }],
  ["result and error", { jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } }],
  ["not an object", [1, 2]],
  ["null", null],
];

const results: [string, unknown][] = [
  [
    "text parts",
    {
      content: [
        { type: "text", text: "a" },
        { type: "text", text: "" },
      ],
    },
  ],
  ["no parts", { content: [] }],
  ["structured content", { content: [{ type: "text", text: "a" }], structuredContent: { a: [1, { b: 2 }] } }],
  ["isError", { content: [{ type: "text", text: "boom" }], isError: true }],
  ["extra key kept", { content: [], toolResult: 1 }],
  ["missing content (defaulted by the schema)", { structuredContent: {} }],
  ["part with annotations", { content: [{ type: "text", text: "a", annotations: { priority: 1 } }] }],
  ["part with an unknown key (stripped by the schema)", { content: [{ type: "text", text: "a", x: 1 }] }],
  ["image part", { content: [{ type: "image", data: "aGk=", mimeType: "image/png" }] }],
  ["text not a string", { content: [{ type: "text", text: 5 }] }],
  ["part without a type", { content: [{ text: "a" }] }],
  ["null part", { content: [null] }],
  ["content not an array", { content: "text" }],
  ["structuredContent an array", { content: [], structuredContent: [1] }],
  ["structuredContent null", { content: [], structuredContent: null }],
  ["isError a string", { content: [], isError: "yes" }],
  ["_meta", { content: [], _meta: { a: 1 } }],
  ["not an object", "text"],
  ["array", []],
];

describe("plainResultResponse", () => {
  it.each(responses)("%s: accepts only what the SDK schema accepts, as the same value", (_name, value) => {
    const input = json(value);
    const fast = plainResultResponse(input);
    if (fast === undefined) return;
    const full = JSONRPCMessageSchema.safeParse(input);
    expect(full.success).toBe(true);
    expect(fast).toEqual(full.data);
  });

  it("recognises the common shapes", () => {
    expect(plainResultResponse(json(responses[0]?.[1]))).toBeDefined();
    expect(plainResultResponse(json(responses[1]?.[1]))).toBeDefined();
  });

  it("leaves a result with an own __proto__ key to the schema", () => {
    const input = JSON.parse('{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"x":1}}}');
    expect(plainResultResponse(input)).toBeUndefined();
  });
});

describe("plainToolResult", () => {
  it.each(results)("%s: accepts only what the SDK schema accepts, as the same value", (_name, value) => {
    const input = json(value);
    const fast = plainToolResult(input);
    if (fast === undefined) return;
    const full = CallToolResultSchema.safeParse(input);
    expect(full.success).toBe(true);
    expect(fast).toEqual(full.data);
  });

  it("recognises text-only results, with structured content and isError", () => {
    for (const [, value] of results.slice(0, 5)) expect(plainToolResult(json(value))).toBeDefined();
  });

  it("leaves anything the schema would default, strip or repair to the schema", () => {
    for (const [, value] of results.slice(5)) expect(plainToolResult(json(value))).toBeUndefined();
  });

  it("leaves structured content with an own __proto__ key to the schema", () => {
    const input = JSON.parse('{"content":[],"structuredContent":{"__proto__":{"x":1}}}');
    expect(plainToolResult(input)).toBeUndefined();
  });
});
