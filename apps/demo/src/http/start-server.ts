// `agentforge serve` without the command line: wire the management, the runs and the API, listen, and
// close it all again.
import { randomUUID } from "node:crypto";
import { type FSWatcher, readFileSync, realpathSync, statSync, watch } from "node:fs";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import type { MCPTracer } from "@agentforge/agent-runtime";
import { createAdaptorServer } from "@hono/node-server";
import { WORKSPACE_VARIABLE } from "../docs-agent/run-workspace-guard.js";
import { MCPManagement, type ReloadView } from "../mcp/mcp-management.js";
import { parseDatabaseUrl, redactSecret } from "../run-store/database-url.js";
import { FileRunRepository } from "../run-store/file-run-repository.js";
import type { PostgresRunRepository } from "../run-store/postgres/postgres-run-repository.js";
import type { PgBossRunQueue } from "../run-store/postgres/run-queue.js";
import type { RunRepository } from "../run-store/run-repository.js";
import { writeErr } from "../shared/terminal-safe.js";
import { UsageError } from "../shared/usage-error.js";
import { warnThrough } from "../shared/warnings.js";
import { answererOf, ConfirmationDesk } from "./confirmation-desk.js";
import { createApi } from "./create-api.js";
import { allowedHostsFor, assertServable } from "./request-guard.js";
import { DEFAULT_MAX_RUNS, RunManager } from "./run-manager.js";
import { loadStaticAssets } from "./static-assets.js";

/** Options of `startServer`. */
export interface StartServerOptions {
  /** Interface to bind (default 127.0.0.1); anything but loopback requires `token`. */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
  /** Server roster (default: the shipped one). */
  configPath?: string;
  /** State folder (runs, event logs, server logs, health records; default `.agentforge`). */
  stateDir?: string;
  /** Runs may only document folders under this one (default: the working directory). */
  allowedBase?: string;
  /** Bearer token every /api request must carry (required off loopback). */
  token?: string;
  /** Accepted Host header values (default on loopback: the bound address). */
  allowedHosts?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Check every server's health once at start, in the background (default true). */
  checkOnStart?: boolean;
  /** Runs going on at once (default 4); beyond it start and resume answer 429 TOO_MANY_RUNS. */
  maxRuns?: number;
  /** Health polling interval in ms (default 30000); 0 turns polling off. */
  healthIntervalMs?: number;
  /** Reload the roster when its file changes (debounced; robust to editors that replace the file). */
  watchConfig?: boolean;
  /** Where runs and their events are kept (default: files under the state folder). Closed by `close()`. */
  repository?: RunRepository;
  /**
   * Keep runs, events and the audit trail in PostgreSQL and run runs as jobs of its queue, shared with
   * every instance on the same database (ignored when `repository` is given).
   */
  database?: ServeDatabaseOptions;
  /** This process's id (default: a random UUID). */
  instanceId?: string;
  /** One span per tool call (`--otel`). */
  tracer?: MCPTracer;
  /**
   * How long a run waits for a person to confirm a tool call before the confirmation expires as denied
   * (`--confirmation-ttl`, default 24 h).
   */
  confirmationTtlMs?: number;
  /** How often pending confirmations are checked for expiry (default: a tenth of the TTL, 1 s to 30 s). */
  confirmationSweepMs?: number;
  /** Where reloads and watch problems are reported (default stderr). */
  log?: (line: string) => void;
}

/** `startServer({ database })`: the PostgreSQL run store and run queue. */
export interface ServeDatabaseOptions {
  /** `postgres://user:password@host:port/database` (never printed). */
  url: string;
  /** Where it came from, named in errors: `DATABASE_URL` or `--database-url`. */
  variable: string;
  /** A run's lease in seconds (default 600): a dead instance's run is recovered after it. */
  leaseSeconds?: number;
  /** How often expired jobs and leases are looked for, in seconds (default 30). */
  maintenanceSeconds?: number;
  /** Seconds before a failed or expired job is retried (default 10). */
  retryDelaySeconds?: number;
}

/** A running server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The real path runs are confined to. */
  allowedBase: string;
  management: MCPManagement;
  /** Random per process; runs record it as `ownerInstance`. */
  instanceId: string;
  /** Read the config file again and apply it (SIGHUP, `--watch-config`, `POST /api/v1/mcp/reload`). */
  reload(): Promise<ReloadView>;
  /**
   * Stop accepting (POSTs answer 503), pause active runs resumably, close connections, end every MCP
   * server, close the run store.
   */
  close(): Promise<void>;
}

/** The default of `--health-interval` (ms). */
export const DEFAULT_HEALTH_INTERVAL_MS = 30_000;
const WATCH_DEBOUNCE_MS = 300;

