import { ToolkitImpl } from "./internal/toolkit.js";
import { parseToolkitConfig } from "./internal/toolkit-config.js";
import type { CreateMCPToolkitOptions, MCPToolkit } from "./mcp-toolkit.js";

/**
 * Everything needed for policy-checked MCP tools in one step: starts nothing until tools are asked for
 * (or at once with `discover: "eager"`), keeps the registry in step with the servers (list_changed,
 * reconnects, reloads; a server's bad tool list is contained, never thrown), and checks the policy on
 * every call. Takes a parsed config or a roster written in code; `@agentforge/agent-runtime/node` also
 * takes a file path.
 */
export async function createMCPToolkit(options: CreateMCPToolkitOptions): Promise<MCPToolkit> {
  return ToolkitImpl.create(options, async (config) =>
    parseToolkitConfig(config, options.configDir !== undefined ? { configDir: options.configDir } : {}),
  );
}
