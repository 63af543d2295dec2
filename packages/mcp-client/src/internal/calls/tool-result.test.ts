import { describe, expect, it } from "vitest";
import { toCallToolResult, UNCHECKED_RESULT } from "./tool-result.js";

describe("toCallToolResult", () => {
  it("returns a valid result as it is", () => {
    const result = { content: [{ type: "text", text: "hi" }], structuredContent: { a: 1 } };
    expect(toCallToolResult(result)).toEqual(result);
  });

  it("replaces unknown, malformed and non-base64 parts with notes, keeping the order", () => {
    const result = toCallToolResult({
      content: [
        { type: "text", text: "a" },
        { type: "video", url: "x" },
        { type: "image", data: "!!!", mimeType: "image/png" },
        { nothing: true },
        { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
      ],
      isError: false,
    });
    expect(result?.content.map((part) => part.type)).toEqual(["text", "text", "text", "text", "image"]);
    const texts = result?.content.map((part) => (part.type === "text" ? part.text : ""));
    expect(texts?.[1]).toContain('unknown type "video"');
    expect(texts?.[2]).toContain("image content omitted");
    expect(texts?.[3]).toContain("without a type");
  });

  it("is undefined for a reply that is not a tool result", () => {
    expect(toCallToolResult("text")).toBeUndefined();
    expect(toCallToolResult({ content: "not an array" })).toBeUndefined();
  });
});

describe("UNCHECKED_RESULT", () => {
  it("hands any reply to the call path as it is (the call path checks it)", async () => {
    const reply = { content: "not a list" };
    const outcome = await UNCHECKED_RESULT["~standard"].validate(reply);
    expect(outcome).toEqual({ value: reply });
    expect((outcome as { value: unknown }).value).toBe(reply);
    expect(toCallToolResult(reply)).toBeUndefined();
  });
});
