import type { ModelServer } from "../src/index.js";
import { startModelServer } from "../src/index.js";
import { anthropicSdk, echoTool, langchainAnthropic, langchainMessages, post } from "./clients.js";

const { AIMessage, HumanMessage, ToolMessage } = langchainMessages;
const servers: ModelServer[] = [];
const MODEL = "claude-sonnet-4-5";

async function start(turns: Parameters<typeof startModelServer>[1]["turns"]) {
  const server = await startModelServer("anthropic", { turns });
  servers.push(server);
  return server;
}

function chat(server: ModelServer, apiKey = "test-key") {
  return new langchainAnthropic.ChatAnthropic({
    model: MODEL,
    apiKey,
    maxRetries: 0,
    anthropicApiUrl: server.baseURL,
  });
}

function sdk(server: ModelServer) {
  return new anthropicSdk.Anthropic({ apiKey: "test-key", baseURL: server.baseURL, maxRetries: 0 });
}

async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** Asserts the error is @anthropic-ai/sdk's BadRequestError carrying Anthropic's error body. */
function expectInvalidRequest(error: Error & Record<string, unknown>, text: string | RegExp) {
  expect(error).toBeInstanceOf(anthropicSdk.BadRequestError);
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
  const message = (error.error as { error: { message: string } }).error.message;
  if (typeof text === "string") expect(message).toContain(text);
  else expect(message).toMatch(text);
}

