// A governed Vercel AI SDK agent: the local-tools server, a grant, generateText with bounded rounds. The
// model is the AI SDK's MockLanguageModelV3 here; pass any AI SDK model (openai("gpt-4.1"), ...).
import assert from "node:assert/strict";
import { createMCPToolkit, MCPToolNameMap } from "@agentforge/agent-runtime";
import { reportInvalidToolCalls, stopAfterToolRounds, toAISDKTools } from "@agentforge/agent-runtime/ai-sdk";
import { serverCommand } from "@agentforge/example-servers";
import { generateText } from "ai";
import { MockLanguageModelV3 } from "ai/test";

const toolkit = await createMCPToolkit({
  config: {
    servers: [{ name: "local", transport: "stdio", enabled: true, ...serverCommand("local-tools") }],
    permissions: { writer: ["local.word_count"] },
  },
});
try {
  const nameMap = new MCPToolNameMap();
  const tools = await toAISDKTools(toolkit, "writer", { nameMap }); // rejects if a granted server is down
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const model = new MockLanguageModelV3({
    doGenerate: [
      {
        content: [
          {
            type: "tool-call",
            toolCallId: "c1",
            toolName: "local__word_count",
            input: '{"text":"one two three"}',
          },
        ],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "It has 3 words." }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      },
    ],
  });
  const result = await generateText({
    model,
    tools,
    prompt: "How many words are in 'one two three'?",
    stopWhen: stopAfterToolRounds(tools),
    experimental_repairToolCall: reportInvalidToolCalls(toolkit, "writer", { nameMap }),
  });
  console.log(`answer: ${result.text}`);
  const output = result.steps[0]?.toolResults[0]?.output as { ok: boolean; text: string };
  console.log(`tool said: ${output.text}`);
  assert.equal(output.ok, true);
  assert.equal(result.text, "It has 3 words.");
} finally {
  await toolkit.close();
}
