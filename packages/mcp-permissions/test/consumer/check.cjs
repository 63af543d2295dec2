// Run by scripts/consumer-check.mjs: the same package through require().
const assert = require("node:assert/strict");
const { MCPPermissionPolicy, parseToolIdentity } = require("@agentforge/mcp-permissions");

assert.deepEqual(parseToolIdentity("filesystem.read.text"), {
  serverName: "filesystem",
  toolName: "read.text",
});
assert.equal(
  new MCPPermissionPolicy({ a: { allow: ["s.*"], deny: ["s.x"] } }).isAuthorized("a", "s.x"),
  false,
);
console.log("mcp-permissions (require): ok");
