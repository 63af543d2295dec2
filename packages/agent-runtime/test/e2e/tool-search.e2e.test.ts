// Tool search on a large roster, end to end: the tool lists of 14 public MCP servers — the official
// `memory` and `everything` servers as real child processes, the other 12 served from their recorded
// tool lists by the replay server (tooling/test-servers) — through the toolkit, the LangChain loop with
// the REAL @langchain/openai and @langchain/anthropic clients against scripted provider servers that
// enforce each API's rules (asserting what the model receives in every HTTP request), and the AI SDK.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type ModelServer, type ReceivedRequest, startModelServer } from "@agentforge/model-servers";
import { PUBLIC_ROSTER_DIR, publicRoster, REPLAY_SERVER } from "@agentforge/test-servers";
import { ChatAnthropic } from "@langchain/anthropic";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { generateText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopAfterToolRounds, toAISDKTools, toolSearchStateOf } from "../../src/ai-sdk/index.js";
import {
  createMCPToolkit,
  MCP_TOOL_SEARCH,
  type MCPToolkit,
  type MCPToolSearchEvent,
} from "../../src/index.js";
import { invokeWithTools, type ToolLoopState } from "../../src/langchain/index.js";
import { cleanup, onCleanup, tempDir } from "./harness.js";

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const EVERYTHING = join(packageDir("@modelcontextprotocol/server-everything"), "dist/index.js");
const MEMORY = join(packageDir("@modelcontextprotocol/server-memory"), "dist/index.js");
const SERVERS = publicRoster().map((s) => s.server);
const TOOL_COUNT = publicRoster().reduce((n, s) => n + s.tools.length, 0);

let toolkit: MCPToolkit;
const searches: MCPToolSearchEvent[] = [];

beforeAll(async () => {
  const stdio = (name: string, args: string[], env: Record<string, string> = {}) => ({
    name,
    enabled: true,
    transport: "stdio" as const,
    command: process.execPath,
    args,
    env,
    connection_timeout: 120,
  });
  toolkit = await createMCPToolkit({
    config: {
      servers: SERVERS.map((name) =>
        name === "everything"
          ? stdio(name, [EVERYTHING, "stdio"])
          : name === "memory"
            ? stdio(name, [MEMORY], { MEMORY_FILE_PATH: "RT_MEMORY_FILE" })
            : stdio(name, [REPLAY_SERVER, `${PUBLIC_ROSTER_DIR}${name}.json`]),
      ),
      permissions: {
        assistant: SERVERS.map((s) => `${s}.*`),
        "no-memory": { allow: SERVERS.map((s) => `${s}.*`), deny: ["memory.*"] },
        small: ["everything.*"],
        configured: {
          allow: SERVERS.map((s) => `${s}.*`),
          tool_search: { always_load: ["everything.echo"], max_searches: 1 },
        },
      },
    },
    env: { ...process.env, RT_MEMORY_FILE: join(tempDir("search-memory-"), "memory.jsonl") },
    discover: "eager",
  });
  toolkit.events.on(MCP_TOOL_SEARCH, (e) => searches.push(e));
  onCleanup(() => toolkit.close());
}, 240_000);
afterAll(cleanup, 120_000);

type Provider = "openai" | "anthropic";

function client(provider: Provider, server: ModelServer): BaseChatModel {
  return provider === "openai"
    ? new ChatOpenAI({
        model: "gpt-4o-mini",
        apiKey: "test-key",
        configuration: { baseURL: server.baseURL },
        maxRetries: 0,
      })
    : new ChatAnthropic({
        model: "claude-sonnet-4-5",
        apiKey: "test-key",
        anthropicApiUrl: server.baseURL,
        maxRetries: 0,
      });
}

/** The tool names a provider was sent in a request (either API's shape). */
function toolNames(request: ReceivedRequest | undefined): string[] {
  return (request?.body?.tools ?? []).map((t: { name?: string; function?: { name: string } }) =>
    String(t.function?.name ?? t.name),
  );
}

/** The tool result texts a provider was sent, in order (either API's shape). */
function toolResults(request: ReceivedRequest | undefined): string[] {
  const out: string[] = [];
  for (const message of request?.body?.messages ?? []) {
    if (message.role === "tool") out.push(String(message.content));
    if (message.role === "user" && Array.isArray(message.content)) {
      for (const block of message.content) {
        if (block.type !== "tool_result") continue;
        const content = block.content;
        out.push(
          typeof content === "string"
            ? content
            : (content ?? []).map((part: { text?: string }) => part.text ?? "").join(""),
        );
      }
    }
  }
  return out;
}

async function modelServer(provider: Provider, turns: Parameters<typeof startModelServer>[1]["turns"]) {
  const server = await startModelServer(provider, { turns });
  onCleanup(() => server.close());
  return server;
}

