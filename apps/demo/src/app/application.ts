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
  createMCPToolkit,
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_CONFIRMATION_REQUESTED,
  MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_INPUT_ROUND,
  MCP_TOOL_DEFINITION_CHANGED,
  MCP_TOOL_SEARCH,
  MCP_TOOLS_LEFT_OUT,
  type MCPConfirmHandler,
  type MCPGrantWarning,
  type MCPRejectedServer,
  type MCPToolCallClient,
  type MCPToolExecutor,
  type MCPToolkit,
  type MCPTracer,
} from "@agentforge/agent-runtime";
import type {
  MCPClientManager,
  MCPConfigChanges,
  MCPDiscoveryResult,
  MCPElicitationHandler,
  MCPElicitationRequest,
} from "@agentforge/mcp-client";
import type { MCPConfig } from "@agentforge/mcp-config";
import { loadMCPConfig } from "@agentforge/mcp-config/node";
import { type MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { appTokenStore } from "./file-token-store.js";
import { pruneLogFolders } from "./log-folders.js";

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
import { type WarningSink, warnOnStderr } from "../shared/warnings.js";
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
  /** One span per tool call (`agentforge serve|docs --otel`); default none. */
  tracer?: MCPTracer;
  /**
   * Where audit lines go (e.g. the run repository's `appendAudit`); default `<stateDir>/audit.jsonl`.
   * A line that cannot be written never fails the call: it is an `AUDIT_WRITE_FAILED` warning.
   */
  audit?: (entry: Record<string, unknown>) => Promise<void> | void;
  /** Where warnings go (an audit line that could not be written...); default stderr. */
  warn?: WarningSink;
  /**
   * Folder of the servers' `<server>.stderr.log` files. Default `<stateDir>/logs/mcp/<pid>`: one folder
   * per process, so two processes sharing a state folder never truncate each other's live logs.
   */
  logDir?: string;
  /**
   * Asks the user when a server requests input while a tool runs (MCP elicitation): given only when a
   * person is at a terminal (`agentforge docs` / `mcp` on a TTY). Without it — no TTY, `serve` — every
   * request is declined at once, with an `elicitation_declined` audit line (server and mode, no values).
   */
  elicitation?: MCPElicitationHandler;
  /** Told about each request declined because nobody can answer (e.g. to print a note). */
  onElicitationDeclined?: (declined: ElicitationDeclined) => void;
  /**
   * Asks a person to confirm calls that need it (a `confirm` grant): given only when a person is at a
   * terminal (`agentforge docs`). Without it such calls are refused (CONFIRMATION_REQUIRED), unless a
   * tool loop pauses for them (`serve`).
   */
  confirm?: MCPConfirmHandler;
}

/** A server's elicitation request declined because nobody can answer it (no TTY, `serve`). */
export interface ElicitationDeclined {
  event: "elicitation_declined";
  serverName: string;
  mode: MCPElicitationRequest["mode"];
  reason: "unattended";
}

/** What `Application.reload` did: the manager's changes plus the servers listed again. */
export interface ApplicationReload {
  /** Servers added, removed, changed (restarted) and left as they were. */
  changes: MCPConfigChanges;
  /** Added or changed enabled servers that could not list their tools (name → first line of the error). */
  failed: Record<string, string>;
}

/**
 * The app's MCP stack: an `MCPToolkit` (manager, registry kept in step, policy, executor) plus what the app
 * adds to it — the audit trail, tool-definition approvals kept in the state folder, per-run executors.
 * Call `shutdown()` to end every server it started.
 */
export class Application {
  readonly #toolkit: MCPToolkit<MCPConfig>;
  readonly #audit: AuditWriter;
  readonly #stop: () => void;
  readonly #declined: Set<(declined: ElicitationDeclined) => void>;

  private constructor(
    toolkit: MCPToolkit<MCPConfig>,
    readonly stateDir: string,
    /** Folder of this process's `<server>.stderr.log` files. */
    readonly logDir: string,
    audit: AuditWriter,
    stop: () => void,
    declined: Set<(declined: ElicitationDeclined) => void>,
  ) {
    this.#toolkit = toolkit;
    this.#audit = audit;
    this.#stop = stop;
    this.#declined = declined;
  }

