import type { MCPToolSearchConfig, MCPToolSearchMode } from "@agentforge/mcp-config";
import { permissionPatternProblem } from "@agentforge/mcp-config";

export type { MCPToolSearchConfig, MCPToolSearchMode };

/**
 * Tool search as a loop applies it, every field filled in. `mode`: `auto` turns search on when the
 * agent's granted tools exceed `threshold` (either figure), `on` always, `off` never.
 */
export interface MCPToolSearchSettings {
  mode: MCPToolSearchMode;
  /** `auto` turns search on above `tools` granted tools or `chars` characters of their definitions. */
  threshold: { tools: number; chars: number };
  /** Tool patterns (`server.tool`, `server.*`) bound from the start, besides `search_tools`; grants nothing. */
  alwaysLoad: string[];
  /** Searches a run may make; later ones are refused (SEARCH_LIMIT_REACHED). */
  maxSearches: number;
}

/**
 * What a caller may give as `toolSearch`: a mode (`"auto"`, `"on"`, `"off"`), or settings where any
 * field left out comes from the agent's `tool_search:` in the roster, else `MCP_TOOL_SEARCH_DEFAULTS`.
 */
export type MCPToolSearchOption = MCPToolSearchMode | MCPToolSearchConfig;

/** The defaults: `auto` above 30 tools or 40,000 characters of definitions, nothing always loaded, 3 searches. */
export const MCP_TOOL_SEARCH_DEFAULTS: Readonly<MCPToolSearchSettings> = Object.freeze({
  mode: "auto",
  threshold: Object.freeze({ tools: 30, chars: 40_000 }) as { tools: number; chars: number },
  alwaysLoad: Object.freeze([]) as unknown as string[],
  maxSearches: 3,
});

const MODES: readonly string[] = ["auto", "on", "off"];

function count(value: unknown, field: string, min: number, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${where}: ${field} must be an integer >= ${min}, got ${String(value)}`);
  }
  return value;
}

/**
 * Settings from layers, later ones overriding earlier ones field by field (a mode string overrides the
 * mode only). Checks what it is given: a wrong value throws a TypeError or RangeError naming the field.
 */
export function resolveToolSearchSettings(
  layers: readonly (MCPToolSearchOption | undefined)[],
  where = "toolSearch",
): MCPToolSearchSettings {
  const out: MCPToolSearchSettings = {
    mode: MCP_TOOL_SEARCH_DEFAULTS.mode,
    threshold: { ...MCP_TOOL_SEARCH_DEFAULTS.threshold },
    alwaysLoad: [],
    maxSearches: MCP_TOOL_SEARCH_DEFAULTS.maxSearches,
  };
  for (const layer of layers) {
    if (layer === undefined) continue;
    if (typeof layer === "string") {
      if (!MODES.includes(layer)) {
        throw new TypeError(
          `${where}: expected "auto", "on", "off" or settings, got ${JSON.stringify(layer)}`,
        );
      }
      out.mode = layer;
      continue;
    }
    if (typeof layer !== "object" || layer === null || Array.isArray(layer)) {
      throw new TypeError(`${where}: expected "auto", "on", "off" or an object of settings`);
    }
    if (layer.mode !== undefined) {
      if (!MODES.includes(layer.mode)) {
        throw new TypeError(
          `${where}: mode must be "auto", "on" or "off", got ${JSON.stringify(layer.mode)}`,
        );
      }
      out.mode = layer.mode;
    }
    if (layer.threshold !== undefined) {
      if (typeof layer.threshold !== "object" || layer.threshold === null) {
        throw new TypeError(`${where}: threshold must be { tools?, chars? }`);
      }
      if (layer.threshold.tools !== undefined) {
        out.threshold.tools = count(layer.threshold.tools, "threshold.tools", 0, where);
      }
      if (layer.threshold.chars !== undefined) {
        out.threshold.chars = count(layer.threshold.chars, "threshold.chars", 0, where);
      }
    }
    if (layer.alwaysLoad !== undefined) {
      if (!Array.isArray(layer.alwaysLoad)) {
        throw new TypeError(`${where}: alwaysLoad must be a list of tool patterns`);
      }
      layer.alwaysLoad.forEach((pattern, i) => {
        const problem = typeof pattern === "string" ? permissionPatternProblem(pattern) : "expected a string";
        if (problem) throw new TypeError(`${where}: alwaysLoad[${i}]: ${problem}`);
      });
      out.alwaysLoad = [...layer.alwaysLoad];
    }
    if (layer.maxSearches !== undefined) {
      out.maxSearches = count(layer.maxSearches, "maxSearches", 1, where);
    }
  }
  return out;
}

/** One search a loop made (or refused): plain data, safe to store and log — never the query. */
export interface MCPToolSearchRecord {
  /** The model's tool_call_id of the `search_tools` call. */
  toolCallId: string;
  /** 1-based round it belongs to (a turn of searches only does not use up a round). */
  round: number;
  /** Length of the query in characters. */
  queryLength: number;
  /** The identities found (`<server>.<tool>`), best first. */
  found: string[];
  ok: boolean;
  /** When `ok` is false: SEARCH_LIMIT_REACHED, INVALID_ARGUMENTS or SEARCH_FAILED. */
  errorCode?: string;
  /** Whether it counted against `maxSearches` (a refused search does not). */
  counted: boolean;
}

/**
 * What tool search keeps in a run's state (plain serializable data): the tools found so far, bound from
 * the turn after they were found, and the searches made. Present in `ToolLoopState.toolSearch` when
 * search is on for the run; a resumed run carries on with it (each tool still checked by the policy).
 */
export interface MCPToolSearchState {
  /** Identities found by search, in the order found (each once). */
  loaded: string[];
  searches: MCPToolSearchRecord[];
}
