// A real stack for e2e tests: test MCP servers as child processes, a client manager, the registry
// filled by discovery, a policy and an executor. `cleanup()` closes everything (call it in afterEach).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { discoverAll, MCPClientManager, type MCPElicitationHandler } from "@agentforge/mcp-client";
import type { MCPServerConfig } from "@agentforge/mcp-config";
import { type MCPPermissionGrants, MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import {
  MCP_SERVER_TOOLS_ACCEPTED,
  MCP_SERVER_TOOLS_REJECTED,
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_STARTED,
  MCP_TOOL_DEFINITION_CHANGED,
  MCPToolExecutor,
  type MCPToolExecutorOptions,
  type RegisterDiscoveredResult,
  registerDiscovered,
  syncRegistry,
} from "../../src/index.js";

const cleanups: (() => unknown)[] = [];

/** A temp folder removed by `cleanup()`. */
export function tempDir(prefix = "runtime-e2e-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Run later, in `cleanup()`. */
export function onCleanup(fn: () => unknown): void {
  cleanups.push(fn);
}

/** Close managers, stop servers, remove folders. */
export async function cleanup(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await fn();
}

/** Every event an executor emitted, as plain JSON lines (what an audit log would hold). */
export interface Recorded {
  lines: string[];
  events: Record<string, unknown>[];
}

export interface Stack {
  manager: MCPClientManager;
  registry: MCPToolRegistry;
  policy: MCPPermissionPolicy;
  executor: MCPToolExecutor;
  recorded: Recorded;
  logDir: string;
  /** What `registerDiscovered` registered and rejected at start. */
  discovered: RegisterDiscoveredResult;
}

/** Start the servers, discover their tools and build an executor over them. */
export async function stack(
  configs: MCPServerConfig[],
  grants: MCPPermissionGrants,
  options: Partial<Omit<MCPToolExecutorOptions, "clientManager" | "registry" | "policy">> & {
    env?: Record<string, string>;
    pinToolDefinitions?: boolean;
    /** The manager's elicitation handler (servers asking for input). */
    elicitation?: MCPElicitationHandler;
  } = {},
): Promise<Stack> {
  const logDir = tempDir("runtime-logs-");
  const manager = new MCPClientManager(configs, {
    logDir,
    shutdownGraceMs: 500,
    ...(options.env ? { env: options.env } : {}),
    ...(options.elicitation ? { elicitation: options.elicitation } : {}),
  });
  cleanups.push(() => manager.closeAll());
  const registry = new MCPToolRegistry();
  const discovery = await discoverAll(manager);
  const failed = discovery.servers.filter((s) => s.status === "failed");
  if (failed.length > 0)
    throw new Error(
      `discovery failed: ${failed.map((s) => `${s.serverName}: ${s.error?.message}`).join("; ")}`,
    );
  const discovered = registerDiscovered(registry, discovery);
  cleanups.push(syncRegistry(manager, registry));
  const policy = new MCPPermissionPolicy(
    grants,
    options.pinToolDefinitions ? { pinToolDefinitions: true, registry } : {},
  );
  const executor = new MCPToolExecutor({ clientManager: manager, registry, policy, ...options });
  cleanups.push(() => executor.dispose());
  const recorded: Recorded = { lines: [], events: [] };
  for (const name of [
    MCP_TOOL_CALL_STARTED,
    MCP_TOOL_CALL_COMPLETED,
    MCP_TOOL_CALL_FAILED,
    MCP_TOOL_DEFINITION_CHANGED,
    MCP_SERVER_TOOLS_REJECTED,
    MCP_SERVER_TOOLS_ACCEPTED,
  ] as const) {
    executor.events.on(name, (payload) => {
      const event = { event: name, ...payload };
      recorded.events.push(event);
      recorded.lines.push(JSON.stringify(event));
    });
  }
  return { manager, registry, policy, executor, recorded, logDir, discovered };
}

/** Await a rejection and return the error (fails when the promise resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error("expected a rejection");
}
