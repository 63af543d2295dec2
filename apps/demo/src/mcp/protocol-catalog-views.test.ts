// Bounding what a server sends before it is printed or answered over HTTP (no I/O).
import { describe, expect, it } from "vitest";
import { boundedPrompt, boundedResource, promptView, resourceReadView } from "./catalog-views.js";

describe("resourceReadView", () => {
  it("keeps parts under the limit, cuts the text part at it and leaves later parts out", () => {
    const view = resourceReadView(
      {
        serverName: "s",
        uri: "demo://a",
        contents: [
          { uri: "demo://a/1", text: "x".repeat(6) },
          { uri: "demo://a/2", text: "y".repeat(10) },
          { uri: "demo://a/3", blob: "AAAA" },
        ],
        truncated: false,
        skipped: 1,
      },
      10,
    );
    expect(view).toEqual({
      server: "s",
      uri: "demo://a",
      contents: [
        { uri: "demo://a/1", text: "xxxxxx" },
        { uri: "demo://a/2", text: "yyyy" },
      ],
      omitted: 1,
      truncated: true,
      skipped: 1,
    });
  });

  it("never cuts a blob: one past the limit is left out", () => {
    const view = resourceReadView(
      {
        serverName: "s",
        uri: "u",
        contents: [{ uri: "u", blob: "A".repeat(20) }],
        truncated: false,
        skipped: 0,
      },
      10,
    );
    expect(view.contents).toEqual([]);
    expect(view.omitted).toBe(1);
    expect(view.truncated).toBe(true);
  });

  it("keeps a read under the limit as it is", () => {
    const result = {
      serverName: "s",
      uri: "u",
      contents: [{ uri: "u", mimeType: "text/plain", text: "hello" }],
      truncated: false,
      skipped: 0,
    };
    expect(resourceReadView(result)).toMatchObject({
      contents: result.contents,
      truncated: false,
      omitted: 0,
    });
  });
});

describe("promptView", () => {
  it("counts text by length and other parts by their JSON", () => {
    const view = promptView(
      {
        serverName: "s",
        name: "p",
        description: "d".repeat(5000),
        messages: [
          { role: "user", content: { type: "text", text: "abc" } },
          { role: "assistant", content: { type: "image", data: "Q".repeat(100), mimeType: "image/png" } },
          { role: "user", content: { type: "text", text: "defghij" } },
        ],
        truncated: false,
        skipped: 0,
      },
      8,
    );
    expect(view.messages).toEqual([
      { role: "user", content: { type: "text", text: "abc" } },
      { role: "user", content: { type: "text", text: "defgh" } },
    ]);
    expect(view.omitted).toBe(1);
    expect(view.truncated).toBe(true);
    expect(view.description?.length).toBe(1001);
  });
});

describe("list entries", () => {
  it("cut names, titles and descriptions at 1000 characters", () => {
    const long = "n".repeat(3000);
    const resource = boundedResource({ serverName: "s", uri: "u", name: long, description: long });
    expect(resource.name.length).toBe(1001);
    expect(resource.description?.length).toBe(1001);
    expect(resource.uri).toBe("u");
    const prompt = boundedPrompt({
      serverName: "s",
      name: "p",
      arguments: Array.from({ length: 150 }, (_, i) => ({ name: `a${i}`, description: long })),
    });
    expect(prompt.arguments.length).toBe(100);
    expect(prompt.arguments[0]?.description?.length).toBe(1001);
  });
});
