// Third-party MCP servers through the governed path: the official `everything` server (echo, an image,
// audience annotations, a long-running operation with progress, resource links) and the official
// `memory` server, each a real child process over stdio, through the executor, the toolkit, the
// LangChain loop with the REAL @langchain/anthropic and @langchain/openai clients against scripted
// provider servers (asserting what the model receives in the HTTP request), and the AI SDK.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type ModelServer, type ReceivedRequest, startModelServer } from "@agentforge/model-servers";
import { stdioTestServer } from "@agentforge/test-servers";
import { ChatAnthropic } from "@langchain/anthropic";
import { HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toAISDKTools } from "../../src/ai-sdk/index.js";
import {
  createMCPToolkit,
  MCP_PROMPT_GET,
  MCP_RESOURCE_READ,
  MCP_TOOL_CALL_PROGRESS,
  type MCPAccessEvent,
  type MCPToolProgress,
  type MCPToolProgressEvent,
} from "../../src/index.js";
import { invokeWithTools } from "../../src/langchain/index.js";
import { HIDDEN_CONTENT_NOTE } from "../../src/render-tool-result.js";
import { cleanup, onCleanup, rejectionOf, type Stack, stack, tempDir } from "./harness.js";

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const EVERYTHING = join(packageDir("@modelcontextprotocol/server-everything"), "dist/index.js");
const MEMORY = join(packageDir("@modelcontextprotocol/server-memory"), "dist/index.js");
/** The image `get-tiny-image` returns, read from the server's own source (its base64 text). */
const TINY_IMAGE = /MCP_TINY_IMAGE = "([A-Za-z0-9+/=]+)"/.exec(
  readFileSync(join(dirname(EVERYTHING), "tools/get-tiny-image.js"), "utf8"),
)?.[1] as string;

const everything = () => stdioTestServer("everything", {}, { args: [EVERYTHING, "stdio"] });
const memory = () =>
  stdioTestServer("memory", {}, { args: [MEMORY], env: { MEMORY_FILE_PATH: "RT_MEMORY_FILE" } });

let s: Stack;
beforeAll(async () => {
  s = await stack(
    [everything(), memory()],
    {
      agent: {
        allow: ["everything.*", "memory.*"],
        resources: ["everything:demo://resource/dynamic/text/*"],
        prompts: ["everything.args-prompt"],
      },
      narrow: ["everything.echo"],
    },
    { env: { RT_MEMORY_FILE: join(tempDir("runtime-memory-"), "memory.jsonl") } },
  );
}, 180_000);
afterAll(cleanup, 180_000);