  /**
   * Be told of each elicitation request declined because nobody can answer it (`serve`: a run subscribes
   * for its lifetime to record `elicitation_declined` run events). Returns the function that unsubscribes.
   */
  onElicitationDeclined(listener: (declined: ElicitationDeclined) => void): () => void {
    this.#declined.add(listener);
    return () => {
      this.#declined.delete(listener);
    };
  }

  get manager(): MCPClientManager {
    return this.#toolkit.manager;
  }

  get registry(): MCPToolRegistry {
    return this.#toolkit.registry;
  }

  /** The shared executor (the CLI's runs and the management API use it; `serve` gives each run its own). */
  get executor(): MCPToolExecutor {
    return this.#toolkit.executor;
  }

  /** The discovery made at start, if one was. */
  get discovery(): MCPDiscoveryResult | undefined {
    return this.#toolkit.discovery;
  }

  /** The roster loaded last (at start, or by `reload`). */
  get config(): MCPConfig {
    return this.#toolkit.config;
  }

  /** The permission policy of the roster loaded last (every executor asks it on every call). */
  get policy(): MCPPermissionPolicy {
    return this.#toolkit.policy;
  }

  /**
   * An executor of its own for one run, over the shared manager, registry and policy: its events are
   * that run's only (the audit trail gets them too). `client` wraps the manager (e.g. the run's
   * workspace guard). Call `dispose()` when the run ends.
   */
  runExecutor(client?: MCPToolCallClient): MCPToolExecutor {
    const executor = this.#toolkit.createExecutor(client ? { clientManager: client } : {});
    auditExecutor(executor, this.#audit);
    return executor;
  }

  /**
   * Apply a roster loaded again (`reload`): only servers whose entry changed restart, removed ones end
   * (their tools leave the registry), added and changed enabled servers are listed again, and the
   * permissions of the new file apply to the next call of every run.
   */
  async reload(config: MCPConfig): Promise<ApplicationReload> {
    const changes = await this.#toolkit.reload(config);
    // The toolkit lists servers again only when it discovered before; the app's servers start lazily,
    // so the added and changed ones are listed here (the manager's cache answers if the toolkit did).
    const failed: Record<string, string> = {};
    const relist = [...changes.added, ...changes.changed].filter(
      (name) => config.servers.find((s) => s.name === name)?.enabled,
    );
    await Promise.all(
      relist.map(async (name) => {
        try {
          this.registry.replaceServer(name, await this.manager.listTools(name));
        } catch (error) {
          failed[name] = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
        }
      }),
    );
    return { changes, failed };
  }

  /** Servers whose tool list the registry rejected (e.g. a tool name listed twice): none of their tools are callable. */
  rejectedServers(): MCPRejectedServer[] {
    return this.#toolkit.rejectedServers();
  }

  /** Grants that match no tool the servers listed so far (each with the closest identity). */
  checkGrants(): MCPGrantWarning[] {
    return this.#toolkit.checkGrants();
  }

  static async create(options: ApplicationOptions = {}): Promise<Application> {
    const config = await loadMCPConfig(options.configPath ?? SHIPPED_CONFIG);
    const stateDir = resolve(options.stateDir ?? ".agentforge");
    mkdirSync(stateDir, { recursive: true });
    const logsRoot = join(stateDir, "logs", "mcp");
    const logDir = options.logDir ?? join(logsRoot, String(process.pid));
    if (options.logDir === undefined) pruneLogFolders(logsRoot);
    // The audit writer exists before the toolkit: the elicitation handler records its declines there.
    const audit = auditWriter(join(stateDir, "audit.jsonl"), options.audit, options.warn ?? warnOnStderr);
    const declined = new Set<(declined: ElicitationDeclined) => void>();
    if (options.onElicitationDeclined) declined.add(options.onElicitationDeclined);
    // Pins survive a restart: a run resumed in a new process still detects a definition that changed.
    const registry = new MCPToolRegistry();
    const approvalsFile = join(stateDir, APPROVALS_FILE);
    restoreApprovals(registry, approvalsFile);
    const toolkit = await createMCPToolkit({
      config,
      registry,
      pinToolDefinitions: true,
      ...(options.servers ? { servers: options.servers } : {}),
      env: options.env ?? process.env,
      logDir,
      ...(options.tracer ? { tracer: options.tracer } : {}),
      // Tools are listed at start unless the caller only manages servers; the CLI's runs call the
      // executor directly, so a toolkit left lazy here starts nothing on its own.
      discover: options.discover === false ? "lazy" : "eager",
      ...(options.confirm ? { confirm: options.confirm } : {}),
      manager: {
        elicitation: elicitationHandler(options, audit, declined, options.warn ?? warnOnStderr),
        // OAuth logins made with `agentforge mcp login` live in the state folder. The app itself never
        // waits for a browser: a server that needs a login is reported as such (AUTH_REQUIRED).
        tokenStore: appTokenStore(stateDir),
        authorize: false,
      },
    });
    auditExecutor(toolkit.executor, audit);
    // A server whose tool list the registry refuses (a name listed twice, a name another server owns)
    // loses its tools, with an audit line — whichever path handed the list over; the rest of the roster
    // works on.
    const stopAuditRejected = registry.on("serverRejected", ({ serverName, error, rejectedAt }) => {
      audit.write({
        at: rejectedAt,
        event: "MCP_SERVER_TOOLS_REJECTED",
        server: serverName,
        errorCode: error.code,
        message: error.message,
      });
    });
    const saveApprovals = () => writeApprovals(registry, approvalsFile);
    const stopPins = toolkit.manager.on("toolsChanged", saveApprovals);
    if (toolkit.discovery) saveApprovals();
    const stop = () => {
      stopAuditRejected();
      stopPins();
    };
    return new Application(toolkit, stateDir, logDir, audit, stop, declined);
  }

  /** The servers an agent's grants name (the only ones it could ever call). */
  static serversGrantedTo(config: MCPConfig, agent: string): string[] {
    const grant = config.permissions[agent];
    if (!grant) return [];
    // A `confirm` pattern grants too (each call then needs a person's confirmation).
    const patterns = [...grant.allow, ...(grant.confirm ?? [])];
    const names = new Set(patterns.map((pattern) => pattern.slice(0, pattern.indexOf("."))));
    return config.servers.filter((s) => names.has(s.name)).map((s) => s.name);
  }

  /** Close every server connection and child process, and the audit log. */
  async shutdown(): Promise<void> {
    this.#stop();
    writeApprovals(this.registry, join(this.stateDir, APPROVALS_FILE));
    await this.#toolkit.close();
    await this.#audit.end();
  }
}

/**
 * The manager's elicitation handler: the interactive one when given (its answer is audited by action
 * only), else decline at once. Never any value the user typed or the server sent in the audit trail.
 */
function elicitationHandler(
  options: ApplicationOptions,
  audit: AuditWriter,
  listeners: ReadonlySet<(declined: ElicitationDeclined) => void>,
  warn: WarningSink,
): MCPElicitationHandler {
  const ask = options.elicitation;
  return async (request, context) => {
    const at = new Date().toISOString();
    if (!ask) {
      const declined: ElicitationDeclined = {
        event: "elicitation_declined",
        serverName: request.serverName,
        mode: request.mode,
        reason: "unattended",
      };
      audit.write({
        at,
        event: declined.event,
        server: declined.serverName,
        mode: declined.mode,
        reason: declined.reason,
      });
      for (const listener of [...listeners]) {
        try {
          listener(declined);
        } catch (cause) {
          // A listener that throws must not change the answer; it is reported, never swallowed.
          warn({
            code: "LISTENER_FAILED",
            message: `an elicitation_declined listener failed (server ${declined.serverName})`,
            cause,
          });
        }
      }
      return { action: "decline" };
    }
    const answer = await ask(request, context);
    audit.write({
      at,
      event: "elicitation_answered",
      server: request.serverName,
      mode: request.mode,
      action: answer.action,
    });
    return answer;
  };
}

/** Writes audit lines: to the file, or to the given sink. */
interface AuditWriter {
  write(entry: Record<string, unknown>): void;
  end(): Promise<void>;
}

function auditWriter(
  file: string,
  sink: ((entry: Record<string, unknown>) => Promise<void> | void) | undefined,
  warn: WarningSink,
): AuditWriter {
  const failed = (cause: unknown, entry: Record<string, unknown>) =>
    warn({
      code: "AUDIT_WRITE_FAILED",
      message: `an audit line (${String(entry.event ?? "event")}${entry.identity ? ` ${String(entry.identity)}` : ""}) was not written to ${sink ? "the run store" : file}`,
      cause,
    });
  if (sink) {
    let pending: Promise<unknown> = Promise.resolve();
    return {
      write(entry) {
        pending = pending.then(async () => {
          try {
            await sink(entry);
          } catch (cause) {
            failed(cause, entry);
          }
        });
      },
      end: () => pending.then(() => undefined),
    };
  }
  const stream: WriteStream = createWriteStream(file, { flags: "a" });
  // A file that cannot be opened or written (a full disk, a folder in its place): one warning per
  // failure, and the lines after it are reported too instead of being written into a dead stream.
  let broken: unknown;
  stream.on("error", (cause) => {
    broken = cause;
    warn({ code: "AUDIT_WRITE_FAILED", message: `the audit log ${file} cannot be written`, cause });
  });
  return {
    write(entry) {
      if (broken !== undefined || !stream.writable) failed(broken ?? "the audit log is closed", entry);
      else stream.write(`${JSON.stringify(entry)}\n`);
    },
    end: () =>
      new Promise<void>((done) => {
        if (stream.destroyed) done();
        else stream.end(done);
      }),
  };
}

/**
 * The audit trail of an executor: who called what, how it ended, how long it took; what each search
 * found; tools a loop left out; each input round of a call, by mode. Never arguments, results or search
 * queries.
 */
function auditExecutor(executor: MCPToolExecutor, audit: AuditWriter): void {
  for (const name of [MCP_TOOL_CALL_COMPLETED, MCP_TOOL_CALL_FAILED] as const) {
    executor.events.on(name, (event) => {
      const { identity, serverName, agent, callId, outcome, durationMs, errorCode, timestamp } = event;
      // The audit line's format (`tool` = the identity, `server`) is the app's own, kept across versions.
      audit.write({
        at: timestamp,
        event: name,
        tool: identity,
        server: serverName,
        agent,
        callId,
        outcome,
        durationMs,
        errorCode,
      });
    });
  }
  // An input round of a call (2026-07-28): its number and modes — never what the server asked, the
  // answers or its requestState.
  executor.events.on(MCP_TOOL_CALL_INPUT_ROUND, (event) => {
    audit.write({
      at: event.timestamp,
      event: MCP_TOOL_CALL_INPUT_ROUND,
      tool: event.identity,
      server: event.serverName,
      agent: event.agent,
      callId: event.callId,
      round: event.round,
      modes: event.modes,
    });
  });
  // A search: the query's length and what was found — the query itself is never written (it is
  // model-written text, like a call's arguments).
  executor.events.on(MCP_TOOL_SEARCH, (event) => {
    audit.write({
      at: event.timestamp,
      event: MCP_TOOL_SEARCH,
      agent: event.agent,
      searchId: event.searchId,
      queryLength: event.queryLength,
      candidates: event.candidates,
      found: event.identities,
      outcome: event.outcome,
      errorCode: event.errorCode,
    });
  });
  executor.events.on(MCP_TOOLS_LEFT_OUT, (event) => {
    audit.write({
      at: event.timestamp,
      event: MCP_TOOLS_LEFT_OUT,
      agent: event.agent,
      tools: event.identities,
      limit: event.limit,
      reason: event.reason,
    });
  });
  // Confirmations: who was asked about which call, what they decided, who answered and how long it
  // waited — never the arguments (the preview is only shown to the person asked).
  executor.events.on(MCP_TOOL_CALL_CONFIRMATION_REQUESTED, (event) => {
    audit.write({
      at: event.timestamp,
      event: MCP_TOOL_CALL_CONFIRMATION_REQUESTED,
      tool: event.identity,
      server: event.serverName,
      agent: event.agent,
      callId: event.callId,
      runId: event.runId,
      basis: event.basis,
      fingerprint: event.fingerprint,
      asked: event.asked,
    });
  });
  executor.events.on(MCP_TOOL_CALL_CONFIRMATION_RESOLVED, (event) => {
    audit.write({
      at: event.timestamp,
      event: MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
      tool: event.identity,
      server: event.serverName,
      agent: event.agent,
      callId: event.callId,
      runId: event.runId,
      decision: event.decision,
      scope: event.scope,
      source: event.source,
      answeredBy: event.answeredBy,
      waitedMs: event.waitedMs,
    });
  });
  executor.events.on(MCP_TOOL_DEFINITION_CHANGED, (event) => {
    audit.write({
      at: event.timestamp,
      event: MCP_TOOL_DEFINITION_CHANGED,
      tool: event.identity,
      server: event.serverName,
    });
  });
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
