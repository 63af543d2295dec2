/**
 * One server's tool cache: `tools/list` with pagination read loosely, the last list, `toolsChanged` on
 * a difference, and the coalesced background refresh on `notifications/tools/list_changed`.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { PaginatedResultSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { DiscoveredTool } from "../discover-tools.js";
import { MCPRequestError } from "../errors.js";
import type { ConnectionCore } from "./connection-types.js";
import { diffTools, hasChanges, readTools } from "./tools.js";

const MAX_TOOL_PAGES = 1000;
/** A tool list that changed again while it was being fetched is fetched once the server is this quiet... */
const REFRESH_QUIET_MS = 300;
/** ...or this long after the first of those changes, whichever comes first. */
const REFRESH_MAX_WAIT_MS = 5000;

/** The SDK's private cache of output-schema validators (filled by its own listTools). */
interface ToolMetadataCache {
  cacheToolMetadata(tools: Tool[]): void;
}

/** The tools of one server, as last discovered. */
export class ToolCache {
  /** Last discovered tools (undefined until the first discovery). */
  tools: DiscoveredTool[] | undefined;

  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private lastChangeAt = 0;
  private firstPendingAt: number | undefined;

  constructor(private readonly core: ConnectionCore) {}

  private get connectionTimeoutMs(): number {
    return this.core.config.connectionTimeout * 1000;
  }

  /** Every tool of the server (all pages); updates the cache and fires `toolsChanged` on a difference. */
  async listTools(signal?: AbortSignal, emitOnFirst = false): Promise<DiscoveredTool[]> {
    const live = await this.core.ensure(signal);
    const started = performance.now();
    const timeoutMs = this.connectionTimeoutMs;
    const raw: unknown[] = [];
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
    const { tools, valid } = readTools(this.core.config.name, raw);
    this.cacheValidators(live.client, valid, tools);
    this.updateTools(tools, emitOnFirst);
    return tools;
  }

  // Give the SDK the output schemas of the whole list (its own listTools keeps only the last page's);
  // a schema that cannot be compiled (e.g. a $ref loop) is left out and flagged instead of failing all.
  private cacheValidators(client: Client, valid: Tool[], tools: DiscoveredTool[]): void {
    const cache = client as unknown as ToolMetadataCache;
    if (typeof cache.cacheToolMetadata !== "function") return;
    try {
      cache.cacheToolMetadata(valid);
      return;
    } catch {
      // One schema does not compile: find which, below.
    }
    const good: Tool[] = [];
    for (const tool of valid) {
      try {
        cache.cacheToolMetadata([tool]);
        good.push(tool);
      } catch {
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
      }
    }
    try {
      cache.cacheToolMetadata(good);
    } catch {
      cache.cacheToolMetadata([]);
    }
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
