// Nothing a model or a server's tool list sends ends a run or reaches the host: bad arguments, unknown
// tools, malformed JSON, duplicate tool lists (at start and after list_changed), hostile schemas.
import { join } from "node:path";
import { readCallLog, stdioTestServer } from "@agentforge/test-servers";
import {
  AIMessage,
  HumanMessage,
  mapStoredMessagesToChatMessages,
  ToolMessage,
} from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { MCPToolNotFoundError, syncRegistry } from "../../src/index.js";
import { invokeWithTools } from "../../src/langchain/index.js";
import { ScriptedChatModel, type ScriptStep } from "../../src/testing/index.js";
import { cleanup, onCleanup, rejectionOf, stack, tempDir } from "./harness.js";

afterEach(cleanup);

const ask = [new HumanMessage("Please use the tools.")];
const CANARY = "canary-91d2e7-value";
const RAW_CANARY = "canary-raw-5b0c44";
const toolMessages = (messages: readonly unknown[]) =>
  messages.filter((m): m is ToolMessage => m instanceof ToolMessage);
const failures = (events: Record<string, unknown>[]) =>
  events.filter((e) => e.event === "MCP_TOOL_CALL_FAILED").map((e) => [e.identity, e.errorCode]);

describe("bad calls from the model go back to the model", () => {
  it("wrong types, non-object, malformed JSON and unknown names: error tool messages, events, and the run goes on", async () => {
    const log = join(tempDir(), "calls.jsonl");
    const { executor, registry, recorded } = await stack([stdioTestServer("alpha", { callLog: log })], {
      agent: ["alpha.echo", "alpha.add"],
    });
    const model = new ScriptedChatModel([
      () =>
        new AIMessage({
          content: "",
          tool_calls: [
            { id: "c1", name: "alpha__echo", args: { text: 12345 }, type: "tool_call" },
            { id: "c2", name: "alpha__add", args: { a: 1, b: CANARY }, type: "tool_call" },
            {
              id: "c3",
              name: "alpha__echo",
              args: 7 as unknown as Record<string, unknown>,
              type: "tool_call",
            },
            { id: "c4", name: "alpha__pid", args: {}, type: "tool_call" },
            { id: "c5", name: "no such tool!", args: {}, type: "tool_call" },
          ],
          // What @langchain/openai makes of arguments that are not JSON.
          invalid_tool_calls: [
            {
              id: "c6",
              name: "alpha__echo",
              args: `{"text": "${RAW_CANARY}`,
              error: "bad JSON",
              type: "invalid_tool_call",
            },
          ],
          additional_kwargs: {
            tool_calls: [
              { id: "c6", type: "function", function: { name: "alpha__echo", arguments: RAW_CANARY } },
            ],
          },
        }),
      { toolCalls: [{ name: "alpha__echo", args: { text: "fixed" } }] },
      ({ messages }) => `done after ${toolMessages(messages).length} tool messages`,
    ]);
    const result = await invokeWithTools(model, ask, { tools: registry.list(), executor, agent: "agent" });

    expect(result.message.content).toBe("done after 7 tool messages");
    expect(result.calls.map((c) => [c.toolCallId, c.identity, c.ok, c.errorCode])).toEqual([
      ["c1", "alpha.echo", false, "INVALID_ARGUMENTS"],
      ["c2", "alpha.add", false, "INVALID_ARGUMENTS"],
      ["c3", "alpha.echo", false, "INVALID_ARGUMENTS"],
      // Registered but not granted: audited as a denied call, with its identity.
      ["c4", "alpha.pid", false, "TOOL_DENIED"],
      ["c5", "no_such_tool_", false, "TOOL_NOT_FOUND"],
      ["c6", "alpha.echo", false, "INVALID_ARGUMENTS"],
      [expect.any(String), "alpha.echo", true, undefined],
    ]);
    const round1 = toolMessages(model.calls[1]?.messages ?? []);
    expect(round1.map((m) => m.tool_call_id)).toEqual(["c1", "c2", "c3", "c4", "c5", "c6"]);
    expect(round1.every((m) => m.status === "error")).toBe(true);
    const texts = round1.map((m) => String(m.content));
    expect(texts[0]).toBe(
      'Error (INVALID_ARGUMENTS): The arguments for "alpha__echo" do not match its input schema: text: must be string (got integer). Fix these fields and call the tool again.',
    );
    expect(texts[1]).toContain("b: must be number (got string)");
    expect(texts[2]).toContain("(root): must be an object of named arguments (got integer)");
    // Unknown names list only the tools bound for this agent (pid is registered but not granted).
    expect(texts[3]).toBe(
      'Error (TOOL_NOT_FOUND): Tool "alpha__pid" is not registered. Known tools: alpha__echo, alpha__add.',
    );
    expect(texts[5]).toContain("(root): is not valid JSON");
    // Every call id the model sent is answered, and the assistant message sent back lists exactly those.
    const assistant = model.calls[1]?.messages.find((m): m is AIMessage => m instanceof AIMessage);
    expect(assistant?.tool_calls?.map((c) => [c.id, c.name])).toEqual([
      ["c1", "alpha__echo"],
      ["c2", "alpha__add"],
      ["c3", "alpha__echo"],
      ["c4", "alpha__pid"],
      ["c5", "no_such_tool_"],
      ["c6", "alpha__echo"],
    ]);
    expect(assistant?.invalid_tool_calls ?? []).toEqual([]);
    // Only the fixed call reached the server; no argument value is in any message, event or transcript.
    expect(readCallLog(log).map((c) => c.tool)).toEqual(["echo"]);
    expect(texts.join("\n")).not.toContain(CANARY);
    expect(texts.join("\n")).not.toContain(RAW_CANARY);
    expect(recorded.lines.join("\n")).not.toContain(CANARY);
    expect(recorded.lines.join("\n")).not.toContain(RAW_CANARY);
    // Malformed raw arguments are not kept in the conversation (they may hold anything).
    expect(JSON.stringify(result.transcript)).not.toContain(RAW_CANARY);
    expect(JSON.stringify(model.calls.map((c) => c.messages))).not.toContain(RAW_CANARY);
    expect(failures(recorded.events).sort()).toEqual(
      [
        ["alpha.echo", "INVALID_ARGUMENTS"],
        ["alpha.add", "INVALID_ARGUMENTS"],
        ["alpha.echo", "INVALID_ARGUMENTS"],
        ["alpha.pid", "TOOL_DENIED"],
        ["no_such_tool_", "TOOL_NOT_FOUND"],
        ["alpha.echo", "INVALID_ARGUMENTS"],
      ].sort(),
    );
    // Every FAILED has its STARTED.
    const started = recorded.events.filter((e) => e.event === "MCP_TOOL_CALL_STARTED").map((e) => e.callId);
    for (const e of recorded.events.filter((e) => e.event === "MCP_TOOL_CALL_FAILED")) {
      expect(started).toContain(e.callId);
    }
    // The transcript restores into messages a provider accepts (every tool call answered).
    const restored = mapStoredMessagesToChatMessages(result.transcript);
    expect(restored.filter((m) => m instanceof ToolMessage)).toHaveLength(7);
  }, 60_000);

  it("an unknown identity reveals only what the asking agent may call", async () => {
    const { executor } = await stack([stdioTestServer("alpha"), stdioTestServer("beta")], {
      narrow: ["beta.echo"],
      wide: ["alpha.*", "beta.*"],
    });
    const narrow = await rejectionOf(executor.execute("narrow", "alpha.nope", {}));
    expect(MCPToolNotFoundError.isInstance(narrow)).toBe(true);
    expect(narrow.message).toBe('Tool "alpha.nope" is not registered. Known tools: beta.echo.');
    const stranger = await rejectionOf(executor.execute("stranger", "alpha.nope", {}));
    expect(stranger.message).toBe('Tool "alpha.nope" is not registered.');
    const wide = await rejectionOf(executor.execute("wide", "alpha.nope", {}));
    expect(wide.message).toMatch(/Known tools: .*alpha\.echo.*beta\.echo/);
  }, 60_000);

  it("with validateArguments: false, a schema mismatch goes to the server, which decides", async () => {
    const { executor } = await stack(
      [stdioTestServer("alpha")],
      { agent: ["alpha.*"] },
      { validateArguments: false },
    );
    // The server's own input validation answers (an error result), not a local check.
    const error = await rejectionOf(executor.execute("agent", "alpha.echo", { text: 5 }));
    expect(error.code).toBe("TOOL_ERROR");
    expect(String(error.toolErrorText)).toMatch(/text/);
    const notObject = await rejectionOf(executor.execute("agent", "alpha.echo", [] as never));
    expect(notObject.code).toBe("INVALID_ARGUMENTS");
  }, 60_000);
});

