import {
  discoverAll,
  MCPClientManager,
  type MCPConfigChanges,
  type MCPDiscoveryResult,
} from "@agentforge/mcp-client";
import type { MCPConfig, MCPPermissionsConfig } from "@agentforge/mcp-config";
import {
  type MCPPermissionDecision,
  type MCPPermissionGrants,
  MCPPermissionPolicy,
  type MCPToolDescriptor,
  MCPToolRegistry,
} from "@agentforge/mcp-permissions";
import { MCPToolkitClosedError } from "../errors.js";
import type { MCPEventDispatcher, MCPRuntimeEventName, MCPRuntimeEvents } from "../events.js";
import {
  type MCPAccessOptions,
  type MCPExecuteOptions,
  type MCPPromptGetResult,
  type MCPResourceReadResult,
  type MCPSearchToolsOptions,
  MCPToolExecutor,
  type MCPToolResult,
  type MCPToolSearchResult,
} from "../mcp-tool-executor.js";
import type {
  CreateMCPToolkitOptions,
  MCPToolkit,
  MCPToolkitExecutorOptions,
  MCPToolkitHealth,
} from "../mcp-toolkit.js";
import { type MCPRejectedServer, registerDiscovered, syncRegistry } from "../sync-registry.js";
import {
  type MCPToolSearchOption,
  type MCPToolSearchSettings,
  resolveToolSearchSettings,
} from "../tool-search-settings.js";
import { selectServers } from "./toolkit-config.js";

/**
 * The policy every executor of a toolkit consults: whatever grants were loaded last. `reload` swaps the
 * grants underneath, so an executor in use (a run going on) decides its next call with the new ones.
 */
class FollowingPolicy extends MCPPermissionPolicy {
  current: MCPPermissionPolicy;

  constructor(current: MCPPermissionPolicy) {
    super({});
    this.current = current;
  }

  override decide(agent: string, identity: string): MCPPermissionDecision {
    return this.current.decide(agent, identity);
  }

  override decideResource(agent: string, serverName: string, uri: string): MCPPermissionDecision {
    return this.current.decideResource(agent, serverName, uri);
  }

  override decidePrompt(agent: string, serverName: string, promptName: string): MCPPermissionDecision {
    return this.current.decidePrompt(agent, serverName, promptName);
  }

  override isAuthorized(agent: string, identity: string): boolean {
    return this.current.isAuthorized(agent, identity);
  }

  override allowedTools<T extends Pick<MCPToolDescriptor, "identity">>(
    agent: string,
    tools: Iterable<T>,
  ): T[] {
    return this.current.allowedTools(agent, tools);
  }

  override agents(): string[] {
    return this.current.agents();
  }

  override toJSON(): MCPPermissionsConfig {
    return this.current.toJSON();
  }
}

/** Turns what a caller gave as `config` into a parsed config (the /node entry also reads files). */
export type ResolveToolkitConfig<C> = (config: C) => Promise<MCPConfig>;

/** The one implementation behind `createMCPToolkit` (root and /node). */
export class ToolkitImpl<C> implements MCPToolkit<C> {
  readonly manager: MCPClientManager;
  readonly registry: MCPToolRegistry;
  readonly executor: MCPToolExecutor;
  #config: MCPConfig;
  #discovery: MCPDiscoveryResult | undefined;
  #discovering: Promise<MCPDiscoveryResult> | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly #stopSync: () => void;
  readonly #policy: FollowingPolicy;
  readonly #options: CreateMCPToolkitOptions<C>;
  readonly #resolve: ResolveToolkitConfig<C>;

