// Run by scripts/consumer-check.mjs: the runtime through require().
const assert = require("node:assert/strict");
const {
  MAX_MCP_RESULT_CHARS,
  MCPEventDispatcher,
  MCPToolNotFoundError,
  createMCPToolkit,
  renderToolResult,
} = require("@agentforge/agent-runtime");
const { toLangChainTools } = require("@agentforge/agent-runtime/langchain");
const node = require("@agentforge/agent-runtime/node");
const { ScriptedChatModel } = require("@agentforge/agent-runtime/testing");
const { createOpenTelemetryTracer } = require("@agentforge/agent-runtime/otel");

assert.equal(
  renderToolResult({ content: [{ type: "text", text: "abcdef" }] }, 3).text,
  "abc... [3 characters truncated]",
);
assert.equal(MAX_MCP_RESULT_CHARS, 8000);
assert.equal(typeof createMCPToolkit, "function");
assert.equal(typeof node.createMCPToolkit, "function");
assert.equal(typeof toLangChainTools, "function");
assert.equal(typeof new MCPEventDispatcher().on, "function");
assert.ok(MCPToolNotFoundError.isInstance(new MCPToolNotFoundError("a.b")));
assert.equal(new ScriptedChatModel(["x"])._llmType(), "scripted");
assert.equal(typeof createOpenTelemetryTracer().startToolSpan, "function");
console.log("agent-runtime (require): ok");
