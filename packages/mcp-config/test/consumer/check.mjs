// Run by scripts/consumer-check.mjs inside a throw-away npm project with the packed tarball installed.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPConfigError, parseMCPConfig, resolvedAuthHeaders } from "@agentforge/mcp-config";
import { loadMCPServerConfigs } from "@agentforge/mcp-config/node";

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

const schema = createRequire(import.meta.url)("@agentforge/mcp-config/schema.json");
assert.equal(schema.title, "AgentForge MCP server roster");
console.log("mcp-config (import): ok");
