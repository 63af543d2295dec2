import type { ModelServer } from "../src/index.js";
import { startModelServer } from "../src/index.js";
import { echoTool, langchainMessages, langchainOllama, ollamaSdk, post } from "./clients.js";

const { HumanMessage } = langchainMessages;
const servers: ModelServer[] = [];
const MODEL = "llama3.1";

async function start(turns: Parameters<typeof startModelServer>[1]["turns"]) {
  const server = await startModelServer("ollama", { turns });
  servers.push(server);
  return server;
}

function chat(server: ModelServer) {
  return new langchainOllama.ChatOllama({ model: MODEL, baseUrl: server.baseURL, maxRetries: 0 });
}

async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("ollama chat with ChatOllama (real @langchain/ollama + ollama client)", () => {
  it("serves a tool-call turn, then an answer turn that sees the tool message", async () => {
    const tool = echoTool();
    const server = await start([
      { toolCalls: [{ name: "local_tools__echo", args: { text: "hi" } }] },
      (req) => {
        const last = req.body.messages.at(-1);
        return { text: `tool said: ${last.role}/${last.content}` };
      },
    ]);
    const model = chat(server).bindTools([tool]);
    const human = new HumanMessage("echo hi");
    const ai = await model.invoke([human]);
    expect(ai.tool_calls).toHaveLength(1);
    expect(ai.tool_calls[0]).toMatchObject({
      name: "local_tools__echo",
      args: { text: "hi" },
      type: "tool_call",
    });
    const toolMessage = await tool.invoke(ai.tool_calls[0]);
    const final = await model.invoke([human, ai, toolMessage]);
    expect(final.content).toBe("tool said: tool/echo: hi");
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
    expect(server.requests[0]?.path).toBe("/api/chat");
    expect(server.requests[0]?.body.tools[0]).toMatchObject({
      type: "function",
      function: { name: "local_tools__echo", parameters: { type: "object" } },
    });
    // The history sent back carries the assistant tool call with an OBJECT of arguments.
    const assistant = server.requests[1]?.body.messages.find((m: { role: string }) => m.role === "assistant");
    expect(assistant.tool_calls[0].function).toMatchObject({
      name: "local_tools__echo",
      arguments: { text: "hi" },
    });
  });

  it("streams NDJSON by default, ending with done: true and a done_reason", async () => {
    const server = await start([{ text: "hello there", toolCalls: [{ name: "t", args: { a: 1 } }] }]);
    const res = await post(
      `${server.baseURL}/api/chat`,
      {},
      { model: MODEL, messages: [{ role: "user", content: "x" }] },
    );
    expect(res.status).toBe(200);
    const lines = res.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.slice(0, -1).every((l) => l.done === false)).toBe(true);
    expect(lines.at(-1)).toMatchObject({
      model: MODEL,
      done: true,
      done_reason: "stop",
      message: { role: "assistant", content: "" },
    });
    expect(lines.map((l) => l.message.content).join("")).toBe("hello there");
    const withCalls = lines.find((l) => l.message.tool_calls);
    expect(withCalls.message.tool_calls[0].function).toMatchObject({ name: "t", arguments: { a: 1 } });
  });

  it("answers stream: false with one response object (ollama client)", async () => {
    const server = await start([{ text: "whole" }]);
    const client = new ollamaSdk.Ollama({ host: server.baseURL });
    const response = await client.chat({ model: MODEL, messages: [{ role: "user", content: "x" }] });
    expect(server.requests[0]?.body.stream).toBe(false);
    expect(response).toMatchObject({
      model: MODEL,
      done: true,
      done_reason: "stop",
      message: { role: "assistant", content: "whole" },
    });
    expect(response.eval_count).toBeGreaterThan(0);
  });

  it("sends a non-object argsText as a string; ChatOllama 1.3.0 silently drops such a call", async () => {
    const garbled = '{"text": hi';
    const server = await start([
      { toolCalls: [{ name: "local_tools__echo", argsText: garbled }] },
      { toolCalls: [{ name: "t", argsText: garbled }] },
    ]);
    const ai = await chat(server)
      .bindTools([echoTool()])
      .invoke([new HumanMessage("go")]);
    // Observed client behaviour worth knowing: the call lands in neither tool_calls nor invalid_tool_calls.
    expect(ai.tool_calls).toEqual([]);
    expect(ai.invalid_tool_calls).toEqual([]);
    const res = await post(
      `${server.baseURL}/api/chat`,
      {},
      { model: MODEL, messages: [{ role: "user", content: "x" }], stream: false },
    );
    expect(res.json.message.tool_calls[0].function.arguments).toBe(garbled);
  });

  it("an exhausted script gives a 500 {error} saying so", async () => {
    const server = await start([]);
    const error = await rejection(chat(server).invoke([new HumanMessage("hi")]));
    expect(error.name).toBe("ResponseError");
    expect(error.status_code).toBe(500);
    expect(error.message).toMatch(/script is exhausted/);
  });
});

describe("ollama rules: 400 {error} surfacing as the ollama client's ResponseError", () => {
  it("missing model / missing messages → 400", async () => {
    const server = await start([{ text: "never" }]);
    const client = new ollamaSdk.Ollama({ host: server.baseURL });
    const noModel = await rejection(client.chat({ messages: [{ role: "user", content: "x" }] }));
    expect(noModel).toMatchObject({ name: "ResponseError", status_code: 400, message: "model is required" });
    const noMessages = await rejection(client.chat({ model: MODEL }));
    expect(noMessages).toMatchObject({
      name: "ResponseError",
      status_code: 400,
      message: "messages are required",
    });
    const raw = await post(`${server.baseURL}/api/chat`, {}, { messages: [] });
    expect(raw.json).toEqual({ error: "model is required" });
    expect(server.requests.map((r) => r.status)).toEqual([400, 400, 400]);
    expect(server.turnsConsumed).toBe(0);
  });

  it("assistant tool_calls whose arguments are not an object → 400", async () => {
    const server = await start([{ text: "never" }]);
    const res = await post(
      `${server.baseURL}/api/chat`,
      {},
      {
        model: MODEL,
        messages: [
          { role: "user", content: "x" },
          { role: "assistant", content: "", tool_calls: [{ function: { name: "t", arguments: '{"a":1}' } }] },
        ],
      },
    );
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/arguments: expected a JSON object, got string/);
  });

  it("unknown paths answer Ollama's plain-text 404", async () => {
    const server = await start([]);
    const res = await post(`${server.baseURL}/api/generate`, {}, { model: MODEL, prompt: "x" });
    expect(res.status).toBe(404);
    expect(res.text).toBe("404 page not found");
  });
});
