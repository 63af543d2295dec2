import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ScriptedChatModel } from "./scripted-chat-model.js";

const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
  name: "add",
  description: "Adds two numbers",
  schema: z.object({ a: z.number(), b: z.number() }),
});

describe("ScriptedChatModel", () => {
  it("replies with tool calls, then text, through bindTools", async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "add", args: { a: 2, b: 3 } }] },
      "2 + 3 = 5",
    ]);
    const bound = model.bindTools([add]);
    const first = await bound.invoke([new HumanMessage("add 2 and 3")]);
    expect(first.tool_calls).toEqual([
      { name: "add", args: { a: 2, b: 3 }, id: "scripted_call_1", type: "tool_call" },
    ]);
    const result = await add.invoke({
      ...(first.tool_calls?.[0] ?? { name: "add", args: {} }),
      type: "tool_call",
    });
    expect(result).toBeInstanceOf(ToolMessage);
    const second = await bound.invoke([new HumanMessage("add"), first, result as ToolMessage]);
    expect(second.content).toBe("2 + 3 = 5");
    expect(model.callCount).toBe(2);
    expect(model.calls[0]?.tools).toEqual([
      {
        name: "add",
        description: "Adds two numbers",
        parameters: expect.objectContaining({
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" } },
        }),
      },
    ]);
    expect(model.calls[1]?.messages).toHaveLength(3);
  });

  it("lets a step decide from the conversation and the bound tools", async () => {
    const model = new ScriptedChatModel(({ messages, tools }) =>
      messages.some((m) => m instanceof ToolMessage)
        ? `saw ${messages.length} messages`
        : { toolCalls: tools.map((t) => ({ name: t.name, args: {} })) },
    );
    const bound = model.bindTools([add]);
    const first = await bound.invoke("go");
    expect(first.tool_calls?.map((c) => c.name)).toEqual(["add"]);
    const second = await bound.invoke([
      new HumanMessage("go"),
      first,
      new ToolMessage({ content: "5", tool_call_id: "x" }),
    ]);
    expect(second.content).toBe("saw 3 messages");
  });

  it("knows when it is called without tools", async () => {
    const model = new ScriptedChatModel([({ tools }) => `tools: ${tools.length}`]);
    expect((await model.invoke("hi")).content).toBe("tools: 0");
  });

  it("says so when the script runs out, or repeats the last step", async () => {
    const strict = new ScriptedChatModel(["one"]);
    await strict.invoke("a");
    await expect(strict.invoke("b")).rejects.toThrow(/all were used \(call 2\)/);
    const repeat = new ScriptedChatModel([new AIMessage("same")], { whenExhausted: "repeat-last" });
    await repeat.invoke("a");
    expect((await repeat.invoke("b")).content).toBe("same");
  });

  it("honours an aborted signal", async () => {
    const model = new ScriptedChatModel(["never"]);
    const controller = new AbortController();
    controller.abort();
    await expect(model.invoke("x", { signal: controller.signal })).rejects.toThrow();
    expect(model.callCount).toBe(0);
  });
});
