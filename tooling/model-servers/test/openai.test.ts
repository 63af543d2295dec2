import type { ModelServer } from "../src/index.js";
import { startModelServer } from "../src/index.js";
import { echoTool, langchainMessages, langchainOpenAI, openaiSdk, post } from "./clients.js";

const { AIMessage, HumanMessage, ToolMessage } = langchainMessages;
const servers: ModelServer[] = [];

async function start(turns: Parameters<typeof startModelServer>[1]["turns"], apiKey?: string) {
  const server = await startModelServer("openai", { turns, ...(apiKey ? { apiKey } : {}) });
  servers.push(server);
  return server;
}

function chat(server: ModelServer, apiKey = "test-key") {
  return new langchainOpenAI.ChatOpenAI({
    model: "gpt-4o-mini",
    apiKey,
    maxRetries: 0,
    configuration: { baseURL: server.baseURL },
  });
}

function sdk(server: ModelServer) {
  return new openaiSdk.OpenAI({ apiKey: "test-key", baseURL: server.baseURL, maxRetries: 0 });
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

describe("openai chat completions with ChatOpenAI (real @langchain/openai + openai SDK)", () => {
  it("serves a tool-call turn, then an answer turn that sees the tool result", async () => {
    const tool = echoTool();
    const server = await start([
      { toolCalls: [{ name: "local_tools__echo", args: { text: "hi" }, id: "call_echo_1" }] },
      (req) => {
        const last = req.body.messages.at(-1);
        return { text: `tool said: ${last.role}/${last.tool_call_id}/${last.content}` };
      },
    ]);
    const model = chat(server).bindTools([tool]);
    const human = new HumanMessage("echo hi");
    const ai = await model.invoke([human]);
    expect(ai.tool_calls).toEqual([
      { name: "local_tools__echo", args: { text: "hi" }, id: "call_echo_1", type: "tool_call" },
    ]);
    const toolMessage = await tool.invoke(ai.tool_calls[0]);
    const final = await model.invoke([human, ai, toolMessage]);
    expect(final.content).toBe("tool said: tool/call_echo_1/echo: hi");
    expect(final.response_metadata.finish_reason).toBe("stop");
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer test-key");
    expect(server.requests[0]?.body.tools[0]).toMatchObject({
      type: "function",
      function: { name: "local_tools__echo" },
    });
    expect(server.turnsConsumed).toBe(2);
  });

  it("answers a non-streaming request with a faithful chat.completion object", async () => {
    const server = await start([{ text: "thinking", toolCalls: [{ name: "lookup", args: { q: 1 } }] }]);
    const completion = await sdk(server).chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "x" }],
      tools: [
        { type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } },
      ],
    });
    expect(completion).toMatchObject({ object: "chat.completion", model: "gpt-4o-mini" });
    expect(completion.id).toMatch(/^chatcmpl-/);
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.role).toBe("assistant");
    expect(choice.message.content).toBe("thinking");
    expect(choice.message.tool_calls[0].id).toMatch(/^call_/);
    expect(choice.message.tool_calls[0]).toMatchObject({
      type: "function",
      function: { name: "lookup", arguments: '{"q":1}' },
    });
    expect(completion.usage.total_tokens).toBe(
      completion.usage.prompt_tokens + completion.usage.completion_tokens,
    );
  });

  it("streams text and tool-call deltas over SSE, assembled by ChatOpenAI.stream()", async () => {
    const server = await start([
      {
        text: "Let me check.",
        toolCalls: [{ name: "local_tools__echo", args: { text: "streamed" }, id: "call_s1" }],
      },
    ]);
    const model = chat(server).bindTools([echoTool()]);
    let full: unknown;
    let chunks = 0;
    for await (const chunk of await model.stream([new HumanMessage("go")])) {
      chunks += 1;
      full = full === undefined ? chunk : (full as { concat(c: unknown): unknown }).concat(chunk);
    }
    const message = full as Record<string, unknown> & { tool_calls: unknown[]; content: string };
    expect(chunks).toBeGreaterThan(3);
    expect(message.content).toBe("Let me check.");
    expect(message.tool_calls).toEqual([
      { name: "local_tools__echo", args: { text: "streamed" }, id: "call_s1", type: "tool_call" },
    ]);
    expect(server.requests[0]?.body.stream).toBe(true);
  });

  it("streams a raw SSE body that ends with data: [DONE]", async () => {
    const server = await start([{ text: "hello" }]);
    const res = await post(
      `${server.baseURL}/chat/completions`,
      { authorization: "Bearer test-key" },
      {
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        stream_options: { include_usage: true },
      },
    );
    expect(res.status).toBe(200);
    const events = res.text.split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice("data: ".length)));
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("hello");
    expect(chunks.at(-2).choices[0].finish_reason).toBe("stop");
    expect(chunks.at(-1).choices).toEqual([]);
    expect(chunks.at(-1).usage.total_tokens).toBeGreaterThan(0);
  });

  it("sends malformed argsText verbatim; LangChain lands it in invalid_tool_calls (invoke and stream)", async () => {
    const broken = '{"text": "unterminated';
    // Streaming LangChain repairs truncated JSON (partial-JSON parsing), so the stream case uses text
    // that no repair can turn into an object.
    const garbled = '{"text": hi there}';
    const server = await start([
      { toolCalls: [{ name: "local_tools__echo", argsText: broken, id: "call_bad" }] },
      { toolCalls: [{ name: "local_tools__echo", argsText: garbled, id: "call_bad2" }] },
    ]);
    const model = chat(server).bindTools([echoTool()]);
    const ai = await model.invoke([new HumanMessage("go")]);
    expect(ai.tool_calls).toEqual([]);
    expect(ai.invalid_tool_calls).toHaveLength(1);
    expect(ai.invalid_tool_calls[0]).toMatchObject({
      name: "local_tools__echo",
      args: broken,
      id: "call_bad",
    });
    let full:
      | { invalid_tool_calls: unknown[]; tool_calls: unknown[]; concat(c: unknown): unknown }
      | undefined;
    for await (const chunk of await model.stream([new HumanMessage("go")])) {
      full = full === undefined ? chunk : (full.concat(chunk) as typeof full);
    }
    expect(full?.tool_calls).toEqual([]);
    expect(full?.invalid_tool_calls[0]).toMatchObject({
      name: "local_tools__echo",
      args: garbled,
      id: "call_bad2",
    });
    expect(server.requests[1]?.body.stream).toBe(true);
  });

  it("accepts tool_choice none and records it", async () => {
    const server = await start([{ text: "no tools needed" }]);
    const model = chat(server).bindTools([echoTool()], { tool_choice: "none" });
    const ai = await model.invoke([new HumanMessage("hi")]);
    expect(ai.content).toBe("no tools needed");
    expect(server.requests[0]?.body.tool_choice).toBe("none");
    expect(server.requests[0]?.status).toBe(200);
  });

  it("a tool-call turn under tool_choice none is a script error (500, consumed)", async () => {
    const server = await start([{ toolCalls: [{ name: "local_tools__echo", args: { text: "x" } }] }]);
    const model = chat(server).bindTools([echoTool()], { tool_choice: "none" });
    const error = await rejection(model.invoke([new HumanMessage("hi")]));
    expect(error).toBeInstanceOf(openaiSdk.InternalServerError);
    expect(error.status).toBe(500);
    expect(error.message).toMatch(/Script error.*tool_choice 'none'/);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.status).toBe(500);
    expect(server.turnsConsumed).toBe(1);
  });

  it("an exhausted script gives a 500 saying so, with no retry", async () => {
    const server = await start([{ text: "only one" }]);
    const model = chat(server);
    await model.invoke([new HumanMessage("1")]);
    const error = await rejection(model.invoke([new HumanMessage("2")]));
    expect(error).toBeInstanceOf(openaiSdk.InternalServerError);
    expect(error.message).toMatch(/script is exhausted/);
    expect(server.requests.map((r) => r.status)).toEqual([200, 500]);
    expect(server.requests[1]?.error).toMatch(/script is exhausted/);
  });
});