  private constructor(
    options: CreateMCPToolkitOptions<C>,
    resolve: ResolveToolkitConfig<C>,
    config: MCPConfig,
  ) {
    this.#options = options;
    this.#resolve = resolve;
    this.#config = config;
    this.registry = options.registry ?? new MCPToolRegistry();
    const servers = selectServers(config, options.servers);
    this.#policy = new FollowingPolicy(this.#policyFor(config, options.permissions));
    this.manager = new MCPClientManager(servers, {
      ...options.manager,
      ...(options.env !== undefined ? { env: options.env } : {}),
      // A library writes no files unless asked to.
      logDir: options.logDir ?? false,
    });
    this.executor = this.#newExecutor(this.manager);
    // Rejections are contained by syncRegistry and reported by the executor (MCP_SERVER_TOOLS_REJECTED).
    this.#stopSync = syncRegistry(this.manager, this.registry);
  }

  static async create<C>(
    options: CreateMCPToolkitOptions<C>,
    resolve: ResolveToolkitConfig<C>,
  ): Promise<ToolkitImpl<C>> {
    if (typeof options !== "object" || options === null) {
      throw new TypeError("createMCPToolkit: expected an options object with a `config`");
    }
    if (options.discover !== undefined && options.discover !== "lazy" && options.discover !== "eager") {
      throw new TypeError(
        `createMCPToolkit: discover must be "lazy" or "eager", got ${JSON.stringify(options.discover)}`,
      );
    }
    // A wrong toolkit-wide toolSearch is a mistake in code: said at once, not at the first loop.
    resolveToolSearchSettings([options.toolSearch], "createMCPToolkit: toolSearch");
    const config = await resolve(options.config);
    const toolkit = new ToolkitImpl(options, resolve, config);
    if (options.discover === "eager") {
      try {
        await toolkit.discover();
      } catch (error) {
        await toolkit.close();
        throw error;
      }
    }
    return toolkit;
  }

