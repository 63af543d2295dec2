// Turning validated file data (snake_case, as the schema outputs it) into the camelCase config.
// Free of zod: shared by the zod path and the fast path.
import type {
  MCPAuthConfig,
  MCPPatternLists,
  MCPPermissionsConfig,
  MCPServerConfig,
  MCPToolSearchConfig,
} from "../schema.js";

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
  if (Array.isArray(value)) return { allow: value, deny: [] };
  return {
    allow: value.allow,
    deny: value.deny,
    ...(value.confirm === undefined ? {} : { confirm: value.confirm }),
  };
}

/** `tool_search:` as written (snake_case, validated). */
export interface ToolSearchInput {
  mode?: MCPToolSearchConfig["mode"];
  threshold?: { tools?: number; chars?: number };
  always_load?: string[];
  max_searches?: number;
}

/** `tool_search:` in camelCase, with only the fields given. */
export function toolSearchConfig(input: ToolSearchInput): MCPToolSearchConfig {
  const out: MCPToolSearchConfig = {};
  if (input.mode !== undefined) out.mode = input.mode;
  if (input.threshold !== undefined) {
    out.threshold = {
      ...(input.threshold.tools === undefined ? {} : { tools: input.threshold.tools }),
      ...(input.threshold.chars === undefined ? {} : { chars: input.threshold.chars }),
    };
  }
  if (input.always_load !== undefined) out.alwaysLoad = input.always_load;
  if (input.max_searches !== undefined) out.maxSearches = input.max_searches;
  return out;
}

/** `toolSearch` back in the file's snake_case (for writing a config). */
export function toolSearchInput(config: MCPToolSearchConfig): ToolSearchInput {
  const out: ToolSearchInput = {};
  if (config.mode !== undefined) out.mode = config.mode;
  if (config.threshold !== undefined) out.threshold = { ...config.threshold };
  if (config.alwaysLoad !== undefined) out.always_load = config.alwaysLoad;
  if (config.maxSearches !== undefined) out.max_searches = config.maxSearches;
  return out;
}

/** The `permissions:` section with every list form turned into `{ allow, deny, confirm? }`. */
export function normalizePermissions(
  section: Record<
    string,
    | string[]
    | (MCPPatternLists & {
        resources?: PatternListsInput;
        prompts?: PatternListsInput;
        tool_search?: ToolSearchInput;
        confirm_destructive?: boolean;
      })
  >,
): MCPPermissionsConfig {
  const permissions: MCPPermissionsConfig = {};
  for (const [agent, grant] of Object.entries(section)) {
    if (Array.isArray(grant)) {
      permissions[agent] = { allow: grant, deny: [] };
      continue;
    }
    const { allow, deny, confirm, confirm_destructive, resources, prompts, tool_search } = grant;
    permissions[agent] = {
      allow,
      deny,
      ...(confirm === undefined ? {} : { confirm }),
      ...(confirm_destructive === undefined ? {} : { confirmDestructive: confirm_destructive }),
      ...(resources === undefined ? {} : { resources: patternLists(resources) }),
      ...(prompts === undefined ? {} : { prompts: patternLists(prompts) }),
      ...(tool_search === undefined ? {} : { toolSearch: toolSearchConfig(tool_search) }),
    };
  }
  return permissions;
}