describe("a server's tool list never throws into the host", () => {
  it("a duplicate list at start rejects that server only; the roster listed after it works", async () => {
    const { executor, registry, discovered } = await stack(
      [stdioTestServer("alpha", { duplicateTools: true }), stdioTestServer("beta")],
      { agent: ["alpha.*", "beta.*"], other: ["beta.*"] },
    );
    expect(discovered.registered).toEqual(["beta"]);
    expect(discovered.rejected.map((r) => [r.serverName, r.error.code, r.error.identity])).toEqual([
      ["alpha", "TOOL_DUPLICATE", "alpha.echo"],
    ]);
    expect(registry.list({ serverName: "alpha" })).toEqual([]);
    expect(registry.rejection("alpha")?.error.toolName).toBe("echo");
    await expect(executor.execute("agent", "beta.echo", { text: "hi" })).resolves.toMatchObject({
      text: "hi",
    });
    // A granted agent learns why; an agent without the grant learns nothing about alpha.
    const granted = await rejectionOf(executor.execute("agent", "alpha.echo", { text: "hi" }));
    expect(granted.code).toBe("TOOL_NOT_FOUND");
    expect(granted.message).toContain('Server "alpha" is connected, but its tool list was rejected');
    const other = await rejectionOf(executor.execute("other", "alpha.echo", { text: "hi" }));
    expect(other.message).not.toContain("rejected");
    expect(other.message).toMatch(
      /^Tool "alpha\.echo" is not registered\. Known tools: beta\.echo, (beta\.\w+(, |\.$))+$/,
    );
  }, 60_000);

  it("duplicates after list_changed: the old list is withdrawn, an event is sent, the host and other servers go on", async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    try {
      const { executor, registry, recorded, manager } = await stack(
        [stdioTestServer("alpha", { hostile: true }), stdioTestServer("beta")],
        { agent: ["alpha.*", "beta.*"] },
      );
      expect(registry.has("alpha.echo")).toBe(true);
      // A second sync whose callbacks throw: nothing reaches the manager (or the host).
      const reported: string[] = [];
      const failures: string[] = [];
      onCleanup(
        syncRegistry(manager, registry, {
          onRejected: ({ serverName, error }) => {
            reported.push(`${serverName}:${error.code}`);
            throw new Error("a broken onRejected");
          },
          // The broken callback is not dropped: it is reported here (by default, a process warning).
          onError: (error, serverName) => failures.push(`${serverName}:${(error as Error).message}`),
        }),
      );
      const rejected = new Promise<void>((resolve) => {
        const off = registry.on("serverRejected", () => {
          off();
          resolve();
        });
      });
      await executor.execute("agent", "alpha.make_duplicates", {});
      await rejected;
      expect(registry.list({ serverName: "alpha" })).toEqual([]);
      expect(recorded.events.filter((e) => e.event === "MCP_SERVER_TOOLS_REJECTED")).toEqual([
        expect.objectContaining({ serverName: "alpha", errorCode: "TOOL_DUPLICATE", identity: "alpha.echo" }),
      ]);
      await expect(executor.execute("agent", "beta.echo", { text: "still here" })).resolves.toMatchObject({
        text: "still here",
      });
      expect((await rejectionOf(executor.execute("agent", "alpha.echo", { text: "x" }))).code).toBe(
        "TOOL_NOT_FOUND",
      );
      // The server itself is still connected: its raw tools/list still answers.
      expect((await manager.listTools("alpha")).length).toBeGreaterThan(0);
      expect(reported).toEqual(["alpha:TOOL_DUPLICATE"]);
      expect(failures).toEqual(["alpha:a broken onRejected"]);
      expect(uncaught).toEqual([]);
    } finally {
      process.off("uncaughtException", onUncaught);
    }
  }, 90_000);
});

