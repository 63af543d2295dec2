// The operations behind `agentforge mcp ...` and `/api/v1/mcp/*`: one wired Application, the last known
// health of every server (persisted), single-flight health checks, and the JSON views of mcp-views.ts.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { MCPTracer } from "@agentforge/agent-runtime";
import type { DiscoveredTool, MCPElicitationHandler } from "@agentforge/mcp-client";
import { type MCPConfig, type MCPServerConfig, redactedConfig } from "@agentforge/mcp-config";
import { loadMCPConfig } from "@agentforge/mcp-config/node";
import { Application, SHIPPED_CONFIG } from "../app/application.js";
import type { WarningSink } from "../shared/warnings.js";
import {
  boundedPrompt,
  boundedResource,
  boundedTemplate,
  type CatalogSection,
  type CatalogView,
  INSPECT_LIST_LIMIT,
  type PromptPageView,
  type PromptView,
  promptView,
  type ResourcePageView,
  type ResourceReadView,
  resourceReadView,
} from "./catalog-views.js";
import { HealthStore } from "./health-store.js";
import {
  type ErrorView,
  errorView,
  errorViewOf,
  type GrantWarningView,
  type HealthReport,
  type HealthView,
  healthView,
  type InspectView,
  type LiveServerView,
  liveInfo,
  type NamedHealthView,
  outcomeHealth,
  type RefreshEntry,
  type RefreshView,
  type ServerToolsStatus,
  type ServerView,
  serverView,
  type TestView,
  type ToolSearchView,
  type ToolsView,
  toolView,
} from "./mcp-views.js";
import { type SecretRedactor, secretRedactor } from "./secret-redactor.js";
import { MANAGED_VARIABLES } from "./server-list.js";
import { UnknownServerError } from "./unknown-server-error.js";

export { listServers, MANAGED_VARIABLES, type ServerListView } from "./server-list.js";

/**
 * The environment servers are started with: the caller's, plus defaults for what the shipped roster
 * reads — the filesystem server's workspace (`workspace`) and quiet sequential-thinking.
 */
export function managementEnv(env: NodeJS.ProcessEnv, workspace: string): NodeJS.ProcessEnv {
  return {
    ...env,
    AGENTFORGE_WORKSPACE: env.AGENTFORGE_WORKSPACE || workspace,
    AGENTFORGE_DISABLE_THOUGHT_LOGGING: env.AGENTFORGE_DISABLE_THOUGHT_LOGGING ?? "true",
  };
}

/** Where the management surface reads its config and keeps its state. */
export interface MCPManagementOptions {
  /** Config file (default: the shipped roster). */
  configPath?: string;
  /** Audit log, server logs, health records (default `.agentforge`). */
  stateDir?: string;
  /** Environment the config's variable names are read from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The filesystem server's folder when `AGENTFORGE_WORKSPACE` is unset (default: the working directory). */
  workspace?: string;
  /** More values never to print (e.g. the API token). */
  secrets?: readonly (string | undefined)[];
  /** One span per tool call (`--otel`). */
  tracer?: MCPTracer;
  /** Where audit lines go (default `<stateDir>/audit.jsonl`). */
  audit?: (entry: Record<string, unknown>) => Promise<void> | void;
  /** Where warnings go (an audit line that could not be written...); default stderr. */
  warn?: WarningSink;
  /** Asks the user when a server requests input (a terminal); default: decline (see `Application`). */
  elicitation?: MCPElicitationHandler;
}

/** What `reload()` did (`POST /api/v1/mcp/reload`, SIGHUP, `--watch-config`). */
export interface ReloadView {
  /** The file read again. */
  configPath: string;
  added: string[];
  removed: string[];
  /** Restarted (their entry changed). */
  changed: string[];
  /** Kept as they were (connections kept). */
  unchanged: string[];
  /** Added or changed servers that could not list their tools: name → first line of the error. */
  failed: Record<string, string>;
  reloadedAt: string;
}

/** `reconnect <name>`: the connection was closed and opened again; the fresh check's outcome. */
export interface ReconnectView extends HealthView {
  name: string;
  /** The child process before and after (stdio; null when none). */
  previousPid: number | null;
  pid: number | null;
}

