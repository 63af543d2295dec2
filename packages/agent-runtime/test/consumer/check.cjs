// Run by scripts/consumer-check.mjs: the runtime through require().
const assert = require("node:assert/strict");
const { truncateText, MCPEventDispatcher, MCPToolNotFoundError } = require("@agentforge/agent-runtime");
const { ScriptedChatModel } = require("@agentforge/agent-runtime/testing");
const { createOpenTelemetryTracer } = require("@agentforge/agent-runtime/otel");

assert.equal(truncateText("abcdef", 3).text, "abc... [3 characters truncated]");
assert.equal(typeof new MCPEventDispatcher().on, "function");
assert.ok(MCPToolNotFoundError.isInstance(new MCPToolNotFoundError("a.b")));
assert.equal(new ScriptedChatModel(["x"])._llmType(), "scripted");
assert.equal(typeof createOpenTelemetryTracer().startToolSpan, "function");
console.log("agent-runtime (require): ok");
