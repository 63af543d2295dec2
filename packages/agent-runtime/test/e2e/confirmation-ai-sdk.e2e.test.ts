// The AI SDK's own approval flow (needsApproval, tool-approval-request / -response) over MCP tools that
// need confirmation, with the AI SDK's test model (MockLanguageModelV3) and a real stdio server.
import { join } from "node:path";
import { readCallLog, STDIO_TEST_SERVER, testServerArgs } from "@agentforge/test-servers";
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { confirmationRunOf, toAISDKTools } from "../../src/ai-sdk/index.js";
import {
  createMCPToolkit,
  MCP_TOOL_CALL_CONFIRMATION_REQUESTED,
  MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
} from "../../src/index.js";
import { cleanup, onCleanup, tempDir } from "./harness.js";

afterEach(cleanup);

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const CANARY = "canary-AISDK-Approve-55";

function toolCall(toolCallId: string, toolName: string, input: unknown) {
  return {
    content: [{ type: "tool-call" as const, toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls" as const, raw: undefined },
    usage,
    warnings: [],
  };
}

function answer(text: string) {
  return {
    content: [{ type: "text" as const, text }],
    finishReason: { unified: "stop" as const, raw: undefined },
    usage,
    warnings: [],
  };
}

async function setup() {
  const log = join(tempDir(), "calls.jsonl");
  const toolkit = await createMCPToolkit({
    config: {
      servers: [
        {
          name: "alpha",
          transport: "stdio",
          enabled: true,
          command: process.execPath,
          args: [STDIO_TEST_SERVER, ...testServerArgs({ callLog: log })],
          connection_timeout: 120,
        },
      ],
      permissions: { helper: { allow: ["alpha.add"], confirm: ["alpha.echo"] } },
    },
  });
  onCleanup(() => toolkit.close());
  const events: Record<string, unknown>[] = [];
  toolkit.events.on(MCP_TOOL_CALL_CONFIRMATION_REQUESTED, (e) => events.push({ ...e }));
  toolkit.events.on(MCP_TOOL_CALL_CONFIRMATION_RESOLVED, (e) => events.push({ ...e }));
  const echoes = () => readCallLog(log).filter((line) => line.tool === "echo").length;
  return { toolkit, events, echoes };
}

const prompt: ModelMessage[] = [{ role: "user", content: "Echo the canary." }];

/** First turn: the model calls alpha.echo; the SDK stops with an approval request. */
async function requestApproval(tools: Awaited<ReturnType<typeof toAISDKTools>>) {
  const model = new MockLanguageModelV3({
    doGenerate: [toolCall("call_1", "alpha__echo", { text: CANARY }), answer("echoed")],
  });
  const first = await generateText({ model, tools, messages: prompt, stopWhen: stepCountIs(4) });
  const request = first.content.find((part) => part.type === "tool-approval-request");
  expect(request).toBeDefined();
  return { model, first, approvalId: (request as { approvalId: string }).approvalId };
}

function respond(
  first: { response: { messages: ModelMessage[] } },
  approvalId: string,
  approved: boolean,
  edit?: (messages: ModelMessage[]) => void,
): ModelMessage[] {
  const response = JSON.parse(JSON.stringify(first.response.messages)) as ModelMessage[];
  edit?.(response);
  return [
    ...prompt,
    ...response,
    { role: "tool", content: [{ type: "tool-approval-response", approvalId, approved }] },
  ];
}

describe("toAISDKTools: calls that need confirmation use the AI SDK's approval flow", () => {
  it("marks them with needsApproval; an approval runs the call, bound to what was approved", async () => {
    const { toolkit, events, echoes } = await setup();
    const tools = await toAISDKTools(toolkit, "helper", { runId: "ai-run-1" });
    expect(Object.keys(tools).sort()).toEqual(["alpha__add", "alpha__echo"]);
    const { model, first, approvalId } = await requestApproval(tools);
    expect(echoes()).toBe(0);
    expect(events).toMatchObject([
      { type: MCP_TOOL_CALL_CONFIRMATION_REQUESTED, identity: "alpha.echo", runId: "ai-run-1", asked: false },
    ]);
    const second = await generateText({
      model,
      tools,
      messages: respond(first, approvalId, true),
      stopWhen: stepCountIs(4),
    });
    expect(second.text).toBe("echoed");
    expect(echoes()).toBe(1);
    expect(events.at(-1)).toMatchObject({
      type: MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
      decision: "allow",
      source: "answer",
      answeredBy: "ai-sdk-approval",
      callId: "call_1",
    });
    expect(JSON.stringify(events)).not.toContain(CANARY);
    expect(confirmationRunOf(tools)).toMatchObject({
      runId: "ai-run-1",
      requests: 1,
      usedAnswers: ["call_1"],
    });
  });

  it("refuses a call whose approval was for other arguments (edited between request and answer)", async () => {
    const { toolkit, echoes } = await setup();
    const tools = await toAISDKTools(toolkit, "helper");
    const { model, first, approvalId } = await requestApproval(tools);
    const messages = respond(first, approvalId, true, (response) => {
      for (const message of response) {
        if (message.role !== "assistant" || typeof message.content === "string") continue;
        for (const part of message.content) {
          if (part.type === "tool-call") (part as { input: unknown }).input = { text: "something else" };
        }
      }
    });
    const second = await generateText({ model, tools, messages, stopWhen: stepCountIs(4) });
    expect(echoes()).toBe(0);
    // The approved call's result is the first response message: the refusal, as the model will read it.
    const [toolResults] = second.response.messages;
    expect(toolResults?.role).toBe("tool");
    expect(JSON.stringify(toolResults?.content)).toMatch(/CONFIRMATION_DENIED.*another call/);
  });

  it("a denied approval never runs the call; tools that need none run without asking", async () => {
    const { toolkit, events, echoes } = await setup();
    const tools = await toAISDKTools(toolkit, "helper");
    const { model, first, approvalId } = await requestApproval(tools);
    await generateText({
      model,
      tools,
      messages: respond(first, approvalId, false),
      stopWhen: stepCountIs(4),
    });
    expect(echoes()).toBe(0);
    const plain = new MockLanguageModelV3({
      doGenerate: [toolCall("call_2", "alpha__add", { a: 2, b: 3 }), answer("5")],
    });
    const added = await generateText({ model: plain, tools, messages: prompt, stopWhen: stepCountIs(4) });
    expect(added.text).toBe("5");
    expect(events.filter((e) => e.type === MCP_TOOL_CALL_CONFIRMATION_REQUESTED)).toHaveLength(1);
  });

  it('confirmations: "executor" asks the executor\'s handler instead (none: CONFIRMATION_REQUIRED)', async () => {
    const { toolkit, echoes } = await setup();
    const tools = await toAISDKTools(toolkit, "helper", { confirmations: "executor" });
    const model = new MockLanguageModelV3({
      doGenerate: [toolCall("call_1", "alpha__echo", { text: "x" }), answer("could not")],
    });
    const result = await generateText({ model, tools, messages: prompt, stopWhen: stepCountIs(4) });
    expect(result.text).toBe("could not");
    expect(echoes()).toBe(0);
    const output = result.steps[0]?.content.find((part) => part.type === "tool-result");
    expect(JSON.stringify((output as { output?: unknown } | undefined)?.output)).toMatch(
      /CONFIRMATION_REQUIRED/,
    );
  });
});
