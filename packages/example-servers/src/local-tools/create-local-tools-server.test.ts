import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { countWords, createLocalToolsServer } from "./create-local-tools-server.js";

describe("countWords", () => {
  it.each([
    ["", { words: 0, characters: 0, lines: 0 }],
    ["one", { words: 1, characters: 3, lines: 1 }],
    ["Hello, world!  Again.", { words: 3, characters: 21, lines: 1 }],
    ["日本語のテキストです", { words: 4, characters: 10, lines: 1 }],
    ["naïve café\nsecond line\r\nthird", { words: 5, characters: 28, lines: 3 }],
    ["👩‍👩‍👧 family", { words: 1, characters: 8, lines: 1 }],
    ["مرحبا بالعالم", { words: 2, characters: 13, lines: 1 }],
  ])("%j", (text, expected) => {
    expect(countWords(text)).toEqual(expected);
  });
});

describe("createLocalToolsServer (in-process)", () => {
  it("current_time uses the injected clock and the zone's offset", async () => {
    const server = createLocalToolsServer({ now: () => new Date("2026-07-01T12:00:00.000Z") });
    const client = new Client({ name: "t", version: "0" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    const result = await client.callTool({
      name: "current_time",
      arguments: { timezone: "America/New_York" },
    });
    expect(result.structuredContent).toEqual({
      iso: "2026-07-01T08:00:00.000-04:00",
      utc: "2026-07-01T12:00:00.000Z",
      timezone: "America/New_York",
      unixMs: Date.parse("2026-07-01T12:00:00.000Z"),
    });
    const utc = await client.callTool({ name: "current_time", arguments: {} });
    expect((utc.structuredContent as { iso: string }).iso).toBe("2026-07-01T12:00:00.000+00:00");
    await client.close();
  });
});
