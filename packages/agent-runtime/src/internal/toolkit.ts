import {
  discoverAll,
  MCPCapabilityError,
  MCPClientManager,
  type MCPConfigChanges,
  MCPConnectionError,
  type MCPDiscoveryResult,
  type MCPPrompt,
  type MCPResource,
  MCPServerNotFoundError,
} from "@agentforge/mcp-client";
import {
  configVariables,
  createSecretRedactor,
  grantServerIssues,
  type MCPConfig,
  MCPConfigError,
  MCPError,
  type MCPPermissionsConfig,
  type SecretRedactor,
  suggestName,
} from "@agentforge/mcp-config";
import {
  type MCPDecideToolInfo,
  type MCPPermissionDecision,
  type MCPPermissionGrants,
  MCPPermissionPolicy,
  type MCPToolDescriptor,
  MCPToolRegistry,
} from "@agentforge/mcp-permissions";
import { MCPToolkitClosedError } from "../errors.js";
import {
  MCP_INTERNAL_ERROR,
  type MCPEventDispatcher,
  type MCPRuntimeEventName,
  type MCPRuntimeListener,
} from "../events.js";
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
  MCPGrantWarning,
  MCPToolkit,
  MCPToolkitExecutorOptions,
  MCPToolkitHealth,
  MCPToolkitListOptions,
  MCPToolkitToolsOptions,
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

  override decide(agent: string, identity: string, tool?: MCPDecideToolInfo): MCPPermissionDecision {
    return this.current.decide(agent, identity, tool);
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

/** Most pages `listResources` / `listPrompts` read from one server. */
const MAX_LIST_PAGES = 20;

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
    // Rejections are contained by syncRegistry and reported by the executor (MCP_SERVER_TOOLS_REJECTED);
    // any other failure to take a server's new list in is an MCP_INTERNAL_ERROR, never dropped.
    this.#stopSync = syncRegistry(this.manager, this.registry, {
      onError: (error, serverName) =>
        this.executor.events.emit(MCP_INTERNAL_ERROR, {
          type: MCP_INTERNAL_ERROR,
          code: "REGISTRY_SYNC_FAILED",
          timestamp: new Date().toISOString(),
          message: `The new tool list of MCP server "${serverName}" could not be taken in (${error instanceof Error ? error.message : String(error)}); its previous tools stay registered.`,
          error,
          serverName,
        }),
    });
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
    if (permissions === undefined) return MCPPermissionPolicy.fromConfig(config, pin);
    // Grants written in code are checked against the roster like a file's: a server it lacks is a mistake.
    const issues = grantServerIssues(
      permissions,
      config.servers.map((server) => server.name),
    );
    if (issues.length > 0) {
      throw new MCPConfigError(
        `createMCPToolkit: \`permissions\` names servers the config does not define (${issues.length} problem${issues.length === 1 ? "" : "s"})`,
        { code: "CONFIG_INVALID", source: "createMCPToolkit permissions", issues },
      );
    }
    return new MCPPermissionPolicy(permissions, pin);
  }

  /**
   * Why a server of the roster cannot be used, if it cannot: disabled in the config, or its start or
   * tool listing failed in the last discovery (and it has listed no tools since). Undefined for a server
   * that works, one not started on purpose (`servers` option), and one not known.
   */
  #serverError(serverName: string): MCPError | undefined {
    const config = this.#config.servers.find((server) => server.name === serverName);
    if (!config) return undefined;
    if (this.#options.servers && !this.#options.servers.includes(serverName)) return undefined;
    if (!config.enabled) {
      const where = this.#config.source ? ` in ${this.#config.source}` : "";
      return new MCPServerNotFoundError(
        `MCP server "${serverName}" is disabled (enabled: false${where}), so none of its tools can be used. Fix: set enabled: true for it, or take it out of the grants.`,
        { code: "SERVER_DISABLED", serverName },
      );
    }
    if (this.registry.list({ serverName }).length > 0) return undefined;
    const report = this.#discovery?.servers.find((server) => server.serverName === serverName);
    if (report?.status !== "failed") return undefined;
    const error: unknown = report.error;
    if (MCPError.isInstance(error)) return error;
    // Not one of ours (a bug, or a foreign error): still the server's failure, with what it was as cause.
    return new MCPConnectionError(
      `Listing the tools of MCP server "${serverName}" failed: ${error instanceof Error ? error.message : String(error)}`,
      { code: "SERVER_START_FAILED", serverName, cause: error },
    );
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
      serverError: (serverName: string) => this.#serverError(serverName),
      ...(options.degraded !== undefined ? { degraded: options.degraded } : {}),
      ...(options.confirm !== undefined ? { confirm: options.confirm } : {}),
      ...(options.confirmationTimeoutMs !== undefined
        ? { confirmationTimeoutMs: options.confirmationTimeoutMs }
        : {}),
      ...(options.maxConfirmationsPerRun !== undefined
        ? { maxConfirmationsPerRun: options.maxConfirmationsPerRun }
        : {}),
      // Previews of arguments to confirm never show a secret of the roster (any server's).
      redactSecrets: (text: string) => this.#rosterSecrets().redact(text),
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

  /** A redactor of every secret the roster reads (all servers), remade when the roster or time moved on. */
  #rosterSecrets(): SecretRedactor {
    const env =
      this.#options.env ??
      (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ??
      {};
    const values = this.#config.servers.flatMap((server) =>
      configVariables(server).map(({ name }) => env[name]),
    );
    const key = values.join("\u0000");
    if (this.#secrets?.config !== this.#config || this.#secrets.key !== key) {
      this.#secrets = { config: this.#config, key, redactor: createSecretRedactor(values) };
    }
    return this.#secrets.redactor;
  }

  #secrets: { config: MCPConfig; key: string; redactor: SecretRedactor } | undefined;

  get config(): MCPConfig {
    return this.#config;
  }

  get policy(): MCPPermissionPolicy {
    return this.#policy;
  }

  get events(): MCPEventDispatcher {
    return this.executor.events;
  }

  on<E extends MCPRuntimeEventName>(event: E, listener: MCPRuntimeListener<E>): () => void {
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
        // What a new discovery finds is told again (a server still down, a pattern still matching nothing).
        this.executor.resetWarnings();
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

  async tools(agent: string, options: MCPToolkitToolsOptions = {}): Promise<MCPToolDescriptor[]> {
    await this.#ready("tools");
    this.executor.checkAvailability(
      agent,
      options.degraded !== undefined ? { degraded: options.degraded } : {},
    );
    for (const warning of this.checkGrants(agent)) this.executor.warn(warning);
    return this.executor.allowedTools(agent);
  }

  checkGrants(agent?: string): MCPGrantWarning[] {
    const grants = this.#policy.toJSON();
    const agents = agent === undefined ? Object.keys(grants) : [String(agent)];
    const warnings: MCPGrantWarning[] = [];
    const registered = this.registry.list();
    for (const name of agents) {
      const grant = grants[name];
      if (!grant) {
        const suggestion = suggestName(name, Object.keys(grants));
        warnings.push({
          code: "AGENT_NOT_GRANTED",
          agent: name,
          message: `Agent "${name}" has no grants, so it gets no tools (deny by default)${suggestion ? `: did you mean "${suggestion}"?` : "."} Grant it tools in permissions: (or createMCPToolkit's permissions).`,
          ...(suggestion ? { suggestion } : {}),
        });
        continue;
      }
      for (const pattern of [...grant.allow, ...(grant.confirm ?? [])]) {
        const serverName = pattern.slice(0, pattern.indexOf("."));
        // A server that is down, not listed yet or not started on purpose: nothing to check against.
        const tools = registered.filter((tool) => tool.serverName === serverName);
        const report = this.#discovery?.servers.find((server) => server.serverName === serverName);
        const listed = tools.length > 0 || report?.status === "ok";
        if (!listed || this.executor.serverError(serverName)) continue;
        const probe = new MCPPermissionPolicy({ probe: [pattern] });
        if (probe.allowedTools("probe", tools).length > 0) continue;
        const suggestion = suggestName(
          pattern,
          tools.map((tool) => tool.identity),
        );
        warnings.push({
          code: "GRANT_MATCHES_NO_TOOL",
          agent: name,
          pattern,
          message: `Grant "${pattern}" of agent "${name}" matches none of the ${tools.length} tools server "${serverName}" lists${suggestion ? `; did you mean "${suggestion}"?` : ""}`,
          ...(suggestion ? { suggestion } : {}),
        });
      }
    }
    return warnings;
  }

  async listResources(agent: string, options: MCPToolkitListOptions = {}): Promise<MCPResource[]> {
    this.#assertOpen("listResources");
    const granted = this.#policy.toJSON()[String(agent)]?.resources?.allow ?? [];
    const servers = this.#listServers(granted, ":", options.serverName);
    const out: MCPResource[] = [];
    for (const serverName of servers) {
      const resources = await this.#pages(serverName, options.signal, async (cursor) => {
        const page = await this.manager.listResources(serverName, {
          ...(cursor !== undefined ? { cursor } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        return { items: page.resources, nextCursor: page.nextCursor };
      });
      for (const resource of resources) {
        if (this.#policy.decideResource(agent, serverName, resource.uri).allowed) out.push(resource);
      }
    }
    return out;
  }

  async listPrompts(agent: string, options: MCPToolkitListOptions = {}): Promise<MCPPrompt[]> {
    this.#assertOpen("listPrompts");
    const granted = this.#policy.toJSON()[String(agent)]?.prompts?.allow ?? [];
    const servers = this.#listServers(granted, ".", options.serverName);
    const out: MCPPrompt[] = [];
    for (const serverName of servers) {
      const prompts = await this.#pages(serverName, options.signal, async (cursor) => {
        const page = await this.manager.listPrompts(serverName, {
          ...(cursor !== undefined ? { cursor } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        return { items: page.prompts, nextCursor: page.nextCursor };
      });
      for (const prompt of prompts) {
        if (this.#policy.decidePrompt(agent, serverName, prompt.name).allowed) out.push(prompt);
      }
    }
    return out;
  }

  /** The enabled servers the allow patterns name (separator `:` for resources, `.` for prompts). */
  #listServers(patterns: readonly string[], separator: string, only: string | undefined): string[] {
    const enabled = new Set(this.manager.serverNames());
    const servers = new Set<string>();
    for (const pattern of patterns) {
      const serverName = pattern.slice(0, pattern.indexOf(separator));
      if (enabled.has(serverName) && (only === undefined || only === serverName)) servers.add(serverName);
    }
    return [...servers];
  }

  /**
   * Every page of a server's list, up to `MAX_LIST_PAGES` pages. A server that offers no such list
   * (CAPABILITY_NOT_SUPPORTED) has none; any other failure is thrown, with the server's error.
   */
  async #pages<T>(
    serverName: string,
    signal: AbortSignal | undefined,
    page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
  ): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (let i = 0; i < MAX_LIST_PAGES; i++) {
      signal?.throwIfAborted();
      let result: { items: T[]; nextCursor?: string | undefined };
      try {
        result = await page(cursor);
      } catch (error) {
        if (MCPCapabilityError.isInstance(error) && error.serverName === serverName) return items;
        throw error;
      }
      items.push(...result.items);
      cursor = result.nextCursor;
      // A cursor seen before would loop forever: a server's bug, cut here.
      if (cursor === undefined || seen.has(cursor)) break;
      seen.add(cursor);
    }
    return items;
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
