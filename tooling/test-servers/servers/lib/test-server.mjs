// The behaviours shared by the stdio and HTTP test servers: one McpServer with tools that crash, hang,
// answer slowly, reply hugely, change the tool list, count calls and echo progress.
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export { parseArgs } from "./args.mjs";

/** Counters every test server keeps; read them with the `stats` tool (which does not count itself). */
export function createState() {
  return { total: 0, calls: {}, inFlight: 0, inFlightMax: 0, cancelled: 0 };
}

const text = (value) => ({ content: [{ type: "text", text: String(value) }] });
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
    { capabilities: { tools: { listChanged: true } } },
  );
  const crashOnCall = options.crashOnCall === undefined ? undefined : Number(options.crashOnCall);

  const tool = (name, config, handler, counted = true) =>
    // The SDK calls a tool without inputSchema as cb(extra), and one with an inputSchema as cb(args, extra).
    server.registerTool(name, config, async (...params) => {
      const [args, extra] = config.inputSchema ? params : [{}, params[0]];
      if (counted) {
        state.total++;
        state.calls[name] = (state.calls[name] ?? 0) + 1;
        log(options, { tool: name });
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
    { description: "Register a tool (sends list_changed)", inputSchema: { name: z.string() } },
    ({ name }) => {
      added.set(
        name,
        server.registerTool(name, { description: "added at run time" }, () => text(name)),
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
    return callTool(request, extra);
  });
  if (options.hangPing) server.server.setRequestHandler(PingRequestSchema, () => new Promise(() => {}));
  return server;
}