describe("the final call after the round budget runs no tools and suits every provider", () => {
  const budgetScript = (finalReply: ScriptStep) =>
    new ScriptedChatModel([
      { toolCalls: [{ name: "alpha__echo", args: { text: "from round 1" } }] },
      finalReply,
    ]);

  it("text_history (the default for models other than openai/anthropic): no tool blocks, results as text", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha")], { agent: ["alpha.echo"] });
    const model = budgetScript({
      toolCalls: [{ name: "alpha__echo", args: { text: "again" } }],
      content: "my answer",
    });
    const result = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      maxRounds: 1,
    });
    const final = model.calls[1];
    expect(final?.tools).toEqual([]);
    expect(final?.messages.some((m) => m instanceof ToolMessage)).toBe(false);
    expect(final?.messages.some((m) => m instanceof AIMessage && (m.tool_calls?.length ?? 0) > 0)).toBe(
      false,
    );
    const [, assistant, results] = final?.messages ?? [];
    expect(assistant?.content).toMatch(
      /^\[Called tool alpha__echo \(call \S+\) with arguments \{"text":"from round 1"\}\]$/,
    );
    expect(results).toBeInstanceOf(HumanMessage);
    expect(String(results?.content)).toMatch(
      /^\[Tool result for call \S+ \(alpha__echo\)\]\nfrom round 1\n\n\(The tool budget/,
    );
    // Tool calls in the final reply are not run: its text is the answer.
    expect(result.message.content).toBe("my answer");
    expect(result.message.tool_calls ?? []).toEqual([]);
    expect(result.calls).toHaveLength(1);
    // The transcript keeps the real tool turns.
    expect(
      mapStoredMessagesToChatMessages(result.transcript).filter((m) => m instanceof ToolMessage),
    ).toHaveLength(1);
  }, 60_000);

  it("tool_choice_none: the tools stay defined with tool choice none and the history is unchanged", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha")], { agent: ["alpha.echo"] });
    const model = budgetScript(
      ({ toolChoice, tools }) => `choice ${String(toolChoice)} with ${tools.length} tools`,
    );
    const result = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      maxRounds: 1,
      finalCall: "tool_choice_none",
    });
    expect(result.message.content).toBe("choice none with 1 tools");
    expect(model.calls[1]?.messages.filter((m) => m instanceof ToolMessage)).toHaveLength(1);
  }, 60_000);
});

