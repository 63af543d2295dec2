#!/usr/bin/env node
// The client the conformance suite launches: `node client.mjs <server url>`. It drives the BUILT
// @agentforge/mcp-client (packages/mcp-client/dist) the way an application would: one MCPClientManager,
// a config per scenario, an `authorize` callback that follows the authorization URL (the suite's
// authorization server redirects straight back to the loopback redirect_uri), then lists and calls tools.
// Scenario credentials arrive in MCP_CONFORMANCE_CONTEXT; they go into variables, never into the config.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPClientManager } from "../../packages/mcp-client/dist/index.js";

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
const env = { ...process.env };
const temp = mkdtempSync(join(tmpdir(), "agentforge-conformance-"));

/** The scenario's `auth:` section (camelCase, as the config loader would produce it). */
function authFor() {
  if (!scenario.startsWith("auth/")) return { type: "none" };
  if (scenario === "auth/client-credentials-jwt") {
    const keyFile = join(temp, "client.key");
    writeFileSync(keyFile, context.private_key_pem, { mode: 0o600 });
    env.CONFORMANCE_CLIENT_ID = context.client_id;
    env.CONFORMANCE_KEY_FILE = keyFile;
    return {
      type: "oauth",
      grant: "client_credentials",
      clientIdEnvVar: "CONFORMANCE_CLIENT_ID",
      privateKeyFileEnvVar: "CONFORMANCE_KEY_FILE",
      ...(context.signing_algorithm ? { signingAlgorithm: context.signing_algorithm } : {}),
    };
  }
  if (scenario === "auth/client-credentials-basic") {
    env.CONFORMANCE_CLIENT_ID = context.client_id;
    env.CONFORMANCE_CLIENT_SECRET = context.client_secret;
    return {
      type: "oauth",
      grant: "client_credentials",
      clientIdEnvVar: "CONFORMANCE_CLIENT_ID",
      clientSecretEnvVar: "CONFORMANCE_CLIENT_SECRET",
    };
  }
  const auth = { type: "oauth", grant: "authorization_code" };
  if (context.client_id) {
    env.CONFORMANCE_CLIENT_ID = context.client_id;
    auth.clientIdEnvVar = "CONFORMANCE_CLIENT_ID";
    if (context.client_secret) {
      env.CONFORMANCE_CLIENT_SECRET = context.client_secret;
      auth.clientSecretEnvVar = "CONFORMANCE_CLIENT_SECRET";
    }
  }
  // The URL the suite's basic-cimd scenario expects as client id (a client ID metadata document).
  if (scenario === "auth/basic-cimd")
    auth.clientMetadataUrl = "https://conformance-test.local/client-metadata.json";
  return auth;
}

const config = {
  name: "conformance",
  enabled: true,
  transport: "http",
  url,
  headers: {},
  auth: authFor(),
  connectionTimeout: 20,
  toolTimeout: 20,
  resetTimeoutOnProgress: false,
};

/**
 * A user who accepts every form without typing anything (the client fills the schema's defaults,
 * SEP-1034: nothing is filled here); URL requests are declined.
 */
async function acceptAsIs(request) {
  if (request.mode !== "form") return { action: "decline" };
  return { action: "accept", content: {} };
}

const manager = new MCPClientManager([config], {
  env,
  logDir: false,
  elicitation: acceptAsIs,
  loginTimeoutMs: 20_000,
  authorize: async (authorizationUrl) => {
    const response = await fetch(authorizationUrl, { redirect: "follow" });
    await response.body?.cancel();
  },
});

function argumentsFor(tool) {
  if (tool.name === "add_numbers") return { a: 5, b: 3 };
  const out = {};
  for (const [name, schema] of Object.entries(tool.inputSchema?.properties ?? {})) {
    if (!(tool.inputSchema?.required ?? []).includes(name)) continue;
    out[name] =
      schema?.type === "number" || schema?.type === "integer"
        ? 1
        : schema?.type === "boolean"
          ? true
          : "test";
  }
  return out;
}

let exitCode = 0;
try {
  const tools = await manager.listTools("conformance");
  const wanted =
    scenario === "initialize"
      ? []
      : scenario === "tools_call"
        ? tools.filter((tool) => tool.toolName === "add_numbers")
        : tools.slice(0, 1);
  for (const tool of wanted) {
    const result = await manager.callTool(
      "conformance",
      tool.toolName,
      argumentsFor({ name: tool.toolName, inputSchema: tool.inputSchema }),
    );
    process.stdout.write(`${tool.toolName}: ${JSON.stringify(result.content)}\n`);
  }
} catch (error) {
  process.stderr.write(`agentforge client: ${error?.code ?? ""} ${error?.message ?? error}\n`);
  exitCode = 1;
} finally {
  await manager.closeAll();
  rmSync(temp, { recursive: true, force: true });
}
process.exit(exitCode);
