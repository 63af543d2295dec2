// A roster written in code (the file's shape; omitted fields get the file's defaults), and what happens
// when a granted server cannot start: loud by default, with the server's own error — or, opted into,
// degraded mode with a warning. Every error class comes from the one package.
import assert from "node:assert/strict";
import {
  createMCPToolkit,
  MCP_WARNING,
  MCPError,
  type MCPToolkitConfigInput,
} from "@agentforge/agent-runtime";
import { serverCommand } from "@agentforge/example-servers";

const config: MCPToolkitConfigInput = {
  servers: [
    { name: "local", transport: "stdio", enabled: true, ...serverCommand("local-tools") },
    { name: "files", transport: "stdio", enabled: true, command: "agentforge-filesytem" }, // a typo
  ],
  permissions: { helper: ["local.echo", "files.*"] },
};

const loud = await createMCPToolkit({ config });
try {
  await loud.tools("helper");
  assert.fail("a granted server that cannot start must not go unnoticed");
} catch (error) {
  if (!MCPError.isInstance(error)) throw error;
  switch (error.code) {
    case "COMMAND_NOT_FOUND":
    case "SERVER_EXITED":
    case "SERVER_MISCONFIGURED":
    case "SERVER_DISABLED":
      console.log(`${error.code}: ${error.message.split("\n")[0]}`);
      break;
    default:
      throw error;
  }
} finally {
  await loud.close();
}

const degraded = await createMCPToolkit({ config, degraded: true });
try {
  degraded.on(MCP_WARNING, (warning) => console.log(`warning ${warning.code}: ${warning.message}`));
  const tools = await degraded.tools("helper");
  assert.deepEqual(
    tools.map((t) => t.identity),
    ["local.echo"],
  );
  const result = await degraded.execute("helper", "local.echo", { text: "still working" });
  console.log(`local.echo: ${result.text}`);
} finally {
  await degraded.close();
}
