/**
 * One server's tool cache: `tools/list` with pagination read loosely, the last list, `toolsChanged` on
 * a difference, and the coalesced background refresh on `notifications/tools/list_changed` (2025) or
 * the same notification on a `subscriptions/listen` stream (2026-07-28). A list the server marked
 * reusable (`ttlMs`/`cacheScope`) is served from the connection's `ListCache` while it is fresh.
 */
import type { Tool } from "@modelcontextprotocol/client";
import { PaginatedResultSchema } from "@modelcontextprotocol/core";
import type { DiscoveredTool } from "../../discover-tools.js";
import { MCPRequestError } from "../../errors.js";
import type { ConnectionCore, Live } from "../connection/connection-types.js";
import { type CacheHint, cacheHintOf, combineHints, type ListCache } from "./list-cache.js";
import { SCHEMA_VALIDATOR } from "./schema-validator.js";
import { diffTools, flagTasksUnsupported, hasChanges, readTools } from "./tool-definitions.js";

const MAX_TOOL_PAGES = 1000;
/** A tool list that changed again while it was being fetched is fetched once the server is this quiet... */
const REFRESH_QUIET_MS = 300;
/** ...or this long after the first of those changes, whichever comes first. */
const REFRESH_MAX_WAIT_MS = 5000;

/** A compiled output-schema check: `undefined` when the value matches, else what is wrong. */
export type OutputCheck = (value: unknown) => string | undefined;

