import type { DiscoveredTool, MCPClientManager, MCPDiscoveryResult } from "@agentforge/mcp-client";
import type { MCPToolRegistry } from "@agentforge/mcp-permissions";

/**
 * Keep a registry in step with a client manager: every `toolsChanged` (list_changed notifications,
 * reconnects, refreshes, reloads) replaces that server's tools, so definition changes are fingerprinted
 * and reported. Returns the function that stops syncing.
 */
export function syncRegistry(
  manager: Pick<MCPClientManager, "on" | "off">,
  registry: MCPToolRegistry,
): () => void {
  const onChanged = (event: { serverName: string; tools: DiscoveredTool[] }) => {
    registry.replaceServer(event.serverName, event.tools);
  };
  manager.on("toolsChanged", onChanged);
  return () => {
    manager.off("toolsChanged", onChanged);
  };
}

/** Register everything a `discoverAll` found (each server's tools replace what the registry had). */
export function registerDiscovered(registry: MCPToolRegistry, discovery: MCPDiscoveryResult): void {
  const byServer = new Map<string, DiscoveredTool[]>();
  for (const server of discovery.servers) if (server.status === "ok") byServer.set(server.serverName, []);
  for (const tool of discovery.tools) byServer.get(tool.serverName)?.push(tool);
  for (const [server, tools] of byServer) registry.replaceServer(server, tools);
}
