// The official everything server (every protocol feature) through the manager, over stdio and
// Streamable HTTP: tools (plain, progress, structured, task-required, elicitation form and URL), the
// server's log notifications, resources and prompts; and the official memory server round trip.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { stdioTestServer } from "@agentforge/test-servers";
import type { Client } from "@modelcontextprotocol/client";
import { ListTasksResultSchema } from "@modelcontextprotocol/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type CallToolResult,
  type DiscoveredTool,
  discoverTools,
  MCPCapabilityError,
  type MCPClientManager,
  type MCPElicitationHandler,
  type MCPElicitationRequest,
  type MCPElicitationValue,
  MCPRequestError,
  MCPTimeoutError,
  requiresTaskExecution,
} from "../../src/index.js";
import {
  everythingStdio,
  memoryStdio,
  type RunningEverything,
  startEverythingHttp,
} from "./everything-helpers.js";
import { cleanup, manager, rejectionOf, tempDir, textOf } from "./helpers.js";

/** `tasks/list` through the connected client's public request API. */
const listTasks = (client: Client) =>
  client.request({ method: "tasks/list", params: {} }, ListTasksResultSchema, { timeout: 10_000 });

const escaped: unknown[] = [];
const onEscape = (error: unknown) => escaped.push(error);
beforeAll(() => {
  process.on("uncaughtException", onEscape);
  process.on("unhandledRejection", onEscape);
});
afterAll(() => {
  process.off("uncaughtException", onEscape);
  process.off("unhandledRejection", onEscape);
});
afterEach(async () => {
  await cleanup();
  expect(escaped).toEqual([]);
});

const allText = (result: CallToolResult): string =>
  result.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");

const ELICITATION_TOOLS = ["trigger-elicitation-request", "trigger-url-elicitation"];

/** Accepts a form with a valid name, and every URL. */
const accepting: MCPElicitationHandler = async (request) => {
  if (request.mode === "url") return { action: "accept" };
  const content: Record<string, MCPElicitationValue> =
    "interpretation" in request.requestedSchema.properties
      ? { interpretation: "programming" }
      : { name: "Ada Lovelace", check: true, integer: 7, untitledMultipleSelectEnum: ["Piano"] };
  return { action: "accept", content };
};

/** Per-tool results, printed once at the end (the report's table). */
const table: string[] = [];
afterAll(() => {
  if (table.length) console.log(`everything server, tool -> result\n${table.join("\n")}`);
});

const transports = ["stdio", "http"] as const;

