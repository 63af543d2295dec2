import { z } from "zod";
import { configFileSchema } from "./schema.js";

/** Where the shipped schema is published, for the `# yaml-language-server: $schema=` line. */
export const MCP_CONFIG_SCHEMA_ID = "https://unpkg.com/@agentforge/mcp-config/schema.json";

/**
 * The JSON Schema (draft 2020-12) of the config file format, generated from the zod schema. The same
 * document ships as `@agentforge/mcp-config/schema.json` so editors can validate mcp_servers.yaml.
 */
export function mcpConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configFileSchema, { io: "input", target: "draft-2020-12" });
  return {
    ...schema,
    $id: MCP_CONFIG_SCHEMA_ID,
    title: "AgentForge MCP server roster",
    description:
      "mcp_servers.yaml: the MCP servers an agent application may use and which agent may call which tool. Environment variables are referenced by NAME; secret values never belong in this file.",
  };
}
