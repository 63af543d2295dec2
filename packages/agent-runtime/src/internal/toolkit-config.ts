import { type MCPConfig, MCPConfigError, type MCPServerConfig, parseMCPConfig } from "@agentforge/mcp-config";
import type { MCPToolkitConfig } from "../mcp-toolkit.js";

const SOURCE = "createMCPToolkit config";

function isParsedConfig(config: MCPToolkitConfig): config is MCPConfig {
  const c = config as Partial<MCPConfig>;
  return typeof c.format === "string" && Array.isArray(c.variables) && Array.isArray(c.servers);
}

/**
 * A roster written in code, validated exactly like a file: it is serialized and handed to
 * `parseMCPConfig`, so defaults, checks and messages are the file's own.
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
  let text: string | undefined;
  try {
    text = JSON.stringify(config, null, 2);
  } catch (error) {
    throw new MCPConfigError(
      "createMCPToolkit: `config` cannot be read as plain data (it holds a cycle or a BigInt); write servers as plain objects",
      { code: "CONFIG_INVALID", source: SOURCE, cause: error },
    );
  }
  try {
    return parseMCPConfig(text ?? "", {
      source: SOURCE,
      ...(options.configDir !== undefined ? { configDir: options.configDir } : {}),
    });
  } catch (error) {
    if (!MCPConfigError.isInstance(error) || error.issues.length === 0) throw error;
    // Lines and columns would point into the serialized text, not into the caller's code: keep the
    // field paths and messages (the file's own), drop the positions.
    const issues = error.issues.map(({ path, message }) => ({
      path,
      message: message.replace(/\(first used by (servers\[\d+\]) at line \d+\)/, "(first used by $1)"),
    }));
    throw new MCPConfigError(
      `Invalid MCP server config (${issues.length} problem${issues.length === 1 ? "" : "s"})`,
      { code: error.code, source: SOURCE, issues },
    );
  }
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