describe.each(transports)("the everything server over %s", { timeout: 180_000 }, (transport) => {
  let http: RunningEverything | undefined;
  beforeAll(async () => {
    if (transport === "http") http = await startEverythingHttp();
  }, 180_000);
  afterAll(async () => {
    await http?.stop();
  });

  const config = (name = "everything") =>
    transport === "http" ? (http as RunningEverything).config(name) : everythingStdio(name);

  const withHandler = (handler?: MCPElicitationHandler, extra: Parameters<typeof manager>[1] = {}) =>
    manager([config()], { ...(handler ? { elicitation: handler } : {}), ...extra });

  it("lists elicitation tools only with a handler, and keeps simulate-research-query's taskSupport", async () => {
    const without = await discoverTools(withHandler(), "everything");
    const names = without.map((tool) => tool.toolName);
    expect(names).toContain("echo");
    for (const name of ELICITATION_TOOLS) expect(names).not.toContain(name);
    const research = without.find((tool) => tool.toolName === "simulate-research-query") as DiscoveredTool;
    expect(research.execution).toEqual({ taskSupport: "required" });
    expect(requiresTaskExecution(research)).toBe(true);
    expect(without.filter(requiresTaskExecution).map((tool) => tool.toolName)).toEqual([
      "simulate-research-query",
    ]);

    const withIt = await discoverTools(withHandler(accepting), "everything");
    for (const name of ELICITATION_TOOLS) expect(withIt.map((tool) => tool.toolName)).toContain(name);
    // Roots and sampling are never declared: the tools that need them stay hidden.
    for (const name of ["get-roots-list", "trigger-sampling-request"]) {
      expect(withIt.map((tool) => tool.toolName)).not.toContain(name);
    }
    if (transport === "stdio") {
      table.push(`(listed with a handler: ${withIt.map((tool) => tool.toolName).join(", ")})`);
    }
  });

  it("calls every listed tool through the manager", async () => {
    const m = withHandler(accepting);
    const tools = await discoverTools(m, "everything");
    const progress: number[] = [];
    const call = (tool: string, args: Record<string, unknown> = {}) =>
      m.callTool("everything", tool, args, { onprogress: (p) => progress.push(p.progress) });
    const seen = new Set<string>();
    const record = (tool: string, how: string) => {
      seen.add(tool);
      table.push(`${transport} | ${tool} | ${how}`);
    };

    expect(allText(await call("echo", { message: "hello" }))).toBe("Echo: hello");
    record("echo", "ok: text");
    expect(allText(await call("get-sum", { a: 2, b: 3 }))).toContain("5");
    record("get-sum", "ok: text");
    const annotated = await call("get-annotated-message", { messageType: "success", includeImage: true });
    expect(annotated.content.map((part) => part.type)).toEqual(["text", "image"]);
    record("get-annotated-message", "ok: text + image with annotations");
    expect(allText(await call("get-env"))).toContain("PATH");
    record("get-env", "ok: text (the child's environment: only the inherited names)");
    const links = await call("get-resource-links", { count: 2 });
    expect(links.content.filter((part) => part.type === "resource_link")).toHaveLength(2);
    record("get-resource-links", "ok: text + 2 resource_link");
    const reference = await call("get-resource-reference", { resourceType: "Text", resourceId: 1 });
    expect(reference.content.some((part) => part.type === "resource")).toBe(true);
    record("get-resource-reference", "ok: embedded resource");
    const structured = await call("get-structured-content", { location: "New York" });
    expect(structured.structuredContent).toMatchObject({ temperature: expect.any(Number) });
    record("get-structured-content", "ok: structuredContent checked against its output schema");
    expect((await call("get-tiny-image")).content.some((part) => part.type === "image")).toBe(true);
    record("get-tiny-image", "ok: image");
    const gz = await call("gzip-file-as-resource", {
      name: "hello.txt.gz",
      data: `data:text/plain;base64,${Buffer.from("hello everything").toString("base64")}`,
      outputType: "resourceLink",
    });
    const link = gz.content.find((part) => part.type === "resource_link");
    expect(link?.type).toBe("resource_link");
    const read = await m.readResource("everything", (link as { uri: string }).uri);
    expect(read.contents[0]).toMatchObject({ blob: expect.any(String) });
    record("gzip-file-as-resource", "ok: resource_link (data: URI input), then readResource gives the blob");
    expect(allText(await call("toggle-subscriber-updates"))).toMatch(/subscri/i);
    record("toggle-subscriber-updates", "ok: text");
    progress.length = 0;
    const long = await call("trigger-long-running-operation", { duration: 1, steps: 3 });
    expect(allText(long)).toMatch(/completed/i);
    expect(progress).toEqual([1, 2, 3]);
    record("trigger-long-running-operation", "ok: 3 progress notifications delivered to onprogress");
    const research = await call("simulate-research-query", { topic: "tides" });
    expect(allText(research)).toContain("Research Report: tides");
    record("simulate-research-query", "ok: run as a task (tools/call task → tasks/get → tasks/result)");
    const form = await call("trigger-elicitation-request");
    expect(allText(form)).toContain("User provided the requested information");
    expect(allText(form)).toContain("Ada Lovelace");
    record("trigger-elicitation-request", "ok: form elicitation answered by the handler (accept)");
    const url = await call("trigger-url-elicitation", { url: "https://example.invalid/consent" });
    expect(allText(url)).toContain("User completed the URL elicitation flow");
    record("trigger-url-elicitation", "ok: URL elicitation answered by the handler (accept)");
    // The error path (-32042, URL elicitation required) is a typed request error, not a handler call.
    const required = await rejectionOf(
      call("trigger-url-elicitation", { url: "https://example.invalid/y", errorPath: true }),
    );
    expect(required).toMatchObject({ code: "RPC_ERROR", rpcCode: -32042 });
    record("trigger-url-elicitation {errorPath}", "typed error: MCPRequestError RPC_ERROR, rpcCode -32042");
    const logging = await call("toggle-simulated-logging");
    expect(allText(logging)).toMatch(/logging/i);
    record("toggle-simulated-logging", "ok: its log notifications go to the server's log file (next test)");
    await call("toggle-simulated-logging"); // off again

    // Every tool the server listed was called above.
    expect(tools.map((tool) => tool.toolName).filter((name) => !seen.has(name))).toEqual([]);
  });

  it("runs the task-required tool with an elicitation inside the task (input_required)", async () => {
    const asked: MCPElicitationRequest[] = [];
    const m = withHandler(async (request, context) => {
      asked.push(request);
      return accepting(request, context);
    });
    const result = await m.callTool("everything", "simulate-research-query", {
      topic: "python",
      ambiguous: true,
    });
    expect(allText(result)).toContain("Research Report: python (programming)");
    expect(asked.map((request) => request.mode)).toEqual(["form"]);
    table.push(
      `${transport} | simulate-research-query {ambiguous} | ok: input_required, elicitation answered, completed`,
    );
  });

  it("a declining handler: the tool reports the decline", async () => {
    const m = withHandler(async () => ({ action: "decline" }));
    const form = await m.callTool("everything", "trigger-elicitation-request");
    expect(allText(form)).toMatch(/declined/i);
    const url = await m.callTool("everything", "trigger-url-elicitation", {
      url: "https://example.invalid/x",
    });
    expect(allText(url)).toContain("User declined to open the URL");
    table.push(
      `${transport} | trigger-elicitation-request / trigger-url-elicitation | ok: decline delivered`,
    );
  });

  it("cancelling or timing out a task-required call cancels the task on the server", async () => {
    const m = withHandler();
    await m.callTool("everything", "echo", { message: "connected" }); // the abort below is not while connecting
    const abort = new AbortController();
    const running = m.callTool(
      "everything",
      "simulate-research-query",
      { topic: "slow" },
      { signal: abort.signal },
    );
    const client = await m.getClient("everything");
    // Abort once the task exists on the server (not after a fixed delay: a busy machine may not have
    // created it yet); the query takes 4 s, so it is still working.
    await expect.poll(async () => (await listTasks(client)).tasks.length, { timeout: 60_000 }).toBe(1);
    abort.abort();
    const cancelled = await rejectionOf(running);
    expect(MCPRequestError.isInstance(cancelled) && cancelled.code).toBe("REQUEST_CANCELLED");
    const timedOut = await rejectionOf(
      m.callTool("everything", "simulate-research-query", { topic: "slower" }, { timeoutMs: 2_500 }),
    );
    expect(MCPTimeoutError.isInstance(timedOut) && timedOut.code).toBe("TOOL_TIMEOUT");
    const { tasks } = await listTasks(client);
    expect(tasks.map((task) => task.status)).toEqual(["cancelled", "cancelled"]);
    // The connection stays usable.
    expect(textOf(await m.callTool("everything", "echo", { message: "still here" }))).toBe(
      "Echo: still here",
    );
  });

  it("writes the server's log notifications to its log file, one line each", async () => {
    const logDir = tempDir("mcp-logs-");
    const m = withHandler(undefined, { logDir });
    await m.callTool("everything", "toggle-simulated-logging");
    const file = join(logDir, "everything.stderr.log");
    await expect
      .poll(() => (existsSync(file) ? readFileSync(file, "utf8") : ""), { timeout: 60_000, interval: 250 })
      .toMatch(/\[server log\] \w+: \w+[- ]level message/i);
    await m.callTool("everything", "toggle-simulated-logging");
  });

  it("lists and reads resources and templates, lists and gets prompts", async () => {
    const m = withHandler();
    const resources: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const result = await m.listResources("everything", cursor ? { cursor } : {});
      expect(result.skipped).toBe(0);
      resources.push(...result.resources.map((resource) => resource.uri));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    expect(resources.length).toBeGreaterThan(0);
    const templates = await m.listResourceTemplates("everything");
    expect(templates.resourceTemplates.length).toBeGreaterThan(0);
    expect(templates.resourceTemplates[0]?.uriTemplate).toMatch(/\{/);
    const first = resources[0] as string;
    const read = await m.readResource("everything", first);
    expect(read).toMatchObject({ serverName: "everything", uri: first, truncated: false });
    expect(read.contents.length).toBeGreaterThan(0);

    const prompts = await m.listPrompts("everything");
    const names = prompts.prompts.map((prompt) => prompt.name);
    expect(names).toEqual(expect.arrayContaining(["simple-prompt", "args-prompt"]));
    const args = prompts.prompts.find((prompt) => prompt.name === "args-prompt");
    expect(args?.arguments.map((arg) => arg.name)).toContain("city");
    const simple = await m.getPrompt("everything", "simple-prompt");
    expect(simple.messages[0]).toMatchObject({ role: "user", content: { type: "text" } });
    const filled = await m.getPrompt("everything", "args-prompt", { city: "Lisbon" });
    expect(JSON.stringify(filled.messages)).toContain("Lisbon");
    const missing = await rejectionOf(m.getPrompt("everything", "no-such-prompt"));
    expect(MCPRequestError.isInstance(missing) && missing.code).toBe("RPC_ERROR");
    table.push(
      `${transport} | resources/prompts | ok: ${resources.length} resources, ${templates.resourceTemplates.length} templates, ${names.length} prompts`,
    );
  });
});

describe("the memory server", { timeout: 180_000 }, () => {
  it("round trip: create entities, search them, read the graph and its resource; no prompts", async () => {
    const file = join(tempDir(), "memory.jsonl");
    const m: MCPClientManager = manager([memoryStdio("memory", "TEST_MEMORY_FILE")], {
      env: { TEST_MEMORY_FILE: file, PATH: process.env.PATH ?? "" },
    });
    await m.callTool("memory", "create_entities", {
      entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }],
    });
    await m.callTool("memory", "add_observations", {
      observations: [{ entityName: "Ada", contents: ["worked with Babbage"] }],
    });
    const found = await m.callTool("memory", "search_nodes", { query: "Babbage" });
    expect(allText(found)).toContain("Ada");
    const graph = await m.callTool("memory", "read_graph");
    expect(allText(graph)).toContain("wrote the first program");
    expect(readFileSync(file, "utf8")).toContain("Ada");
    // Its one resource is the graph itself.
    const { resources } = await m.listResources("memory");
    expect(resources).toHaveLength(1);
    const read = await m.readResource("memory", (resources[0] as { uri: string }).uri);
    expect(JSON.stringify(read.contents)).toContain("worked with Babbage");
    // It has no prompts: a typed error naming the server and the capability, before anything is sent.
    const error = await rejectionOf(m.listPrompts("memory"));
    expect(MCPCapabilityError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "CAPABILITY_NOT_SUPPORTED",
      serverName: "memory",
      capability: "prompts",
    });
    expect(error.message).toContain('"memory"');
    expect(await rejectionOf(m.getPrompt("memory", "x"))).toMatchObject({ code: "CAPABILITY_NOT_SUPPORTED" });
    table.push(
      "memory (stdio) | create_entities, add_observations, search_nodes, read_graph, resources | ok",
    );
  });
});

describe("a server without resources", { timeout: 180_000 }, () => {
  it("listResources / readResource / listResourceTemplates reject with CAPABILITY_NOT_SUPPORTED", async () => {
    const m = manager([stdioTestServer("plain")]);
    for (const run of [
      () => m.listResources("plain"),
      () => m.listResourceTemplates("plain"),
      () => m.readResource("plain", "file:///x"),
    ]) {
      const error = await rejectionOf(run());
      expect(error).toMatchObject({
        code: "CAPABILITY_NOT_SUPPORTED",
        serverName: "plain",
        capability: "resources",
      });
    }
    expect(textOf(await m.callTool("plain", "echo", { text: "ok" }))).toBe("ok");
  });
});
