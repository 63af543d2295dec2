import type { DiscoveredTool, MCPClientManager, MCPDiscoveryResult } from "@agentforge/mcp-client";
import { reportListenerError } from "@agentforge/mcp-config";
import type { MCPDuplicateToolError, MCPToolRegistry } from "@agentforge/mcp-permissions";

/** A server whose tool list the registry rejected (none of its tools are registered). */
export interface MCPRejectedServer {
  serverName: string;
  error: MCPDuplicateToolError;
}

/** What `registerDiscovered` did. */
export interface RegisterDiscoveredResult {
  /** Servers whose tools are registered now. */
  registered: string[];
  /** Servers whose tool list was rejected (e.g. a tool name listed twice); the others are unaffected. */
  rejected: MCPRejectedServer[];
}

/** Options of `syncRegistry`. */
export interface SyncRegistryOptions {
  /** Called when a server's new tool list is rejected (also on `registry.on("serverRejected")`). */
  onRejected?: (rejected: MCPRejectedServer) => void;
  /**
   * Called when updating the registry failed in any other way; it never reaches the manager. Default: a
   * process warning (`process.emitWarning`) naming the server — never silence. (A toolkit reports it as
   * an `MCP_INTERNAL_ERROR` event, REGISTRY_SYNC_FAILED.)
   */
  onError?: (error: unknown, serverName: string) => void;
}

/**
 * Keep a registry in step with a client manager: every `toolsChanged` (list_changed notifications,
 * reconnects, refreshes, reloads) replaces that server's tools, so definition changes are fingerprinted
 * and reported. Nothing a server lists can throw out of the listener (which would reach the host): a
 * list with a duplicate tool name rejects that server's tools (see `MCPToolRegistry.replaceServer`) and
 * is reported to `onRejected`. Returns the function that stops syncing.
 */
export function syncRegistry(
  manager: Pick<MCPClientManager, "on">,
  registry: MCPToolRegistry,
  options: SyncRegistryOptions = {},
): () => void {
  const onChanged = (event: { serverName: string; tools: DiscoveredTool[] }) => {
    try {
      const tools = Array.isArray(event.tools) ? event.tools : [];
      const error = registry.replaceServer(event.serverName, tools).rejected;
      if (error) options.onRejected?.({ serverName: event.serverName, error });
    } catch (error) {
      if (!options.onError) {
        reportListenerError(error, `syncRegistry toolsChanged of server "${String(event?.serverName)}"`);
        return;
      }
      try {
        options.onError(error, event.serverName);
      } catch (handlerError) {
        // A failing error handler must not reach the manager either; both failures are still reported.
        reportListenerError(error, `syncRegistry toolsChanged of server "${String(event?.serverName)}"`);
        reportListenerError(handlerError, "syncRegistry onError");
      }
    }
  };
  return manager.on("toolsChanged", onChanged);
}

/**
 * Register everything a `discoverAll` found (each server's tools replace what the registry had). Never
 * throws for what servers listed: a server whose list the registry rejects is reported in `rejected`,
 * and every other server is registered.
 */
export function registerDiscovered(
  registry: MCPToolRegistry,
  discovery: MCPDiscoveryResult,
): RegisterDiscoveredResult {
  const byServer = new Map<string, DiscoveredTool[]>();
  for (const server of discovery.servers) if (server.status === "ok") byServer.set(server.serverName, []);
  for (const tool of discovery.tools) byServer.get(tool.serverName)?.push(tool);
  const result: RegisterDiscoveredResult = { registered: [], rejected: [] };
  for (const [serverName, tools] of byServer) {
    const error = registry.replaceServer(serverName, tools).rejected;
    if (error) result.rejected.push({ serverName, error });
    else result.registered.push(serverName);
  }
  return result;
}
