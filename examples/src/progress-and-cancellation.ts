// Progress and cancellation: a long call reports progress (numbers only, coalesced), and an
// AbortSignal cancels a call in flight — the server is sent an MCP cancellation and the call fails with
// TOOL_CANCELLED. Against the official "everything" server.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { createMCPToolkit, MCP_TOOL_CALL_FAILED, MCPToolExecutionError } from "@agentforge/agent-runtime";

const everything = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-everything/dist/index.js",
);
const toolkit = await createMCPToolkit({
  config: {
    servers: [
      {
        name: "everything",
        transport: "stdio",
        enabled: true,
        command: process.execPath,
        args: [everything],
      },
    ],
    permissions: { worker: ["everything.trigger-long-running-operation"] },
  },
});
try {
  const long = "everything.trigger-long-running-operation";
  const done = await toolkit.execute(
    "worker",
    long,
    { duration: 0.6, steps: 3 },
    {
      onProgress: (p) => console.log(`progress ${p.progress}/${p.total ?? "?"}`),
    },
  );
  console.log(`finished: ${done.text}`);

  toolkit.on(MCP_TOOL_CALL_FAILED, (e) => console.log(`audit: ${e.identity} ${e.outcome} (${e.errorCode})`));
  const controller = new AbortController();
  const call = toolkit.execute(
    "worker",
    long,
    { duration: 30, steps: 30 },
    {
      signal: controller.signal,
      onProgress: () => controller.abort(), // give up at the first sign of progress
    },
  );
  await assert.rejects(call, (error) => {
    assert.ok(MCPToolExecutionError.isInstance(error));
    return error.code === "TOOL_CANCELLED";
  });
  console.log("cancelled after the first progress");
} finally {
  await toolkit.close();
}
