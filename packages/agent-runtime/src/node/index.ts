// @agentforge/agent-runtime/node: the toolkit that also reads its config from a file. Node.js only.

import { type MCPConfig, MCPConfigError } from "@agentforge/mcp-config";
import { loadMCPConfig } from "@agentforge/mcp-config/node";
import { ToolkitImpl } from "../internal/toolkit.js";
import { parseToolkitConfig } from "../internal/toolkit-config.js";
import type { CreateMCPToolkitOptions, MCPToolkit, MCPToolkitConfig } from "../mcp-toolkit.js";

/** What the /node toolkit is built from: a config file path, a parsed config, or a roster in code. */
export type MCPToolkitConfigSource = string | MCPToolkitConfig;

/**
 * `createMCPToolkit` that also takes a config file path (YAML or JSON, our `servers:` list or an
 * `mcpServers` / VS Code file, read with `loadMCPConfig`); `reload` takes a path too.
 */
export async function createMCPToolkit(
  options: CreateMCPToolkitOptions<MCPToolkitConfigSource>,
): Promise<MCPToolkit<MCPToolkitConfigSource>> {
  return ToolkitImpl.create(options, async (config): Promise<MCPConfig> => {
    if (typeof config === "string") {
      if (config === "") {
        throw new MCPConfigError("createMCPToolkit: `config` is an empty path; give a YAML or JSON file", {
          code: "CONFIG_NOT_FOUND",
        });
      }
      return loadMCPConfig(config);
    }
    return parseToolkitConfig(
      config,
      options.configDir !== undefined ? { configDir: options.configDir } : {},
    );
  });
}