const STDERR_LOG_TAIL = 4000;

/** The management operations over one Application. Call `close()` to end every server it started. */
export class MCPManagement {
  readonly app: Application;
  readonly configPath: string;
  #redactor: SecretRedactor;
  readonly #secrets: readonly (string | undefined)[];
  #store: HealthStore;
  readonly #health: Map<string, HealthView>;
  readonly #checks = new Map<string, Promise<HealthView>>();
  readonly #env: NodeJS.ProcessEnv;
  #refreshing: Promise<RefreshView> | undefined;
  #reloading: Promise<ReloadView> | undefined;
  #nextReload: Promise<ReloadView> | undefined;
  #stopPolling: (() => void) | undefined;

  private constructor(
    app: Application,
    configPath: string,
    env: NodeJS.ProcessEnv,
    secrets: readonly (string | undefined)[],
  ) {
    this.app = app;
    this.configPath = configPath;
    this.#env = env;
    this.#secrets = secrets;
    this.#redactor = secretRedactor(app.config.servers, env, {
      extra: secrets,
      notSecret: MANAGED_VARIABLES,
    });
    this.#store = new HealthStore(app.stateDir, configPath, this.#redactor);
    this.#health = this.#store.load();
  }

  /** Redacts every known secret value (of the roster loaded last). */
  get redactor(): SecretRedactor {
    return this.#redactor;
  }

  /** Load the config and wire the Application (no server is started until it is used). */
  static async open(options: MCPManagementOptions = {}): Promise<MCPManagement> {
    const configPath = resolve(options.configPath ?? SHIPPED_CONFIG);
    const env = managementEnv(options.env ?? process.env, resolve(options.workspace ?? "."));
    const app = await Application.create({
      configPath,
      env,
      discover: false,
      ...(options.stateDir ? { stateDir: options.stateDir } : {}),
      ...(options.tracer ? { tracer: options.tracer } : {}),
      ...(options.audit ? { audit: options.audit } : {}),
      ...(options.warn ? { warn: options.warn } : {}),
      ...(options.elicitation ? { elicitation: options.elicitation } : {}),
    });
    return new MCPManagement(app, configPath, env, options.secrets ?? []);
  }

  /** The loaded config. */
  get config(): MCPConfig {
    return this.app.config;
  }

  /** Every configured name, enabled or not, in config order. */
  names(): string[] {
    return this.app.config.servers.map((s) => s.name);
  }

  /** A server's config; throws `UnknownServerError` (listing the known names) for an unknown name. */
  server(name: string): MCPServerConfig {
    const config = this.app.config.servers.find((s) => s.name === name);
    if (!config) throw new UnknownServerError(name, this.names());
    return config;
  }

  /**
   * The last known health of a server: the newest of what is recorded and what the manager's own checks
   * (health polling) found; a newer polling result is recorded on the way.
   */
  lastHealth(name: string): HealthView | null {
    const recorded = this.#health.get(name) ?? null;
    let polled: ReturnType<Application["manager"]["lastHealth"]>;
    try {
      polled = this.app.manager.lastHealth(name);
    } catch {
      return recorded; // removed by a reload
    }
    if (polled && (!recorded || polled.checkedAt > recorded.checkedAt) && !this.#checks.has(name)) {
      const view = this.#withRegistryVerdict(name, healthView(polled));
      if (view.error) view.error = this.#withLogTail(name, view.error);
      this.#record(name, view);
      return view;
    }
    return recorded;
  }

  /**
   * Check every server now and every `intervalMs` (the manager's health polling); each result is
   * recorded as the server's last known health (`lastHealth`, the /mcp page, `mcp list`). Returns the
   * function that stops it.
   */
  startHealthPolling(intervalMs: number): () => void {
    this.#stopPolling?.();
    const manager = this.app.manager;
    const record = ({ serverName }: { serverName: string }) => {
      this.lastHealth(serverName);
    };
    const stopRecording = manager.on("healthChanged", record);
    const stopManager = manager.startHealthPolling(intervalMs);
    // Results that kept their status fire no event: pick them up on the same beat (no I/O).
    const timer = setInterval(() => {
      for (const name of this.names()) this.lastHealth(name);
    }, intervalMs);
    timer.unref();
    const stop = () => {
      clearInterval(timer);
      stopManager();
      stopRecording();
      if (this.#stopPolling === stop) this.#stopPolling = undefined;
    };
    this.#stopPolling = stop;
    return stop;
  }

  /** Close a server's connection (ending its child process) and connect it again: the fresh check. */
  async reconnect(name: string): Promise<ReconnectView> {
    const config = this.server(name);
    const previousPid = this.app.manager.connectionStatus(name).pid ?? null;
    if (!config.enabled) {
      return { name, ...(await this.check(name)), previousPid, pid: null };
    }
    // Wait for a check in flight to settle (its outcome goes to whoever asked for it).
    await Promise.allSettled([this.#checks.get(name)]);
    await this.app.manager.close(name);
    const health = await this.check(name);
    return { name, ...health, previousPid, pid: this.app.manager.connectionStatus(name).pid ?? null };
  }

  /**
   * Read the config file again and apply it: only servers whose entry changed restart, removed servers
   * end and lose their tools, the new permissions apply to the next call. A file that does not load is
   * refused (the running roster stays). Concurrent calls share one reload.
   */
  reload(): Promise<ReloadView> {
    // A reload reads the file after it was asked for: one in flight is followed by one more (shared by
    // every request that arrived meanwhile), never joined.
    if (this.#reloading) {
      // The reload in flight reports its own failure to its callers; this one just follows it.
      this.#nextReload ??= Promise.allSettled([this.#reloading]).then(() => {
        this.#nextReload = undefined;
        return this.reload();
      });
      return this.#nextReload;
    }
    const current = this.#reload().finally(() => {
      if (this.#reloading === current) this.#reloading = undefined;
    });
    this.#reloading = current;
    return current;
  }

  async #reload(): Promise<ReloadView> {
    const config = await loadMCPConfig(this.configPath);
    const { changes, failed } = await this.app.reload(config);
    this.#redactor = secretRedactor(config.servers, this.#env, {
      extra: this.#secrets,
      notSecret: MANAGED_VARIABLES,
    });
    this.#store = new HealthStore(this.app.stateDir, this.configPath, this.#redactor);
    for (const name of changes.removed) this.#health.delete(name);
    for (const name of changes.changed) this.#health.delete(name);
    return {
      configPath: this.configPath,
      ...changes,
      failed: Object.fromEntries(
        Object.entries(failed).map(([name, message]) => [name, this.#redactor.redact(message)]),
      ),
      reloadedAt: new Date().toISOString(),
    };
  }

  #cachedToolCount(name: string): number | null {
    return this.app.manager.cachedTools(name)?.length ?? null;
  }

  /** The listed view of every server (no I/O). */
  servers(): ServerView[] {
    return this.app.config.servers.map((s) =>
      serverView(s, this.lastHealth(s.name), this.#cachedToolCount(s.name)),
    );
  }

  /** The listed view plus this process's live connection state (no I/O). */
  liveServer(name: string): LiveServerView {
    const config = this.server(name);
    const status = this.app.manager.connectionStatus(name);
    return {
      ...serverView(config, this.lastHealth(name), this.#cachedToolCount(name)),
      connection: {
        state: status.state,
        pid: status.pid ?? null,
        connectedAt: status.connectedAt ?? null,
        failures: status.failures,
        protocolVersion: status.protocolVersion ?? null,
      },
      checking: this.#checks.has(name),
    };
  }

  /** Every server's live view. */
  liveServers(): LiveServerView[] {
    return this.names().map((name) => this.liveServer(name));
  }

  /**
   * The redacted config and what the server said at initialize. With `connect`, the server is checked
   * first (connecting it); without, live info is given only if it is connected already.
   */
  async inspect(name: string, options: { connect: boolean }): Promise<InspectView<LiveServerView>> {
    const config = this.server(name);
    if (options.connect && config.enabled) await this.check(name);
    const connected = this.app.manager.connectionStatus(name).state === "connected";
    const live = connected
      ? liveInfo(
          await this.app.manager.getClient(name),
          this.app.manager.connectionStatus(name).protocolVersion,
        )
      : null;
    return { server: this.liveServer(name), config: redactedConfig(config, this.#env), live };
  }

  #agentsAllowed = (identity: string): string[] =>
    this.app.policy.agents().filter((agent) => this.app.policy.decide(agent, identity).allowed);

  /** The tools of one server, or of every enabled server in parallel; failures are reported per server. */
  async tools(name?: string, options: { cached?: boolean } = {}): Promise<ToolsView> {
    const names = name !== undefined ? [this.server(name).name] : this.app.manager.serverNames();
    const results = await Promise.all(
      names.map(async (server): Promise<{ status: ServerToolsStatus; tools: DiscoveredTool[] }> => {
        try {
          const cached = options.cached ? this.app.manager.cachedTools(server) : undefined;
          const tools = cached ?? (await this.app.manager.listTools(server));
          // The registry decides whether the list is usable (a name listed twice, or one another server
          // owns, rejects the whole server); the rest of the roster is unaffected.
          const rejected = this.app.registry.replaceServer(server, tools).rejected;
          if (rejected) {
            return {
              status: { name: server, status: "rejected", toolCount: 0, error: errorViewOf(rejected) },
              tools: [],
            };
          }
          return { status: { name: server, status: "ok", toolCount: tools.length, error: null }, tools };
        } catch (error) {
          return {
            status: {
              name: server,
              status: "failed",
              toolCount: 0,
              error: this.#withLogTail(server, errorViewOf(error)),
            },
            tools: [],
          };
        }
      }),
    );
    const listed = new Set(results.filter((r) => r.status.status === "ok").map((r) => r.status.name));
    const warnings: GrantWarningView[] = [];
    for (const warning of this.app.checkGrants()) {
      if (warning.code !== "GRANT_MATCHES_NO_TOOL") continue;
      if (!listed.has(warning.pattern.slice(0, warning.pattern.indexOf(".")))) continue;
      warnings.push({
        code: warning.code,
        agent: warning.agent,
        pattern: warning.pattern,
        suggestion: warning.suggestion ?? null,
        message: warning.message,
      });
    }
    return {
      tools: results.flatMap((r) => r.tools.map((tool) => toolView(tool, this.#agentsAllowed))),
      servers: results.map((r) => r.status),
      warnings,
    };
  }

  /**
   * What a search of `agent`'s tools returns (`executor.searchTools`: only its granted tools, ranked
   * in-process), after listing the servers (all, or `server`); and whether a tool loop would turn
   * search on for it, by its `tool_search:` settings.
   */
  async searchTools(
    agent: string,
    query: string,
    options: { server?: string; limit?: number } = {},
  ): Promise<ToolSearchView> {
    const { servers } = await this.tools(options.server);
    const executor = this.app.executor;
    const result = await executor.searchTools(agent, query, {
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
    });
    const status = executor.toolSearchStatus(agent);
    return {
      agent,
      query,
      candidates: result.candidates,
      search: { mode: status.settings.mode, on: status.on, reason: status.reason },
      hits: result.hits.map(({ tool, score }) => ({
        identity: tool.identity,
        score,
        title: tool.title ?? null,
        description: tool.description ?? "",
      })),
      servers,
    };
  }

  /** Connect (if needed) and list tools, timed: one latency figure. Records the outcome as health. */
  async test(name: string): Promise<TestView> {
    const config = this.server(name);
    const started = performance.now();
    try {
      const tools = await this.app.manager.listTools(config.name);
      const latencyMs = performance.now() - started;
      this.#record(name, outcomeHealth({ ok: true, toolCount: tools.length }, latencyMs));
      return {
        name,
        ok: true,
        latencyMs: Math.round(latencyMs * 10) / 10,
        toolCount: tools.length,
        tools: tools.map((t) => t.toolName),
        error: null,
      };
    } catch (caught) {
      const latencyMs = performance.now() - started;
      const error = this.#withLogTail(name, errorViewOf(caught));
      if (config.enabled) {
        this.#record(
          name,
          outcomeHealth({ ok: false, error, toolCount: this.#cachedToolCount(name) }, latencyMs),
        );
      }
      return {
        name,
        ok: false,
        latencyMs: Math.round(latencyMs * 10) / 10,
        toolCount: null,
        tools: [],
        error,
      };
    }
  }

  /** Health-check one server (connect if needed, ping, list tools); concurrent calls share one check. */
  check(name: string): Promise<HealthView> {
    this.server(name);
    const running = this.#checks.get(name);
    if (running) return running;
    const manager = this.app.manager;
    // An explicit check is a real attempt: a server waiting out its reconnect backoff is reset first.
    const reset =
      manager.connectionStatus(name).state === "backoff" ? manager.close(name) : Promise.resolve();
    const check = reset
      .then(() => manager.healthCheck(name))
      .then((health) => {
        const view = this.#withRegistryVerdict(name, healthView(health));
        if (view.error) view.error = this.#withLogTail(name, view.error);
        this.#record(name, view);
        return view;
      })
      .finally(() => this.#checks.delete(name));
    this.#checks.set(name, check);
    return check;
  }

  /** Health-check the named servers (default: all) in parallel. */
  async checkAll(names: readonly string[] = this.names()): Promise<HealthReport> {
    for (const name of names) this.server(name);
    const results = await Promise.all(
      names.map(async (name): Promise<NamedHealthView> => ({ name, ...(await this.check(name)) })),
    );
    const count = (status: HealthView["status"]) => results.filter((r) => r.status === status).length;
    return {
      servers: results,
      summary: { healthy: count("healthy"), unhealthy: count("unhealthy"), disabled: count("disabled") },
    };
  }

  /** Close every connection, reconnect and rediscover every enabled server; records each outcome as health. */
  refresh(): Promise<RefreshView> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #refresh(): Promise<RefreshView> {
    const discovery = await this.app.manager.refresh();
    const byName = new Map(discovery.servers.map((s) => [s.serverName, s]));
    const servers = this.app.config.servers.map((config): RefreshEntry => {
      const found = byName.get(config.name);
      if (!config.enabled || !found) {
        return { name: config.name, status: "disabled", toolCount: 0, durationMs: 0, error: null };
      }
      const error = found.error ? this.#withLogTail(config.name, errorViewOf(found.error)) : null;
      const durationMs = Math.round(found.durationMs * 10) / 10;
      this.#record(
        config.name,
        error
          ? outcomeHealth(
              { ok: false, error, toolCount: this.#cachedToolCount(config.name) },
              found.durationMs,
            )
          : outcomeHealth({ ok: true, toolCount: found.toolCount }, found.durationMs),
      );
      return { name: config.name, status: found.status, toolCount: found.toolCount, durationMs, error };
    });
    return {
      servers,
      toolCount: discovery.tools.length,
      durationMs: Math.round(discovery.durationMs * 10) / 10,
    };
  }

  /**
   * A server that answers but whose tool list the registry rejects (a name listed twice, a name another
   * server owns) is not healthy for an agent: none of its tools can be called. Said as such.
   */
  #withRegistryVerdict(name: string, view: HealthView): HealthView {
    const tools = this.app.manager.cachedTools(name);
    if (view.status !== "healthy" || !tools) return view;
    const rejected = this.app.registry.replaceServer(name, tools).rejected;
    if (!rejected) return view;
    return {
      ...view,
      status: "unhealthy",
      error: errorView(
        rejected.code,
        `${rejected.message} None of "${name}"'s tools can be called until the server lists each tool once.`,
      ),
    };
  }

  // When an error carries no stderr tail, a stdio server's log file may still say why.
  #withLogTail(name: string, error: ErrorView): ErrorView {
    if (error.stderrTail !== null) return error;
    const config = this.app.config.servers.find((s) => s.name === name);
    if (config?.transport !== "stdio") return error;
    const log = join(this.app.logDir, `${name}.stderr.log`);
    if (!existsSync(log)) return error;
    try {
      const text = readFileSync(log, "utf8").replace(/\s+$/, "");
      return text ? { ...error, stderrTail: text.slice(-STDERR_LOG_TAIL) } : error;
    } catch {
      return error;
    }
  }

  #record(name: string, view: HealthView): void {
    this.#health.set(name, view);
    try {
      this.#store.save(new Map([[name, view]]));
    } catch {
      // The record stays in memory; a read-only state folder must not fail a health check.
    }
  }

  /** Whether this process holds an open connection to the server (no I/O). */
  connected(name: string): boolean {
    this.server(name);
    return this.app.manager.connectionStatus(name).state === "connected";
  }

  /** One page of the server's resources (connects it if needed). */
  async resources(name: string, cursor?: string): Promise<ResourcePageView> {
    const page = await this.app.manager.listResources(this.server(name).name, cursor ? { cursor } : {});
    return {
      server: name,
      resources: page.resources.map(boundedResource),
      nextCursor: page.nextCursor ?? null,
      skipped: page.skipped,
      truncated: page.truncated,
    };
  }

  /** One page of the server's prompts (connects it if needed). */
  async prompts(name: string, cursor?: string): Promise<PromptPageView> {
    const page = await this.app.manager.listPrompts(this.server(name).name, cursor ? { cursor } : {});
    return {
      server: name,
      prompts: page.prompts.map(boundedPrompt),
      nextCursor: page.nextCursor ?? null,
      skipped: page.skipped,
      truncated: page.truncated,
    };
  }

  /**
   * Read one resource, bounded for a terminal or an HTTP answer. This is the operator's view (the CLI,
   * the token-protected API): agents read resources only through the executor and their `resources:` grants.
   */
  async readResource(name: string, uri: string): Promise<ResourceReadView> {
    return resourceReadView(await this.app.manager.readResource(this.server(name).name, uri));
  }

  /** Get one prompt with its arguments (strings), bounded; the operator's view, as `readResource`. */
  async getPrompt(name: string, prompt: string, args: Record<string, string> = {}): Promise<PromptView> {
    return promptView(await this.app.manager.getPrompt(this.server(name).name, prompt, args));
  }

  /**
   * The first resources, resource templates and prompts of a connected server (`mcp inspect`): only the
   * kinds its capabilities declare (null otherwise); a list that fails is reported in its section.
   */
  async catalog(name: string): Promise<CatalogView> {
    this.server(name);
    const empty: CatalogView = { resources: null, resourceTemplates: null, prompts: null };
    if (!this.connected(name)) return empty;
    const capabilities = (await this.app.manager.getClient(name)).getServerCapabilities() ?? {};
    const manager = this.app.manager;
    const section = async <T>(
      offered: boolean,
      list: () => Promise<{ items: T[]; nextCursor?: string | undefined; truncated: boolean }>,
    ): Promise<CatalogSection<T> | null> => {
      if (!offered) return null;
      try {
        const page = await list();
        return {
          items: page.items.slice(0, INSPECT_LIST_LIMIT),
          more: page.items.length > INSPECT_LIST_LIMIT || page.nextCursor !== undefined || page.truncated,
          error: null,
        };
      } catch (error) {
        const view = errorViewOf(error);
        return { items: [], more: false, error: `${view.code}: ${view.message.split("\n")[0] ?? ""}` };
      }
    };
    const [resources, resourceTemplates, prompts] = await Promise.all([
      section(capabilities.resources !== undefined, async () => {
        const page = await manager.listResources(name);
        return { ...page, items: page.resources.map(boundedResource) };
      }),
      section(capabilities.resources !== undefined, async () => {
        const page = await manager.listResourceTemplates(name);
        return { ...page, items: page.resourceTemplates.map(boundedTemplate) };
      }),
      section(capabilities.prompts !== undefined, async () => {
        const page = await manager.listPrompts(name);
        return { ...page, items: page.prompts.map(boundedPrompt) };
      }),
    ]);
    return { resources, resourceTemplates, prompts };
  }

  /** Serialize a value for output with every known secret value redacted. */
  json(value: unknown, indent?: number): string {
    return this.redactor.redact(JSON.stringify(value, null, indent));
  }

  /** End every server connection and child process. */
  async close(): Promise<void> {
    this.#stopPolling?.();
    await this.app.shutdown();
  }
}
