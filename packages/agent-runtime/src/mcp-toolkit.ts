import type {
  MCPClientManager,
  MCPClientManagerOptions,
  MCPConfigChanges,
  MCPDiscoveryResult,
  MCPPrompt,
  MCPResource,
  MCPServerHealth,
} from "@agentforge/mcp-client";
import type { ConfigFile, EnvSource, MCPConfig } from "@agentforge/mcp-config";
import type {
  MCPPermissionGrants,
  MCPPermissionPolicy,
  MCPToolDescriptor,
  MCPToolRegistry,
} from "@agentforge/mcp-permissions";
import type { MCPConfirmHandler } from "./confirmation.js";
import type {
  MCPEventDispatcher,
  MCPRuntimeEventName,
  MCPRuntimeListener,
  MCPWarningEvent,
} from "./events.js";
import type {
  MCPAccessOptions,
  MCPExecuteOptions,
  MCPPromptGetResult,
  MCPResourceClient,
  MCPResourceReadResult,
  MCPSearchToolsOptions,
  MCPToolCallClient,
  MCPToolExecutor,
  MCPToolResult,
  MCPToolSearchResult,
} from "./mcp-tool-executor.js";
import type { MCPToolRanker } from "./mcp-tool-ranker.js";
import type { MCPTracer } from "./mcp-tracer.js";
import type { MCPRejectedServer } from "./sync-registry.js";
import type { MCPToolSearchOption, MCPToolSearchSettings } from "./tool-search-settings.js";

/**
 * A roster written in code, in the config file's shape (snake_case keys, e.g. `connection_timeout`):
 * omitted fields get the file's defaults, and it is validated with the same messages as a YAML file.
 */
export type MCPToolkitConfigInput = ConfigFile;

/** What a toolkit is built from: a parsed config (`parseMCPConfig`, `loadMCPConfig`) or a roster in code. */
export type MCPToolkitConfig = MCPConfig | MCPToolkitConfigInput;

/** When a toolkit lists the servers' tools. */
export type MCPToolkitDiscovery =
  /** On the first `tools()` or `execute()` (default): creating the toolkit starts no server. */
  | "lazy"
  /** While `createMCPToolkit` runs: servers start, and failures show in `toolkit.discovery`, right away. */
  | "eager";

/** Options of `createMCPToolkit`. */
export interface CreateMCPToolkitOptions<C = MCPToolkitConfig> {
  /** The servers (and, unless `permissions` is given, the `permissions:` section). */
  config: C;
  /** Agent -> allowed patterns; replaces the config's `permissions:` section when given. Deny by default. */
  permissions?: MCPPermissionGrants;
  /** Where variable NAMES of the config are looked up when a server starts (default `process.env`). */
  env?: EnvSource;
  /** Folder for each stdio server's `<name>.stderr.log` (default `false`: kept in memory only, no files). */
  logDir?: string | false;
  /** Start only these servers of the config (default: every enabled one). */
  servers?: readonly string[];
  /** When to list the servers' tools (default `"lazy"`); see `MCPToolkitDiscovery`. */
  discover?: MCPToolkitDiscovery;
  /** Deny a tool whose definition changed since it was approved, until `registry.approve(identity)`. */
  pinToolDefinitions?: boolean;
  /** The registry to fill (default: a new one), e.g. one whose approvals were restored from disk. */
  registry?: MCPToolRegistry;
  /** What `${CONFIG_DIR}` expands to in a roster written in code. */
  configDir?: string;
  /** Further options of the `MCPClientManager` (clientInfo, backoff, OAuth login, ...). */
  manager?: Omit<MCPClientManagerOptions, "env" | "logDir">;
  /** One span per call (see `@agentforge/agent-runtime/otel`). */
  tracer?: MCPTracer;
  /** Cap of the text a model gets per call (default `MAX_MCP_RESULT_CHARS`). */
  maxResultChars?: number;
  /** Check arguments against the tool's input schema before calling (default true). */
  validateArguments?: boolean;
  /**
   * Tool search for every agent of the toolkit (a mode or settings); an agent's `tool_search:` in the
   * roster's `permissions:` overrides it field by field. Default `MCP_TOOL_SEARCH_DEFAULTS` (`auto`).
   */
  toolSearch?: MCPToolSearchOption;
  /** Ranks tools for `searchTools` (default: the in-process `createLexicalToolRanker()`). */
  ranker?: MCPToolRanker;
  /**
   * Let agents run without the tools of servers that are unavailable (default false). By default, when a
   * server an agent is granted did not start (a missing command, a wrong path, an unset `${VAR}`) or is
   * disabled, `tools(agent)` and the tool loops fail with THAT server's error (code, cause, what to fix);
   * with `degraded: true` they go on without its tools and an `MCP_WARNING` (SERVERS_UNAVAILABLE) says
   * which servers are missing and why. `tools()` and the loops also take it per call.
   */
  degraded?: boolean;
  /**
   * Asks a person to confirm calls that need it (`confirm` patterns, `confirm_destructive`); see
   * `MCPToolExecutorOptions.confirm`. Without it such calls fail with CONFIRMATION_REQUIRED, or pause a
   * tool loop that is told to pause. Argument previews have every secret of the roster redacted.
   */
  confirm?: MCPConfirmHandler;
  /** How long `confirm` may take before the call is denied (default 10 minutes). */
  confirmationTimeoutMs?: number;
  /** Confirmation requests one run may make (default `MAX_MCP_CONFIRMATIONS_PER_RUN`, 20). */
  maxConfirmationsPerRun?: number;
}

