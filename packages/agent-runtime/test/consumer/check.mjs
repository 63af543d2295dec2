// Run by scripts/consumer-check.mjs in a throw-away npm project with the tarballs installed.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { MCP_TOOL_CALL_COMPLETED, MCPToolExecutor, MCPToolNameMap } from "@agentforge/agent-runtime";
import { toAISDKTools } from "@agentforge/agent-runtime/ai-sdk";
import { invokeWithTools } from "@agentforge/agent-runtime/langchain";
import { createMCPToolkit } from "@agentforge/agent-runtime/node";
import { createOpenTelemetryTracer } from "@agentforge/agent-runtime/otel";
import { ScriptedChatModel } from "@agentforge/agent-runtime/testing";
import { MCPClientManager } from "@agentforge/mcp-client";
import { MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { HumanMessage } from "@langchain/core/messages";

// A real stdio server from the installed example-servers package, driven through the whole stack.
const bin = createRequire(import.meta.url)
  .resolve("@agentforge/example-servers/package.json")
  .replace("package.json", "dist/bin/local-tools.js");
const manager = new MCPClientManager(
  [
    {
      name: "local",
      enabled: true,
      transport: "stdio",
      command: process.execPath,
      args: [bin],
      env: {},
      connectionTimeout: 10,
      toolTimeout: 10,
      resetTimeoutOnProgress: false,
    },
  ],
  { logDir: false },
);
try {
  const registry = new MCPToolRegistry();
  registry.register("local", await manager.listTools("local"));
  const executor = new MCPToolExecutor({
    clientManager: manager,
    registry,
    policy: new MCPPermissionPolicy({ helper: ["local.echo"] }),
    tracer: createOpenTelemetryTracer(),
  });
  const events = [];
  executor.events.on(MCP_TOOL_CALL_COMPLETED, (e) => events.push(e.outcome));
  const model = new ScriptedChatModel([
    { toolCalls: [{ name: "local__echo", args: { text: "from a consumer" } }] },
    "done",
  ]);
  const result = await invokeWithTools(model, [new HumanMessage("go")], {
    tools: registry.list(),
    executor,
    agent: "helper",
  });
  assert.equal(result.message.content, "done");
  assert.deepEqual(events, ["ok"]);
  assert.equal(new MCPToolNameMap(["a.b"]).toModelName("a.b"), "a__b");
  console.log("agent-runtime (import, full stack over stdio): ok");
} finally {
  await manager.closeAll();
}

// The one-step toolkit from the /node entry, with a roster written in code, and its AI SDK tools.
const toolkit = await createMCPToolkit({
  config: {
    servers: [{ name: "local", transport: "stdio", enabled: true, command: process.execPath, args: [bin] }],
    permissions: { helper: ["local.echo"] },
  },
});
try {
  assert.deepEqual(
    (await toolkit.tools("helper")).map((t) => t.identity),
    ["local.echo"],
  );
  assert.equal((await toolkit.execute("helper", "local.echo", { text: "toolkit" })).text, "toolkit");
  assert.deepEqual(Object.keys(await toAISDKTools(toolkit, "helper")), ["local__echo"]);
  console.log("agent-runtime (import, createMCPToolkit + AI SDK tools): ok");
} finally {
  await toolkit.close();
}