function realFolder(path: string): string {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new UsageError(`--allowed-base ${path} does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new UsageError(`--allowed-base ${path} is not a folder`);
  return real;
}

/** Start the REST API and the /mcp page. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const token = options.token || undefined;
  assertServable(host, token);
  const allowedBase = realFolder(options.allowedBase ?? ".");
  const env = options.env ?? process.env;
  const stateDir = options.stateDir ?? ".agentforge";
  const assets = loadStaticAssets();
  const log = options.log ?? writeErr;
  const warn = warnThrough(log, "agentforge serve");
  const instanceId = options.instanceId ?? randomUUID();
  const startedAt = new Date().toISOString();
  // Where runs are kept: the given store, PostgreSQL with its run queue, or files.
  let repository: RunRepository;
  let queue: PgBossRunQueue | undefined;
  let queuedRuns: ((ids: readonly string[]) => Promise<Set<string>>) | undefined;
  if (options.repository) repository = options.repository;
  else if (options.database) {
    const opened = await openDatabase(options.database, instanceId, log);
    repository = opened.repository;
    queue = opened.queue;
    queuedRuns = (ids) => opened.repository.queuedRuns(ids);
  } else repository = new FileRunRepository(resolve(stateDir));
  const closeStore = async () => {
    await queue
      ?.stop()
      .catch((cause: unknown) =>
        warn({ code: "SHUTDOWN_STEP_FAILED", message: "the run queue did not stop cleanly", cause }),
      );
    await repository.close();
  };
  // One MCP stack for the whole process. Its workspace servers are rooted at the allowed base; each
  // run's calls are confined to the run's own folder by its workspace guard (see run-workspace-guard.ts).
  let management: MCPManagement;
  try {
    management = await MCPManagement.open({
      ...(options.configPath ? { configPath: options.configPath } : {}),
      stateDir,
      env: { ...env, [WORKSPACE_VARIABLE]: allowedBase },
      workspace: allowedBase,
      secrets: [token],
      ...(options.tracer ? { tracer: options.tracer } : {}),
      // The audit trail goes where the runs are kept (with files: <stateDir>/audit.jsonl, as before).
      audit: (entry) => repository.appendAudit(entry),
      warn,
    });
  } catch (error) {
    await closeStore();
    throw error;
  }
  const maxRuns = options.maxRuns ?? DEFAULT_MAX_RUNS;
  const runs = new RunManager({
    allowedBase,
    stateDir: management.app.stateDir,
    configPath: management.configPath,
    env,
    application: management.app,
    repository,
    instanceId,
    maxRuns,
    ...(queue ? { queue } : {}),
    ...(queuedRuns ? { queuedRuns } : {}),
    ...(options.confirmationTtlMs !== undefined ? { confirmationTtlMs: options.confirmationTtlMs } : {}),
    warn,
  });
  const confirmations = new ConfirmationDesk({
    repository,
    runs,
    warn,
    ...(options.confirmationTtlMs !== undefined ? { ttlMs: options.confirmationTtlMs } : {}),
    ...(options.confirmationSweepMs !== undefined ? { sweepMs: options.confirmationSweepMs } : {}),
  });
  runs.onAwaiting = (runId) => confirmations.afterAwaiting(runId);
  const healthIntervalMs = options.healthIntervalMs ?? DEFAULT_HEALTH_INTERVAL_MS;
  let stopping = false;
  let allowedHosts: Set<string> | undefined;
  const app = createApi({
    management,
    runs,
    confirmations,
    answeredBy: answererOf(token),
    assets,
    token,
    allowedHosts: () => allowedHosts,
    stopping: () => stopping,
    instance: () => ({
      status: stopping ? "stopping" : "ok",
      instanceId,
      pid: process.pid,
      startedAt,
      store: repository.kind,
      runs: { active: runs.activeCount, max: maxRuns },
      healthIntervalMs: healthIntervalMs > 0 ? healthIntervalMs : null,
      watchConfig: options.watchConfig === true,
    }),
  });
  const server = createAdaptorServer({ fetch: app.fetch });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await management.close();
    await closeStore();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  // Every instance works the shared queue, `maxRuns` jobs at a time.
  if (queue) {
    try {
      await queue.work((job, context) => runs.executeJob(job, context), { concurrency: maxRuns });
    } catch (error) {
      server.close();
      await management.close();
      await closeStore();
      throw error;
    }
  }
  allowedHosts = allowedHostsFor(host, port, options.allowedHosts);
  // Pending confirmations expire (a deny) on whichever instance sweeps first.
  confirmations.start();
  // The start-up check (recorded with its stderr tails), then the manager's health polling.
  if (options.checkOnStart !== false) {
    void management.checkAll().catch((cause: unknown) =>
      warn({
        code: "BACKGROUND_TASK_FAILED",
        message: "the start-up health check of the servers failed",
        cause,
      }),
    );
  }
  let stopFirstPoll: () => void = () => undefined;
  if (healthIntervalMs > 0) {
    const first = setTimeout(() => management.startHealthPolling(healthIntervalMs), healthIntervalMs);
    first.unref();
    stopFirstPoll = () => clearTimeout(first);
  }

  const reload = async (): Promise<ReloadView> => {
    const view = await management.reload();
    log(
      `agentforge serve: reloaded ${view.configPath}: added [${view.added.join(", ")}], removed [${view.removed.join(", ")}], restarted [${view.changed.join(", ")}]`,
    );
    return view;
  };
  const watcher = options.watchConfig ? watchConfigFile(management.configPath, reload, log) : undefined;

  const urlHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    allowedBase,
    management,
    instanceId,
    reload,
    close() {
      closing ??= (async () => {
        stopping = true;
        stopFirstPoll();
        watcher?.close();
        await confirmations.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await runs.close();
        if ("closeAllConnections" in server) server.closeAllConnections();
        await closed;
        await management.close();
        await repository.close();
      })();
      return closing;
    },
  };
}

/**
 * Reload when the config file changes. The folder is watched, not the file: editors that save by
 * writing a new file and renaming it over the old one replace the inode a file watch would hold, and
 * mounted configs (a Kubernetes ConfigMap) swap a symlink next to it. Any change in the folder is
 * debounced, then the file is read: a reload happens only when its text differs from the last one seen.
 * A reload that fails (a half-written file) is reported and the running roster stays until the next change.
 */
function watchConfigFile(
  file: string,
  reload: () => Promise<unknown>,
  log: (line: string) => void,
): { close(): void } {
  const read = (): string | undefined => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return undefined; // between an editor's delete and its write
    }
  };
  let seen = read();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let again = false;
  const fire = () => {
    timer = undefined;
    if (running) {
      again = true;
      return;
    }
    const text = read();
    if (text === undefined || text === seen) return;
    seen = text;
    running = reload()
      .catch((error: unknown) => {
        log(
          `agentforge serve: the changed config was not applied (the running roster stays): ${error instanceof Error ? error.message : String(error)}`,
        );
      })
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          fire();
        }
      });
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), { persistent: false }, () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(fire, WATCH_DEBOUNCE_MS);
    });
    watcher.on("error", (error) => log(`agentforge serve: watching ${file} failed: ${error.message}`));
  } catch (error) {
    log(
      `agentforge serve: cannot watch ${file} (${error instanceof Error ? error.message : String(error)}); use SIGHUP or POST /api/v1/mcp/reload`,
    );
  }
  return {
    close() {
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}

/**
 * Open the PostgreSQL store (migrations applied) and its run queue. Loaded only here: pg, pg-boss and
 * node-pg-migrate never load in files mode. Fails with `RunDatabaseError` (naming the variable, host and
 * database, never the password).
 */
async function openDatabase(
  database: ServeDatabaseOptions,
  instanceId: string,
  log: (line: string) => void,
): Promise<{ repository: PostgresRunRepository; queue: PgBossRunQueue }> {
  const { openPostgresRunRepository, openPgBossRunQueue } = await import("../run-store/postgres/index.js");
  const leaseSeconds = database.leaseSeconds ?? 600;
  const maintenanceSeconds = database.maintenanceSeconds ?? 30;
  const target = parseDatabaseUrl(database.url);
  const repository = await openPostgresRunRepository({
    databaseUrl: database.url,
    variable: database.variable,
    instanceId,
    leaseSeconds,
    // The database's own messages may quote the URL: the password never reaches the log.
    warn: warnThrough((line) => log(redactSecret(line, database.url, target)), "agentforge serve"),
  });
  // Background failures of the queue are reported, rate-limited to one line per message a minute.
  const reported = new Map<string, number>();
  const onError = (error: Error) => {
    const message = redactSecret(error.message || error.name, database.url, target);
    const last = reported.get(message) ?? 0;
    if (Date.now() - last < 60_000) return;
    if (reported.size > 100) reported.clear();
    reported.set(message, Date.now());
    log(`agentforge serve: run queue: ${message}`);
  };
  try {
    const queue = await openPgBossRunQueue({
      repository,
      leaseSeconds,
      maintenanceIntervalSeconds: maintenanceSeconds,
      sweepIntervalSeconds: maintenanceSeconds,
      retryDelaySeconds: database.retryDelaySeconds ?? Math.min(10, maintenanceSeconds),
      pollingIntervalSeconds: Math.min(2, Math.max(0.5, maintenanceSeconds)),
      onError,
    });
    return { repository, queue };
  } catch (error) {
    await repository.close();
    throw error;
  }
}