describe("the roster", () => {
  it("lists every tool of the 14 servers; toolkit.searchTools finds among the granted ones only", async () => {
    expect(toolkit.discovery?.servers.map((s) => [s.serverName, s.status])).toEqual(
      SERVERS.map((name) => [name, "ok"]),
    );
    expect(await toolkit.tools("assistant")).toHaveLength(TOOL_COUNT);
    const found = await toolkit.searchTools("assistant", "How high above sea level is Denver?");
    expect(found.hits[0]?.tool.identity).toBe("google-maps.maps_elevation");
    expect(found.candidates).toBe(TOOL_COUNT);
    const denied = await toolkit.searchTools("no-memory", "Remember that Alice works at Acme", { limit: 10 });
    expect(denied.hits.length).toBeGreaterThan(0);
    expect(denied.hits.every((h) => h.tool.serverName !== "memory")).toBe(true);
    expect(toolkit.toolSearchSettings("configured")).toMatchObject({
      mode: "auto",
      alwaysLoad: ["everything.echo"],
      maxSearches: 1,
    });
  });
});

describe.each(["openai", "anthropic"] as const)("search → call → answer through %s", (provider) => {
  it("binds only search_tools first, then the tools found; the call reaches the real server", async () => {
    const query = provider === "openai" ? "Remember that Alice works at Acme" : "Add up 17 and 25";
    const tool = provider === "openai" ? "memory__create_entities" : "everything__get-sum";
    const args =
      provider === "openai"
        ? { entities: [{ name: "Alice", entityType: "person", observations: ["works at Acme"] }] }
        : { a: 17, b: 25 };
    const server = await modelServer(provider, [
      { text: "Let me find a tool.", toolCalls: [{ name: "search_tools", args: { query } }] },
      { toolCalls: [{ name: tool, args }] },
      (request) => ({ text: `done: ${toolResults(request).at(-1)}` }),
    ]);
    const before = searches.length;
    const result = await invokeWithTools(client(provider, server), [new HumanMessage(query)], {
      tools: await toolkit.tools("assistant"),
      executor: toolkit.executor,
      agent: "assistant",
      maxRounds: 1,
    });
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 200]);
    const [first, second, third] = server.requests;
    expect(toolNames(first)).toEqual(["search_tools"]);
    expect(toolNames(second)).toContain(tool);
    expect(toolNames(second)).toContain("search_tools");
    expect(toolNames(second).length).toBeLessThanOrEqual(6);
    expect(toolResults(second)[0]).toMatch(
      new RegExp(`^Found \\d tools?; call (it|them) from your next turn on:\\n(.*\\n)*- ${tool}: `),
    );
    if (provider === "openai") {
      const graph = await toolkit.execute("assistant", "memory.read_graph", {});
      expect(graph.text).toContain("Alice");
      expect(graph.text).toContain("works at Acme");
    } else {
      expect(toolResults(third).at(-1)).toContain("42");
    }
    expect(result.message.content).toMatch(/^done: /);
    expect(result.rounds).toBe(1);
    expect(result.calls.map((c) => [c.identity, c.ok])).toEqual([[tool.replace("__", "."), true]]);
    expect(result.toolSearch?.loaded).toContain(tool.replace("__", "."));
    // One audit event per search: the query's length and what was found, never the query.
    const events = searches.slice(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ agent: "assistant", queryLength: query.length, outcome: "ok" });
    expect(events[0]?.identities).toContain(tool.replace("__", "."));
    expect(JSON.stringify(events)).not.toContain(query);
  });
});

