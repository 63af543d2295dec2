// Everything the app needs, wired once: config → client manager → discovery → registry → policy → executor.
import {
  createWriteStream,
  mkdirSync,
  readFileSync,
  renameSync,
  type WriteStream,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import {
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_DEFINITION_CHANGED,
  type MCPRejectedServer,
  MCPToolExecutor,
  registerDiscovered,
  syncRegistry,
} from "@agentforge/agent-runtime";
import { discoverAll, MCPClientManager, type MCPDiscoveryResult } from "@agentforge/mcp-client";
import type { MCPConfig } from "@agentforge/mcp-config";
import { loadMCPConfig } from "@agentforge/mcp-config/node";
import { MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { appTokenStore } from "./mcp/file-token-store.js";

/** The tool-definition approvals (pins) of a state folder: kept across runs and processes. */
export const APPROVALS_FILE = "tool-approvals.json";

/** The state folder's approvals file is not a snapshot the registry can take over. */
export class ApprovalsFileError extends Error {
  readonly code = "APPROVALS_FILE_INVALID";
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(
      `The tool-definition approvals in ${file} cannot be read (${cause instanceof Error ? cause.message : String(cause)}). ` +
        "Fix or delete the file: deleting it trusts every tool's current definition again.",
      { cause },
    );
    this.name = "ApprovalsFileError";
  }
}

/** The roster shipped with the app. */
import { SHIPPED_CONFIG } from "./shipped-config.js";

export { SHIPPED_CONFIG };

export interface ApplicationOptions {
  /** Config file (default: the shipped roster). */
  configPath?: string;
  /** Environment the servers' variable names are read from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Where the audit log, runs and server logs go (default `.agentforge` in the working directory). */
  stateDir?: string;
  /** Start only these servers (default: every enabled one). */
  servers?: readonly string[];
  /** Discover tools at start (default true). */
  discover?: boolean;
}

/** The wired MCP stack of the app. Call `shutdown()` to end every server it started. */
export class Application {
  readonly #audit: WriteStream;
  readonly #stopSync: () => void;
  readonly #stopPins: () => void;

  private constructor(
    readonly config: MCPConfig,
    readonly manager: MCPClientManager,
    readonly registry: MCPToolRegistry,
    readonly policy: MCPPermissionPolicy,
    readonly executor: MCPToolExecutor,
    readonly stateDir: string,
    readonly discovery: MCPDiscoveryResult | undefined,
    audit: WriteStream,
    stopSync: () => void,
    stopPins: () => void,
  ) {
    this.#audit = audit;
    this.#stopSync = stopSync;
    this.#stopPins = stopPins;
  }

  /** Servers whose tool list the registry rejected (e.g. a tool name listed twice): none of their tools are callable. */
  rejectedServers(): MCPRejectedServer[] {
    return this.registry.rejectedServers().map(({ serverName, error }) => ({ serverName, error }));
  }

  static async create(options: ApplicationOptions = {}): Promise<Application> {
    const config = await loadMCPConfig(options.configPath ?? SHIPPED_CONFIG);
    const stateDir = resolve(options.stateDir ?? ".agentforge");
    mkdirSync(stateDir, { recursive: true });
    const wanted = options.servers ? new Set(options.servers) : undefined;
    const configs = wanted ? config.servers.filter((s) => wanted.has(s.name)) : config.servers;
    const manager = new MCPClientManager(configs, {
      env: options.env ?? process.env,
      logDir: join(stateDir, "logs", "mcp"),
      // OAuth logins made with `agentforge mcp login` live in the state folder. The app itself never
      // waits for a browser: a server that needs a login is reported as such (AUTH_REQUIRED).
      tokenStore: appTokenStore(stateDir),
      authorize: false,
    });
    const registry = new MCPToolRegistry();
    // Pins survive a restart: a run resumed in a new process still detects a definition that changed.
    const approvalsFile = join(stateDir, APPROVALS_FILE);
    restoreApprovals(registry, approvalsFile);
    const policy = MCPPermissionPolicy.fromConfig(config, { pinToolDefinitions: true, registry });
    const executor = new MCPToolExecutor({ clientManager: manager, registry, policy });
    const audit = createWriteStream(join(stateDir, "audit.jsonl"), { flags: "a" });
    // The audit trail: who called what, how it ended, how long it took. Never arguments or results.
    for (const name of [MCP_TOOL_CALL_COMPLETED, MCP_TOOL_CALL_FAILED] as const) {
      executor.events.on(name, (event) => {
        const { tool, server, agent, callId, outcome, durationMs, errorCode, timestamp } = event;
        audit.write(
          `${JSON.stringify({ at: timestamp, event: name, tool, server, agent, callId, outcome, durationMs, errorCode })}\n`,
        );
      });
    }
    executor.events.on(MCP_TOOL_DEFINITION_CHANGED, (event) => {
      audit.write(
        `${JSON.stringify({ at: event.timestamp, event: MCP_TOOL_DEFINITION_CHANGED, tool: event.tool, server: event.server })}\n`,
      );
    });
    // A server whose tool list the registry refuses (a name listed twice, a name another server owns)
    // loses its tools, with an audit line — whichever path handed the list over; the rest of the roster
    // works on.
    const stopAuditRejected = registry.on("serverRejected", ({ serverName, error, rejectedAt }) => {
      audit.write(
        `${JSON.stringify({ at: rejectedAt, event: "MCP_SERVER_TOOLS_REJECTED", server: serverName, errorCode: error.code, message: error.message })}\n`,
      );
    });
    const stopRegistrySync = syncRegistry(manager, registry);
    const stopSync = () => {
      stopRegistrySync();
      stopAuditRejected();
    };
    const saveApprovals = () => writeApprovals(registry, approvalsFile);
    manager.on("toolsChanged", saveApprovals);
    const stopPins = () => manager.off("toolsChanged", saveApprovals);
    let discovery: MCPDiscoveryResult | undefined;
    if (options.discover !== false) {
      discovery = await discoverAll(manager);
      registerDiscovered(registry, discovery);
      saveApprovals();
    }
    return new Application(
      config,
      manager,
      registry,
      policy,
      executor,
      stateDir,
      discovery,
      audit,
      stopSync,
      stopPins,
    );
  }

  /** The servers an agent's grants name (the only ones it could ever call). */
  static serversGrantedTo(config: MCPConfig, agent: string): string[] {
    const grant = config.permissions[agent];
    if (!grant) return [];
    const names = new Set(grant.allow.map((pattern) => pattern.slice(0, pattern.indexOf("."))));
    return config.servers.filter((s) => names.has(s.name)).map((s) => s.name);
  }

  /** Close every server connection and child process, and the audit log. */
  async shutdown(): Promise<void> {
    this.#stopSync();
    this.#stopPins();
    writeApprovals(this.registry, join(this.stateDir, APPROVALS_FILE));
    this.executor.dispose();
    await this.manager.closeAll();
    await new Promise<void>((done) => this.#audit.end(done));
  }
}

function restoreApprovals(registry: MCPToolRegistry, file: string): void {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new ApprovalsFileError(file, error);
  }
  try {
    registry.restoreApprovals(JSON.parse(text));
  } catch (error) {
    throw new ApprovalsFileError(file, error);
  }
}

/** Write the approvals atomically (owner-only); a read-only state folder must not fail a run. */
function writeApprovals(registry: MCPToolRegistry, file: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(registry.exportApprovals(), null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    // The approvals stay in memory for this process.
  }
}
