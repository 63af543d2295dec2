import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { truncateText } from "./internal/truncate-text.js";
import { HIDDEN_CONTENT_NOTE, type MCPContentPart, renderToolResult } from "./render-tool-result.js";

describe("renderToolResult", () => {
  it("joins text parts and summarises binary ones", () => {
    const png = Buffer.alloc(12345, 1).toString("base64");
    const rendered = renderToolResult(
      {
        content: [
          { type: "text", text: "first" },
          { type: "image", data: png, mimeType: "image/png" },
          { type: "audio", data: Buffer.alloc(10).toString("base64"), mimeType: "audio/wav" },
          { type: "resource_link", uri: "file:///a.txt", name: "a", mimeType: "text/plain" },
          {
            type: "resource",
            resource: {
              uri: "file:///b.bin",
              mimeType: "application/zip",
              blob: Buffer.alloc(7).toString("base64"),
            },
          },
          { type: "resource", resource: { uri: "file:///c.md", text: "# C" } },
          { type: "text", text: "last" },
        ],
      },
      8000,
    );
    expect(rendered.text).toBe(
      [
        "first",
        "[image/png, 12345 bytes]",
        "[audio/wav, 10 bytes]",
        "[resource link: file:///a.txt (a), text/plain]",
        "[resource file:///b.bin, application/zip, 7 bytes]",
        "[resource file:///c.md]\n# C",
        "last",
      ].join("\n"),
    );
    expect(rendered.truncated).toBe(false);
  });

  it("uses structuredContent as compact JSON only when there is no text", () => {
    expect(renderToolResult({ content: [], structuredContent: { a: 1, b: [2] } }, 100).text).toBe(
      '{"a":1,"b":[2]}',
    );
    expect(
      renderToolResult({ content: [{ type: "text", text: "t" }], structuredContent: { a: 1 } }, 100).text,
    ).toBe("t");
    expect(
      renderToolResult(
        { content: [{ type: "image", data: "", mimeType: "image/gif" }], structuredContent: { a: 1 } },
        100,
      ).text,
    ).toBe("[image/gif, 0 bytes]");
    expect(
      renderToolResult({ content: [{ type: "resource_link", uri: "u" }], structuredContent: { a: 1 } }, 100)
        .text,
    ).toBe('[resource link: u]\n{"a":1}');
  });

  it("leaves out parts annotated for an audience without the assistant", () => {
    const raw = {
      content: [
        { type: "text", text: "for both", annotations: { audience: ["user", "assistant"] } },
        { type: "text", text: "user only", annotations: { audience: ["user"], priority: 1 } },
        { type: "text", text: "nobody", annotations: { audience: [] } },
        { type: "image", data: "AAAA", mimeType: "image/png", annotations: { audience: ["user"] } },
        { type: "text", text: "assistant only", annotations: { audience: ["assistant"] } },
        { type: "text", text: "no audience", annotations: { priority: 0.2 } },
        { type: "text", text: "malformed audience", annotations: { audience: "user" } },
      ],
    };
    expect(renderToolResult(raw, 1000).text).toBe(
      "for both\nassistant only\nno audience\nmalformed audience",
    );
    expect(raw.content).toHaveLength(7); // the raw result is untouched
  });

  it("says so when every part is for the user only", () => {
    expect(
      renderToolResult(
        { content: [{ type: "text", text: "secret", annotations: { audience: ["user"] } }] },
        1000,
      ).text,
    ).toBe(HIDDEN_CONTENT_NOTE);
    expect(renderToolResult({ content: [] }, 1000).text).toBe("");
  });

  it("removes terminal escapes and control characters from text, resource text, names and URIs", () => {
    const esc = "\u001b";
    const rendered = renderToolResult(
      {
        content: [
          { type: "text", text: `${esc}[31mred${esc}[0m\r\nnext${esc}]0;title\u0007` },
          { type: "resource", resource: { uri: `file:///a${esc}[2J`, text: "body\u0000" } },
          { type: "resource_link", uri: "u", name: `n${esc}]8;;x${esc}\\` },
        ],
      },
      1000,
    );
    expect(rendered.text).toBe("red\nnext\n[resource file:///a]\nbody\n[resource link: u (n)]");
  });

  it("skips content parts that are not objects instead of throwing", () => {
    const content = [null, "text", 3, { type: "text", text: "ok" }] as unknown as MCPContentPart[];
    expect(renderToolResult({ content }, 100).text).toBe("ok");
  });

  it("caps with the exact marker", () => {
    const text = "x".repeat(10_000);
    const rendered = renderToolResult({ content: [{ type: "text", text }] }, 8000);
    expect(rendered.text).toBe(`${"x".repeat(8000)}... [2000 characters truncated]`);
    expect(rendered).toMatchObject({ truncated: true, originalLength: 10_000 });
  });
});

describe("truncateText", () => {
  it("never splits a surrogate pair", () => {
    const text = `${"a".repeat(9)}😀tail`; // the emoji occupies code units 9 and 10
    const cut = truncateText(text, 10);
    expect(cut.text).toBe(`${"a".repeat(9)}... [6 characters truncated]`);
    expect(truncateText(text, 11).text).toBe(`${"a".repeat(9)}😀... [4 characters truncated]`);
  });

  it("keeps the original text plus the marker, for any input and cap", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.integer({ min: 0, max: 220 }),
        (text, max) => {
          const { text: out, truncated } = truncateText(text, max);
          if (!truncated) {
            expect(out).toBe(text);
            return;
          }
          const match = /^([\s\S]*)\.\.\. \[(\d+) characters truncated\]$/.exec(out);
          expect(match).not.toBeNull();
          const kept = match?.[1] ?? "";
          expect(text.startsWith(kept)).toBe(true);
          expect(kept.length + Number(match?.[2])).toBe(text.length);
          expect(kept.length).toBeLessThanOrEqual(max);
          expect(kept.length).toBeGreaterThanOrEqual(max - 1);
          const lastCode = kept.charCodeAt(kept.length - 1);
          expect(lastCode >= 0xd800 && lastCode <= 0xdbff).toBe(false);
        },
      ),
    );
  });
});
