// Deferred loading of a run's tools, shared by the tool loops (LangChain, AI SDK): whether search is on
// for the run, which tools are bound on the next model request, the `search_tools` tool itself, and the
// state a resumed run continues from. Plain data in and out; every found tool is still decided by the
// policy when it is bound and when it is called.
import { MCPError } from "@agentforge/mcp-config";
import { MCPPermissionPolicy, type MCPToolDescriptor } from "@agentforge/mcp-permissions";
import { cleanModelText } from "../clean-model-text.js";
import { MCPInvalidArgumentsError, MCPToolSearchError } from "../errors.js";
import { MCP_TOOLS_LEFT_OUT } from "../events.js";
import { MAX_MCP_TOOL_SEARCH_RESULTS, MCP_TOOL_SEARCH_RESULTS } from "../limits.js";
import type { MCPToolExecutor } from "../mcp-tool-executor.js";
import type { MCPToolNameMap } from "../mcp-tool-name-map.js";
import { toolErrorText } from "../tool-error-text.js";
import type {
  MCPToolSearchRecord,
  MCPToolSearchSettings,
  MCPToolSearchState,
} from "../tool-search-settings.js";
import { definitionChars, modelToolDescription } from "./model-tool-definition.js";

/** The name the search tool is given (unless a granted tool already has it). */
export const SEARCH_TOOL_NAME = "search_tools";

/** Longest description of a found tool in a search result. */
const RESULT_DESCRIPTION = 200;

/** The `search_tools` input schema: plain JSON Schema every provider accepts. */
export const SEARCH_TOOL_SCHEMA = {
  type: "object",
  properties: {
    query: {
      type: "string",
      description:
        'What you want to do, in a few words (e.g. "read a file", "create a GitHub issue", "elevation of a place").',
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: MAX_MCP_TOOL_SEARCH_RESULTS,
      description: `How many tools to return (default ${MCP_TOOL_SEARCH_RESULTS}).`,
    },
  },
  required: ["query"],
  additionalProperties: false,
} as const;

/** What a search call gives back to the model and to the loop. */
export interface SearchOutcome {
  ok: boolean;
  /** The text the model reads (an `Error (<CODE>): ...` text when `ok` is false). */
  text: string;
  record: MCPToolSearchRecord;
  /** The error, when `ok` is false. */
  error?: MCPError;
}

/** What is bound on the next model request. */
export interface BoundTools {
  tools: MCPToolDescriptor[];
  /** Whether `search_tools` is bound too (search is on and searches are left). */
  search: boolean;
}

export interface ToolSearchSessionOptions {
  executor: MCPToolExecutor;
  agent: string;
  /** Every tool the agent is granted (the loop's candidates, filtered by the policy). */
  granted: readonly MCPToolDescriptor[];
  settings: MCPToolSearchSettings;
  /** Names of every granted tool (the loop's map; `search_tools` gets a name that is not among them). */
  nameMap: MCPToolNameMap;
  /** Most tools on one model request (search_tools included). */
  maxTools: number;
  /** The saved state of the run: search stays on (with its found tools) when the run had it on. */
  resume?: { toolSearch?: MCPToolSearchState; started: boolean };
}

/** Characters of the definitions of `tools` as a model gets them (names from `nameMap`, which grows). */
export function definitionsChars(
  executor: MCPToolExecutor,
  tools: readonly MCPToolDescriptor[],
  nameMap: MCPToolNameMap,
): number {
  return tools.reduce(
    (sum, tool) =>
      sum +
      definitionChars(nameMap.add(tool.identity), modelToolDescription(tool), executor.inputSchemaOf(tool)),
    0,
  );
}

/** Why search is on or off for a run, in one line (for notes and docs). */
export function decide(
  options: Pick<ToolSearchSessionOptions, "settings" | "granted" | "resume">,
  chars: number,
): { active: boolean; reason: string } {
  const { settings, granted, resume } = options;
  if (resume?.toolSearch) return { active: true, reason: "the resumed run searched for its tools" };
  if (resume?.started) return { active: false, reason: "the resumed run was bound every granted tool" };
  if (settings.mode === "on") return { active: true, reason: 'tool search mode "on"' };
  if (settings.mode === "off") return { active: false, reason: 'tool search mode "off"' };
  const { tools, chars: maxChars } = settings.threshold;
  if (granted.length > tools) {
    return { active: true, reason: `${granted.length} granted tools are more than ${tools}` };
  }
  if (chars > maxChars) {
    return { active: true, reason: `${chars} characters of definitions are more than ${maxChars}` };
  }
  return { active: false, reason: `${granted.length} tools, ${chars} characters: under the threshold` };
}

export class ToolSearchSession {
  readonly active: boolean;
  /** Why search is on or off. */
  readonly reason: string;
  /** The model name of the search tool. */
  readonly searchName: string;
  readonly #options: ToolSearchSessionOptions;
  readonly #granted: Map<string, MCPToolDescriptor>;
  readonly #alwaysLoaded: MCPToolDescriptor[];
  readonly #loaded: string[];
  readonly #searches: MCPToolSearchRecord[];
  #leftOut = "";

