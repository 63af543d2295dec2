// Tool search in invokeWithTools, with a scripted model and an in-process client (our own
// `MCPToolCallClient` interface): what is bound on each request, what the model reads, what the state
// keeps. The same flows against real servers and real provider clients are in test/e2e/tool-search.
import { type MCPPermissionGrants, MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  MCP_TOOL_SEARCH,
  MCP_TOOLS_LEFT_OUT,
  type MCPToolSearchEvent,
  type MCPToolsLeftOutEvent,
} from "../events.js";
import { type MCPToolCallClient, MCPToolExecutor } from "../mcp-tool-executor.js";
import { type ScriptContext, ScriptedChatModel } from "../testing/scripted-chat-model.js";
import type { MCPToolSearchRecord } from "../tool-search-settings.js";
import { invokeWithTools, type ToolLoopState } from "./invoke-with-tools.js";

/** 40 tools: a few real-looking ones and filler — above the default threshold of 30. */
function roster(
  grants: MCPPermissionGrants,
  toolSearch?: ConstructorParameters<typeof MCPToolExecutor>[0]["toolSearch"],
) {
  const registry = new MCPToolRegistry();
  const tool = (server: string, name: string, description: string) => ({
    identity: `${server}.${name}`,
    serverName: server,
    toolName: name,
    description,
    inputSchema: { type: "object", properties: { value: { type: "string" } } },
  });
  registry.register("maps", [
    tool("maps", "maps_elevation", "Get elevation data for locations on the earth"),
    tool("maps", "maps_geocode", "Convert an address into geographic coordinates"),
  ]);
  registry.register("files", [
    tool("files", "read_text_file", "Read the complete contents of a file as text"),
    tool("files", "list_directory", "List the files and directories in a path"),
  ]);
  registry.register(
    "misc",
    Array.from({ length: 36 }, (_, i) =>
      tool("misc", `widget_${i}`, `Adjust widget number ${i} of the factory`),
    ),
  );
  const called: string[] = [];
  const client: MCPToolCallClient = {
    callTool: (async (server: string, name: string) => {
      called.push(`${server}.${name}`);
      return { content: [{ type: "text", text: `${server}.${name} answered` }] };
    }) as MCPToolCallClient["callTool"],
    getConfig: (() => ({ transport: "stdio" })) as unknown as MCPToolCallClient["getConfig"],
  };
  const executor = new MCPToolExecutor({
    clientManager: client,
    registry,
    policy: new MCPPermissionPolicy(grants),
    ...(toolSearch ? { toolSearch } : {}),
  });
  return { executor, registry, called };
}

const names = (context: ScriptContext) => context.tools.map((t) => t.name).sort();
const lastTool = (context: ScriptContext) =>
  context.messages.filter((m): m is ToolMessage => m instanceof ToolMessage).at(-1);
const ask = [new HumanMessage("How high above sea level is Denver?")];
/** The text of the last message a model got (a tool message, or the text-history summary of the final call). */
const lastText = (context: ScriptContext) => {
  const content = context.messages.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
};

