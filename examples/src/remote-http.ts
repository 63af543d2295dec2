// A remote server over Streamable HTTP with a bearer token: a first-party server started with --http
// (it requires the token in MCP_HTTP_TOKEN), and a roster entry that names the variable holding the
// token — never the token itself. A wrong token is HTTP_UNAUTHORIZED, with what to fix.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { createMCPToolkit, MCPConnectionError, type MCPToolkitConfigInput } from "@agentforge/agent-runtime";
import { serverCommand } from "@agentforge/example-servers";

const token = randomBytes(24).toString("hex");
const { command, args } = serverCommand("local-tools", { http: true });
const server = spawn(command, args, {
  env: { ...process.env, MCP_HTTP_TOKEN: token },
  stdio: ["ignore", "ignore", "pipe"],
});
try {
  // The server prints "listening on http://127.0.0.1:<port>/mcp" on stderr once it serves.
  let url: string | undefined;
  for await (const line of createInterface({ input: server.stderr })) {
    url = /listening on (\S+)/.exec(line)?.[1];
    if (url) break;
  }
  assert.ok(url, "the server did not say where it listens");

  const config = (variable: string): MCPToolkitConfigInput => ({
    servers: [
      {
        name: "remote",
        transport: "http",
        enabled: true,
        url,
        auth: { type: "bearer", credential_env_var: variable },
      },
    ],
    permissions: { helper: ["remote.*"] },
  });
  const toolkit = await createMCPToolkit({ config: config("REMOTE_TOKEN"), env: { REMOTE_TOKEN: token } });
  try {
    const result = await toolkit.execute("helper", "remote.echo", { text: "over HTTP" });
    console.log(`remote.echo: ${result.text}`);
    assert.equal(result.text, "over HTTP");
  } finally {
    await toolkit.close();
  }

  const wrong = await createMCPToolkit({
    config: config("REMOTE_TOKEN"),
    env: { REMOTE_TOKEN: "not-the-token" },
  });
  try {
    await assert.rejects(wrong.tools("helper"), (error) => {
      assert.ok(MCPConnectionError.isInstance(error));
      console.log(`${error.code} (HTTP ${error.httpStatus}): ${error.message.split("\n")[0]}`);
      return error.code === "HTTP_UNAUTHORIZED";
    });
  } finally {
    await wrong.close();
  }
} finally {
  server.kill();
  if (server.exitCode === null && server.signalCode === null) await once(server, "exit");
}
