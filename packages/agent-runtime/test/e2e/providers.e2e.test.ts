// The tool loop through the REAL provider clients (@langchain/openai, @langchain/anthropic) against scripted
// servers that speak each provider's HTTP API and enforce its request rules (a rule break is a 400 that
// fails the run): a bad argument, malformed JSON arguments (OpenAI), an unknown tool, and a full round
// budget so the final call is made.
import { type ModelServer, type ReceivedRequest, startModelServer } from "@agentforge/model-servers";
import { stdioTestServer } from "@agentforge/test-servers";
import { ChatAnthropic } from "@langchain/anthropic";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it } from "vitest";
import { type FinalCallStrategy, invokeWithTools } from "../../src/langchain/index.js";
import { cleanup, onCleanup, stack } from "./harness.js";

afterEach(cleanup);

type Provider = "openai" | "anthropic";

function client(provider: Provider, server: ModelServer): BaseChatModel {
  if (provider === "openai") {
    return new ChatOpenAI({
      model: "gpt-4o-mini",
      apiKey: "test-key",
      configuration: { baseURL: server.baseURL },
      maxRetries: 0,
    });
  }
  return new ChatAnthropic({
    model: "claude-sonnet-4-5",
    apiKey: "test-key",
    anthropicApiUrl: server.baseURL,
    maxRetries: 0,
  });
}

/** The tool result texts the provider received in a request, in order (either API's shape). */
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

async function run(provider: Provider, finalCall: FinalCallStrategy) {
  const { executor, registry, recorded } = await stack([stdioTestServer("alpha")], {
    agent: ["alpha.echo", "alpha.add"],
  });
  const finalRequests: ReceivedRequest[] = [];
  const server = await startModelServer(provider, {
    turns: [
      {
        text: "Let me look.",
        toolCalls: [
          { name: "alpha__echo", args: { text: 12345 } as Record<string, unknown> },
          { name: "alpha__nope", args: {} },
          { name: "alpha__echo", args: { text: "hello" } },
          // A name no provider would accept in a request: the loop renames it in the history it sends back.
          { name: "not a tool!", args: {} },
          ...(provider === "openai" ? [{ name: "alpha__add", argsText: '{"a": 1, "b": ' }] : []),
        ],
      },
      { toolCalls: [{ name: "alpha__add", args: { a: 2, b: 3 } }] },
      (request) => {
        finalRequests.push(request);
        return { text: "final answer" };
      },
    ],
  });
  onCleanup(() => server.close());
  const result = await invokeWithTools(client(provider, server), [new HumanMessage("Use the tools.")], {
    tools: registry.list(),
    executor,
    agent: "agent",
    maxRounds: 2,
    finalCall,
  });
  return { result, server, recorded, finalRequest: finalRequests[0] };
}

describe.each(["openai", "anthropic"] as const)("%s: the tool loop with the real client", (provider) => {
  it("bad arguments, an unknown tool and malformed JSON go back to the model; the final call is accepted", async () => {
    const { result, server, recorded, finalRequest } = await run(provider, "auto");
    // Every request was accepted: no provider rule was broken (tool results answered, names, schemas).
    expect(server.requests.map((r) => [r.status, r.error])).toEqual([
      [200, undefined],
      [200, undefined],
      [200, undefined],
    ]);
    expect(result.message.content).toBe("final answer");
    expect(result.rounds).toBe(2);
    expect(result.calls.map((c) => [c.round, c.identity, c.ok, c.errorCode])).toEqual([
      [1, "alpha.echo", false, "INVALID_ARGUMENTS"],
      [1, "alpha__nope", false, "TOOL_NOT_FOUND"],
      [1, "alpha.echo", true, undefined],
      [1, "not_a_tool_", false, "TOOL_NOT_FOUND"],
      ...(provider === "openai" ? [[1, "alpha.add", false, "INVALID_ARGUMENTS"]] : []),
      [2, "alpha.add", true, undefined],
    ]);
    // The model saw an error it can correct for each bad call, and the results of the good ones.
    const round1 = toolResults(server.requests[1]);
    expect(round1[0]).toContain("Error (INVALID_ARGUMENTS)");
    expect(round1[0]).toContain("text: must be string (got integer)");
    expect(round1[1]).toBe(
      'Error (TOOL_NOT_FOUND): Tool "alpha__nope" is not registered. Known tools: alpha__echo, alpha__add.',
    );
    expect(round1[2]).toBe("hello");
    expect(round1[3]).toContain("Error (TOOL_NOT_FOUND)");
    if (provider === "openai") expect(round1[4]).toContain("(root): is not valid JSON");
    // Each provider's tools were sent as object schemas with model-safe names.
    for (const tool of server.requests[0]?.body?.tools ?? []) {
      const schema = provider === "openai" ? tool.function.parameters : tool.input_schema;
      expect(schema.type).toBe("object");
    }
    // The final call keeps the tools defined with tool choice "none".
    if (provider === "openai") expect(finalRequest?.body?.tool_choice).toBe("none");
    else expect(finalRequest?.body?.tool_choice).toEqual({ type: "none" });
    expect((finalRequest?.body?.tools ?? []).length).toBe(2);
    expect(
      recorded.events
        .filter((e) => e.event === "MCP_TOOL_CALL_FAILED")
        .map((e) => e.errorCode)
        .sort(),
    ).toEqual(
      provider === "openai"
        ? ["INVALID_ARGUMENTS", "INVALID_ARGUMENTS", "TOOL_NOT_FOUND", "TOOL_NOT_FOUND"]
        : ["INVALID_ARGUMENTS", "TOOL_NOT_FOUND", "TOOL_NOT_FOUND"],
    );
  }, 120_000);

  it("the text_history final call is accepted too (no tools, no tool blocks)", async () => {
    const { result, server, finalRequest } = await run(provider, "text_history");
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(result.message.content).toBe("final answer");
    expect(finalRequest?.body?.tools).toBeUndefined();
    expect(JSON.stringify(finalRequest?.body?.messages)).not.toMatch(
      /"tool_use"|"tool_result"|"role":"tool"/,
    );
  }, 120_000);
});

describe("the scripted provider servers enforce the rule the final call works around", () => {
  it("anthropic: a history with tool blocks and no tools defined is refused with a 400", async () => {
    const { result } = await run("anthropic", "auto");
    const server = await startModelServer("anthropic", { turns: [{ text: "never" }] });
    onCleanup(() => server.close());
    const history = mapStoredMessagesToChatMessages(result.transcript).slice(0, -1);
    await expect(client("anthropic", server).invoke(history)).rejects.toThrow(/tool/);
    expect(server.requests.map((r) => r.status)).toEqual([400]);
  }, 120_000);
});