describe("openai rules: rejected with OpenAI's status and body, surfacing as the openai SDK's error classes", () => {
  it("wrong API key → 401 invalid_api_key (AuthenticationError), no turn consumed", async () => {
    const server = await start([{ text: "never" }]);
    const error = await rejection(chat(server, "wrong-key").invoke([new HumanMessage("hi")]));
    expect(error).toBeInstanceOf(openaiSdk.AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: "invalid_api_key", type: "invalid_request_error" });
    expect(error.message).not.toContain("wrong-key");
    expect(server.requests[0]?.status).toBe(401);
    expect(server.turnsConsumed).toBe(0);
    const raw = await post(
      `${server.baseURL}/chat/completions`,
      {},
      { model: "m", messages: [{ role: "user", content: "x" }] },
    );
    expect(raw.status).toBe(401);
    expect(raw.json).toEqual({
      error: { message: expect.any(String), type: "invalid_request_error", param: null, code: null },
    });
  });

  it("an assistant tool call left unanswered → 400 naming the id (BadRequestError, INVALID_TOOL_RESULTS)", async () => {
    const server = await start([{ text: "never" }]);
    const ai = new AIMessage({
      content: "",
      tool_calls: [
        { name: "local_tools__echo", args: { text: "a" }, id: "call_open_1" },
        { name: "local_tools__echo", args: { text: "b" }, id: "call_open_2" },
      ],
    });
    const answeredOne = new ToolMessage({ content: "echo: a", tool_call_id: "call_open_1" });
    const error = await rejection(
      chat(server)
        .bindTools([echoTool()])
        .invoke([new HumanMessage("hi"), ai, answeredOne, new HumanMessage("next")]),
    );
    expect(error).toBeInstanceOf(openaiSdk.BadRequestError);
    expect(error.status).toBe(400);
    expect(error.message).toContain("call_open_2");
    expect(error.message).not.toContain("call_open_1");
    expect(error.param).toBe("messages.[1].role");
    expect(error.lc_error_code).toBe("INVALID_TOOL_RESULTS");
    expect(server.requests[0]?.status).toBe(400);
    expect(server.turnsConsumed).toBe(0);
  });

  it("an unanswered tool call at the end of the history is rejected too", async () => {
    const server = await start([{ text: "never" }]);
    const ai = new AIMessage({
      content: "",
      tool_calls: [{ name: "local_tools__echo", args: { text: "a" }, id: "call_tail" }],
    });
    const error = await rejection(
      chat(server)
        .bindTools([echoTool()])
        .invoke([new HumanMessage("hi"), ai]),
    );
    expect(error).toBeInstanceOf(openaiSdk.BadRequestError);
    expect(error.message).toContain("call_tail");
  });

  it("a tool message that answers no preceding tool call → 400", async () => {
    const server = await start([{ text: "never" }]);
    const orphan = new ToolMessage({ content: "stray", tool_call_id: "call_nobody" });
    const error = await rejection(
      chat(server)
        .bindTools([echoTool()])
        .invoke([new HumanMessage("hi"), orphan]),
    );
    expect(error).toBeInstanceOf(openaiSdk.BadRequestError);
    expect(error.message).toContain("call_nobody");
    expect(error.param).toBe("messages.[1].role");
  });

  it("a tool name outside ^[a-zA-Z0-9_-]{1,64}$ → 400 with param tools[i].function.name", async () => {
    const server = await start([{ text: "never" }]);
    const dotted = {
      type: "function",
      function: { name: "filesystem.read_text_file", parameters: { type: "object", properties: {} } },
    };
    const error = await rejection(
      chat(server)
        .bindTools([echoTool(), dotted])
        .invoke([new HumanMessage("hi")]),
    );
    expect(error).toBeInstanceOf(openaiSdk.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: "tools[1].function.name", code: "invalid_value" });
    expect(error.message).toMatch(/^400 Invalid 'tools\[1\]\.function\.name'/);
    const long = { type: "function", function: { name: "a".repeat(65) } };
    const tooLong = await rejection(
      chat(server)
        .bindTools([long])
        .invoke([new HumanMessage("hi")]),
    );
    expect(tooLong).toMatchObject({
      status: 400,
      param: "tools[0].function.name",
      code: "string_above_max_length",
    });
    expect(server.turnsConsumed).toBe(0);
  });

  it("parameters that are not a type:object schema → 400 'Invalid schema for function'", async () => {
    const server = await start([{ text: "never" }]);
    const stringly = { type: "function", function: { name: "bad_schema", parameters: { type: "string" } } };
    const error = await rejection(
      chat(server)
        .bindTools([stringly])
        .invoke([new HumanMessage("hi")]),
    );
    expect(error).toBeInstanceOf(openaiSdk.BadRequestError);
    expect(error).toMatchObject({
      param: "tools[0].function.parameters",
      code: "invalid_function_parameters",
    });
    expect(error.message).toContain("Invalid schema for function 'bad_schema'");
  });

  it("tool_choice without tools → 400 (param tool_choice)", async () => {
    const server = await start([{ text: "never" }]);
    const error = await rejection(
      sdk(server).chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "x" }],
        tool_choice: "auto",
      }),
    );
    expect(error).toBeInstanceOf(openaiSdk.BadRequestError);
    expect(error.param).toBe("tool_choice");
  });

  it("missing model / missing or empty messages / bad role / non-JSON body → 400", async () => {
    const server = await start([{ text: "never" }]);
    const noModel = await rejection(
      sdk(server).chat.completions.create({ messages: [{ role: "user", content: "x" }] }),
    );
    expect(noModel).toBeInstanceOf(openaiSdk.BadRequestError);
    expect(noModel).toMatchObject({ param: "model", code: "missing_required_parameter" });
    const noMessages = await rejection(sdk(server).chat.completions.create({ model: "m" }));
    expect(noMessages).toMatchObject({ status: 400, param: "messages", code: "missing_required_parameter" });
    const empty = await rejection(sdk(server).chat.completions.create({ model: "m", messages: [] }));
    expect(empty).toMatchObject({ status: 400, param: "messages", code: "empty_array" });
    const role = await rejection(
      sdk(server).chat.completions.create({ model: "m", messages: [{ role: "robot", content: "x" }] }),
    );
    expect(role).toMatchObject({ status: 400, param: "messages[0].role" });
    const raw = await post(
      `${server.baseURL}/chat/completions`,
      { authorization: "Bearer test-key" },
      "{not json",
    );
    expect(raw.status).toBe(400);
    expect(raw.json.error).toMatchObject({ type: "invalid_request_error", param: null, code: null });
    expect(server.requests.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    expect(server.turnsConsumed).toBe(0);
  });

  it("unknown paths get a 404 (NotFoundError)", async () => {
    const server = await start([]);
    const error = await rejection(sdk(server).embeddings.create({ model: "m", input: "x" }));
    expect(error).toBeInstanceOf(openaiSdk.NotFoundError);
    expect(server.requests[0]).toMatchObject({ path: "/v1/embeddings", status: 404 });
  });
});
