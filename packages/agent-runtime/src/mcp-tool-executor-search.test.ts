// executor.searchTools with an in-process client (our own `MCPToolCallClient` interface, never called
// by a search): only granted tools are ranked and returned, whatever the ranker does; one event per
// search, without the query.
import { type MCPPermissionGrants, MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { describe, expect, it } from "vitest";
import { MCPToolSearchError } from "./errors.js";
import { MCP_TOOL_SEARCH, type MCPToolSearchEvent } from "./events.js";
import { type MCPToolCallClient, MCPToolExecutor } from "./mcp-tool-executor.js";
import type { MCPToolRanker } from "./mcp-tool-ranker.js";

const client: MCPToolCallClient = {
  callTool: (async () => {
    throw new Error("a search never calls a tool");
  }) as MCPToolCallClient["callTool"],
  getConfig: (() => ({ transport: "stdio" })) as unknown as MCPToolCallClient["getConfig"],
};

function executorWith(grants: MCPPermissionGrants, ranker?: MCPToolRanker) {
  const registry = new MCPToolRegistry();
  const tool = (server: string, name: string, description: string) => ({
    identity: `${server}.${name}`,
    serverName: server,
    toolName: name,
    description,
    inputSchema: { type: "object" },
  });
  registry.register("files", [
    tool("files", "read_text_file", "Read a text file"),
    tool("files", "write_file", "Write a file"),
    tool("files", "delete_file", "Delete a file for good"),
  ]);
  registry.register("secrets", [tool("secrets", "read_secret", "Read a secret file from the vault")]);
  const executor = new MCPToolExecutor({
    clientManager: client,
    registry,
    policy: new MCPPermissionPolicy(grants),
    ...(ranker ? { ranker } : {}),
  });
  const events: MCPToolSearchEvent[] = [];
  executor.events.on(MCP_TOOL_SEARCH, (e) => events.push(e));
  return { executor, events };
}

describe("MCPToolExecutor.searchTools", () => {
  it("ranks only what the agent is granted; a denied tool never appears, however well it matches", async () => {
    const { executor, events } = executorWith({
      reader: { allow: ["files.*"], deny: ["files.delete_file"] },
    });
    const result = await executor.searchTools("reader", "delete the secret file from the vault", {
      limit: 10,
    });
    const found = result.hits.map((h) => h.tool.identity);
    expect(found).not.toContain("secrets.read_secret");
    expect(found).not.toContain("files.delete_file");
    expect(result.candidates).toBe(2);
    expect(await executor.searchTools("nobody", "read a file")).toMatchObject({ hits: [], candidates: 0 });
    expect(events.map((e) => [e.agent, e.candidates, e.outcome])).toEqual([
      ["reader", 2, "ok"],
      ["nobody", 0, "ok"],
    ]);
  });

  it("reports the query's length and what was found, never the query", async () => {
    const { executor, events } = executorWith({ reader: ["files.*"] });
    const query = "read my diary.txt with password hunter2";
    const result = await executor.searchTools("reader", query, { limit: 1 });
    expect(result.hits.map((h) => h.tool.identity)).toEqual(["files.read_text_file"]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      agent: "reader",
      searchId: result.searchId,
      queryLength: query.length,
      limit: 1,
      identities: ["files.read_text_file"],
      outcome: "ok",
    });
    expect(JSON.stringify(events)).not.toContain("hunter2");
    expect(JSON.stringify(events)).not.toContain("diary");
  });

  it("checks what a ranker returns: unknown, denied, duplicate entries and bad scores", async () => {
    const ranker: MCPToolRanker = {
      rank: () => [
        { identity: "secrets.read_secret", score: 99 },
        { identity: "files.write_file", score: Number.NaN },
        { identity: "files.write_file", score: 3 },
        { identity: "nowhere.tool", score: 2 },
        null as unknown as { identity: string; score: number },
        { identity: "files.read_text_file", score: 1 },
      ],
    };
    const { executor } = executorWith({ reader: ["files.*"] }, ranker);
    const result = await executor.searchTools("reader", "anything", { limit: 5 });
    expect(result.hits.map((h) => [h.tool.identity, h.score])).toEqual([
      ["files.write_file", 0],
      ["files.read_text_file", 1],
    ]);
  });

  it("gives the ranker only the granted tools, and a cut query", async () => {
    const seen: { query: string; identities: string[] }[] = [];
    const ranker: MCPToolRanker = {
      rank: (query, tools) => {
        seen.push({ query, identities: tools.map((t) => t.identity) });
        return [];
      },
    };
    const { executor } = executorWith({ reader: ["files.read_text_file"] }, ranker);
    await executor.searchTools("reader", "x".repeat(10_000));
    expect(seen).toEqual([{ query: "x".repeat(500), identities: ["files.read_text_file"] }]);
  });

  it("a ranker that throws gives SEARCH_FAILED (cause kept) and a failed event; an abort rejects with its reason", async () => {
    const boom = new Error("embedding service down");
    const { executor, events } = executorWith(
      { reader: ["files.*"] },
      { rank: async () => Promise.reject(boom) },
    );
    const error = await executor.searchTools("reader", "read").catch((e: unknown) => e);
    expect(MCPToolSearchError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "SEARCH_FAILED", agent: "reader", cause: boom });
    expect((error as Error).message).toMatch(/agent "reader" failed in the ranker: embedding service down/);
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(executor.searchTools("reader", "read", { signal: controller.signal })).rejects.toThrow(
      "stop",
    );
    expect(events.map((e) => [e.outcome, e.errorCode])).toEqual([
      ["failed", "SEARCH_FAILED"],
      ["cancelled", "FAILED"],
    ]);
  });

  it("refuses a query that is not a string and a limit out of range", async () => {
    const { executor } = executorWith({ reader: ["files.*"] });
    await expect(executor.searchTools("reader", 42 as unknown as string)).rejects.toThrow(TypeError);
    await expect(executor.searchTools("reader", "read", { limit: 0 })).rejects.toThrow(/from 1 to 10, got 0/);
    await expect(executor.searchTools("reader", "read", { limit: 11 })).rejects.toThrow(RangeError);
    expect((await executor.searchTools("reader", "   ")).hits).toEqual([]);
  });

  it("says whether a loop would search for an agent's tools, and why", () => {
    const { executor } = executorWith({ reader: ["files.*"], nobody: [] });
    expect(executor.toolSearchStatus("reader")).toMatchObject({
      on: false,
      tools: 3,
      reason: expect.stringMatching(/^3 tools, \d+ characters: under the threshold$/),
    });
    expect(executor.toolSearchStatus("reader", { toolSearch: { threshold: { tools: 2 } } })).toMatchObject({
      on: true,
      reason: "3 granted tools are more than 2",
    });
    expect(executor.toolSearchStatus("reader", { toolSearch: { threshold: { chars: 10 } } }).reason).toMatch(
      /^\d+ characters of definitions are more than 10$/,
    );
    expect(executor.toolSearchStatus("nobody", { toolSearch: "on" })).toMatchObject({ on: true, tools: 0 });
  });

  it("answers each agent's tool-search settings from its option", () => {
    const registry = new MCPToolRegistry();
    const policy = new MCPPermissionPolicy({});
    const perAgent = new MCPToolExecutor({
      clientManager: client,
      registry,
      policy,
      toolSearch: (agent) => (agent === "big" ? { mode: "on", maxSearches: 5 } : undefined),
    });
    expect(perAgent.toolSearchSettings("big")).toMatchObject({ mode: "on", maxSearches: 5 });
    expect(perAgent.toolSearchSettings("small")).toMatchObject({ mode: "auto", maxSearches: 3 });
    expect(
      () => new MCPToolExecutor({ clientManager: client, registry, policy, toolSearch: "never" as "on" }),
    ).toThrow(/toolSearch: expected "auto", "on", "off"/);
  });
});
