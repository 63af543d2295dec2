// The behaviours shared by the stdio and HTTP test servers: one McpServer with tools that crash, hang,
// answer slowly, reply hugely, change the tool list, count calls and echo progress.
import { appendFileSync, closeSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { addHostileText, interceptCall } from "./hostile-text.mjs";

export { parseArgs } from "./args.mjs";

/** Write `lines` non-JSON lines on stdout (stdio only), the first one `bytes` long. */
export function writeNoise(lines, bytes) {
  for (let i = 0; i < lines; i++) {
    process.stdout.write(
      i === 0 ? `${"g".repeat(Math.max(1, bytes))}\n` : `garbage line ${i}: not JSON-RPC\n`,
    );
  }
}

/** Counters every test server keeps; read them with the `stats` tool (which does not count itself). */
export function createState() {
  return {
    total: 0,
    calls: {},
    inFlight: 0,
    inFlightMax: 0,
    cancelled: 0,
    toolsListed: 0,
    duplicates: false,
    stormTool: false,
    stormDone: false,
    clientReplies: [],
  };
}

const text = (value) => ({ content: [{ type: "text", text: String(value) }] });
const RAW_MARK = "__agentforge_raw_result__:";
const raw = (result) => text(`${RAW_MARK}${JSON.stringify(result)}`);
const AnyResult = z.object({}).passthrough();

/** Tool definitions no well-behaved server would list: names and schemas that test a client's tolerance. */
const HOSTILE_TOOLS = [
  { name: "__proto__", description: "prototype", inputSchema: { type: "object" } },
  { name: "constructor", description: "constructor", inputSchema: { type: "object" } },
  { name: "toString", description: "toString", inputSchema: { type: "object" } },
  { name: "not model safe/name with spaces", inputSchema: { type: "object" } },
  { name: "x".repeat(200), inputSchema: { type: "object" } },
  { name: "schema_null", inputSchema: null },
  { name: "schema_string", inputSchema: "not a schema" },
  { name: "schema_array", inputSchema: [1, 2, 3] },
  {
    name: "schema_self_ref",
    inputSchema: {
      type: "object",
      properties: { node: { $ref: "#/$defs/node" } },
      $defs: { node: { $ref: "#/$defs/node" } },
    },
    outputSchema: { $ref: "#", type: "object", properties: { self: { $ref: "#" } } },
  },
  {
    name: "output_schema_loop",
    inputSchema: { type: "object" },
    outputSchema: { $ref: "#/$defs/a", $defs: { a: { $ref: "#/$defs/a" } }, type: "object" },
  },
  { name: "description_number", description: 42, inputSchema: { type: "object" } },
  { name: 12345, inputSchema: { type: "object" } },
  "not even an object",
];
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function log(options, entry) {
  if (typeof options.callLog === "string") {
    appendFileSync(options.callLog, `${JSON.stringify({ ...entry, pid: process.pid, at: Date.now() })}\n`);
  }
}

/**
 * Build the test McpServer. `options` come from parseArgs; `state` may be shared between sessions
 * (the HTTP server creates one McpServer per session).
 */
export function createTestServer(options, state = createState()) {
  const server = new McpServer(
    { name: typeof options.name === "string" ? options.name : "agentforge-test-server", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true }, ...(options.hostile ? { logging: {} } : {}) } },
  );
  // Hostile behaviours need to put on the wire what McpServer would refuse to send: a tool returning
  // `RAW_MARK + json` has its whole result replaced by that JSON, and `stray` messages are sent as is.
  let wire;
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    const send = transport.send.bind(transport);
    wire = send;
    transport.send = (message, sendOptions) => {
      const first = message?.result?.content?.[0];
      if (first?.type === "text" && typeof first.text === "string" && first.text.startsWith(RAW_MARK)) {
        return send({ ...message, result: JSON.parse(first.text.slice(RAW_MARK.length)) }, sendOptions);
      }
      return send(message, sendOptions);
    };
    return connect(transport);
  };
  const crashOnCall = options.crashOnCall === undefined ? undefined : Number(options.crashOnCall);

  const tool = (name, config, handler, counted = true) =>
    // The SDK calls a tool without inputSchema as cb(extra), and one with an inputSchema as cb(args, extra).
    server.registerTool(name, config, async (...params) => {
      const [args, extra] = config.inputSchema ? params : [{}, params[0]];
      if (counted) {
        state.total++;
        state.calls[name] = (state.calls[name] ?? 0) + 1;
        log(options, { tool: name, requestId: extra?.requestId });
        if (crashOnCall !== undefined && state.total === crashOnCall) {
          process.stderr.write(`test server: crashing on call ${crashOnCall} (${name}) as asked\n`, () =>
            process.exit(70),
          );
          return new Promise(() => {});
        }
      }
      state.inFlight++;
      state.inFlightMax = Math.max(state.inFlightMax, state.inFlight);
      try {
        return await handler(args ?? {}, extra);
      } finally {
        state.inFlight--;
      }
    });

  tool("echo", { description: "Return the text", inputSchema: { text: z.string() } }, ({ text: t }) =>
    text(t),
  );
  tool(
    "add",
    {
      description: "Add two numbers",
      inputSchema: { a: z.number(), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    ({ a, b }) => text(a + b),
  );
  tool(
    "structured",
    {
      description: "Return a structured value",
      inputSchema: { value: z.number() },
      outputSchema: { doubled: z.number() },
    },
    ({ value }) => ({
      content: [{ type: "text", text: String(value * 2) }],
      structuredContent: { doubled: value * 2 },
    }),
  );
  tool("pid", { description: "The server's process id" }, () => text(process.pid));
  tool(
    "sleep",
    { description: "Answer after ms milliseconds", inputSchema: { ms: z.number() } },
    async ({ ms }) => {
      await delay(ms);
      return text(`slept ${ms} ms`);
    },
  );
  tool(
    "cancellable_sleep",
    { description: "Answer after ms milliseconds unless cancelled", inputSchema: { ms: z.number() } },
    ({ ms }, extra) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(text(`slept ${ms} ms`)), ms);
        extra.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          state.cancelled++;
          log(options, { cancelled: "cancellable_sleep" });
          reject(new Error("cancelled"));
        });
      }),
  );
  tool("hang", { description: "Never answer (ignores cancellation)" }, (_args, extra) => {
    extra.signal.addEventListener("abort", () => {
      state.cancelled++;
      log(options, { cancelled: "hang" });
    });
    return new Promise(() => {});
  });
  tool(
    "crash",
    { description: "Exit the process", inputSchema: { code: z.number().optional() } },
    ({ code }) => {
      process.stderr.write("test server: crashing on purpose\n", () => process.exit(code ?? 1));
      return new Promise(() => {});
    },
  );
  tool(
    "big",
    { description: "Return a text of `bytes` characters", inputSchema: { bytes: z.number() } },
    ({ bytes }) => text("x".repeat(bytes)),
  );
  tool("garbage", { description: "Print a non-JSON line on stdout, then answer" }, () => {
    process.stdout.write("this line is not JSON-RPC\n");
    return text("ok");
  });
  tool(
    "fail",
    { description: "Throw (an isError result)", inputSchema: { message: z.string() } },
    ({ message }) => {
      throw new Error(message);
    },
  );
  tool(
    "progress",
    {
      description: "Send `steps` progress notifications `intervalMs` apart, then answer",
      inputSchema: { steps: z.number(), intervalMs: z.number().optional() },
    },
    async ({ steps, intervalMs }, extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        await delay(intervalMs ?? 10);
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
          });
        }
      }
      return text(`done ${steps}`);
    },
  );
  tool("env_keys", { description: "Names of the environment variables the server sees" }, () =>
    text(JSON.stringify(Object.keys(process.env).sort())),
  );
  tool(
    "env_value",
    { description: "Value of one environment variable", inputSchema: { name: z.string() } },
    ({ name }) => text(process.env[name] ?? ""),
  );
  const added = new Map();
  tool(
    "add_tool",
    {
      description: "Register a tool, or change an added tool's description (sends list_changed)",
      inputSchema: { name: z.string(), description: z.string().optional() },
    },
    ({ name, description = "added at run time" }) => {
      const existing = added.get(name);
      if (existing) {
        existing.update({ description });
        return text(`updated ${name}`);
      }
      added.set(
        name,
        server.registerTool(name, { description }, () => text(name)),
      );
      return text(`added ${name}`);
    },
  );
  tool(
    "remove_tool",
    { description: "Remove a tool (sends list_changed)", inputSchema: { name: z.string() } },
    ({ name }) => {
      added.get(name)?.remove();
      added.delete(name);
      return text(`removed ${name}`);
    },
  );
  tool(
    "stats",
    { description: "Call counters (this tool is not counted)" },
    () => text(JSON.stringify(state)),
    false,
  );

  for (let i = 0; i < Number(options.extraTools ?? 0); i++) {
    tool(`extra_${i}`, { description: `Extra tool ${i}` }, () => text(i));
  }

  // The hostile tools exist only with --hostile, so the tool list of every other test stays the same.
  if (options.hostile) {
    tool(
      "make_duplicates",
      { description: "From now on list `echo` twice, and send list_changed" },
      async () => {
        state.duplicates = true;
        await server.server.sendToolListChanged();
        return text("duplicates on");
      },
    );
    tool(
      "list_changed_storm",
      {
        description:
          "Add `storm_tool` to the list, then send `count` list_changed notifications, then answer",
        inputSchema: { count: z.number() },
      },
      async ({ count }) => {
        state.stormTool = true;
        for (let i = 0; i < count; i++) await server.server.sendToolListChanged();
        state.stormDone = true;
        await server.server.sendToolListChanged();
        return text(`sent ${count} list_changed`);
      },
    );
    tool(
      "flood",
      {
        description:
          "Send `count` log messages and `count` progress notifications (also for unknown tokens), then answer",
        inputSchema: { count: z.number() },
      },
      async ({ count }, extra) => {
        const token = extra._meta?.progressToken;
        for (let i = 0; i < count; i++) {
          await extra.sendNotification({
            method: "notifications/message",
            params: { level: "info", logger: "flood", data: `log line ${i} ${"z".repeat(200)}` },
          });
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token ?? `unknown-${i}`, progress: i + 1, total: count },
          });
          if (i % 100 === 0) {
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: "no-such-token", progress: i },
            });
          }
        }
        return text(`flooded ${count}`);
      },
    );
    tool(
      "log_message",
      {
        description: "Send one notifications/message with this data (any JSON) and level, then answer",
        inputSchema: { data: z.unknown(), level: z.string().optional() },
      },
      async ({ data, level }, extra) => {
        await extra.sendNotification({
          method: "notifications/message",
          params: { level: level ?? "warning", logger: "log_message", data },
        });
        return text("logged");
      },
    );
    tool(
      "ask_client",
      {
        description:
          "Send a server-to-client request (sampling/createMessage, elicitation/create, roots/list) and report the answer",
        inputSchema: { method: z.string() },
      },
      async ({ method }) => {
        const params =
          {
            "sampling/createMessage": {
              messages: [{ role: "user", content: { type: "text", text: "hello" } }],
              maxTokens: 10,
            },
            "elicitation/create": {
              message: "Your password, please",
              requestedSchema: { type: "object", properties: { password: { type: "string" } } },
            },
            "roots/list": {},
          }[method] ?? {};
        let outcome;
        try {
          const result = await server.server.request({ method, params }, AnyResult, { timeout: 15_000 });
          outcome = { method, result };
        } catch (error) {
          outcome = { method, error: { code: error?.code, message: String(error?.message ?? error) } };
        }
        state.clientReplies.push(outcome);
        return text(JSON.stringify(outcome));
      },
    );
    tool(
      "weird_content",
      { description: "Answer with content parts of unknown types and an image whose data is not base64" },
      () =>
        raw({
          content: [
            { type: "text", text: "before" },
            { type: "video", url: "https://example.invalid/v.mp4" },
            { type: "image", data: "!!! not base64 !!!", mimeType: "image/png" },
            { type: "hologram" },
            { no: "type" },
            { type: "text", text: "after" },
          ],
        }),
    );
    tool(
      "malformed_result",
      { description: "Answer with a result that is not a tool result: its content is not a list" },
      () => raw({ content: "not a list", isError: "no" }),
    );
    tool(
      "bad_structured",
      {
        description: "Declares an output schema, answers with structuredContent that breaks it",
        outputSchema: { doubled: z.number() },
      },
      () => ({
        ...raw({ content: [{ type: "text", text: "bad" }], structuredContent: { doubled: "not a number" } }),
        structuredContent: { doubled: 1 },
      }),
    );
    tool(
      "stray_replies",
      {
        description:
          "Send replies with unknown ids, id null and no id, then answer; 20 ms later, answer again (another result, the same id)",
      },
      async (_args, extra) => {
        // Over HTTP the transport may refuse a reply to an answered request: that is fine here.
        setTimeout(() => {
          Promise.resolve()
            .then(() =>
              wire?.({
                jsonrpc: "2.0",
                id: extra.requestId,
                result: { content: [{ type: "text", text: "a second answer to an answered request" }] },
              }),
            )
            .catch(() => {});
        }, 20);
        await wire?.({ jsonrpc: "2.0", id: 987654321, result: {} });
        await wire?.({
          jsonrpc: "2.0",
          id: "c0",
          result: { content: [{ type: "text", text: "never asked" }] },
        });
        await wire?.({ jsonrpc: "2.0", id: "no-such-request", error: { code: -32603, message: "stray" } });
        await wire?.({ jsonrpc: "2.0", id: null, result: {} });
        await wire?.({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
        await wire?.({ jsonrpc: "2.0", error: { code: -32600, message: "no id at all" } });
        return text("strays sent");
      },
    );
    tool(
      "close_stdout",
      { description: "Close the process's stdout (fd 1) but keep running; never answer" },
      () => {
        process.stdout.on("error", () => {});
        closeSync(1);
        return new Promise(() => {});
      },
    );
    tool(
      "stdout_noise",
      {
        description: "Write `lines` non-JSON lines on stdout, one of them `bytes` long, then answer",
        inputSchema: { lines: z.number(), bytes: z.number() },
      },
      ({ lines, bytes }) => {
        writeNoise(lines, bytes);
        return text("noise written");
      },
    );
  }

  // tools/list: counted, and made hostile on demand (duplicates, hostile definitions, storm_tool).
  const listTools = server.server._requestHandlers.get("tools/list");
  server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    state.toolsListed++;
    const result = await listTools(request, extra);
    const tools = [...result.tools];
    if (options.duplicateTools || state.duplicates) {
      const echo = tools.find((t) => t.name === "echo");
      if (echo) tools.push({ ...echo, description: "a second tool named echo" });
    }
    if (state.stormTool) tools.push({ name: "storm_tool", inputSchema: { type: "object" } });
    if (state.stormDone) tools.push({ name: "storm_done", inputSchema: { type: "object" } });
    if (options.hostileTools) tools.push(...HOSTILE_TOOLS);
    return { ...result, tools };
  });

  if (options.pageSize !== undefined) {
    // Page tools/list with a numeric cursor, to exercise client pagination.
    const pageSize = Number(options.pageSize);
    const original = server.server._requestHandlers.get("tools/list");
    server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const all = await original({ method: "tools/list", params: {} }, extra);
      const start = Number(request.params?.cursor ?? 0);
      const end = start + pageSize;
      return {
        tools: all.tools.slice(start, end),
        ...(end < all.tools.length ? { nextCursor: String(end) } : {}),
      };
    });
  }
  // McpServer turns every tool failure into an isError result; `rpc_error` answers with a real JSON-RPC
  // error instead (code -32050), like servers built on other SDKs do.
  const callTool = server.server._requestHandlers.get("tools/call");
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    if (request.params.name === "rpc_error") throw new McpError(-32050, "the test server refuses this call");
    if (options.hostileText) interceptCall(request);
    return callTool(request, extra);
  });
  if (options.hangPing) server.server.setRequestHandler(PingRequestSchema, () => new Promise(() => {}));
  if (options.lenientResources) addLenientResources(server);
  if (options.hostileText) addHostileText(server);
  return server;
}