/** Options of `toolkit.tools`. */
export interface MCPToolkitToolsOptions {
  /** Go on without the tools of unavailable servers (default: the toolkit's `degraded`); see there. */
  degraded?: boolean;
}

/** Options of `toolkit.listResources` and `toolkit.listPrompts`. */
export interface MCPToolkitListOptions {
  /** Only this server (default: every enabled server the agent's grants name). */
  serverName?: string;
  /** Abandons the listing. */
  signal?: AbortSignal;
}

/**
 * A grant that does not do what it says, found against the discovered tools (`toolkit.checkGrants`): a
 * pattern that matches no tool its server lists, or an agent with no grants.
 */
export type MCPGrantWarning =
  Extract<MCPWarningEvent, { code: "GRANT_MATCHES_NO_TOOL" | "AGENT_NOT_GRANTED" }> extends infer W
    ? W extends unknown
      ? Omit<W, "type" | "timestamp">
      : never
    : never;

/** Options of `toolkit.createExecutor`. */
export interface MCPToolkitExecutorOptions {
  /**
   * What the executor calls through (default: the toolkit's manager): e.g. a wrapper of
   * `toolkit.manager` that checks path arguments before passing calls on.
   */
  clientManager?: MCPToolCallClient & MCPResourceClient;
}

/** Health of a toolkit's servers. */
export interface MCPToolkitHealth {
  /** True when every enabled server answered and no server's tool list is rejected. */
  ok: boolean;
  /** One health check per configured server (`MCPClientManager.healthCheckAll`). */
  servers: MCPServerHealth[];
  /** Servers whose tool list the registry rejected: none of their tools can be called. */
  rejectedServers: MCPRejectedServer[];
}

/**
 * The MCP stack in one object: it owns the client manager, the registry (kept in step with the servers),
 * the permission policy and the executor. Close it with `close()` or `await using`.
 */