  constructor(options: ToolSearchSessionOptions) {
    this.#options = options;
    const { executor, granted, settings, nameMap } = options;
    this.#granted = new Map(granted.map((tool) => [tool.identity, tool]));
    ({ active: this.active, reason: this.reason } = decide(
      options,
      definitionsChars(executor, granted, nameMap),
    ));
    let name = SEARCH_TOOL_NAME;
    for (let n = 2; nameMap.toIdentity(name) !== undefined; n++) name = `${SEARCH_TOOL_NAME}_${n}`;
    this.searchName = name;
    // always_load patterns select among the granted tools only (the same matching as grants).
    const always = new MCPPermissionPolicy({ always_load: settings.alwaysLoad });
    this.#alwaysLoaded = this.active ? always.allowedTools("always_load", granted) : [];
    const saved = options.resume?.toolSearch;
    this.#loaded = saved ? [...new Set(saved.loaded.filter((id) => typeof id === "string"))] : [];
    this.#searches = saved ? saved.searches.map((s) => ({ ...s, found: [...s.found] })) : [];
  }

  /** Searches still allowed in this run. */
  get searchesLeft(): number {
    if (!this.active) return 0;
    const used = this.#searches.filter((s) => s.counted).length;
    return Math.max(0, this.#options.settings.maxSearches - used);
  }

  /** The run's search state (plain data), for `ToolLoopState.toolSearch`; undefined when search is off. */
  state(): MCPToolSearchState | undefined {
    if (!this.active) return undefined;
    return {
      loaded: [...this.#loaded],
      searches: this.#searches.map((s) => ({ ...s, found: [...s.found] })),
    };
  }

  /**
   * The tools to bind on the next model request, at most `maxTools` with `search_tools`: with search
   * off, every granted tool; with search on, the always-loaded tools and those found so far (each still
   * granted now). When the limit cuts, an `MCP_TOOLS_LEFT_OUT` event says which and why (once per change).
   */
  bound(): BoundTools {
    const { executor, agent, maxTools } = this.#options;
    let wanted: MCPToolDescriptor[];
    if (!this.active) {
      wanted = [...this.#granted.values()];
    } else {
      const seen = new Set<string>();
      wanted = [];
      for (const tool of [...this.#alwaysLoaded, ...this.#loaded.map((id) => this.#granted.get(id))]) {
        if (tool && !seen.has(tool.identity)) {
          seen.add(tool.identity);
          wanted.push(tool);
        }
      }
      // Decided again now: a found tool whose grant was withdrawn since is not bound.
      wanted = executor.allowedTools(agent, wanted);
    }
    const search = this.searchesLeft > 0;
    const room = Math.max(0, maxTools - (search ? 1 : 0));
    let tools = wanted;
    let leftOut: MCPToolDescriptor[] = [];
    if (wanted.length > room) {
      if (this.active) {
        // The always-loaded tools first, then the most recently found.
        const always = wanted.filter((t) => this.#alwaysLoaded.includes(t));
        const found = wanted.filter((t) => !this.#alwaysLoaded.includes(t));
        const keepFound = found.slice(Math.max(0, found.length - Math.max(0, room - always.length)));
        const keep = new Set([...always.slice(0, room), ...keepFound]);
        tools = wanted.filter((t) => keep.has(t));
        leftOut = wanted.filter((t) => !keep.has(t));
      } else {
        tools = wanted.slice(0, room);
        leftOut = wanted.slice(room);
      }
    }
    this.#reportLeftOut(leftOut);
    return { tools, search };
  }

  #reportLeftOut(leftOut: MCPToolDescriptor[]): void {
    const key = leftOut.map((t) => t.identity).join("\n");
    if (key === this.#leftOut) return;
    this.#leftOut = key;
    if (leftOut.length === 0) return;
    const { executor, agent, maxTools } = this.#options;
    executor.events.emit(MCP_TOOLS_LEFT_OUT, {
      type: MCP_TOOLS_LEFT_OUT,
      agent,
      timestamp: new Date().toISOString(),
      identities: leftOut.map((t) => t.identity),
      limit: maxTools,
      reason: this.active
        ? `the always-loaded and found tools are more than the ${maxTools} a model request may carry; the earliest found were left out`
        : `agent "${agent}" is granted ${this.#granted.size} tools, more than the ${maxTools} a model request may carry; turn tool search on to reach all of them`,
    });
  }

  /** The description of `search_tools` as the model reads it. */
  searchDescription(): string {
    const { maxSearches } = this.#options.settings;
    return [
      `Search the tools you may use: there are ${this.#granted.size}, and only some are given to you now.`,
      "Describe what you want to do; the best matching tools are returned, and you can call them from your next turn on.",
      `You can search ${maxSearches} time${maxSearches === 1 ? "" : "s"} in this conversation.`,
    ].join(" ");
  }

  /**
   * Run one `search_tools` call of the model: refused (SEARCH_LIMIT_REACHED) when the run's searches are
   * used up, INVALID_ARGUMENTS (counted) when the arguments are not `{ query, limit? }`, else a search
   * through the executor among the granted tools; the tools found are bound from the next model turn on.
   */
  async search(
    args: unknown,
    round: number,
    toolCallId: string,
    signal?: AbortSignal,
  ): Promise<SearchOutcome> {
    const { executor, agent, nameMap } = this.#options;
    const query = (args as { query?: unknown } | null)?.query;
    const queryLength = typeof query === "string" ? query.length : 0;
    const fail = (error: MCPError, counted: boolean): SearchOutcome => {
      const record: MCPToolSearchRecord = {
        toolCallId,
        round,
        queryLength,
        found: [],
        ok: false,
        errorCode: error.code,
        counted,
      };
      this.#searches.push(record);
      return { ok: false, text: toolErrorText(error), record, error };
    };
    if (this.searchesLeft <= 0) {
      const { maxSearches } = this.#options.settings;
      return fail(
        executor.rejectSearch(
          agent,
          queryLength,
          new MCPToolSearchError(
            `Agent "${agent}" has used its ${maxSearches} tool search${maxSearches === 1 ? "" : "es"} for this run; use the tools found so far, or answer with what you have.`,
            { code: "SEARCH_LIMIT_REACHED", agent },
          ),
        ),
        false,
      );
    }
    const issues = searchArgumentIssues(args);
    if (issues.length > 0) {
      return fail(
        executor.rejectSearch(agent, queryLength, new MCPInvalidArgumentsError(this.searchName, issues)),
        true,
      );
    }
    const { limit } = args as { limit?: number };
    let hits: MCPToolDescriptor[];
    try {
      const result = await executor.searchTools(agent, query as string, {
        limit: limit ?? MCP_TOOL_SEARCH_RESULTS,
        tools: this.#granted.values(),
        ...(signal ? { signal } : {}),
      });
      hits = result.hits.map((h) => h.tool);
    } catch (error) {
      if (signal?.aborted || !MCPError.isInstance(error)) throw error;
      return fail(error, true);
    }
    const bound = new Set(this.bound().tools.map((t) => t.identity));
    for (const tool of hits) if (!this.#loaded.includes(tool.identity)) this.#loaded.push(tool.identity);
    const record: MCPToolSearchRecord = {
      toolCallId,
      round,
      queryLength,
      found: hits.map((t) => t.identity),
      ok: true,
      counted: true,
    };
    this.#searches.push(record);
    const left = this.searchesLeft;
    const lines =
      hits.length === 0
        ? ["No tool matched. Try other words: what the tool does, or what it acts on."]
        : [
            `Found ${hits.length} tool${hits.length === 1 ? "" : "s"}; call ${hits.length === 1 ? "it" : "them"} from your next turn on:`,
            ...hits.map((tool) => {
              const name = nameMap.add(tool.identity);
              const line = cleanModelText(modelToolDescription(tool)).replace(/\s+/g, " ").trim();
              const short =
                line.length > RESULT_DESCRIPTION ? `${line.slice(0, RESULT_DESCRIPTION - 1)}…` : line;
              return `- ${name}: ${short}${bound.has(tool.identity) ? " (already available)" : ""}`;
            }),
          ];
    lines.push(left > 0 ? `(${left} search${left === 1 ? "" : "es"} left)` : "(no searches left)");
    return { ok: true, text: lines.join("\n"), record };
  }
}

/** What is wrong with `search_tools` arguments: field paths and what was expected, never the values. */
function searchArgumentIssues(args: unknown): { path: string; message: string }[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return [{ path: "(root)", message: "expected an object { query, limit? }" }];
  }
  const issues: { path: string; message: string }[] = [];
  const { query, limit, ...rest } = args as Record<string, unknown>;
  if (typeof query !== "string" || query.trim() === "") {
    issues.push({ path: "query", message: "expected a non-empty string: what you want to do" });
  }
  if (
    limit !== undefined &&
    (typeof limit !== "number" ||
      !Number.isInteger(limit) ||
      limit < 1 ||
      limit > MAX_MCP_TOOL_SEARCH_RESULTS)
  ) {
    issues.push({ path: "limit", message: `expected an integer from 1 to ${MAX_MCP_TOOL_SEARCH_RESULTS}` });
  }
  for (const key of Object.keys(rest).slice(0, 5)) {
    // A key is model text: cleaned and bounded before it is quoted back.
    const path = cleanModelText(key).replace(/\s+/g, " ").slice(0, 64);
    issues.push({ path: path || "(unnamed)", message: "is not a parameter of search_tools (query, limit)" });
  }
  return issues;
}
