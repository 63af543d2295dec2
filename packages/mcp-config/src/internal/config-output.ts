// Turning validated file data (snake_case, as the schema outputs it) into the camelCase config.
// Free of zod: shared by the zod path and the fast path.
import type { MCPAuthConfig, MCPPatternLists, MCPPermissionsConfig, MCPServerConfig } from "../schema.js";

function camelKey(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

function camelize<T extends object>(value: object): T {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner !== undefined) out[camelKey(key)] = inner;
  }
  return out as T;
}

export function toServerConfig(
  entry: Record<string, unknown>,
  configDir: string | undefined,
): MCPServerConfig {
  const server = camelize<Record<string, unknown>>(entry);
  if (server.transport === "http") server.auth = camelize<MCPAuthConfig>(entry.auth as object);
  if (configDir !== undefined) server.configDir = configDir;
  return server as unknown as MCPServerConfig;
}

type PatternListsInput = string[] | MCPPatternLists;

function patternLists(value: PatternListsInput): MCPPatternLists {
  return Array.isArray(value) ? { allow: value, deny: [] } : value;
}

/** The `permissions:` section with every list form turned into `{ allow, deny }`. */
export function normalizePermissions(
  section: Record<
    string,
    string[] | (MCPPatternLists & { resources?: PatternListsInput; prompts?: PatternListsInput })
  >,
): MCPPermissionsConfig {
  const permissions: MCPPermissionsConfig = {};
  for (const [agent, grant] of Object.entries(section)) {
    if (Array.isArray(grant)) {
      permissions[agent] = { allow: grant, deny: [] };
      continue;
    }
    const { allow, deny, resources, prompts } = grant;
    permissions[agent] = {
      allow,
      deny,
      ...(resources === undefined ? {} : { resources: patternLists(resources) }),
      ...(prompts === undefined ? {} : { prompts: patternLists(prompts) }),
    };
  }
  return permissions;
}