  #policyFor(config: MCPConfig, permissions: MCPPermissionGrants | undefined): MCPPermissionPolicy {
    const pin = this.#options.pinToolDefinitions ? { pinToolDefinitions: true, registry: this.registry } : {};
    return permissions !== undefined
      ? new MCPPermissionPolicy(permissions, pin)
      : MCPPermissionPolicy.fromConfig(config, pin);
  }

  #newExecutor(clientManager: NonNullable<MCPToolkitExecutorOptions["clientManager"]>): MCPToolExecutor {
    const options = this.#options;
    return new MCPToolExecutor({
      clientManager,
      registry: this.registry,
      policy: this.#policy,
      ...(options.tracer ? { tracer: options.tracer } : {}),
      ...(options.maxResultChars !== undefined ? { maxResultChars: options.maxResultChars } : {}),
      ...(options.validateArguments !== undefined ? { validateArguments: options.validateArguments } : {}),
      ...(options.ranker ? { ranker: options.ranker } : {}),
      // Asked at every loop start: follows reloads of the roster.
      toolSearch: (agent: string) => this.#toolSearchLayers(agent),
    });
  }

  /** The toolkit's toolSearch, with the agent's `tool_search:` of the roster in effect over it. */
  #toolSearchLayers(agent: string): MCPToolSearchOption {
    const fromRoster = this.#config.permissions[agent]?.toolSearch;
    return resolveToolSearchSettings(
      [this.#options.toolSearch, fromRoster],
      `tool_search of agent "${agent}"`,
    );
  }

  toolSearchSettings(agent: string): MCPToolSearchSettings {
    return this.executor.toolSearchSettings(agent);
  }

  createExecutor(options: MCPToolkitExecutorOptions = {}): MCPToolExecutor {
    this.#assertOpen("createExecutor");
    return this.#newExecutor(options.clientManager ?? this.manager);
  }

  get config(): MCPConfig {
    return this.#config;
  }

  get policy(): MCPPermissionPolicy {
    return this.#policy;
  }

  get events(): MCPEventDispatcher {
    return this.executor.events;
  }

  on<E extends MCPRuntimeEventName>(
    event: E,
    listener: (...args: MCPRuntimeEvents[E]) => unknown,
  ): () => void {
    return this.executor.events.on(event, listener);
  }

  get discovery(): MCPDiscoveryResult | undefined {
    return this.#discovery;
  }

  #assertOpen(operation: string): void {
    if (this.#closed) throw new MCPToolkitClosedError(operation);
  }

  discover(): Promise<MCPDiscoveryResult> {
    try {
      this.#assertOpen("discover");
    } catch (error) {
      return Promise.reject(error);
    }
    const run = (async () => {
      const discovery = await discoverAll(this.manager);
      if (!this.#closed) {
        registerDiscovered(this.registry, discovery);
        this.#discovery = discovery;
      }
      return discovery;
    })();
    this.#discovering = run;
    // A failed run (it never should: discoverAll reports failures per server) is retried next time.
    run.catch(() => {
      if (this.#discovering === run) this.#discovering = undefined;
    });
    return run;
  }

  /** The first discovery, shared by every caller that needs tools. */
  async #ready(operation: string): Promise<void> {
    this.#assertOpen(operation);
    await (this.#discovering ?? this.discover());
    this.#assertOpen(operation);
  }

  async tools(agent: string): Promise<MCPToolDescriptor[]> {
    await this.#ready("tools");
    return this.executor.allowedTools(agent);
  }

  async searchTools(
    agent: string,
    query: string,
    options: MCPSearchToolsOptions = {},
  ): Promise<MCPToolSearchResult> {
    await this.#ready("searchTools");
    return this.executor.searchTools(agent, query, options);
  }

  async execute(
    agent: string,
    identity: string,
    args: Record<string, unknown> = {},
    options: MCPExecuteOptions = {},
  ): Promise<MCPToolResult> {
    await this.#ready("execute");
    return this.executor.execute(agent, identity, args, options);
  }

  async readResource(
    agent: string,
    serverName: string,
    uri: string,
    options: MCPAccessOptions = {},
  ): Promise<MCPResourceReadResult> {
    this.#assertOpen("readResource");
    return this.executor.readResource(agent, serverName, uri, options);
  }

  async getPrompt(
    agent: string,
    serverName: string,
    name: string,
    args?: Record<string, string>,
    options: MCPAccessOptions = {},
  ): Promise<MCPPromptGetResult> {
    this.#assertOpen("getPrompt");
    return this.executor.getPrompt(agent, serverName, name, args, options);
  }

  async health(): Promise<MCPToolkitHealth> {
    this.#assertOpen("health");
    const servers = await this.manager.healthCheckAll();
    const rejectedServers = this.rejectedServers();
    return {
      ok: rejectedServers.length === 0 && servers.every((s) => s.status !== "unhealthy"),
      servers,
      rejectedServers,
    };
  }

  async reload(config: C, options: { permissions?: MCPPermissionGrants } = {}): Promise<MCPConfigChanges> {
    this.#assertOpen("reload");
    const next = await this.#resolve(config);
    this.#assertOpen("reload");
    const servers = selectServers(next, this.#options.servers);
    // Build the new policy before touching anything: an invalid section leaves the toolkit as it was.
    const policy = this.#policyFor(next, options.permissions ?? this.#options.permissions);
    const changes = await this.manager.applyConfig(servers);
    this.#policy.current = policy;
    this.#config = next;
    // Removed and disabled servers lose their tools (also announced by the manager as toolsChanged).
    const enabled = new Set(servers.filter((s) => s.enabled).map((s) => s.name));
    for (const serverName of this.registry.servers()) {
      if (!enabled.has(serverName)) this.registry.replaceServer(serverName, []);
    }
    // Added and changed servers are listed now, if tools were listed before.
    if (this.#discovering) await this.discover();
    return changes;
  }

  rejectedServers(): MCPRejectedServer[] {
    return this.registry.rejectedServers().map(({ serverName, error }) => ({ serverName, error }));
  }

  close(): Promise<void> {
    if (!this.#closing) {
      this.#closed = true;
      this.#stopSync();
      this.executor.dispose();
      this.#closing = this.manager.closeAll();
    }
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
