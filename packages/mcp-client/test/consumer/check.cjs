// Run by scripts/consumer-check.mjs: the same package through require().
const assert = require("node:assert/strict");
const {
  MCPClientManager,
  MCPServerNotFoundError,
  MCPTimeoutError,
  createTransport,
} = require("@agentforge/mcp-client");
const { MCPError } = require("@agentforge/mcp-config");

assert.equal(typeof createTransport, "function");
assert.equal(typeof MCPTimeoutError.isInstance, "function");
const manager = new MCPClientManager(
  [
    {
      name: "ghost",
      enabled: true,
      transport: "stdio",
      command: "agentforge-no-such-command",
      args: [],
      env: {},
      connectionTimeout: 5,
      toolTimeout: 5,
      resetTimeoutOnProgress: false,
    },
  ],
  { logDir: false },
);
manager.on("connectionFailed", (event) => assert.equal(event.error.code, "COMMAND_NOT_FOUND"));
manager
  .callTool("nope", "tool")
  .then(
    () => assert.fail("expected SERVER_NOT_FOUND"),
    (error) => {
      assert.ok(MCPServerNotFoundError.isInstance(error) && MCPError.isInstance(error));
      assert.equal(error.code, "SERVER_NOT_FOUND");
      return manager.callTool("ghost", "tool");
    },
  )
  .then(
    () => assert.fail("expected COMMAND_NOT_FOUND"),
    async (error) => {
      assert.equal(error.code, "COMMAND_NOT_FOUND");
      await manager.closeAll();
      console.log("mcp-client (require): ok");
    },
  );
