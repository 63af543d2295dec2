// The hostile-server matrix through the tool loop: a model calls a misbehaving server's tool in round 1
// and a well-behaved server's tool in round 2. Whatever the hostile server does, the loop finishes, the
// model gets a tool message for every call (a result or an error it can read), the other server keeps
// working, every call is reported as an event, and nothing reaches the host as an uncaught error.
import { stdioTestServer } from "@agentforge/test-servers";
import { HumanMessage } from "@langchain/core/messages";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { invokeWithTools } from "../../src/langchain/index.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { cleanup, stack } from "./harness.js";

afterEach(cleanup);

const escaped: unknown[] = [];
const onEscaped = (error: unknown) => escaped.push(error);
beforeAll(() => {
  process.on("uncaughtException", onEscaped);
  process.on("unhandledRejection", onEscaped);
});
afterAll(() => {
  process.off("uncaughtException", onEscaped);
  process.off("unhandledRejection", onEscaped);
});

interface Case {
  tool: string;
  args: Record<string, unknown>;
  /** What the model must be told about the hostile call. */
  answer: "result" | "error";
}

const MATRIX: Case[] = [
  { tool: "flood", args: { count: 5000 }, answer: "result" },
  { tool: "list_changed_storm", args: { count: 2000 }, answer: "result" },
  { tool: "weird_content", args: {}, answer: "result" },
  { tool: "bad_structured", args: {}, answer: "error" },
  { tool: "stray_replies", args: {}, answer: "result" },
  { tool: "stdout_noise", args: { lines: 20, bytes: 1_000_000 }, answer: "result" },
  { tool: "ask_client", args: { method: "sampling/createMessage" }, answer: "result" },
  { tool: "ask_client", args: { method: "elicitation/create" }, answer: "result" },
  { tool: "ask_client", args: { method: "roots/list" }, answer: "result" },
  { tool: "close_stdout", args: {}, answer: "error" },
  { tool: "make_duplicates", args: {}, answer: "result" },
];

describe("hostile servers through the tool loop", () => {
  it.each(MATRIX)(
    "$tool $args: the loop finishes, the other server works",
    async ({ tool, args, answer }) => {
      const { executor, registry, recorded } = await stack(
        [stdioTestServer("hostile", { hostile: true }, { toolTimeout: 20 }), stdioTestServer("good")],
        { agent: ["hostile.*", "good.*"] },
      );
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: `hostile__${tool}`, args }] },
        { toolCalls: [{ name: "good__echo", args: { text: "after the storm" } }] },
        "done",
      ]);
      const result = await invokeWithTools(model, [new HumanMessage("go")], {
        tools: registry.list(),
        executor,
        agent: "agent",
        maxRounds: 2,
        // Two test servers grant more tools than the search threshold: every tool is bound here.
        toolSearch: "off",
      });

      expect(result.message.content).toBe("done");
      expect(result.calls.map((c) => [c.identity, c.ok])).toEqual([
        [`hostile.${tool}`, answer === "result"],
        ["good.echo", true],
      ]);
      const messages = result.transcript.filter((m) => m.type === "tool");
      expect(messages).toHaveLength(2);
      const [hostileAnswer, goodAnswer] = messages.map((m) => String(m.data.content));
      if (answer === "error") expect(hostileAnswer).toMatch(/^Error \([A-Z_]+\): /);
      else expect(hostileAnswer).not.toMatch(/^Error \(/);
      expect(goodAnswer).toBe("after the storm");
      // One STARTED and one COMPLETED/FAILED event per call.
      const ends = recorded.events.filter(
        (e) => e.event === "MCP_TOOL_CALL_COMPLETED" || e.event === "MCP_TOOL_CALL_FAILED",
      );
      expect(ends.map((e) => e.identity)).toEqual([`hostile.${tool}`, "good.echo"]);
      expect(escaped).toEqual([]);
    },
  );
});
