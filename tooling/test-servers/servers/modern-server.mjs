#!/usr/bin/env node
// A real MCP server written with the official v2 SDK (`@modelcontextprotocol/server`) that speaks ONLY
// the 2026-07-28 revision, statelessly: over Streamable HTTP (default; prints `ready <url>` on stderr)
// or stdio (`--stdio`). A 2025 client (initialize) is refused. Tools:
//   echo {text}           -> text
//   ask {}                -> an input_required round: a form elicitation `name` (default "Ada"), then
//                            "hello <name> (state <requestState>)"; declining gives "declined"
//   ask_twice {}          -> two rounds (each a form elicitation), then both answers
//   ask_sampling {}       -> an input_required round asking for sampling (a client must refuse it)
//   ask_big_state {bytes} -> an input_required round (a form elicitation) whose requestState is `bytes`
//                            long, then "state of <n> bytes came back"
//   fail {code, message}  -> a JSON-RPC error with that code
//   region_echo {region}  -> `region` is annotated x-mcp-header: Region; answers the Mcp-Param-Region
//                            header the server received (HTTP) and the argument
//   add_tool {name, description?} -> adds a tool `name` (or changes the description of an added one),
//   remove_tool {name}       announced as tools list_changed on the open subscriptions/listen streams;
//                            remove_tool takes it away again
//   end_streams {}        -> HTTP: ends every open subscriptions/listen stream just after answering
//   list_stats {}         -> JSON {toolsList, resourcesList, listening}: how many of each list request
//                            arrived, per Authorization header ("(none)" without one); over HTTP, how
//                            many subscriptions/listen streams are open now
// Resource `note://one` (so resources/list has something). Flags: --list-changed declares
// tools.listChanged (clients then open subscriptions/listen); --list-ttl-ms N and
// --list-cache-scope public|private put that ttlMs/cacheScope on tools/list and resources/list;
// --max-subscriptions N refuses a listen stream beyond N open ones (HTTP; 0: every one).
import { createServer } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import {
  acceptedContent,
  createMcpHandler,
  inputRequired,
  inputResponse,
  McpServer,
  ProtocolError,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const stdio = process.argv.includes("--stdio");
const listChanged = process.argv.includes("--list-changed");
const flag = (name) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const listTtlMs = flag("--list-ttl-ms");
const listCacheScope = flag("--list-cache-scope");
const maxSubscriptions = flag("--max-subscriptions");
const listHint = {
  ...(listTtlMs !== undefined ? { ttlMs: Number(listTtlMs) } : {}),
  ...(listCacheScope !== undefined ? { cacheScope: listCacheScope } : {}),
};
const text = (value) => ({ content: [{ type: "text", text: value }] });
let lastHeaders = {};
/** Tools added with add_tool (name → description), shared by every server instance of this process. */
const dynamicTools = new Map();
/** Announces a tool list change: HTTP publishes on the handler's listen bus, stdio via the instance. */
let announceToolsChanged = () => {};
/** Open subscriptions/listen streams (HTTP: listeners on the handler's bus). */
let openStreams = () => null;
/** Ends every open subscriptions/listen stream (HTTP: closes the handler's modern leg). */
let endStreams = async () => {};
const listStats = { toolsList: {}, resourcesList: {} };
const countList = (kind) => {
  const who = lastHeaders.authorization ?? "(none)";
  listStats[kind][who] = (listStats[kind][who] ?? 0) + 1;
};

function build() {
  const server = new McpServer(
    { name: "modern-test-server", version: "1.0.0" },
    {
      capabilities: { tools: listChanged ? { listChanged: true } : {}, resources: {} },
      cacheHints: { "tools/list": listHint, "resources/list": listHint },
    },
  );
  const registered = new Map();
  const register = (name, description) =>
    registered.set(
      name,
      server.registerTool(name, { description, inputSchema: z.object({}) }, async () =>
        text(`dynamic ${name}`),
      ),
    );
  for (const [name, description] of dynamicTools) register(name, description);
  const addTool = z.object({ name: z.string(), description: z.string().optional() });
  server.registerTool("add_tool", { inputSchema: addTool }, async ({ name, description }) => {
    const said = description ?? "added at run time";
    dynamicTools.set(name, said);
    // On stdio, changing the connection's own instance announces the change.
    if (stdio && registered.has(name)) registered.get(name).update({ description: said });
    else if (stdio) register(name, said);
    else announceToolsChanged();
    return text("added");
  });
  server.registerTool("remove_tool", { inputSchema: z.object({ name: z.string() }) }, async ({ name }) => {
    dynamicTools.delete(name);
    if (stdio) registered.get(name)?.remove();
    else announceToolsChanged();
    return text("removed");
  });
  server.registerTool("end_streams", { inputSchema: z.object({}) }, async () => {
    // After this answer: end every open subscriptions/listen stream, as a server shutting down does.
    setTimeout(() => void endStreams(), 20);
    return text("ending");
  });
  server.registerTool("list_stats", { inputSchema: z.object({}) }, async () =>
    text(JSON.stringify({ ...listStats, listening: openStreams() })),
  );
  server.registerResource("one", "note://one", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: "one" }],
  }));
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, async ({ text: value }) =>
    text(value),
  );
  server.registerTool("ask", { inputSchema: z.object({}) }, async (_args, ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, "name");
    if (view.kind === "missing") {
      return inputRequired({
        inputRequests: {
          name: inputRequired.elicit({
            message: "Your name?",
            requestedSchema: {
              type: "object",
              properties: {
                name: { type: "string", default: "Ada" },
                excited: { type: "boolean", default: true },
              },
              required: ["name"],
            },
          }),
        },
        requestState: "state-1:\u00e9\u{1F600}",
      });
    }
    if (view.kind !== "elicit" || view.action !== "accept") return text("declined");
    const content = acceptedContent(ctx.mcpReq.inputResponses, "name") ?? {};
    const state = ctx.mcpReq.requestState();
    return text(`hello ${content.name} excited=${content.excited} (state ${state})`);
  });
  server.registerTool("ask_twice", { inputSchema: z.object({}) }, async (_args, ctx) => {
    const state = ctx.mcpReq.requestState();
    const responses = ctx.mcpReq.inputResponses;
    const form = (message) =>
      inputRequired.elicit({
        message,
        requestedSchema: { type: "object", properties: { v: { type: "string" } }, required: ["v"] },
      });
    if (state === undefined)
      return inputRequired({ inputRequests: { a: form("first?") }, requestState: "r1" });
    if (state === "r1") {
      const a = acceptedContent(responses, "a")?.v;
      return inputRequired({ inputRequests: { b: form("second?") }, requestState: `r2:${a}` });
    }
    return text(`${String(state).slice(3)} then ${acceptedContent(responses, "b")?.v}`);
  });
  server.registerTool(
    "ask_big_state",
    { inputSchema: z.object({ bytes: z.number() }) },
    async (args, ctx) => {
      const state = ctx.mcpReq.requestState();
      if (state === undefined) {
        return inputRequired({
          inputRequests: {
            ok: inputRequired.elicit({
              message: "Go on?",
              requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
            }),
          },
          requestState: "s".repeat(args.bytes),
        });
      }
      return text(`state of ${String(state).length} bytes came back`);
    },
  );
  server.registerTool("ask_sampling", { inputSchema: z.object({}) }, async (_args, ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, "s");
    if (view.kind === "missing") {
      return inputRequired({
        inputRequests: {
          s: inputRequired.createMessage({
            messages: [{ role: "user", content: { type: "text", text: "hi" } }],
            maxTokens: 5,
          }),
        },
      });
    }
    return text(`sampling answered: ${view.kind}`);
  });
  server.registerTool(
    "fail",
    { inputSchema: z.object({ code: z.number(), message: z.string() }) },
    async () => text("unreachable"),
  );
  server.registerTool(
    "region_echo",
    {
      inputSchema: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }) }),
    },
    async ({ region }) => text(`header=${lastHeaders["mcp-param-region"] ?? "(none)"} arg=${region}`),
  );
  // McpServer turns every tool failure into an isError result; `fail` answers with a real JSON-RPC error
  // (as servers built on other SDKs do), through the low-level server's tools/call handler.
  const callTool = server.server._requestHandlers.get("tools/call");
  server.server.setRequestHandler("tools/call", (request, ctx) => {
    if (request.params.name === "meta_echo") {
      return text(JSON.stringify({ meta: request.params._meta ?? {}, envelope: ctx.mcpReq.envelope ?? {} }));
    }
    if (request.params.name === "fail") {
      const { code, message } = request.params.arguments ?? {};
      throw new ProtocolError(Number(code), String(message));
    }
    return callTool(request, ctx);
  });
  server.registerTool("meta_echo", { inputSchema: z.object({}) }, async (_args, ctx) =>
    text(JSON.stringify({ meta: ctx.mcpReq._meta ?? {}, envelope: ctx.mcpReq.envelope ?? {} })),
  );
  for (const [method, kind] of [
    ["tools/list", "toolsList"],
    ["resources/list", "resourcesList"],
  ]) {
    const list = server.server._requestHandlers.get(method);
    server.server.setRequestHandler(method, (request, ctx) => {
      countList(kind);
      return list(request, ctx);
    });
  }
  return server;
}

if (stdio) {
  await serveStdio(build);
} else {
  let mcp;
  let handler;
  const serveModern = () => {
    mcp = createMcpHandler(build, {
      legacy: "reject",
      ...(maxSubscriptions !== undefined ? { maxSubscriptions: Number(maxSubscriptions) } : {}),
    });
    handler = toNodeHandler(mcp);
  };
  serveModern();
  announceToolsChanged = () => mcp.notify.toolsChanged();
  openStreams = () => mcp.bus.listenerCount;
  // A fresh handler serves what comes next; closing the old one ends its streams.
  endStreams = async () => {
    const old = mcp;
    serveModern();
    await old.close();
  };
  const http = createServer((req, res) => {
    lastHeaders = req.headers;
    if (req.url !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    handler(req, res);
  });
  http.listen(0, "127.0.0.1", () => {
    process.stderr.write(`ready http://127.0.0.1:${http.address().port}/mcp\n`);
  });
  const stop = () => http.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