/** The SDK's JSON Schema validator compiled for `schema`, or `undefined` when it cannot be compiled. */
function compile(schema: NonNullable<Tool["outputSchema"]>): OutputCheck | undefined {
  try {
    const validate = SCHEMA_VALIDATOR.getValidator(
      schema as Parameters<typeof SCHEMA_VALIDATOR.getValidator>[0],
    );
    return (value) => {
      const result = validate(value);
      return result.valid ? undefined : (result.errorMessage ?? "it does not match");
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether a tool's input schema carries an `x-mcp-header` annotation anywhere (SEP-2243). Only such a
 * tool needs the SDK's `callTool`, which mirrors the annotated arguments into `Mcp-Param-*` headers; the
 * walk is conservative (any position counts) so the SDK's own scan decides every doubtful schema.
 */
export function declaresHeaders(schema: unknown, depth = 0): boolean {
  if (typeof schema !== "object" || schema === null || depth > 64) return false;
  if (Array.isArray(schema)) return schema.some((item) => declaresHeaders(item, depth + 1));
  if (Object.hasOwn(schema, "x-mcp-header")) return true;
  return Object.values(schema).some((value) => declaresHeaders(value, depth + 1));
}

/** The tools of one server, as last discovered. */
export class ToolCache {
  /** Last discovered tools (undefined until the first discovery). */
  tools: DiscoveredTool[] | undefined;

  private definitions = new Map<string, Tool>();
  private outputChecks = new Map<string, OutputCheck>();
  private headerTools = new Set<string>();
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private lastChangeAt = 0;
  private firstPendingAt: number | undefined;
  /** The raw list `tools` was read from (a cache hit on it needs no new reading). */
  private appliedRaw: unknown[] | undefined;

  constructor(
    private readonly core: ConnectionCore,
    private readonly lists: ListCache,
  ) {}

  private get connectionTimeoutMs(): number {
    return this.core.config.connectionTimeout * 1000;
  }

  /** Every tool of the server (all pages); updates the cache and fires `toolsChanged` on a difference. */
  async listTools(signal?: AbortSignal, emitOnFirst = false): Promise<DiscoveredTool[]> {
    const live = await this.core.ensure(signal);
    const cached = this.lists.get(live, "tools/list", "", await live.built.credential());
    if (Array.isArray(cached)) return this.apply(cached, emitOnFirst, live);
    const started = performance.now();
    const timeoutMs = this.connectionTimeoutMs;
    const raw: unknown[] = [];
    const hints: Array<CacheHint | undefined> = [];
    try {
      let cursor: string | undefined;
      const seen = new Set<string>();
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        // Read loosely: one tool with a malformed schema must not make the whole list fail.
        const params = cursor === undefined ? {} : { params: { cursor } };
        const result = await this.core.withLogin(live, signal, () =>
          live.client.request({ method: "tools/list", ...params }, PaginatedResultSchema, {
            timeout: timeoutMs,
            ...(signal ? { signal } : {}),
          }),
        );
        const tools = (result as { tools?: unknown }).tools;
        if (!Array.isArray(tools)) {
          throw new MCPRequestError(
            `MCP server "${this.core.config.name}" answered tools/list without a tools array; its tools could not be read.`,
            { code: "INVALID_REPLY", serverName: this.core.config.name, method: "tools/list" },
          );
        }
        for (const tool of tools) raw.push(tool);
        hints.push(cacheHintOf(result));
        cursor = result.nextCursor;
        if (cursor === undefined) break;
        if (seen.has(cursor)) {
          throw new MCPRequestError(
            `MCP server "${this.core.config.name}" returned the tools/list cursor ${JSON.stringify(cursor)} twice; pagination stopped.`,
            { code: "INVALID_REPLY", serverName: this.core.config.name, method: "tools/list" },
          );
        }
        seen.add(cursor);
      }
    } catch (error) {
      throw this.core.failed(error, live, {
        method: "tools/list",
        timeoutMs,
        started,
        cancelled: signal?.aborted ?? false,
        totalTimeoutMs: undefined,
      });
    }
    // Kept under the credential in use now: a token refreshed during the fetch is the one that got it.
    this.lists.set(live, "tools/list", "", await live.built.credential(), raw, combineHints(hints));
    return this.apply(raw, emitOnFirst, live);
  }

  /** Read `raw` into the tool list (task-only tools flagged on a 2026-07-28 connection) and announce changes. */
  private apply(raw: unknown[], emitOnFirst: boolean, live: Live): DiscoveredTool[] {
    if (raw === this.appliedRaw && this.tools) return this.tools;
    const { tools, valid } = readTools(this.core.config.name, raw);
    if (live.client.getProtocolEra() === "modern") flagTasksUnsupported(tools);
    this.cacheValidators(valid, tools);
    this.updateTools(tools, emitOnFirst);
    this.appliedRaw = raw;
    return tools;
  }

  /** The definition of a tool as the server listed it (what the SDK checks a call's result against). */
  definition(toolName: string): Tool | undefined {
    return this.definitions.get(toolName);
  }

  /** Whether the tool's input schema annotates parameters to mirror into `Mcp-Param-*` headers. */
  mirrorsHeaders(toolName: string): boolean {
    return this.headerTools.has(toolName);
  }

  /** The compiled output-schema check of a tool, when it declares one that compiles. */
  outputCheck(toolName: string): OutputCheck | undefined {
    return this.outputChecks.get(toolName);
  }

  // Keep the definitions of the whole list for callTool's `toolDefinition`; an output schema that cannot
  // be compiled (e.g. a $ref loop) is left out of it and flagged, instead of failing every call.
  private cacheValidators(valid: Tool[], tools: DiscoveredTool[]): void {
    const definitions = new Map<string, Tool>();
    const checks = new Map<string, OutputCheck>();
    const headerTools = new Set<string>();
    for (const tool of valid) {
      if (declaresHeaders(tool.inputSchema)) headerTools.add(tool.name);
      const check = tool.outputSchema ? compile(tool.outputSchema) : undefined;
      if (check) checks.set(tool.name, check);
      if (tool.outputSchema && !check) {
        const { outputSchema: _dropped, ...rest } = tool;
        definitions.set(tool.name, rest as Tool);
        for (const discovered of tools) {
          if (discovered.toolName !== tool.name) continue;
          discovered.problems = [
            ...(discovered.problems ?? []),
            {
              code: "OUTPUT_SCHEMA_INVALID",
              message: "outputSchema cannot be compiled; results are not checked against it",
            },
          ];
        }
        continue;
      }
      definitions.set(tool.name, tool);
    }
    this.definitions = definitions;
    this.outputChecks = checks;
    this.headerTools = headerTools;
  }

  private updateTools(tools: DiscoveredTool[], emitOnFirst: boolean): void {
    const previous = this.tools;
    this.tools = tools;
    if (previous === undefined && !emitOnFirst) return;
    const diff = diffTools(previous ?? [], tools);
    if (hasChanges(diff))
      this.core.emit("toolsChanged", { serverName: this.core.config.name, tools, ...diff });
  }

  /** Forget the tool list and announce that the server has none (removed or disabled). */
  clearTools(): void {
    const previous = this.tools;
    this.tools = undefined;
    this.appliedRaw = undefined;
    this.lists.invalidate(["tools/list"]);
    if (previous?.length) {
      this.core.emit("toolsChanged", {
        serverName: this.core.config.name,
        tools: [],
        added: [],
        removed: previous.map((tool) => tool.toolName),
        changed: [],
      });
    }
  }

  /**
   * Re-fetch the tool list in the background. The first change is fetched at once; changes that arrive
   * while a fetch is in flight are coalesced into one more fetch, made once the server has been quiet
   * for REFRESH_QUIET_MS (or REFRESH_MAX_WAIT_MS after the first of them, for a server that never stops),
   * so a storm of list_changed costs a handful of tools/list, not one per notification.
   */
  refreshTools(emitOnFirst: boolean): void {
    this.lists.invalidate(["tools/list"]);
    this.lastChangeAt = Date.now();
    if (this.refreshing) {
      this.refreshAgain = true;
      this.firstPendingAt ??= this.lastChangeAt;
      return;
    }
    // Runs from a notification handler: nothing here may reject (that would be an unhandled rejection).
    this.refreshing = (async () => {
      try {
        do {
          this.refreshAgain = false;
          this.firstPendingAt = undefined;
          if (!this.core.live) break;
          await this.listTools(undefined, emitOnFirst).catch(() => {});
          if (this.refreshAgain) await this.quietPeriod();
        } while (this.refreshAgain);
      } catch {
        // listTools already maps its failures; a failed background refresh leaves the cache as it was.
      } finally {
        this.refreshing = undefined;
      }
    })();
  }

  private async quietPeriod(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const wait = Math.min(
        this.lastChangeAt + REFRESH_QUIET_MS - now,
        (this.firstPendingAt ?? now) + REFRESH_MAX_WAIT_MS - now,
      );
      if (wait <= 0 || !this.core.live) return;
      await new Promise<void>((resolve) => setTimeout(resolve, wait).unref());
    }
  }
}
