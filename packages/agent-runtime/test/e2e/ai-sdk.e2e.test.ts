// MCP tools in a Vercel AI SDK run: generateText with the AI SDK's own test model (MockLanguageModelV3)
// calling real stdio servers through the toolkit's executor.
import { STDIO_TEST_SERVER, testServerArgs } from "@agentforge/test-servers";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { type MCPAISDKToolOutput, reportInvalidToolCalls, toAISDKTools } from "../../src/ai-sdk/index.js";
import {
  createMCPToolkit,
  MAX_MCP_TOOL_ROUNDS,
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_STARTED,
  MCPToolNameMap,
} from "../../src/index.js";
import { cleanup, onCleanup } from "./harness.js";

afterEach(cleanup);

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function toolCalls(...calls: [id: string, toolName: string, input: string][]) {
  return {
    content: calls.map(([toolCallId, toolName, input]) => ({
      type: "tool-call" as const,
      toolCallId,
      toolName,
      input,
    })),
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

async function toolkitWith(grants: Record<string, string[]>) {
  const toolkit = await createMCPToolkit({
    config: {
      servers: [
        {
          name: "alpha",
          transport: "stdio",
          enabled: true,
          command: process.execPath,
          args: [STDIO_TEST_SERVER, ...testServerArgs({})],
          connection_timeout: 120,
        },
      ],
      permissions: grants,
    },
  });
  onCleanup(() => toolkit.close());
  return toolkit;
}

describe("toAISDKTools + generateText (MockLanguageModelV3)", () => {
  it("runs permitted calls through the executor; bad arguments, unknown and unpermitted names come back as errors", async () => {
    const toolkit = await toolkitWith({ helper: ["alpha.echo"] });
    const events: string[] = [];
    toolkit.events.on(MCP_TOOL_CALL_STARTED, (e) => events.push(`started ${e.identity}`));
    toolkit.events.on(MCP_TOOL_CALL_COMPLETED, (e) => events.push(`ok ${e.identity}`));
    toolkit.events.on(MCP_TOOL_CALL_FAILED, (e) => events.push(`failed ${e.identity} ${e.errorCode}`));

    const nameMap = new MCPToolNameMap();
    const tools = await toAISDKTools(toolkit, "helper", { nameMap });
    expect(Object.keys(tools)).toEqual(["alpha__echo"]);

    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCalls(
          ["c1", "alpha__echo", JSON.stringify({ text: "hello from the model" })],
          ["c2", "alpha__echo", JSON.stringify({ text: 42 })],
          ["c3", "alpha__pid", "{}"],
          ["c4", "alpha__echo", "{not json"],
        ),
        answer("done"),
      ],
    });
    const result = await generateText({
      model,
      tools,
      prompt: "Use the tools.",
      stopWhen: stepCountIs(MAX_MCP_TOOL_ROUNDS + 1),
      experimental_repairToolCall: reportInvalidToolCalls(toolkit, "helper", { nameMap }),
    });

    expect(result.text).toBe("done");
    expect(result.steps).toHaveLength(2);
    // The model was offered only the permitted tool.
    expect(model.doGenerateCalls[0]?.tools?.map((t) => t.name)).toEqual(["alpha__echo"]);

    const outputs =
      result.steps[0]?.toolResults.map((r) => ({ id: r.toolCallId, out: r.output as MCPAISDKToolOutput })) ??
      [];
    expect(outputs.map(({ id, out }) => [id, out.ok, out.ok ? out.text : out.errorCode])).toEqual([
      ["c1", true, "hello from the model"],
      ["c2", false, "INVALID_ARGUMENTS"],
    ]);
    const errors = result.steps[0]?.content.filter((part) => part.type === "tool-error") ?? [];
    expect(errors.map((part) => part.toolCallId).sort()).toEqual(["c3", "c4"]);

    // What the model read back in the next step: results, and error results it can correct.
    const toolParts = (model.doGenerateCalls[1]?.prompt ?? [])
      .filter((message) => message.role === "tool")
      .flatMap((message) => message.content)
      .flatMap((part) => (part.type === "tool-result" ? [[part.toolCallId, part.output] as const] : []));
    const byId = new Map(toolParts);
    expect(byId.get("c1")).toEqual({ type: "text", value: "hello from the model" });
    expect(byId.get("c2")).toMatchObject({ type: "error-text" });
    expect((byId.get("c2") as { value: string }).value).toMatch(
      /^Error \(INVALID_ARGUMENTS\): .*text: must be string/,
    );
    expect(byId.get("c3")).toMatchObject({ type: "error-text" });
    expect(byId.get("c4")).toMatchObject({ type: "error-text" });

    // Every attempt is in the audit trail, including the two the AI SDK refused before a tool ran.
    expect(events.filter((e) => !e.startsWith("started")).sort()).toEqual(
      [
        "ok alpha.echo",
        "failed alpha.echo INVALID_ARGUMENTS",
        "failed alpha.pid TOOL_DENIED",
        "failed alpha.echo INVALID_ARGUMENTS",
      ].sort(),
    );
    expect(events.filter((e) => e.startsWith("started"))).toHaveLength(4);
  });

  it("takes an executor too, and re-checks the policy on every call (a reload that revokes a grant)", async () => {
    const toolkit = await toolkitWith({ helper: ["alpha.echo"] });
    await toolkit.tools("helper");
    const tools = await toAISDKTools(toolkit.executor, "helper");
    expect(Object.keys(tools)).toEqual(["alpha__echo"]);
    await toolkit.reload({ ...toolkit.config, permissions: { helper: { allow: [], deny: [] } } });

    const model = new MockLanguageModelV3({
      doGenerate: [toolCalls(["c1", "alpha__echo", JSON.stringify({ text: "x" })]), answer("ok")],
    });
    const result = await generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(2) });
    const output = result.steps[0]?.toolResults[0]?.output as MCPAISDKToolOutput;
    expect(output).toMatchObject({ ok: false, errorCode: "TOOL_DENIED" });
    expect(result.text).toBe("ok");
  });
});
