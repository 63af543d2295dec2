import {
  type MCPConfig,
  MCPConfigError,
  type MCPServerConfig,
  parseMCPConfigObject,
} from "@agentforge/mcp-config";
import type { MCPToolkitConfig } from "../mcp-toolkit.js";

const SOURCE = "createMCPToolkit config";

function isParsedConfig(config: MCPToolkitConfig): config is MCPConfig {
  const c = config as Partial<MCPConfig>;
  return typeof c.format === "string" && Array.isArray(c.variables) && Array.isArray(c.servers);
}

/**
 * A roster written in code, validated exactly like a file: `parseMCPConfigObject` runs the file's own
 * checks, defaults and messages on the object (no YAML round trip).
 */
export function parseToolkitConfig(
  config: MCPToolkitConfig,
  options: { configDir?: string } = {},
): MCPConfig {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new MCPConfigError(
      "createMCPToolkit: `config` must be a parsed config or an object with a `servers` list (a file path needs @agentforge/agent-runtime/node)",
      { code: "CONFIG_INVALID", source: SOURCE },
    );
  }
  if (isParsedConfig(config)) return config;
  return parseMCPConfigObject(config, {
    source: SOURCE,
    ...(options.configDir !== undefined ? { configDir: options.configDir } : {}),
  });
}

/** The enabled servers to run: all of the config's, or those named in `only`. */
export function selectServers(config: MCPConfig, only: readonly string[] | undefined): MCPServerConfig[] {
  if (!only) return config.servers;
  const known = new Set(config.servers.map((s) => s.name));
  const unknown = only.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new MCPConfigError(
      `createMCPToolkit: \`servers\` names ${unknown.map((n) => `"${n}"`).join(", ")}, which the config does not define (it defines: ${[...known].join(", ") || "none"})`,
      { code: "CONFIG_INVALID", source: SOURCE },
    );
  }
  const wanted = new Set(only);
  return config.servers.filter((s) => wanted.has(s.name));
}
