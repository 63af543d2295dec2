import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, type McpServer } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSequentialThinkingServer, formatThought } from "./create-sequential-thinking-server.js";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  vi.unstubAllEnvs();
});

async function connect(server: McpServer): Promise<Client> {
  const client = new Client({ name: "t", version: "0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  clients.push(client);
  return client;
}

const think = (client: Client, args: Record<string, unknown>) =>
  client.callTool({ name: "sequentialthinking", arguments: args });

describe("createSequentialThinkingServer", () => {
  it("replies like the official server: pretty JSON text and the same structuredContent", async () => {
    const client = await connect(createSequentialThinkingServer({ logThoughts: false }));
    const result = await think(client, {
      thought: "a",
      nextThoughtNeeded: true,
      thoughtNumber: 1,
      totalThoughts: 3,
    });
    const expected = {
      thoughtNumber: 1,
      totalThoughts: 3,
      nextThoughtNeeded: true,
      branches: [],
      thoughtHistoryLength: 1,
    };
    expect(result.structuredContent).toEqual(expected);
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(expected, null, 2) }]);
  });

  it("raises totalThoughts to thoughtNumber, records branches, coerces strings as the official tool does", async () => {
    const client = await connect(createSequentialThinkingServer({ logThoughts: false }));
    await think(client, { thought: "1", nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 2 });
    const over = await think(client, {
      thought: "5",
      nextThoughtNeeded: "false",
      thoughtNumber: "5",
      totalThoughts: 2,
    });
    expect(over.structuredContent).toMatchObject({
      thoughtNumber: 5,
      totalThoughts: 5,
      nextThoughtNeeded: false,
      thoughtHistoryLength: 2,
    });
    await think(client, {
      thought: "b",
      nextThoughtNeeded: true,
      thoughtNumber: 3,
      totalThoughts: 5,
      branchFromThought: 1,
      branchId: "alt",
    });
    await think(client, {
      thought: "c",
      nextThoughtNeeded: true,
      thoughtNumber: 4,
      totalThoughts: 5,
      branchFromThought: 1,
      branchId: "alt",
    });
    const last = await think(client, {
      thought: "d",
      nextThoughtNeeded: "TRUE",
      thoughtNumber: 4,
      totalThoughts: 5,
      branchId: "no-from",
    });
    expect(last.structuredContent).toEqual({
      thoughtNumber: 4,
      totalThoughts: 5,
      nextThoughtNeeded: true,
      branches: ["alt"],
      thoughtHistoryLength: 5,
    });
  });

  it("rejects bad input with a message naming the field", async () => {
    const client = await connect(createSequentialThinkingServer({ logThoughts: false }));
    const zero = await think(client, {
      thought: "x",
      nextThoughtNeeded: true,
      thoughtNumber: 0,
      totalThoughts: 1,
    });
    expect(zero.isError).toBe(true);
    expect(JSON.stringify(zero.content)).toContain("thoughtNumber");
    const maybe = await think(client, {
      thought: "x",
      nextThoughtNeeded: "maybe",
      thoughtNumber: 1,
      totalThoughts: 1,
    });
    expect(maybe.isError).toBe(true);
    expect(JSON.stringify(maybe.content)).toContain("nextThoughtNeeded");
    const missing = await think(client, { nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 1 });
    expect(JSON.stringify(missing.content)).toContain("thought");
  });

  it("keeps one history per server instance", async () => {
    const a = await connect(createSequentialThinkingServer({ logThoughts: false }));
    const b = await connect(createSequentialThinkingServer({ logThoughts: false }));
    await think(a, {
      thought: "1",
      nextThoughtNeeded: true,
      thoughtNumber: 1,
      totalThoughts: 2,
      branchFromThought: 1,
      branchId: "x",
    });
    await think(a, { thought: "2", nextThoughtNeeded: true, thoughtNumber: 2, totalThoughts: 2 });
    const other = await think(b, {
      thought: "1",
      nextThoughtNeeded: false,
      thoughtNumber: 1,
      totalThoughts: 1,
    });
    expect(other.structuredContent).toMatchObject({ thoughtHistoryLength: 1, branches: [] });
  });

  it("logs thoughts unless disabled by option or DISABLE_THOUGHT_LOGGING=true", async () => {
    const lines: string[] = [];
    const logging = await connect(createSequentialThinkingServer({ log: (t) => lines.push(t) }));
    await think(logging, {
      thought: "weigh options",
      nextThoughtNeeded: true,
      thoughtNumber: 2,
      totalThoughts: 1,
      isRevision: true,
      revisesThought: 1,
    });
    expect(lines.join("")).toContain("🔄 Revision 2/2 (revising thought 1)");
    expect(lines.join("")).toContain("weigh options");
    vi.stubEnv("DISABLE_THOUGHT_LOGGING", "TRUE");
    const quiet: string[] = [];
    const silent = await connect(createSequentialThinkingServer({ log: (t) => quiet.push(t) }));
    await think(silent, { thought: "x", nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 });
    expect(quiet).toEqual([]);
  });

  it("formats the thought box like the official server and elides huge thoughts", () => {
    const box = formatThought(
      {
        thought: "hi",
        nextThoughtNeeded: true,
        thoughtNumber: 1,
        totalThoughts: 2,
        branchFromThought: 1,
        branchId: "b",
      },
      2,
    );
    expect(box).toContain("│ 🌿 Branch 1/2 (from thought 1, ID: b) │");
    const long = formatThought(
      { thought: "x".repeat(5000), nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 1 },
      1,
    );
    expect(long).toContain("… (3000 more characters)");
  });
});
