// Run by scripts/consumer-check.mjs inside a throw-away npm project with the packed tarball installed.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPConfigError, parseMCPConfig, resolvedAuthHeaders } from "@agentforge/mcp-config";
import * as core from "@agentforge/mcp-config/core";
import { loadMCPConfig, loadMCPServerConfigs } from "@agentforge/mcp-config/node";

const config = parseMCPConfig(
  "servers:\n  - {name: gh, enabled: true, transport: http, url: 'https://example.invalid/mcp', auth: {type: bearer, credential_env_var: GH}}\n",
);
assert.deepEqual(resolvedAuthHeaders(config.servers[0], { GH: "t" }), { Authorization: "Bearer t" });
assert.throws(
  () => parseMCPConfig("servers: [{name: 'a.b'}]"),
  (e) => MCPConfigError.isInstance(e) && e.code === "CONFIG_INVALID",
);

const dir = mkdtempSync(join(tmpdir(), "consumer-"));
writeFileSync(join(dir, "mcp.yaml"), "servers:\n  - {name: local, transport: stdio, command: node}\n");
const servers = await loadMCPServerConfigs(join(dir, "mcp.yaml"));
assert.equal(servers[0].configDir, dir);

// The zod-free entry shares the root's classes; an invalid file through /node loads the schema lazily.
assert.equal(core.MCPConfigError, MCPConfigError);
assert.deepEqual(core.configVariables(servers[0]), []);
writeFileSync(join(dir, "bad.yaml"), "servers:\n  - {name: local, transport: stdio}\n");
await assert.rejects(
  loadMCPConfig(join(dir, "bad.yaml")),
  (e) => core.MCPConfigError.isInstance(e) && e.path === "servers[0].command",
);

const schema = createRequire(import.meta.url)("@agentforge/mcp-config/schema.json");
assert.equal(schema.title, "AgentForge MCP server roster");
console.log("mcp-config (import): ok");