describe("hostile tool definitions", () => {
  it("names like __proto__, unsafe names and null/self-referencing schemas bind and run without crashing", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha", { hostileTools: true })], {
      agent: ["alpha.*"],
    });
    const hostile = registry.list().filter((t) => !["echo", "add"].includes(t.toolName));
    expect(hostile.map((t) => t.toolName)).toEqual(
      expect.arrayContaining(["__proto__", "constructor", "toString", "schema_self_ref"]),
    );
    const model = new ScriptedChatModel([
      ({ tools }) => {
        for (const tool of tools) {
          expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
          expect(tool.parameters.type).toBe("object");
          expect(JSON.stringify(tool.parameters)).not.toContain("$ref");
        }
        const proto = tools.find((t) => t.name.endsWith("__proto__"));
        const selfRef = tools.find((t) => t.name === "alpha__schema_self_ref");
        return {
          toolCalls: [
            { name: proto?.name ?? "missing", args: {} },
            { name: selfRef?.name ?? "missing", args: { node: { node: { node: 1 } } } },
          ],
        };
      },
      ({ messages }) => `survived ${toolMessages(messages).length}`,
    ]);
    const result = await invokeWithTools(model, ask, { tools: registry.list(), executor, agent: "agent" });
    expect(result.message.content).toBe("survived 2");
    // Both were sent to the server (which has no handler for them): a typed error, not a crash.
    expect(result.calls.map((c) => [c.identity, c.errorCode])).toEqual([
      ["alpha.__proto__", expect.stringMatching(/^TOOL_(ERROR|FAILED)$/)],
      ["alpha.schema_self_ref", expect.stringMatching(/^TOOL_(ERROR|FAILED)$/)],
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 60_000);
});