const toolUse = (id: string) =>
  new AIMessage({ content: "", tool_calls: [{ name: "local_tools__echo", args: { text: "a" }, id }] });

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("anthropic messages with ChatAnthropic (real @langchain/anthropic + @anthropic-ai/sdk)", () => {
  it("serves a tool-call turn, then an answer turn that sees the tool_result", async () => {
    const tool = echoTool();
    const server = await start([
      {
        text: "I'll echo.",
        toolCalls: [{ name: "local_tools__echo", args: { text: "hi" }, id: "toolu_echo_1" }],
      },
      (req) => {
        const last = req.body.messages.at(-1);
        const result = last.content.find((b: { type: string }) => b.type === "tool_result");
        return { text: `got ${result.tool_use_id}: ${JSON.stringify(result.content)}` };
      },
    ]);
    const model = chat(server).bindTools([tool]);
    const human = new HumanMessage("echo hi");
    const ai = await model.invoke([human]);
    expect(ai.tool_calls).toEqual([
      { name: "local_tools__echo", args: { text: "hi" }, id: "toolu_echo_1", type: "tool_call" },
    ]);
    expect(ai.response_metadata.stop_reason).toBe("tool_use");
    const toolMessage = await tool.invoke(ai.tool_calls[0]);
    const final = await model.invoke([human, ai, toolMessage]);
    expect(final.content).toContain("got toolu_echo_1");
    expect(final.content).toContain("echo: hi");
    expect(final.response_metadata.stop_reason).toBe("end_turn");
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
    expect(server.requests[0]?.headers["x-api-key"]).toBe("test-key");
    expect(server.requests[0]?.headers["anthropic-version"]).toBeTruthy();
    expect(server.requests[0]?.body.tools[0]).toMatchObject({
      name: "local_tools__echo",
      input_schema: { type: "object" },
    });
  });

  it("answers with a faithful message object", async () => {
    const server = await start([{ text: "checking", toolCalls: [{ name: "lookup", args: { q: 1 } }] }]);
    const message = await sdk(server).messages.create({
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: "user", content: "x" }],
      tools: [{ name: "lookup", input_schema: { type: "object", properties: {} } }],
    });
    expect(message.id).toMatch(/^msg_/);
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      model: MODEL,
      stop_reason: "tool_use",
      stop_sequence: null,
    });
    expect(message.content[0]).toEqual({ type: "text", text: "checking" });
    expect(message.content[1]).toMatchObject({ type: "tool_use", name: "lookup", input: { q: 1 } });
    expect(message.content[1].id).toMatch(/^toolu_/);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it("streams the real SSE event sequence, assembled by ChatAnthropic.stream()", async () => {
    const server = await start([
      {
        text: "Let me check.",
        toolCalls: [{ name: "local_tools__echo", args: { text: "streamed" }, id: "toolu_s1" }],
      },
    ]);
    const model = chat(server).bindTools([echoTool()]);
    let full: { concat(c: unknown): unknown; tool_calls: unknown[]; content: unknown } | undefined;
    for await (const chunk of await model.stream([new HumanMessage("go")])) {
      full = full === undefined ? chunk : (full.concat(chunk) as typeof full);
    }
    expect(full?.tool_calls).toEqual([
      { name: "local_tools__echo", args: { text: "streamed" }, id: "toolu_s1", type: "tool_call" },
    ]);
    expect(JSON.stringify(full?.content)).toContain("Let me check.");
    expect(server.requests[0]?.body.stream).toBe(true);

    const raw = await startModelServer("anthropic", {
      turns: [{ text: "hey", toolCalls: [{ name: "t", args: { a: 1 } }] }],
    });
    servers.push(raw);
    const res = await post(
      `${raw.baseURL}/v1/messages`,
      { "x-api-key": "test-key", "anthropic-version": "2023-06-01" },
      {
        model: MODEL,
        max_tokens: 10,
        stream: true,
        messages: [{ role: "user", content: "x" }],
        tools: [{ name: "t", input_schema: { type: "object" } }],
      },
    );
    const events = res.text
      .split("\n\n")
      .filter(Boolean)
      .map((block) => block.split("\n")[0]?.slice("event: ".length));
    expect(events[0]).toBe("message_start");
    expect(events.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(events.filter((e) => e === "content_block_start")).toHaveLength(2);
    expect(events.filter((e) => e === "content_block_stop")).toHaveLength(2);
    expect(res.text).toContain('"type":"input_json_delta"');
    expect(res.text).toContain('"type":"text_delta"');
    expect(res.text).toContain('"stop_reason":"tool_use"');
  });

  it("accepts tool_choice none", async () => {
    const server = await start([{ text: "no tools" }]);
    const ai = await chat(server)
      .bindTools([echoTool()], { tool_choice: "none" })
      .invoke([new HumanMessage("hi")]);
    expect(ai.content).toBe("no tools");
    expect(server.requests[0]?.body.tool_choice).toEqual({ type: "none" });
  });

  it("a tool-call turn under tool_choice none is a script error (500)", async () => {
    const server = await start([{ toolCalls: [{ name: "local_tools__echo", args: { text: "x" } }] }]);
    const error = await rejection(
      chat(server)
        .bindTools([echoTool()], { tool_choice: "none" })
        .invoke([new HumanMessage("hi")]),
    );
    expect(error).toBeInstanceOf(anthropicSdk.InternalServerError);
    expect(error.error).toMatchObject({ type: "error", error: { type: "api_error" } });
    expect(error.message).toMatch(/Script error.*none/);
    expect(server.turnsConsumed).toBe(1);
  });

  it("an exhausted script gives a 500 saying so", async () => {
    const server = await start([]);
    const error = await rejection(chat(server).invoke([new HumanMessage("hi")]));
    expect(error).toBeInstanceOf(anthropicSdk.InternalServerError);
    expect(error.message).toMatch(/script is exhausted/);
    expect(server.requests).toHaveLength(1);
  });
});

