import { describe, expect, it } from "vitest";
import {
  MalformedReply,
  readPromptPage,
  readPromptResult,
  readResourceContents,
  readResourcePage,
  readResourceTemplatePage,
} from "./read-resources.js";

describe("readResourcePage", () => {
  it("keeps usable entries as plain data, skips and counts the rest", () => {
    const page = readResourcePage("s", {
      resources: [
        { uri: "file:///a", name: "a", mimeType: "text/plain", size: 3, extra: { x: 1 } },
        { uri: "file:///b", name: "b", size: "big", description: 5 },
        { uri: 1, name: "no uri" },
        null,
        "text",
      ],
      nextCursor: "next",
    });
    expect(page).toEqual({
      resources: [
        { serverName: "s", uri: "file:///a", name: "a", mimeType: "text/plain", size: 3 },
        { serverName: "s", uri: "file:///b", name: "b" },
      ],
      nextCursor: "next",
      skipped: 3,
      truncated: false,
    });
  });

  it("caps a page and flags it; a reply without the list is malformed", () => {
    const resources = Array.from({ length: 5 }, (_, i) => ({ uri: `u${i}`, name: `n${i}` }));
    const page = readResourcePage("s", { resources }, 3);
    expect(page.resources).toHaveLength(3);
    expect(page.truncated).toBe(true);
    expect(() => readResourcePage("s", { resources: "x" })).toThrow(MalformedReply);
    expect(() => readResourcePage("s", null)).toThrow(MalformedReply);
  });

  it("ignores an empty or non-string cursor", () => {
    expect(readResourcePage("s", { resources: [], nextCursor: "" }).nextCursor).toBeUndefined();
    expect(readResourcePage("s", { resources: [], nextCursor: 3 }).nextCursor).toBeUndefined();
  });
});

describe("readResourceTemplatePage and readPromptPage", () => {
  it("read templates and prompts loosely", () => {
    expect(
      readResourceTemplatePage("s", {
        resourceTemplates: [{ uriTemplate: "x://{id}", name: "t" }, { name: "no template" }],
      }),
    ).toEqual({
      resourceTemplates: [{ serverName: "s", uriTemplate: "x://{id}", name: "t" }],
      skipped: 1,
      truncated: false,
    });
    expect(
      readPromptPage("s", {
        prompts: [
          { name: "p", arguments: [{ name: "city", required: true }, { required: true }, "bad"] },
          { name: "q", arguments: "none" },
          { title: "no name" },
        ],
      }),
    ).toEqual({
      prompts: [
        { serverName: "s", name: "p", arguments: [{ name: "city", required: true }] },
        { serverName: "s", name: "q", arguments: [] },
      ],
      skipped: 1,
      truncated: false,
    });
  });
});

describe("readResourceContents", () => {
  it("keeps text and blob parts, cuts text at the limit and leaves out blobs past it", () => {
    const result = readResourceContents(
      "s",
      "u",
      {
        contents: [
          { uri: "u", mimeType: "text/plain", text: "hello" },
          { uri: "u2", blob: "AAAA" },
          { uri: "u3" },
          { text: "no uri" },
          { uri: "u4", text: "0123456789" },
          { uri: "u5", blob: "BBBB" },
        ],
      },
      12,
    );
    expect(result).toEqual({
      serverName: "s",
      uri: "u",
      contents: [
        { uri: "u", mimeType: "text/plain", text: "hello" },
        { uri: "u2", blob: "AAAA" },
        { uri: "u4", text: "012" },
      ],
      truncated: true,
      skipped: 2,
    });
    expect(() => readResourceContents("s", "u", {})).toThrow(MalformedReply);
  });
});

describe("readPromptResult", () => {
  it("keeps user/assistant messages with content objects, bounded", () => {
    const result = readPromptResult("s", "p", {
      description: "d",
      messages: [
        { role: "user", content: { type: "text", text: "hi" } },
        { role: "assistant", content: { type: "image", data: "AAAA", mimeType: "image/png" } },
        { role: "system", content: { type: "text", text: "no" } },
        { role: "user", content: "plain string" },
      ],
    });
    expect(result).toEqual({
      serverName: "s",
      name: "p",
      description: "d",
      messages: [
        { role: "user", content: { type: "text", text: "hi" } },
        { role: "assistant", content: { type: "image", data: "AAAA", mimeType: "image/png" } },
      ],
      truncated: false,
      skipped: 2,
    });
    const cut = readPromptResult(
      "s",
      "p",
      { messages: [{ role: "user", content: { type: "text", text: "x".repeat(50) } }] },
      10,
      20,
    );
    expect(cut.messages[0]?.content).toEqual({ type: "text", text: "x".repeat(20) });
    expect(cut.truncated).toBe(true);
  });
});
