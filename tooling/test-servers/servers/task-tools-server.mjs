#!/usr/bin/env node
// A hand-written JSON-RPC server over stdio (no SDK) that speaks ONLY the 2026-07-28 revision,
// statelessly: `server/discover`, then requests that each carry the protocol version in `_meta`. Unlike
// a v2 SDK server it keeps `execution` in its tools/list on the 2026 wire, so a client sees tools that
// only run as tasks. `initialize` (a 2025 client) is refused with -32022. Tools:
//   echo {text}     -> text
//   long_job {}     -> execution.taskSupport "required"; answers a plain result saying it ran without
//                      a task (so a client that sends it anyway is caught by `stats`)
//   maybe_job {}    -> execution.taskSupport "optional"; answers "maybe_job ran"
//   stats {}        -> {"calls": {<tool>: count}} of the tools/call requests received (stats not counted)
import { createInterface } from "node:readline";

const VERSION = "2026-07-28";
const SERVER_INFO = { name: "task-tools-test-server", version: "1.0.0" };
const calls = {};
const tools = [
  {
    name: "echo",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  {
    name: "long_job",
    description: "A long job that only runs as a task.",
    inputSchema: { type: "object", properties: {} },
    execution: { taskSupport: "required" },
  },
  {
    name: "maybe_job",
    inputSchema: { type: "object", properties: {} },
    execution: { taskSupport: "optional" },
  },
  { name: "stats", inputSchema: { type: "object", properties: {} } },
];

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
const meta = { "io.modelcontextprotocol/serverInfo": SERVER_INFO };
const complete = (result) => ({ resultType: "complete", ...result, _meta: meta });
const text = (value) => complete({ content: [{ type: "text", text: value }] });

function answer(request) {
  const { method, params } = request;
  if (method === "initialize") {
    return {
      error: {
        code: -32022,
        message: `Unsupported protocol version; this server speaks ${VERSION} only`,
        data: { supported: [VERSION], requested: params?.protocolVersion },
      },
    };
  }
  const version = params?._meta?.["io.modelcontextprotocol/protocolVersion"];
  if (version !== VERSION) {
    return {
      error: {
        code: -32022,
        message: `Unsupported protocol version ${JSON.stringify(version)}`,
        data: { supported: [VERSION], requested: version ?? null },
      },
    };
  }
  switch (method) {
    case "server/discover":
      return {
        result: complete({
          supportedVersions: [VERSION],
          capabilities: { tools: {} },
          ttlMs: 0,
          cacheScope: "private",
        }),
      };
    case "ping":
      return { result: complete({}) };
    case "tools/list":
      return { result: complete({ tools, ttlMs: 0, cacheScope: "private" }) };
    case "tools/call": {
      const name = params?.name;
      if (name === "stats") return { result: text(JSON.stringify({ calls })) };
      calls[name] = (calls[name] ?? 0) + 1;
      if (name === "echo") return { result: text(String(params?.arguments?.text ?? "")) };
      if (name === "long_job") return { result: text("long_job ran without a task") };
      if (name === "maybe_job") return { result: text("maybe_job ran") };
      return { error: { code: -32602, message: `Unknown tool ${JSON.stringify(name)}` } };
    }
    default:
      return { error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  // Notifications (no id) need no answer.
  if (message.id === undefined || typeof message.method !== "string") return;
  send({ id: message.id, ...answer(message) });
});
lines.on("close", () => process.exit(0));
process.stderr.write("ready\n");