describe("anthropic rules: rejected with Anthropic's status and body, surfacing as @anthropic-ai/sdk's error classes", () => {
  it("tool_use/tool_result blocks in a request that defines no tools → 400 (the final-answer trap)", async () => {
    const server = await start([{ text: "never" }]);
    const history = [
      new HumanMessage("echo a"),
      toolUse("toolu_1"),
      new ToolMessage({ content: "echo: a", tool_call_id: "toolu_1" }),
      new HumanMessage("Now answer without tools."),
    ];
    const error = await rejection(chat(server).invoke(history));
    expectInvalidRequest(
      error,
      "Requests which include `tool_use` or `tool_result` blocks must define tools.",
    );
    expect(error.lc_error_code).toBe("INVALID_TOOL_RESULTS");
    expect(server.requests[0]).toMatchObject({
      status: 400,
      error: "Requests which include `tool_use` or `tool_result` blocks must define tools.",
    });
    expect(server.turnsConsumed).toBe(0);
    // The same history with tools bound is accepted.
    const ok = await chat(server).bindTools([echoTool()]).invoke(history);
    expect(ok.content).toBe("never");
  });

  it("a tool_use not answered in the next message → 400 naming the ids", async () => {
    const server = await start([{ text: "never" }]);
    const ai = new AIMessage({
      content: "",
      tool_calls: [
        { name: "local_tools__echo", args: { text: "a" }, id: "toolu_open_1" },
        { name: "local_tools__echo", args: { text: "b" }, id: "toolu_open_2" },
      ],
    });
    const answeredOne = new ToolMessage({ content: "echo: a", tool_call_id: "toolu_open_1" });
    const error = await rejection(
      chat(server)
        .bindTools([echoTool()])
        .invoke([new HumanMessage("hi"), ai, answeredOne]),
    );
    expectInvalidRequest(
      error,
      /^messages\.2: `tool_use` ids were found without `tool_result` blocks.*toolu_open_2/,
    );
    expect(error.message).not.toContain("toolu_open_1");
  });

  it("a tool_result that refers to no tool_use of the previous message → 400", async () => {
    const server = await start([{ text: "never" }]);
    const history = [
      new HumanMessage("hi"),
      new AIMessage("plain text"),
      new ToolMessage({ content: "stray", tool_call_id: "toolu_ghost" }),
    ];
    const error = await rejection(chat(server).bindTools([echoTool()]).invoke(history));
    expectInvalidRequest(error, /unexpected `tool_use_id`.*toolu_ghost/);
  });

  it("a system role inside messages, and a first message that is not user → 400", async () => {
    const server = await start([{ text: "never" }]);
    const system = await rejection(
      sdk(server).messages.create({
        model: MODEL,
        max_tokens: 5,
        messages: [{ role: "system", content: "x" }],
      }),
    );
    expectInvalidRequest(system, /^messages\.0\.role:.*top-level "system"/);
    const first = await rejection(chat(server).invoke([new AIMessage("I speak first")]));
    expectInvalidRequest(first, 'first message must use the "user" role');
    expect(server.turnsConsumed).toBe(0);
  });

  it("tool names outside ^[a-zA-Z0-9_-]{1,64}$ and input_schema without type object → 400", async () => {
    const server = await start([{ text: "never" }]);
    const dotted = {
      name: "filesystem.read_text_file",
      description: "d",
      input_schema: { type: "object", properties: {} },
    };
    const name = await rejection(
      chat(server)
        .bindTools([echoTool(), dotted])
        .invoke([new HumanMessage("hi")]),
    );
    expectInvalidRequest(name, /^tools\.1\.name:/);
    const stringly = { name: "bad_schema", description: "d", input_schema: { type: "string" } };
    const schema = await rejection(
      chat(server)
        .bindTools([stringly])
        .invoke([new HumanMessage("hi")]),
    );
    expectInvalidRequest(schema, /^tools\.0\.input_schema\.type:/);
  });

  it("model / max_tokens / messages are required", async () => {
    const server = await start([{ text: "never" }]);
    const client = sdk(server);
    expectInvalidRequest(
      await rejection(client.messages.create({ max_tokens: 5, messages: [{ role: "user", content: "x" }] })),
      "model: Field required",
    );
    expectInvalidRequest(
      await rejection(client.messages.create({ model: MODEL, messages: [{ role: "user", content: "x" }] })),
      "max_tokens: Field required",
    );
    expectInvalidRequest(
      await rejection(client.messages.create({ model: MODEL, max_tokens: 5 })),
      "messages: Field required",
    );
    expect(server.requests.map((r) => r.status)).toEqual([400, 400, 400]);
  });

  it("wrong x-api-key → 401 authentication_error; missing anthropic-version → 400", async () => {
    const server = await start([{ text: "never" }]);
    const error = await rejection(chat(server, "wrong-key").invoke([new HumanMessage("hi")]));
    expect(error).toBeInstanceOf(anthropicSdk.AuthenticationError);
    expect(error.error).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    expect(error.message).not.toContain("wrong-key");
    const raw = await post(
      `${server.baseURL}/v1/messages`,
      { "x-api-key": "test-key" },
      { model: MODEL, max_tokens: 5, messages: [{ role: "user", content: "x" }] },
    );
    expect(raw.status).toBe(400);
    expect(raw.json).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringContaining("anthropic-version") },
    });
    expect(server.requests.map((r) => r.status)).toEqual([401, 400]);
    expect(server.turnsConsumed).toBe(0);
  });
});