describe("invokeWithTools with tool search", () => {
  it("auto over the threshold: search → call → answer; the search turn uses no round", async () => {
    const { executor, registry, called } = roster({ agent: ["maps.*", "files.*", "misc.*"] });
    const seen: string[][] = [];
    const events: MCPToolSearchEvent[] = [];
    executor.events.on(MCP_TOOL_SEARCH, (e) => events.push(e));
    const records: MCPToolSearchRecord[] = [];
    const model = new ScriptedChatModel([
      (c) => {
        seen.push(names(c));
        return {
          toolCalls: [{ name: "search_tools", args: { query: "elevation above sea level" }, id: "s1" }],
        };
      },
      (c) => {
        seen.push(names(c));
        expect(lastTool(c)?.content).toMatch(
          /^Found \d tools?; call (it|them) from your next turn on:\n- maps__maps_elevation: Get elevation/,
        );
        return { toolCalls: [{ name: "maps__maps_elevation", args: { value: "Denver" }, id: "c1" }] };
      },
      (c) => `Answer from ${lastText(c).includes("maps.maps_elevation answered") ? "the tool" : "nothing"}`,
    ]);
    const result = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      maxRounds: 1,
      onToolSearch: (r) => records.push(r),
    });
    expect(seen[0]).toEqual(["search_tools"]);
    expect(seen[1]).toContain("maps__maps_elevation");
    expect(seen[1]).toContain("search_tools");
    expect(seen[1]?.length).toBeLessThanOrEqual(6);
    expect(result.message.content).toBe("Answer from the tool");
    expect(called).toEqual(["maps.maps_elevation"]);
    // maxRounds 1: the search turn did not use it up.
    expect(result.rounds).toBe(1);
    expect(result.calls.map((c) => [c.identity, c.round, c.ok])).toEqual([["maps.maps_elevation", 1, true]]);
    expect(result.toolSearch?.loaded[0]).toBe("maps.maps_elevation");
    expect(result.toolSearch?.searches).toEqual([
      { toolCallId: "s1", round: 1, queryLength: 25, found: expect.any(Array), ok: true, counted: true },
    ]);
    expect(records).toEqual(result.toolSearch?.searches);
    expect(events.map((e) => [e.agent, e.queryLength, e.candidates, e.identities[0]])).toEqual([
      ["agent", 25, 40, "maps.maps_elevation"],
    ]);
    expect(JSON.parse(JSON.stringify(result.toolSearch))).toEqual(result.toolSearch);
  });

  it("under the threshold nothing changes: every granted tool, no search_tools, no toolSearch state", async () => {
    const { executor, registry } = roster({ agent: ["maps.*", "files.*"] });
    const model = new ScriptedChatModel([(c) => names(c).join(",")]);
    const result = await invokeWithTools(model, ask, { tools: registry.list(), executor, agent: "agent" });
    expect(result.message.content).toBe(
      "files__list_directory,files__read_text_file,maps__maps_elevation,maps__maps_geocode",
    );
    expect(result.toolSearch).toBeUndefined();
    expect("toolSearch" in result).toBe(false);
  });

  it("auto also turns on over the characters of the definitions", async () => {
    const { executor, registry } = roster({ agent: ["maps.*", "files.*"] });
    const model = new ScriptedChatModel([(c) => names(c).join(","), (c) => names(c).join(",")]);
    const small = { threshold: { tools: 30, chars: 100 } };
    const on = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      toolSearch: small,
    });
    expect(on.message.content).toBe("search_tools");
    const large = { threshold: { chars: 100_000 } };
    const off = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      toolSearch: large,
    });
    expect(String(off.message.content).split(",")).toHaveLength(4);
  });

  it("a denied tool never appears in the results, nor in the text, nor can it be called", async () => {
    const { executor, registry, called } = roster({
      agent: { allow: ["maps.*", "files.*", "misc.*"], deny: ["maps.maps_elevation"] },
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "search_tools", args: { query: "elevation of Denver", limit: 10 } }] },
      (c) => {
        expect(String(lastTool(c)?.content)).not.toContain("elevation");
        expect(names(c)).not.toContain("maps__maps_elevation");
        return { toolCalls: [{ name: "maps__maps_elevation", args: {} }] };
      },
      (c) => String(lastTool(c)?.content),
    ]);
    const result = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      toolSearch: "on",
    });
    expect(result.toolSearch?.searches[0]?.found).not.toContain("maps.maps_elevation");
    expect(result.message.content).toMatch(/^Error \(TOOL_NOT_FOUND\)/);
    expect(called).toEqual([]);
  });

  it("searches are bounded: the last one is refused, search_tools is no longer bound, and the turn is a round", async () => {
    const { executor, registry } = roster({ agent: ["maps.*", "files.*", "misc.*"] }, { maxSearches: 2 });
    const seen: string[][] = [];
    const search = (c: ScriptContext) => {
      seen.push(names(c));
      return { toolCalls: [{ name: "search_tools", args: { query: "widget" } }] };
    };
    const model = new ScriptedChatModel([search, search, search, (c) => lastText(c)]);
    const result = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      maxRounds: 1,
    });
    expect(seen[0]).toEqual(["search_tools"]);
    expect(seen[2]).not.toContain("search_tools");
    expect(result.message.content).toMatch(
      /Error \(SEARCH_LIMIT_REACHED\): Agent "agent" has used its 2 tool searches/,
    );
    expect(result.rounds).toBe(1);
    expect(result.toolSearch?.searches.map((s) => [s.ok, s.counted, s.errorCode])).toEqual([
      [true, true, undefined],
      [true, true, undefined],
      [false, false, "SEARCH_LIMIT_REACHED"],
    ]);
  });

  it("bad search arguments are answered with INVALID_ARGUMENTS (and counted); a model cannot loop for free", async () => {
    const { executor, registry } = roster({ agent: ["maps.*", "files.*", "misc.*"] });
    const model = new ScriptedChatModel(
      {
        toolCalls: [
          { name: "search_tools", args: { query: "", limit: 99, "extra\u001b[31m": "\u001b[31mx" } },
        ],
      },
      { whenExhausted: "repeat-last" },
    );
    const result = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      maxRounds: 2,
    });
    // 3 counted searches (maxSearches); then nothing is left to call: the final call.
    expect(model.callCount).toBe(4);
    expect(result.rounds).toBe(0);
    const texts = result.transcript.filter((m) => m.type === "tool").map((m) => String(m.data.content));
    expect(texts[0]).toMatch(
      /^Error \(INVALID_ARGUMENTS\): .*query: expected a non-empty string.*limit: expected an integer from 1 to 10.*extra: is not a parameter/,
    );
    expect(texts.join("\n")).not.toContain("\u001b");
  });

  it("a resumed run keeps its found tools (and its searches), decided again by the policy", async () => {
    const { executor, registry, called } = roster({ agent: ["maps.*", "files.*", "misc.*"] });
    let saved: ToolLoopState | undefined;
    const first = new ScriptedChatModel([
      { toolCalls: [{ name: "search_tools", args: { query: "elevation" } }] },
      { toolCalls: [{ name: "files__read_text_file", args: {} }] },
    ]);
    const controller = new AbortController();
    await invokeWithTools(first, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      toolSearch: { alwaysLoad: ["files.read_text_file"] },
      signal: controller.signal,
      onRound: (state) => {
        saved = state;
        if (state.round >= 1) controller.abort(new Error("pause"));
      },
    }).catch(() => undefined);
    expect(saved?.round).toBe(1);
    expect(saved?.toolSearch?.loaded[0]).toBe("maps.maps_elevation");
    const stored = JSON.parse(JSON.stringify(saved)) as ToolLoopState;
    const second = new ScriptedChatModel([
      (c) => {
        expect(names(c)).toEqual(
          expect.arrayContaining(["maps__maps_elevation", "files__read_text_file", "search_tools"]),
        );
        return { toolCalls: [{ name: "maps__maps_elevation", args: {} }] };
      },
      "resumed answer",
    ]);
    const result = await invokeWithTools(second, [], {
      tools: registry.list(),
      executor,
      agent: "agent",
      resume: stored,
      toolSearch: { alwaysLoad: ["files.read_text_file"] },
    });
    expect(result.message.content).toBe("resumed answer");
    expect(called).toEqual(["files.read_text_file", "maps.maps_elevation"]);
    expect(result.toolSearch?.searches).toHaveLength(1);
  });

  it("never binds more than maxTools; says which were left out and why, once", async () => {
    const { executor, registry } = roster({ agent: ["maps.*", "files.*", "misc.*"] });
    const leftOut: MCPToolsLeftOutEvent[] = [];
    executor.events.on(MCP_TOOLS_LEFT_OUT, (e) => leftOut.push(e));
    const model = new ScriptedChatModel([
      (c) => {
        expect(c.tools).toHaveLength(10);
        return { toolCalls: [{ name: "misc__widget_20", args: {} }] };
      },
      (c) => String(lastTool(c)?.content),
    ]);
    const result = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      toolSearch: "off",
      maxTools: 10,
    });
    expect(result.message.content).toMatch(/^Error \(TOOL_NOT_FOUND\)/);
    expect(leftOut).toHaveLength(1);
    expect(leftOut[0]?.identities).toHaveLength(30);
    expect(leftOut[0]).toMatchObject({ agent: "agent", limit: 10 });
    expect(leftOut[0]?.reason).toMatch(
      /granted 40 tools, more than the 10 a model request may carry; turn tool search on/,
    );
  });

  it("the roster's settings come through the executor; the loop's own override them", async () => {
    const { executor, registry } = roster({ agent: ["maps.*", "files.*"] }, (agent) =>
      agent === "agent" ? { mode: "on", alwaysLoad: ["files.*"] } : undefined,
    );
    const model = new ScriptedChatModel([(c) => names(c).join(","), (c) => names(c).join(",")]);
    const on = await invokeWithTools(model, ask, { tools: registry.list(), executor, agent: "agent" });
    expect(on.message.content).toBe("files__list_directory,files__read_text_file,search_tools");
    const off = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      toolSearch: "off",
    });
    expect(off.message.content).toBe(
      "files__list_directory,files__read_text_file,maps__maps_elevation,maps__maps_geocode",
    );
  });
});
