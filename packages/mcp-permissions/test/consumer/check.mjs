// Run by scripts/consumer-check.mjs in a throw-away npm project with the tarballs installed.
import assert from "node:assert/strict";
import { MCPError } from "@agentforge/mcp-config";
import { MCPDuplicateToolError, MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";

const registry = new MCPToolRegistry();
const tool = { identity: "fs.read", serverName: "fs", toolName: "read", inputSchema: { type: "object" } };
registry.register("fs", [tool]);
const policy = new MCPPermissionPolicy({ docs: ["fs.*"] }, { pinToolDefinitions: true, registry });
assert.equal(policy.isAuthorized("docs", "fs.read"), true);
assert.equal(policy.decide("other", "fs.read").basis, "no-grants");
assert.throws(
  () => registry.register("evil", [{ ...tool, serverName: "evil" }]),
  (e) => MCPDuplicateToolError.isInstance(e) && MCPError.isInstance(e),
);
console.log("mcp-permissions (import): ok");