/**
 * What a lenient server reads for `uri`: scheme, escapes, dot segments, `//`, `file://localhost`,
 * `file:/`, the query, the fragment, a trailing slash and case are all ignored (as a server on a
 * case-insensitive file system that resolves paths with `path.resolve` would).
 */
function lenientPath(uri) {
  const match = /^file:(.*)$/i.exec(uri.split("#")[0].split("?")[0]);
  if (!match) return undefined;
  let rest = match[1];
  try {
    rest = decodeURIComponent(rest);
  } catch {
    return undefined;
  }
  rest = rest.replace(/^\/\/localhost(?=\/)/i, "").replace(/^\/\/(?=\/)/, "");
  const parts = [];
  for (const part of rest.replaceAll("\\", "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`.toLowerCase();
}

/**
 * Resources `file:///docs/public.txt` and `file:///docs/secret.txt`, read the lenient way (see
 * `lenientPath`), and prompts `public_prompt` and `secret_prompt`, looked up whatever the case. Every
 * read and prompt request is counted in `stats` (`reads`, `prompts`: what the client sent).
 */
function addLenientResources(server) {
  const documents = { "/docs/public.txt": "public document", "/docs/secret.txt": "SECRET DOCUMENT" };
  for (const path of Object.keys(documents)) {
    server.registerResource(path, `file://${path}`, { mimeType: "text/plain" }, () => ({
      contents: [{ uri: `file://${path}`, text: documents[path] }],
    }));
  }
  for (const name of ["public_prompt", "secret_prompt"]) {
    server.registerPrompt(name, { description: name }, () => ({
      messages: [{ role: "user", content: { type: "text", text: `the ${name}` } }],
    }));
  }
  const seen = { reads: [], prompts: [] };
  server.registerTool("lenient_stats", { description: "what resources/read and prompts/get received" }, () =>
    text(JSON.stringify(seen)),
  );
  server.server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    seen.reads.push(request.params.uri);
    const path = lenientPath(request.params.uri);
    const body = path === undefined ? undefined : documents[path];
    if (body === undefined) throw new McpError(-32002, `Resource not found: ${request.params.uri}`);
    return { contents: [{ uri: request.params.uri, mimeType: "text/plain", text: body }] };
  });
  server.server.setRequestHandler(GetPromptRequestSchema, (request) => {
    seen.prompts.push(request.params.name);
    const name = String(request.params.name).toLowerCase();
    if (name !== "public_prompt" && name !== "secret_prompt") {
      throw new McpError(-32602, `Unknown prompt: ${request.params.name}`);
    }
    return { messages: [{ role: "user", content: { type: "text", text: `the ${name}` } }] };
  });
}
