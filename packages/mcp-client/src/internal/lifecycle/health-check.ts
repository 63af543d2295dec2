/** One server's health: ping and tools/list, the cached result, `healthChanged` on a status change. */
import { MCPError } from "@agentforge/mcp-config";
import { MCPTimeoutError } from "../../errors.js";
import type { MCPServerHealth } from "../../types.js";
import type { ConnectionCore } from "../connection/connection-types.js";
import type { ToolCache } from "../tools/tool-cache.js";
import { isSdkTimeout } from "./classify-error.js";

/** Checks one server and keeps the last result. */
export class HealthMonitor {
  /** Last health check. */
  health: MCPServerHealth | undefined;

  constructor(
    private readonly core: ConnectionCore,
    private readonly cache: ToolCache,
  ) {}

  private get connectionTimeoutMs(): number {
    return this.core.config.connectionTimeout * 1000;
  }

  /** Ping and list tools; cache and return the result. A hanging ping recycles the connection. */
  async healthCheck(): Promise<MCPServerHealth> {
    const checkedAt = new Date().toISOString();
    const started = performance.now();
    let health: MCPServerHealth;
    if (!this.core.config.enabled) {
      health = {
        serverName: this.core.config.name,
        status: "disabled",
        latencyMs: null,
        toolCount: null,
        checkedAt,
      };
    } else {
      try {
        const live = await this.core.ensure();
        const timeoutMs = this.core.settings.healthTimeoutMs ?? this.connectionTimeoutMs;
        const pingStarted = performance.now();
        try {
          // 2026-07-28 has no ping: server/discover is its cheapest round trip.
          if (live.client.getProtocolEra() === "modern") await live.client.discover({ timeout: timeoutMs });
          else await live.client.ping({ timeout: timeoutMs });
        } catch (error) {
          if (!isSdkTimeout(error)) throw error;
          await this.core.close("recycled");
          throw new MCPTimeoutError(
            `MCP server "${this.core.config.name}" did not answer ping within ${timeoutMs} ms; its connection was recycled (the next use reconnects).`,
            {
              code: "REQUEST_TIMEOUT",
              serverName: this.core.config.name,
              method: "ping",
              timeoutMs,
              elapsedMs: timeoutMs,
            },
          );
        }
        const latencyMs = performance.now() - pingStarted;
        const tools = await this.cache.listTools();
        const protocolVersion = live.client.getNegotiatedProtocolVersion();
        health = {
          serverName: this.core.config.name,
          status: "healthy",
          latencyMs,
          toolCount: tools.length,
          ...(protocolVersion ? { protocolVersion } : {}),
          checkedAt,
        };
      } catch (error) {
        const mapped = MCPError.isInstance(error)
          ? error
          : this.core.failed(error, this.core.live, {
              method: "ping",
              timeoutMs: this.connectionTimeoutMs,
              started,
              cancelled: false,
              totalTimeoutMs: undefined,
            });
        health = {
          serverName: this.core.config.name,
          status: "unhealthy",
          latencyMs: performance.now() - started,
          toolCount: this.cache.tools?.length ?? null,
          error: mapped.message,
          errorCode: mapped.code,
          checkedAt,
        };
      }
    }
    const previous = this.health;
    this.health = health;
    if (!previous || previous.status !== health.status) {
      this.core.emit("healthChanged", {
        serverName: this.core.config.name,
        health,
        ...(previous ? { previous } : {}),
      });
    }
    return health;
  }
}
