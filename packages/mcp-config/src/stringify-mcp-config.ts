import { stringify } from "yaml";
import { toolSearchInput } from "./internal/config-output.js";
import { MCP_CONFIG_SCHEMA_ID } from "./json-schema.js";
import type { MCPPermissionsConfig, MCPServerConfig } from "./schema.js";

function snakeKey(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function snake(value: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner !== undefined && key !== "configDir") out[snakeKey(key)] = inner;
  }
  return out;
}

/**
 * Write servers (and permissions) as mcp_servers.yaml text, with the `$schema` modeline. Use it to save
 * an imported `mcpServers` file in our format. The output parses back to the same configs.
 */
export function stringifyMCPConfig(config: {
  servers: readonly MCPServerConfig[];
  permissions?: MCPPermissionsConfig;
}): string {
  const servers = config.servers.map((server) => {
    const entry = snake(server);
    if (server.transport === "http") {
      if (server.auth.type === "none") delete entry.auth;
      else entry.auth = snake(server.auth);
      if (Object.keys(server.headers).length === 0) delete entry.headers;
    } else {
      if (server.args.length === 0) delete entry.args;
      if (Object.keys(server.env).length === 0) delete entry.env;
    }
    return entry;
  });
  const document: Record<string, unknown> = { servers };
  if (config.permissions && Object.keys(config.permissions).length > 0) {
    // The file's keys are snake_case: `toolSearch` is written as `tool_search`, `confirmDestructive` as
    // `confirm_destructive`.
    const permissions: Record<string, unknown> = {};
    for (const [agent, grant] of Object.entries(config.permissions)) {
      const { toolSearch, confirmDestructive, ...rest } = grant;
      permissions[agent] = {
        ...rest,
        ...(confirmDestructive === undefined ? {} : { confirm_destructive: confirmDestructive }),
        ...(toolSearch === undefined ? {} : { tool_search: toolSearchInput(toolSearch) }),
      };
    }
    document.permissions = permissions;
  }
  return `# yaml-language-server: $schema=${MCP_CONFIG_SCHEMA_ID}\n${stringify(document, { lineWidth: 0 })}`;
}