export interface MCPToolkit<C = MCPToolkitConfig> extends AsyncDisposable {
  /** The config in effect (after the last `reload`). */
  readonly config: MCPConfig;
  readonly manager: MCPClientManager;
  readonly registry: MCPToolRegistry;
  /** The policy in effect (a `reload` replaces it; every executor of the toolkit asks the current one). */
  readonly policy: MCPPermissionPolicy;
  readonly executor: MCPToolExecutor;
  /** The executor's events: `toolkit.events.on(MCP_TOOL_CALL_FAILED, fn)` returns the unsubscribe function. */
  readonly events: MCPEventDispatcher;
  /** Subscribe to an executor event (the same as `toolkit.events.on`); returns the function that unsubscribes. */
  on<E extends MCPRuntimeEventName>(event: E, listener: MCPRuntimeListener<E>): () => void;
  /**
   * A new executor over the toolkit's registry and policy (it follows `reload`), with its own events: e.g.
   * one per run of a service, so that a run's listeners hear only that run's calls. Same tracer and
   * limits as `toolkit.executor`. Call its `dispose()` when done with it.
   */
  createExecutor(options?: MCPToolkitExecutorOptions): MCPToolExecutor;
  /** The result of the last discovery, if one ran. */
  readonly discovery: MCPDiscoveryResult | undefined;
  /** List every server's tools now (again); servers that fail are reported, never thrown. */
  discover(): Promise<MCPDiscoveryResult>;
  /**
   * The tools the policy grants `agent` (discovers first when that has not happened yet). Loud by
   * default: when a server the agent is granted is unavailable (did not start, or is disabled), it
   * rejects with that server's own error — `MCPConnectionError` COMMAND_NOT_FOUND, SERVER_MISCONFIGURED,
   * ..., `MCPServerNotFoundError` SERVER_DISABLED — unless `degraded`. Grants that match no tool, and an
   * agent with no grants, are reported as `MCP_WARNING` events (see `checkGrants`).
   */
  tools(agent: string, options?: MCPToolkitToolsOptions): Promise<MCPToolDescriptor[]>;
  /**
   * Grants that do not do what they say, against the tools discovered so far: each allow pattern of
   * `agent` (default: of every agent) that matches no tool its server lists (with the closest identity),
   * and an `agent` that has no grants (with the closest granted name). Servers that are down are left
   * to `tools()` (they fail it, or are a SERVERS_UNAVAILABLE warning).
   */
  checkGrants(agent?: string): MCPGrantWarning[];
  /**
   * The resources `agent` may read: each enabled server its resource grants name is asked (every page,
   * up to 20), and only the resources the policy grants are returned. A server that offers no resources
   * has none; any other failure rejects with the server's error.
   */
  listResources(agent: string, options?: MCPToolkitListOptions): Promise<MCPResource[]>;
  /** The prompts `agent` may get, like `listResources`: only what the policy grants. */
  listPrompts(agent: string, options?: MCPToolkitListOptions): Promise<MCPPrompt[]>;
  /**
   * The tools `agent` may use that best match `query` — only its granted, available tools are ranked
   * (discovers first if needed); see `MCPToolExecutor.searchTools`. `limit` defaults to 5 (at most 10).
   */
  searchTools(agent: string, query: string, options?: MCPSearchToolsOptions): Promise<MCPToolSearchResult>;
  /** `agent`'s tool-search settings: the roster's `tool_search:` over the toolkit's `toolSearch` and the defaults. */
  toolSearchSettings(agent: string): MCPToolSearchSettings;
  /** Call `identity` (`<server>.<tool>`) as `agent`, through the executor (discovers first if needed). */
  execute(
    agent: string,
    identity: string,
    args?: Record<string, unknown>,
    options?: MCPExecuteOptions,
  ): Promise<MCPToolResult>;
  /** Read a resource as `agent`, through the executor: the policy's `decideResource` first (see `MCPToolExecutor.readResource`). */
  readResource(
    agent: string,
    serverName: string,
    uri: string,
    options?: MCPAccessOptions,
  ): Promise<MCPResourceReadResult>;
  /** Get a prompt as `agent`, through the executor: the policy's `decidePrompt` first (see `MCPToolExecutor.getPrompt`). */
  getPrompt(
    agent: string,
    serverName: string,
    name: string,
    args?: Record<string, string>,
    options?: MCPAccessOptions,
  ): Promise<MCPPromptGetResult>;
  /** Check every server (ping and tools/list) and report rejected tool lists. */
  health(): Promise<MCPToolkitHealth>;
  /**
   * Apply a new config: servers added, changed or removed (unchanged ones keep their connection), the
   * policy replaced, and the registry brought in step (removed servers lose their tools).
   */
  reload(config: C, options?: { permissions?: MCPPermissionGrants }): Promise<MCPConfigChanges>;
  /** Servers whose tool list the registry rejected (none of their tools are callable). */
  rejectedServers(): MCPRejectedServer[];
  /** Stop syncing and end every server process; later calls fail with `MCPToolkitClosedError`. */
  close(): Promise<void>;
}
