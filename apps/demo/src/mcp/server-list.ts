import { resolve } from "node:path";
import { loadMCPConfig } from "@agentforge/mcp-config/node";
import { SHIPPED_CONFIG } from "../app/shipped-config.js";
import { HealthStore } from "./health-store.js";
import type { MCPManagementOptions } from "./mcp-management.js";
import { type ServerView, serverView } from "./mcp-views.js";
import { type SecretRedactor, secretRedactor } from "./secret-redactor.js";

/** Variables the management surface sets itself for the shipped roster (not secrets). */
export const MANAGED_VARIABLES = ["AGENTFORGE_WORKSPACE", "AGENTFORGE_DISABLE_THOUGHT_LOGGING"] as const;

/** The view of `mcp list`: the config file and every server in it. */
export interface ServerListView {
  /** Absolute path of the config file. */
  config: string;
  servers: ServerView[];
}

/** The configured servers and their last known health, without starting anything (`mcp list`). */
export async function listServers(
  options: MCPManagementOptions = {},
): Promise<{ view: ServerListView; redactor: SecretRedactor }> {
  const configPath = resolve(options.configPath ?? SHIPPED_CONFIG);
  const config = await loadMCPConfig(configPath);
  const health = new HealthStore(options.stateDir ?? ".agentforge", configPath).load();
  const env = options.env ?? process.env;
  return {
    view: {
      config: configPath,
      servers: config.servers.map((s) => serverView(s, health.get(s.name) ?? null)),
    },
    redactor: secretRedactor(config.servers, env, {
      extra: options.secrets ?? [],
      notSecret: MANAGED_VARIABLES,
    }),
  };
}
