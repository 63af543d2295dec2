// Run by scripts/consumer-check.mjs: the same package through require().
const assert = require("node:assert/strict");
const { MCPError, MCPConfigError, parseMCPServerConfigs, redactedConfig } = require("@agentforge/mcp-config");
const { loadMCPConfig } = require("@agentforge/mcp-config/node");
const core = require("@agentforge/mcp-config/core");

const [server] = parseMCPServerConfigs(
  "servers:\n  - {name: a, transport: stdio, command: node, env: {T: TOKEN}}\n",
);
assert.equal(redactedConfig(server, { TOKEN: "v" }).variables[0].set, true);
assert.equal(core.MCPError, MCPError);
assert.equal(core.redactedConfig(server, { TOKEN: "v" }).variables[0].set, true);
loadMCPConfig("/definitely/not/here.yaml").then(
  () => assert.fail("expected CONFIG_NOT_FOUND"),
  (error) => {
    assert.ok(MCPConfigError.isInstance(error) && MCPError.isInstance(error));
    assert.equal(error.code, "CONFIG_NOT_FOUND");
    console.log("mcp-config (require): ok");
  },
);