describe("the everything server through the executor", () => {
  it("echo: the text comes back; a tool the agent is not granted is denied before the server", async () => {
    const result = await s.executor.execute("agent", "everything.echo", { message: "hi there" });
    expect(result.text).toBe("Echo: hi there");
    await expect(s.executor.execute("narrow", "everything.get-tiny-image", {})).rejects.toMatchObject({
      code: "TOOL_DENIED",
    });
    // Arguments that break the server's schema never reach it.
    await expect(s.executor.execute("agent", "everything.echo", { message: 5 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
    });
  });

  it("get-tiny-image: the text names the image and its size; the raw result keeps the data", async () => {
    const result = await s.executor.execute("agent", "everything.get-tiny-image", {});
    const bytes = Buffer.from(TINY_IMAGE, "base64").length;
    expect(result.text).toBe(
      `Here's the image you requested:\n[image/png, ${bytes} bytes]\nThe image above is the MCP logo.`,
    );
    expect(result.raw.content).toContainEqual({ type: "image", data: TINY_IMAGE, mimeType: "image/png" });
  });

  it("get-annotated-message: parts for the user only stay out of the model's text, not out of raw", async () => {
    const success = await s.executor.execute("agent", "everything.get-annotated-message", {
      messageType: "success",
      includeImage: true,
    });
    expect(success.text).toBe(HIDDEN_CONTENT_NOTE);
    expect(success.raw.content.map((p) => p.type)).toEqual(["text", "image"]);
    const debug = await s.executor.execute("agent", "everything.get-annotated-message", {
      messageType: "debug",
      includeImage: true,
    });
    expect(debug.text).toBe("Debug: Cache hit ratio 0.95, latency 150ms"); // the user-only image is not summarised
    const error = await s.executor.execute("agent", "everything.get-annotated-message", {
      messageType: "error",
    });
    expect(error.text).toBe("Error: Operation failed");
  });

  it("trigger-long-running-operation: progress reaches onProgress and the event, numbers only", async () => {
    const got: MCPToolProgress[] = [];
    const events: MCPToolProgressEvent[] = [];
    const off = s.executor.events.on(MCP_TOOL_CALL_PROGRESS, (e) => events.push(e));
    try {
      const result = await s.executor.execute(
        "agent",
        "everything.trigger-long-running-operation",
        { duration: 1, steps: 4 },
        { onProgress: (p) => got.push(p) },
      );
      expect(result.text).toBe("Long running operation completed. Duration: 1 seconds, Steps: 4.");
      expect(got.length).toBeGreaterThanOrEqual(1);
      expect(got.length).toBeLessThanOrEqual(4);
      const values = got.map((p) => p.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
      expect(got.at(-1)).toEqual({
        identity: "everything.trigger-long-running-operation",
        callId: result.callId,
        progress: 4,
        total: 4,
      });
      expect(events.map((e) => [e.identity, e.serverName, e.agent, e.callId, e.progress, e.total])).toEqual(
        got.map((p) => [p.identity, "everything", "agent", result.callId, p.progress, 4]),
      );
    } finally {
      off();
    }
  });

  it("get-resource-links: each link is one line the model can read", async () => {
    const result = await s.executor.execute("agent", "everything.get-resource-links", { count: 3 });
    const lines = result.text.split("\n");
    expect(lines[0]).toBe("Here are 3 resource links to resources available in this server:");
    expect(lines.slice(1)).toHaveLength(3);
    for (const line of lines.slice(1)) expect(line).toMatch(/^\[resource link: demo:\/\/\S+ \(.+\), \S+\]$/);
  });
});

describe("resources and prompts through the policy", () => {
  it("readResource: granted URIs are read and bounded; others are denied before the server; one event each", async () => {
    const events: MCPAccessEvent[] = [];
    const off = s.executor.events.on(MCP_RESOURCE_READ, (e) => events.push(e));
    try {
      const read = await s.executor.readResource("agent", "everything", "demo://resource/dynamic/text/1");
      expect(read.text.startsWith("[resource demo://resource/dynamic/text/1]\n")).toBe(true);
      expect(read.text.length).toBeGreaterThan("[resource demo://resource/dynamic/text/1]\n".length);
      expect(read.raw.contents[0]).toMatchObject({ uri: "demo://resource/dynamic/text/1" });
      expect(read.truncated).toBe(false);

      const blob = await rejectionOf(
        s.executor.readResource("agent", "everything", "demo://resource/dynamic/blob/2"),
      );
      expect(blob).toMatchObject({ code: "TOOL_DENIED", serverName: "everything" });
      // No resource grants at all: deny by default.
      await expect(
        s.executor.readResource("narrow", "everything", "demo://resource/dynamic/text/1"),
      ).rejects.toMatchObject({ code: "TOOL_DENIED" });
      // A query never reaches the audit trail.
      const queried = await rejectionOf(
        s.executor.readResource("agent", "everything", "demo://resource/dynamic/text/1?token=s3cr3t"),
      );
      expect(queried).toBeInstanceOf(Error);

      expect(events.map((e) => [e.agent, e.uri, e.outcome, e.errorCode])).toEqual([
        ["agent", "demo://resource/dynamic/text/1", "ok", undefined],
        ["agent", "demo://resource/dynamic/blob/2", "denied", "TOOL_DENIED"],
        ["narrow", "demo://resource/dynamic/text/1", "denied", "TOOL_DENIED"],
        ["agent", "demo://resource/dynamic/text/1", expect.any(String), expect.any(String)],
      ]);
      expect(JSON.stringify(events)).not.toContain("s3cr3t");
      expect(new Set(events.map((e) => e.callId)).size).toBe(4);
    } finally {
      off();
    }
  });

  it("getPrompt: a granted prompt comes back as text; others are denied; events never hold the arguments", async () => {
    const events: MCPAccessEvent[] = [];
    const off = s.executor.events.on(MCP_PROMPT_GET, (e) => events.push(e));
    try {
      const prompt = await s.executor.getPrompt("agent", "everything", "args-prompt", { city: "Zanzibar" });
      expect(prompt.text).toBe("[user]\nWhat's weather in Zanzibar?");
      expect(prompt.raw.messages).toEqual([
        { role: "user", content: { type: "text", text: "What's weather in Zanzibar?" } },
      ]);
      await expect(s.executor.getPrompt("agent", "everything", "simple-prompt")).rejects.toMatchObject({
        code: "TOOL_DENIED",
      });
      await expect(
        s.executor.getPrompt("narrow", "everything", "args-prompt", { city: "Zanzibar" }),
      ).rejects.toMatchObject({ code: "TOOL_DENIED" });
      expect(events.map((e) => [e.agent, e.promptName, e.outcome])).toEqual([
        ["agent", "args-prompt", "ok"],
        ["agent", "simple-prompt", "denied"],
        ["narrow", "args-prompt", "denied"],
      ]);
      expect(JSON.stringify(events)).not.toContain("Zanzibar");
    } finally {
      off();
    }
  });
});

describe("the memory server through the executor", () => {
  it("creates an entity and reads it back", async () => {
    await s.executor.execute("agent", "memory.create_entities", {
      entities: [{ name: "rt_probe", entityType: "test", observations: ["seen by RT"] }],
    });
    const graph = await s.executor.execute("agent", "memory.read_graph", {});
    expect(graph.text).toContain("rt_probe");
    expect(graph.text).toContain("seen by RT");
  });
});

/** The tool results the provider received, keyed by the tool's model name (either API's shape). */
function toolResultsByName(request: ReceivedRequest | undefined): Map<string, unknown> {
  const body = request?.body;
  const names = new Map<string, string>();
  const out = new Map<string, unknown>();
  for (const message of body?.messages ?? []) {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
      if (Array.isArray(message.content))
        for (const block of message.content) if (block.type === "tool_use") names.set(block.id, block.name);
    }
    if (message.role === "tool") out.set(names.get(message.tool_call_id) ?? "?", message.content);
    if (message.role === "user" && Array.isArray(message.content))
      for (const block of message.content)
        if (block.type === "tool_result") out.set(names.get(block.tool_use_id) ?? "?", block.content);
  }
  return out;
}

const ROUND = [
  { name: "everything__echo", args: { message: "from the model" } },
  { name: "everything__get-tiny-image", args: {} },
  { name: "everything__get-annotated-message", args: { messageType: "success", includeImage: true } },
  { name: "everything__trigger-long-running-operation", args: { duration: 0.6, steps: 3 } },
  { name: "everything__get-resource-links", args: { count: 2 } },
];

async function loop(provider: "anthropic" | "openai") {
  const server: ModelServer = await startModelServer(provider, {
    turns: [{ toolCalls: ROUND }, { text: "seen it all" }],
  });
  onCleanup(() => server.close());
  const model =
    provider === "anthropic"
      ? new ChatAnthropic({
          model: "claude-sonnet-4-5",
          apiKey: "test-key",
          anthropicApiUrl: server.baseURL,
          maxRetries: 0,
        })
      : new ChatOpenAI({
          model: "gpt-4o-mini",
          apiKey: "test-key",
          configuration: { baseURL: server.baseURL },
          maxRetries: 0,
        });
  const progress: MCPToolProgress[] = [];
  const result = await invokeWithTools(model, [new HumanMessage("Try the everything server.")], {
    tools: s.registry.list({ serverName: "everything" }),
    executor: s.executor,
    agent: "agent",
    onProgress: (p) => progress.push(p),
  });
  return { server, result, progress };
}

describe("the LangChain loop with the real provider clients", () => {
  it("anthropic: the image arrives as an image block in tool_result; user-only parts never reach the model", async () => {
    const { server, result, progress } = await loop("anthropic");
    expect(server.requests.map((r) => [r.status, r.error])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
    expect(result.message.content).toBe("seen it all");
    expect(result.calls.map((c) => [c.identity, c.ok])).toEqual(
      ROUND.map((c) => [c.name.replace("__", "."), true]),
    );
    const results = toolResultsByName(server.requests[1]);
    expect(results.get("everything__echo")).toBe("Echo: from the model");
    const bytes = Buffer.from(TINY_IMAGE, "base64").length;
    expect(results.get("everything__get-tiny-image")).toEqual([
      {
        type: "text",
        text: `Here's the image you requested:\n[image/png, ${bytes} bytes]\nThe image above is the MCP logo.`,
      },
      { type: "image", source: { type: "base64", media_type: "image/png", data: TINY_IMAGE } },
    ]);
    // The annotated message and its image are for the user only: neither is in the request.
    expect(results.get("everything__get-annotated-message")).toBe(HIDDEN_CONTENT_NOTE);
    const body = JSON.stringify(server.requests[1]?.body);
    expect(body).not.toContain("Operation completed successfully");
    expect(body.split(TINY_IMAGE)).toHaveLength(2); // the tiny image once: from get-tiny-image only
    expect(String(results.get("everything__get-resource-links"))).toMatch(
      /^Here are 2 resource links[^\n]*\n\[resource link: demo:\/\/[^\n]+\n\[resource link: demo:\/\/[^\n]+$/,
    );
    expect(results.get("everything__trigger-long-running-operation")).toBe(
      "Long running operation completed. Duration: 0.6 seconds, Steps: 3.",
    );
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.at(-1)).toMatchObject({
      identity: "everything.trigger-long-running-operation",
      progress: 3,
      total: 3,
    });
  });

  it("openai: Chat Completions takes only text in tool messages, so the image stays a summary line", async () => {
    const { server, result, progress } = await loop("openai");
    expect(server.requests.map((r) => [r.status, r.error])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
    expect(result.message.content).toBe("seen it all");
    const results = toolResultsByName(server.requests[1]);
    const bytes = Buffer.from(TINY_IMAGE, "base64").length;
    expect(results.get("everything__get-tiny-image")).toBe(
      `Here's the image you requested:\n[image/png, ${bytes} bytes]\nThe image above is the MCP logo.`,
    );
    expect(JSON.stringify(server.requests[1]?.body)).not.toContain(TINY_IMAGE);
    expect(results.get("everything__get-annotated-message")).toBe(HIDDEN_CONTENT_NOTE);
    expect(progress.at(-1)).toMatchObject({ progress: 3, total: 3 });
  });

  it('media: "none" keeps an Anthropic model on text too', async () => {
    const server = await startModelServer("anthropic", {
      turns: [{ toolCalls: [{ name: "everything__get-tiny-image", args: {} }] }, { text: "ok" }],
    });
    onCleanup(() => server.close());
    const model = new ChatAnthropic({
      model: "claude-sonnet-4-5",
      apiKey: "test-key",
      anthropicApiUrl: server.baseURL,
      maxRetries: 0,
    });
    await invokeWithTools(model, [new HumanMessage("image?")], {
      tools: s.registry.list({ serverName: "everything" }),
      executor: s.executor,
      agent: "agent",
      media: "none",
    });
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
    expect(JSON.stringify(server.requests[1]?.body)).not.toContain(TINY_IMAGE);
  });
});

describe("the toolkit and the AI SDK", () => {
  let toolkit: Awaited<ReturnType<typeof createMCPToolkit>>;
  beforeAll(async () => {
    toolkit = await createMCPToolkit({
      config: {
        servers: [
          {
            name: "everything",
            transport: "stdio",
            enabled: true,
            command: process.execPath,
            args: [EVERYTHING, "stdio"],
            // A busy machine can take far longer than the 10 s default to start a server.
            connection_timeout: 120,
          },
        ],
        permissions: {
          helper: {
            allow: ["everything.get-tiny-image", "everything.trigger-long-running-operation"],
            resources: ["everything:demo://resource/dynamic/text/*"],
            prompts: ["everything.args-prompt"],
          },
        },
      },
    });
  }, 180_000);
  afterAll(() => toolkit?.close(), 180_000);

  it("toolkit.execute passes onProgress through", async () => {
    const got: number[] = [];
    const result = await toolkit.execute(
      "helper",
      "everything.trigger-long-running-operation",
      { duration: 0.4, steps: 2 },
      { onProgress: (p) => got.push(p.progress) },
    );
    expect(result.text).toContain("Steps: 2.");
    expect(got.at(-1)).toBe(2);
  });

  it("toolkit.readResource and toolkit.getPrompt go through the policy", async () => {
    const read = await toolkit.readResource("helper", "everything", "demo://resource/dynamic/text/2");
    expect(read.text.startsWith("[resource demo://resource/dynamic/text/2]\n")).toBe(true);
    await expect(
      toolkit.readResource("helper", "everything", "demo://resource/dynamic/blob/1"),
    ).rejects.toMatchObject({ code: "TOOL_DENIED" });
    const prompt = await toolkit.getPrompt("helper", "everything", "args-prompt", { city: "Oslo" });
    expect(prompt.text).toBe("[user]\nWhat's weather in Oslo?");
    await expect(
      toolkit.getPrompt("other", "everything", "args-prompt", { city: "Oslo" }),
    ).rejects.toMatchObject({
      code: "TOOL_DENIED",
    });
  });

  it('toAISDKTools media "content": the image reaches the model as an image-data part', async () => {
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [
            { type: "tool-call", toolCallId: "c1", toolName: "everything__get-tiny-image", input: "{}" },
            {
              type: "tool-call",
              toolCallId: "c2",
              toolName: "everything__trigger-long-running-operation",
              input: '{"duration":0.4,"steps":2}',
            },
          ],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        },
        {
          content: [{ type: "text", text: "done" }],
          finishReason: { unified: "stop", raw: undefined },
          usage,
          warnings: [],
        },
      ],
    });
    const progress: number[] = [];
    const { text } = await generateText({
      model,
      tools: await toAISDKTools(toolkit, "helper", {
        media: "content",
        onProgress: (p) => progress.push(p.progress),
      }),
      stopWhen: stepCountIs(3),
      prompt: "show me",
    });
    expect(text).toBe("done");
    expect(progress.at(-1)).toBe(2);
    const prompt = model.doGenerateCalls[1]?.prompt ?? [];
    const outputs = prompt
      .filter((m) => m.role === "tool")
      .flatMap((m) => m.content)
      .map((part) => (part.type === "tool-result" ? [part.toolName, part.output] : [part.type]));
    const bytes = Buffer.from(TINY_IMAGE, "base64").length;
    expect(outputs).toEqual([
      [
        "everything__get-tiny-image",
        {
          type: "content",
          value: [
            {
              type: "text",
              text: `Here's the image you requested:\n[image/png, ${bytes} bytes]\nThe image above is the MCP logo.`,
            },
            { type: "image-data", data: TINY_IMAGE, mediaType: "image/png" },
          ],
        },
      ],
      [
        "everything__trigger-long-running-operation",
        { type: "text", value: "Long running operation completed. Duration: 0.4 seconds, Steps: 2." },
      ],
    ]);
  });
});
