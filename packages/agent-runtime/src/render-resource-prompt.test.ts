import { describe, expect, it } from "vitest";
import { renderPromptMessages, renderResourceContents } from "./render-resource-prompt.js";

const ESC = "\u001b";

describe("renderResourceContents", () => {
  it("renders text parts with their URI and summarises binary ones, cleaned", () => {
    const rendered = renderResourceContents(
      [
        { uri: "file:///a.md", mimeType: "text/markdown", text: `# A${ESC}[31m red${ESC}[0m` },
        { uri: "file:///b.png", mimeType: "image/png", blob: Buffer.alloc(10).toString("base64") },
        null as never,
        { uri: 5, text: "odd uri" },
      ],
      1000,
    );
    expect(rendered.text).toBe(
      "[resource file:///a.md]\n# A red\n[resource file:///b.png, image/png, 10 bytes]\n[resource ?]\nodd uri",
    );
    expect(rendered.truncated).toBe(false);
  });

  it("caps with the exact marker", () => {
    const rendered = renderResourceContents([{ uri: "u", text: "x".repeat(100) }], 20);
    expect(rendered.text).toBe(
      `[resource u]\nxxxxxxx... [${"[resource u]\n".length + 100 - 20} characters truncated]`,
    );
    expect(rendered).toMatchObject({ truncated: true, originalLength: "[resource u]\n".length + 100 });
  });
});

describe("renderPromptMessages", () => {
  it("renders each message with its role, binary content summarised, cleaned", () => {
    const rendered = renderPromptMessages(
      [
        { role: "user", content: { type: "text", text: `Review this${ESC}]0;title\u0007 code` } },
        { role: "assistant", content: { type: "image", mimeType: "image/png", data: "AAAA" } },
        { role: "user", content: { type: "resource", resource: { uri: "file:///c.ts", text: "let c;" } } },
        { role: "user", content: { type: "hologram" } },
        { role: 7, content: null },
      ],
      1000,
    );
    expect(rendered.text).toBe(
      [
        "[user]\nReview this code",
        "[assistant]\n[image/png, 3 bytes]",
        "[user]\n[resource file:///c.ts]\nlet c;",
        "[user]\n[hologram content]",
        "[user]\n",
      ].join("\n\n"),
    );
  });
});