describe("through the openai client", () => {
  it("a run paused after its search resumes with the tools it found", async () => {
    const first = await modelServer("openai", [
      { toolCalls: [{ name: "search_tools", args: { query: "How high above sea level is Denver?" } }] },
    ]);
    let saved: ToolLoopState | undefined;
    const controller = new AbortController();
    const paused = await invokeWithTools(client("openai", first), [new HumanMessage("How high is Denver?")], {
      tools: await toolkit.tools("assistant"),
      executor: toolkit.executor,
      agent: "assistant",
      signal: controller.signal,
      onRound: (state) => {
        saved = state;
        controller.abort(new Error("paused"));
      },
    }).catch((error: unknown) => error);
    expect(paused).toMatchObject({ message: "paused" });
    expect(saved?.round).toBe(0);
    expect(saved?.toolSearch?.loaded[0]).toBe("google-maps.maps_elevation");
    // The state is plain data: it goes through JSON (a file, a database row) and back.
    const restored = JSON.parse(JSON.stringify(saved)) as ToolLoopState;

    const second = await modelServer("openai", [
      {
        toolCalls: [
          {
            name: "google-maps__maps_elevation",
            args: { locations: [{ latitude: 39.74, longitude: -104.99 }] },
          },
        ],
      },
      (request) => ({ text: `the tool said: ${toolResults(request).at(-1)}` }),
    ]);
    const result = await invokeWithTools(client("openai", second), [], {
      tools: await toolkit.tools("assistant"),
      executor: toolkit.executor,
      agent: "assistant",
      resume: restored,
    });
    expect(second.requests.map((r) => r.status)).toEqual([200, 200]);
    expect(toolNames(second.requests[0])).toContain("google-maps__maps_elevation");
    expect(toolNames(second.requests[0]).length).toBeLessThanOrEqual(6);
    // The replay server answers every call with an error result; it reached the server through the policy.
    expect(result.calls).toEqual([
      expect.objectContaining({ identity: "google-maps.maps_elevation", ok: false, errorCode: "TOOL_ERROR" }),
    ]);
    expect(String(result.message.content)).toMatch(/calls are not replayed/);
    expect(result.toolSearch?.searches).toHaveLength(1);
  });

  it("a denied tool never appears: not in the results, not bound, not callable", async () => {
    const server = await modelServer("openai", [
      {
        toolCalls: [
          { name: "search_tools", args: { query: "Remember that Alice works at Acme", limit: 10 } },
        ],
      },
      { toolCalls: [{ name: "memory__create_entities", args: { entities: [] } }] },
      (request) => ({ text: toolResults(request).join("\n") }),
    ]);
    const result = await invokeWithTools(client("openai", server), [new HumanMessage("Remember Alice")], {
      tools: await toolkit.tools("no-memory"),
      executor: toolkit.executor,
      agent: "no-memory",
      maxRounds: 1,
    });
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const request of server.requests) {
      expect(toolNames(request).some((name) => name.startsWith("memory__"))).toBe(false);
    }
    expect(toolResults(server.requests[1])[0]).not.toContain("memory__");
    expect(result.toolSearch?.searches[0]?.found.some((id) => id.startsWith("memory."))).toBe(false);
    expect(result.calls).toEqual([
      // Denied to this agent: audited with its identity as a denied call (the model heard only "not found").
      expect.objectContaining({
        identity: "memory.create_entities",
        modelName: "memory__create_entities",
        ok: false,
        errorCode: "TOOL_DENIED",
      }),
    ]);
  });

  it("an agent under the threshold: nothing changes — every granted tool, no search_tools", async () => {
    const server = await modelServer("openai", [
      { toolCalls: [{ name: "everything__echo", args: { message: "hi" } }] },
      (request) => ({ text: toolResults(request).join("") }),
    ]);
    const result = await invokeWithTools(client("openai", server), [new HumanMessage("echo hi")], {
      tools: await toolkit.tools("small"),
      executor: toolkit.executor,
      agent: "small",
    });
    expect(toolNames(server.requests[0]).sort()).toEqual(
      (await toolkit.tools("small")).map((t) => t.identity.replace(".", "__")).sort(),
    );
    expect(toolNames(server.requests[0])).not.toContain("search_tools");
    expect(result.message.content).toBe("Echo: hi");
    expect(result.toolSearch).toBeUndefined();
  });

  it("the roster's tool_search: always_load bound from the start, one search, then search_tools is gone", async () => {
    const server = await modelServer("openai", [
      { toolCalls: [{ name: "search_tools", args: { query: "list the slack channels" } }] },
      { toolCalls: [{ name: "search_tools", args: { query: "post a message" } }] },
      (request) => ({ text: toolResults(request).at(-1) ?? "" }),
    ]);
    const result = await invokeWithTools(client("openai", server), [new HumanMessage("go")], {
      tools: await toolkit.tools("configured"),
      executor: toolkit.executor,
      agent: "configured",
      maxRounds: 1,
    });
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(toolNames(server.requests[0]).sort()).toEqual(["everything__echo", "search_tools"]);
    expect(toolNames(server.requests[1])).not.toContain("search_tools");
    expect(toolNames(server.requests[1])).toContain("slack__slack_list_channels");
    expect(result.message.content).toMatch(/^Error \(SEARCH_LIMIT_REACHED\)/);
  });
});

describe("the AI SDK", () => {
  it("the record grows with the tools found; searches do not use up the rounds", async () => {
    const tools = await toAISDKTools(toolkit, "assistant");
    expect(Object.keys(tools)).toEqual(["search_tools"]);
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    const call = (toolCallId: string, toolName: string, input: unknown) => ({
      content: [{ type: "tool-call" as const, toolCallId, toolName, input: JSON.stringify(input) }],
      finishReason: { unified: "tool-calls" as const, raw: undefined },
      usage,
      warnings: [],
    });
    const seen: string[][] = [];
    const steps = [
      call("s1", "search_tools", { query: "Add up 17 and 25" }),
      call("c1", "everything__get-sum", { a: 17, b: 25 }),
      {
        content: [{ type: "text" as const, text: "42" }],
        finishReason: { unified: "stop" as const, raw: undefined },
        usage,
        warnings: [],
      },
    ];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        seen.push((options.tools ?? []).map((t) => t.name).sort());
        return steps[seen.length - 1] as never;
      },
    });
    const result = await generateText({
      model,
      tools,
      stopWhen: stopAfterToolRounds(tools, 1),
      prompt: "17 + 25?",
    });
    expect(result.text).toBe("42");
    expect(seen[0]).toEqual(["search_tools"]);
    expect(seen[1]).toContain("everything__get-sum");
    const sum = result.steps[1]?.toolResults[0]?.output as { ok: boolean; text: string };
    expect(sum).toMatchObject({ ok: true, text: expect.stringContaining("42") });
    expect(toolSearchStateOf(tools)?.loaded).toContain("everything.get-sum");
  });
});
