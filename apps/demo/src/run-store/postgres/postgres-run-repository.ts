// Runs, run events and the audit trail in PostgreSQL, shared by every `serve` instance pointed at the same
// database. Queries are parameterized (values are never put into SQL text); the pool's connections have
// `search_path` set to the store's schema, so the SQL names no schema at all. Live events travel by
// LISTEN/NOTIFY: a notification carries only (schema, run id, event id); the listening side reads the rows
// from the table by id, so big events are fine and a missed notification is caught up by the next one or by
// a periodic poll, and each listener sees each event once, in id order, without gaps.
import pg from "pg";
import { type WarningSink, warnOnStderr } from "../../shared/warnings.js";
import {
  type ConfirmationAnswer,
  type ConfirmationAnswerOutcome,
  type ConfirmationRecord,
  type ExpiredConfirmations,
  type NewConfirmation,
  statusOf,
} from "../confirmations.js";
import { type DatabaseTarget, parseDatabaseUrl, redactSecret } from "../database-url.js";
import type { RunEventRecord } from "../run-event-log.js";
import type { RunRepository, StoredRun } from "../run-repository.js";
import { RunDatabaseError } from "./database-error.js";
import { migrate, SCHEMA_NAME } from "./migrate.js";
import { toJsonb, toText } from "./sql-values.js";

/** The NOTIFY channel of appended events (one per database; the payload names the schema). */
export const RUN_EVENTS_CHANNEL = "agentforge_run_events";

/** How to open the PostgreSQL run store. */
export interface OpenPostgresRunRepositoryOptions {
  /** `postgres://user:password@host:port/database`. */
  databaseUrl: string;
  /** Where background failures (a dropped idle connection, an event not stored) go; default stderr. */
  warn?: WarningSink;
  /** Where the URL came from, named in errors: `DATABASE_URL` (default) or `--database-url`. */
  variable?: string;
  /** Schema of the tables (default `agentforge`); created with the tables by the migrations. */
  schema?: string;
  /** This instance's id (recorded as a run's owner). */
  instanceId: string;
  /**
   * How long a claim, or a save of a `running` run, holds (seconds, default 600): keep it above the
   * longest round. A run still `running` after its lease ended (its instance died) is paused by
   * `pauseExpiredRuns()` and becomes resumable.
   */
  leaseSeconds?: number;
  /** Safety poll of subscribed runs, in ms (default 2000): bounds the delay after a missed notification. */
  pollIntervalMs?: number;
  /**
   * Commit event appends without waiting for the WAL flush (`synchronous_commit = off` for that
   * transaction only; default false). Several times more events per second; a crash of the database
   * server (not of an instance) may lose the last fraction of a second of events. Runs, claims and
   * audit lines are always committed durably.
   */
  fastEventCommit?: boolean;
  /** Pool size (default 10). */
  poolSize?: number;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  /** Folder of the migration files (default: found next to the app). */
  migrationsDir?: string;
}

interface RunRow {
  id: string;
  agent: string;
  folder: string;
  model: string;
  config_path: string | null;
  max_rounds: number;
  status: StoredRun["status"];
  state: StoredRun["state"];
  document: string | null;
  error: string | null;
  owner_instance: string | null;
  created_at: Date;
  updated_at: Date;
}

interface EventRow {
  id: number;
  type: string;
  at: Date;
  data: Record<string, unknown>;
}

interface Listener {
  fn: (event: RunEventRecord) => void;
  /** The last id delivered (undefined until the starting point is known). */
  cursor: number | undefined;
}

interface RunSubscription {
  listeners: Set<Listener>;
  /** Starting points being read for new listeners. */
  pending: Set<Promise<void>>;
  pumping: boolean;
  again: boolean;
}

const RUN_COLUMNS =
  "id, agent, folder, model, config_path, max_rounds, status, state, document, error, owner_instance, created_at, updated_at";
const MAX_RUN_ID = 200;
const PAGE = 500;

function checkRunId(runId: string): void {
  if (typeof runId !== "string" || runId.length === 0 || runId.length > MAX_RUN_ID) {
    throw new TypeError(`run id must be a string of 1 to ${MAX_RUN_ID} characters`);
  }
}

function toRun(row: RunRow): StoredRun {
  return {
    id: row.id,
    agent: row.agent,
    folder: row.folder,
    model: row.model as StoredRun["model"],
    ...(row.config_path !== null ? { configPath: row.config_path } : {}),
    maxRounds: row.max_rounds,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    state: row.state,
    ...(row.document !== null ? { document: row.document } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
    ...(row.owner_instance !== null ? { ownerInstance: row.owner_instance } : {}),
  };
}

interface ConfirmationRow {
  run_id: string;
  call_id: string;
  agent: string;
  identity: string;
  server_name: string;
  tool_name: string;
  title: string | null;
  annotations: ConfirmationRecord["annotations"];
  fingerprint: string;
  binding: string;
  arguments_preview: string;
  requested_at: Date;
  expires_at: Date;
  status: ConfirmationRecord["status"];
  scope: ConfirmationRecord["scope"];
  reason: string | null;
  answered_at: Date | null;
  answered_by: string | null;
}

const CONFIRMATION_COLUMNS =
  "run_id, call_id, agent, identity, server_name, tool_name, title, annotations, fingerprint, binding, arguments_preview, requested_at, expires_at, status, scope, reason, answered_at, answered_by";

function toConfirmation(row: ConfirmationRow): ConfirmationRecord {
  return {
    runId: row.run_id,
    callId: row.call_id,
    agent: row.agent,
    identity: row.identity,
    serverName: row.server_name,
    toolName: row.tool_name,
    title: row.title,
    annotations: row.annotations,
    fingerprint: row.fingerprint,
    binding: row.binding,
    argumentsPreview: row.arguments_preview,
    requestedAt: row.requested_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    status: row.status,
    scope: row.scope,
    reason: row.reason,
    answeredAt: row.answered_at ? row.answered_at.toISOString() : null,
    answeredBy: row.answered_by,
  };
}

const EXPIRED_REASON = "nobody answered before it expired";

function toEvent(row: EventRow): RunEventRecord {
  return { id: row.id, type: row.type, at: row.at.toISOString(), data: row.data };
}

/** The connection settings of a URL, with every connection's search_path set to `schema`. */
/**
 * How long one query may go unanswered (ms). No wait on the database is unbounded: a query stuck
 * behind a lost connection or a never-ending transaction fails ("Query read timeout") instead of
 * hanging a run, a stream or a shutdown; subscriptions retry on their next poll.
 */
const QUERY_TIMEOUT_MS = 60_000;

function connectionConfig(databaseUrl: string, schema: string, name: string): pg.ClientConfig {
  return {
    connectionString: databaseUrl,
    options: `-c search_path=${schema}`,
    application_name: name,
    connectionTimeoutMillis: 10_000,
    // The listening connection waits for notifications, never for a query answer of its own.
    ...(name.endsWith("-listen") ? {} : { query_timeout: QUERY_TIMEOUT_MS }),
  };
}

/** Open the store: connect, apply pending migrations, start listening. Fails with `RunDatabaseError`. */
export async function openPostgresRunRepository(
  options: OpenPostgresRunRepositoryOptions,
): Promise<PostgresRunRepository> {
  const variable = options.variable ?? "DATABASE_URL";
  const schema = options.schema ?? "agentforge";
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(`schema "${schema}" is not a plain PostgreSQL name (expected ${SCHEMA_NAME})`);
  }
  if (!options.instanceId) throw new TypeError("instanceId must be a non-empty string");
  const target = parseDatabaseUrl(options.databaseUrl);
  if (!target) {
    throw new RunDatabaseError(
      "DATABASE_URL_INVALID",
      `${variable} is not a PostgreSQL URL (expected postgres://user:password@host:port/database)`,
      { variable },
    );
  }
  const repository = new PostgresRunRepository(options, { variable, schema, target });
  try {
    await repository.connect();
  } catch (error) {
    await repository.close();
    throw error;
  }
  return repository;
}

/** The PostgreSQL `RunRepository` (see the module comment). Open it with `openPostgresRunRepository`. */
export class PostgresRunRepository implements RunRepository {
  readonly kind = "postgres" as const;
  /** Schema of the tables. */
  readonly schema: string;
  /** This instance's id. */
  readonly instanceId: string;
  /** Seconds a claim holds. */
  readonly leaseSeconds: number;
  readonly #options: OpenPostgresRunRepositoryOptions;
  readonly #variable: string;
  readonly #target: DatabaseTarget;
  readonly #pool: pg.Pool;
  readonly #warn: WarningSink;
  readonly #subscriptions = new Map<string, RunSubscription>();
  #listener: pg.Client | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #reconnectDelay = 250;
  #pollTimer: NodeJS.Timeout | undefined;
  #closed = false;

  /** @internal Use `openPostgresRunRepository`. */
  constructor(
    options: OpenPostgresRunRepositoryOptions,
    resolved: { variable: string; schema: string; target: DatabaseTarget },
  ) {
    this.#options = options;
    this.#warn = options.warn ?? warnOnStderr;
    this.#variable = resolved.variable;
    this.#target = resolved.target;
    this.schema = resolved.schema;
    this.instanceId = options.instanceId;
    this.leaseSeconds = options.leaseSeconds ?? 600;
    this.#pool = new pg.Pool({
      ...this.connection("agentforge"),
      max: options.poolSize ?? 10,
    });
    // An idle connection dropped by the server must not crash the host; the next query reconnects.
    this.#pool.on("error", (cause) =>
      this.#warn({
        code: "BACKGROUND_TASK_FAILED",
        message: "an idle database connection was dropped",
        cause,
      }),
    );
  }

  /** Connection settings for another client of the same database and schema (e.g. the run queue). */
  connection(applicationName: string): pg.ClientConfig {
    return connectionConfig(this.#options.databaseUrl, this.schema, applicationName);
  }

  /** A database error for `cause`, naming the variable, host and database — never the password. */
  databaseError(
    code: "DATABASE_UNAVAILABLE" | "DATABASE_MIGRATION_FAILED",
    cause: unknown,
  ): RunDatabaseError {
    const { host, database } = this.#target;
    const reason = redactSecret(
      cause instanceof Error ? cause.message || cause.name : String(cause),
      this.#options.databaseUrl,
      this.#target,
    );
    const message =
      code === "DATABASE_UNAVAILABLE"
        ? `cannot connect to PostgreSQL at ${host}, database "${database}" (from ${this.#variable}): ${reason}. Check that the server is running and that ${this.#variable} names the right host, port, database and credentials.`
        : `cannot apply the run-store migrations in schema "${this.schema}" of PostgreSQL at ${host}, database "${database}" (from ${this.#variable}): ${reason}`;
    return new RunDatabaseError(code, message, {
      variable: this.#variable,
      host,
      database,
      cause: redactCause(cause, this.#options.databaseUrl, this.#target),
    });
  }

  /** @internal Connect, migrate, listen. */
  async connect(): Promise<void> {
    try {
      await this.#pool.query("SELECT 1");
    } catch (error) {
      throw this.databaseError("DATABASE_UNAVAILABLE", error);
    }
    if (this.#options.migrate !== false) {
      try {
        await migrate({
          connection: this.connection("agentforge-migrate"),
          schema: this.schema,
          ...(this.#options.migrationsDir ? { migrationsDir: this.#options.migrationsDir } : {}),
        });
      } catch (error) {
        throw this.databaseError("DATABASE_MIGRATION_FAILED", error);
      }
    }
    try {
      await this.#listen();
    } catch (error) {
      throw this.databaseError("DATABASE_UNAVAILABLE", error);
    }
    const interval = this.#options.pollIntervalMs ?? 2000;
    this.#pollTimer = setInterval(() => this.#pumpAll(), interval);
    this.#pollTimer.unref();
  }

  /** Run `fn` in one transaction on one pooled connection. */
  async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    // A connection lost between two statements emits 'error' on the client: never unhandled.
    const onError = () => {};
    client.on("error", onError);
    try {
      await client.query("BEGIN");
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.removeListener("error", onError);
      client.release();
    }
  }

  /**
   * Insert or replace a run. Saving a `running` run renews its lease (`leaseSeconds` from now), so the
   * per-round saves of a run claimed with `claim()` keep it alive; a run executed by a queue job keeps
   * the job's lease. Refused with `RUN_LEASE_LOST` when another instance runs the run now.
   */
  async save(run: StoredRun): Promise<void> {
    checkRunId(run.id);
    const result = await this.#pool.query(
      `INSERT INTO runs (id, agent, folder, model, config_path, max_rounds, status, state, document, error,
                         owner_instance, created_at, updated_at, lease_expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, now(),
               CASE WHEN $7 = 'running' THEN now() + make_interval(secs => $13::double precision) END)
       ON CONFLICT (id) DO UPDATE SET
         agent = EXCLUDED.agent, folder = EXCLUDED.folder, model = EXCLUDED.model,
         config_path = EXCLUDED.config_path, max_rounds = EXCLUDED.max_rounds, status = EXCLUDED.status,
         state = EXCLUDED.state, document = EXCLUDED.document, error = EXCLUDED.error,
         owner_instance = COALESCE(EXCLUDED.owner_instance, runs.owner_instance),
         updated_at = now(),
         lease_expires_at = CASE
           WHEN EXCLUDED.status <> 'running' THEN NULL
           WHEN runs.status = 'running' AND runs.job_id IS NOT NULL THEN runs.lease_expires_at
           ELSE EXCLUDED.lease_expires_at END
       WHERE NOT (runs.status = 'running' AND EXCLUDED.owner_instance IS NOT NULL
                  AND runs.owner_instance IS DISTINCT FROM EXCLUDED.owner_instance)`,
      [
        run.id,
        toText(run.agent),
        toText(run.folder),
        toText(run.model),
        toText(run.configPath),
        run.maxRounds,
        run.status,
        toJsonb(run.state),
        toText(run.document),
        toText(run.error),
        toText(run.ownerInstance),
        run.createdAt,
        this.leaseSeconds,
      ],
    );
    if (result.rowCount === 0) {
      const current = await this.load(run.id);
      throw new RunDatabaseError(
        "RUN_LEASE_LOST",
        `run ${run.id} was not saved: instance "${current?.ownerInstance ?? "?"}" runs it now, not "${run.ownerInstance}" (its lease ended and another instance took the run over)`,
        { variable: this.#variable, host: this.#target.host, database: this.#target.database },
      );
    }
  }

  async load(id: string): Promise<StoredRun | undefined> {
    if (typeof id !== "string" || id.length === 0 || id.length > MAX_RUN_ID) return undefined;
    const { rows } = await this.#pool.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [id]);
    return rows[0] ? toRun(rows[0]) : undefined;
  }

  async list(options: { limit?: number } = {}): Promise<StoredRun[]> {
    const limit =
      options.limit !== undefined && Number.isInteger(options.limit) && options.limit >= 0
        ? options.limit
        : null;
    const { rows } = await this.#pool.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs ORDER BY created_at DESC, id LIMIT $1`,
      [limit],
    );
    return rows.map(toRun);
  }

  /** Claim with the store's lease (`leaseSeconds`); exactly one of concurrent claims wins (row lock). */
  async claim(id: string, instanceId: string): Promise<boolean> {
    return this.claimWithLease(id, instanceId, this.leaseSeconds * 1000);
  }

  /**
   * Claim a paused or failed run for `instanceId` until `lease` (ms from now, or a time), in one
   * conditional UPDATE: concurrent claims of one run queue on its row lock, and all but the first find it
   * `running`. With `jobId`, the run is also bound to that run-queue job (a run reserved by another job is
   * refused).
   */
  async claimWithLease(
    id: string,
    instanceId: string,
    lease: number | Date,
    jobId?: string,
  ): Promise<boolean> {
    if (typeof id !== "string" || id.length === 0 || id.length > MAX_RUN_ID) return false;
    const until = lease instanceof Date ? lease.toISOString() : null;
    const { rowCount } = await this.#pool.query(
      `UPDATE runs SET status = 'running', owner_instance = $2, updated_at = now(),
              lease_expires_at = COALESCE($5::timestamptz, now() + make_interval(secs => $3::double precision)),
              job_id = COALESCE($4::uuid, job_id)
        WHERE id = $1 AND status IN ('paused', 'failed')
          AND ($4::uuid IS NULL OR job_id IS NULL OR job_id = $4::uuid)`,
      [id, instanceId, typeof lease === "number" ? lease / 1000 : 0, jobId ?? null, until],
    );
    return rowCount === 1;
  }

  /** Extend the lease of a run `instanceId` runs; false when it no longer owns a running run. */
  async renewLease(id: string, instanceId: string, leaseMs = this.leaseSeconds * 1000): Promise<boolean> {
    const { rowCount } = await this.#pool.query(
      `UPDATE runs SET lease_expires_at = now() + make_interval(secs => $3::double precision)
        WHERE id = $1 AND status = 'running' AND owner_instance = $2`,
      [id, instanceId, leaseMs / 1000],
    );
    return rowCount === 1;
  }

  /**
   * Pause every run still `running` after its lease ended (its instance died or lost the database), with
   * an error note and a `run_lease_expired` event; resolves with their ids. With `runId`, only that run.
   */
  async pauseExpiredRuns(runId?: string): Promise<string[]> {
    const { rows } = await this.#pool.query<{ id: string; owner_instance: string | null }>(
      `UPDATE runs SET status = 'paused', updated_at = now(), lease_expires_at = NULL,
              error = 'the lease of instance "' || COALESCE(owner_instance, '?') ||
                      '" ended while the run was running (the instance stopped or lost the database); the run is paused and can be resumed'
        WHERE status = 'running' AND lease_expires_at < now() AND ($1::text IS NULL OR id = $1)
        RETURNING id, owner_instance`,
      [runId ?? null],
    );
    for (const row of rows) {
      await this.appendEvent(row.id, "run_lease_expired", {
        runId: row.id,
        ownerInstance: row.owner_instance,
      }).catch((cause: unknown) =>
        this.#warn({
          code: "RUN_EVENT_WRITE_FAILED",
          message: `the run_lease_expired event of run ${row.id} was not stored`,
          cause,
        }),
      );
    }
    return rows.map((row) => row.id);
  }

  /**
   * Reserve the run for a new queue job `jobId` (inside the enqueue transaction): only a run that is
   * paused or failed and has no job queued or executing. False otherwise.
   */
  async reserveJob(client: pg.PoolClient, id: string, jobId: string): Promise<boolean> {
    const { rowCount } = await client.query(
      `UPDATE runs SET job_id = $2::uuid
        WHERE id = $1 AND job_id IS NULL AND status IN ('paused', 'failed')`,
      [id, jobId],
    );
    return rowCount === 1;
  }

  /**
   * Of `ids`, the runs that have a queue job not taken by another instance: waiting in the queue, or
   * claimed by this instance (counted until its handler takes over). Used to count the jobs an instance
   * enqueued that no other instance took.
   */
  async queuedRuns(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await this.#pool.query<{ id: string }>(
      `SELECT id FROM runs
        WHERE id = ANY($1::text[]) AND job_id IS NOT NULL
          AND (status <> 'running' OR owner_instance = $2)`,
      [ids, this.instanceId],
    );
    return new Set(rows.map((row) => row.id));
  }

  /**
   * A run-queue job of the run ended: clears the run's job (when it is still `jobId`, unless `keepJob`:
   * the job will be retried). A run still `running` for `instanceId` (the handler saved no outcome) is
   * paused. `note`, when given, becomes the run's error unless the run is finished or runs elsewhere
   * (with `onlyWhenPausing`: only when this call pauses it).
   */
  async endJob(
    id: string,
    jobId: string,
    options: { instanceId?: string; note?: string; keepJob?: boolean; onlyWhenPausing?: boolean } = {},
  ): Promise<void> {
    await this.#pool.query(
      `UPDATE runs SET
          job_id = CASE WHEN $5::boolean THEN job_id ELSE NULL END,
          status = CASE WHEN status = 'running' AND owner_instance = $3 THEN 'paused' ELSE status END,
          lease_expires_at = CASE WHEN status = 'running' AND owner_instance = $3 THEN NULL ELSE lease_expires_at END,
          error = CASE WHEN $4::text IS NOT NULL AND status <> 'finished'
                        AND NOT (status = 'running' AND owner_instance IS DISTINCT FROM $3)
                        AND (NOT $6::boolean OR (status = 'running' AND owner_instance = $3))
                       THEN $4 ELSE error END,
          updated_at = now()
        WHERE id = $1 AND (job_id = $2::uuid OR job_id IS NULL)`,
      [
        id,
        jobId,
        options.instanceId ?? null,
        toText(options.note),
        options.keepJob === true,
        options.onlyWhenPausing === true,
      ],
    );
  }

  async appendEvent(runId: string, type: string, data: Record<string, unknown>): Promise<RunEventRecord> {
    checkRunId(runId);
    const at = new Date().toISOString();
    const payload = { type, at, ...data };
    const text = `WITH counter AS (
         INSERT INTO run_event_counters AS c (run_id, last_id) VALUES ($1, 1)
         ON CONFLICT (run_id) DO UPDATE SET last_id = c.last_id + 1
         RETURNING last_id
       ), inserted AS (
         INSERT INTO run_events (run_id, id, type, at, data)
         SELECT $1, last_id, $2, $3, $4::jsonb FROM counter
         RETURNING id
       )
       SELECT id, pg_notify($5, json_build_object('s', $6::text, 'r', $1::text, 'i', id)::text)
         FROM inserted`;
    const values = [runId, toText(type), at, toJsonb(payload), RUN_EVENTS_CHANNEL, this.schema];
    const { rows } = this.#options.fastEventCommit
      ? await this.transaction(async (client) => {
          // Visible (and notified) at once like any commit; only a crash of the database server itself
          // may lose the last fraction of a second of events.
          await client.query("SET LOCAL synchronous_commit = off");
          return client.query<{ id: number }>(text, values);
        })
      : await this.#pool.query<{ id: number }>(text, values);
    const id = rows[0]?.id;
    if (id === undefined) throw new Error(`no event id was assigned for run ${runId}`);
    return { id, type, at, data: JSON.parse(toJsonb(payload)) as Record<string, unknown> };
  }

  async eventsSince(runId: string, afterId: number): Promise<RunEventRecord[]> {
    if (typeof runId !== "string" || runId.length === 0 || runId.length > MAX_RUN_ID) return [];
    const pending = this.#subscriptions.get(runId)?.pending;
    if (pending && pending.size > 0) await Promise.all([...pending]);
    const { rows } = await this.#pool.query<EventRow>(
      "SELECT id, type, at, data FROM run_events WHERE run_id = $1 AND id > $2 ORDER BY id",
      [runId, Number.isFinite(afterId) ? Math.floor(afterId) : 0],
    );
    return rows.map(toEvent);
  }

  /** The id of the run's last event (0 when none). */
  async lastEventId(runId: string): Promise<number> {
    const { rows } = await this.#pool.query<{ last_id: number }>(
      "SELECT last_id FROM run_event_counters WHERE run_id = $1",
      [runId],
    );
    return rows[0]?.last_id ?? 0;
  }

  /**
   * Live events of a run from any instance, each once and in id order. By default those appended from
   * now on (a following `eventsSince` of the run waits for that starting point, so subscribe-then-replay
   * leaves no gap, only an overlap to skip by id); with `afterId`, every event after that id first (the
   * SSE `Last-Event-ID` replay and the live stream as one gap-free sequence).
   */
  subscribe(
    runId: string,
    listener: (event: RunEventRecord) => void,
    options: { afterId?: number } = {},
  ): () => void {
    let subscription = this.#subscriptions.get(runId);
    if (!subscription) {
      subscription = { listeners: new Set(), pending: new Set(), pumping: false, again: false };
      this.#subscriptions.set(runId, subscription);
    }
    const entry: Listener = {
      fn: listener,
      cursor:
        options.afterId !== undefined && Number.isFinite(options.afterId)
          ? Math.max(0, Math.floor(options.afterId))
          : undefined,
    };
    subscription.listeners.add(entry);
    if (entry.cursor === undefined) {
      // The starting point is read now, and eventsSince() of this run waits for it: a caller that
      // subscribes and then reads the replay has no gap between the two (only an overlap, by id).
      const pending = subscription.pending;
      const ready: Promise<void> = this.lastEventId(runId).then(
        (last) => {
          entry.cursor ??= last;
        },
        () => {
          // unreachable now: the pump reads the starting point on its next pass
        },
      );
      pending.add(ready);
      void ready.finally(() => {
        pending.delete(ready);
        this.#pump(runId);
      });
    } else {
      this.#pump(runId);
    }
    return () => {
      const current = this.#subscriptions.get(runId);
      if (!current) return;
      current.listeners.delete(entry);
      if (current.listeners.size === 0) this.#subscriptions.delete(runId);
    };
  }

  /** Deliver the new events of one run to its listeners; one pass at a time per run. */
  #pump(runId: string): void {
    const subscription = this.#subscriptions.get(runId);
    if (!subscription || this.#closed) return;
    if (subscription.pumping) {
      subscription.again = true;
      return;
    }
    subscription.pumping = true;
    void (async () => {
      try {
        do {
          subscription.again = false;
          const fresh = [...subscription.listeners].filter((entry) => entry.cursor === undefined);
          if (fresh.length > 0 && subscription.pending.size === 0) {
            const last = await this.lastEventId(runId);
            for (const entry of fresh) entry.cursor ??= last;
          }
          for (;;) {
            const cursors = [...subscription.listeners].map(
              (entry) => entry.cursor ?? Number.POSITIVE_INFINITY,
            );
            if (cursors.length === 0) break;
            const from = Math.min(...cursors);
            if (!Number.isFinite(from)) break;
            const { rows } = await this.#pool.query<EventRow>(
              "SELECT id, type, at, data FROM run_events WHERE run_id = $1 AND id > $2 ORDER BY id LIMIT $3",
              [runId, from, PAGE],
            );
            for (const row of rows) {
              const event = toEvent(row);
              for (const entry of subscription.listeners) {
                if (entry.cursor === undefined || event.id <= entry.cursor) continue;
                entry.cursor = event.id;
                try {
                  entry.fn(event);
                } catch {
                  // a listener's failure is its own; the others still get the event
                }
              }
            }
            if (rows.length < PAGE) break;
          }
        } while (subscription.again && !this.#closed);
      } catch {
        // the database is unreachable right now: the next notification or poll tries again
      } finally {
        subscription.pumping = false;
      }
    })();
  }

  #pumpAll(): void {
    for (const runId of this.#subscriptions.keys()) this.#pump(runId);
  }

  /** Connect the listening client and LISTEN; on error or end, reconnect with backoff and catch up. */
  async #listen(): Promise<void> {
    const client = new pg.Client(this.connection("agentforge-listen"));
    const lost = () => {
      if (this.#listener !== client) return;
      this.#listener = undefined;
      client.removeAllListeners("notification");
      void client.end().catch(() => {});
      this.#scheduleReconnect();
    };
    client.on("error", lost);
    client.on("end", lost);
    client.on("notification", (message) => {
      if (message.channel !== RUN_EVENTS_CHANNEL || !message.payload) return;
      try {
        const payload = JSON.parse(message.payload) as { s?: unknown; r?: unknown };
        if (payload.s === this.schema && typeof payload.r === "string") this.#pump(payload.r);
      } catch {
        // not ours
      }
    });
    this.#listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${RUN_EVENTS_CHANNEL}`);
    } catch (error) {
      this.#listener = undefined;
      client.removeAllListeners();
      client.on("error", () => {});
      await client.end().catch(() => {});
      throw error;
    }
    this.#reconnectDelay = 250;
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer) return;
    const delay = this.#reconnectDelay;
    this.#reconnectDelay = Math.min(this.#reconnectDelay * 2, 5000);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (this.#closed) return;
      this.#listen().then(
        () => this.#pumpAll(),
        () => this.#scheduleReconnect(),
      );
    }, delay);
    this.#reconnectTimer.unref();
  }

  /** Whether the listening connection is up (LISTEN active). */
  get listening(): boolean {
    return this.#listener !== undefined;
  }

  async requestConfirmation(confirmation: NewConfirmation, ttlMs: number): Promise<ConfirmationRecord> {
    checkRunId(confirmation.runId);
    const c = confirmation;
    const { rows } = await this.#pool.query<ConfirmationRow>(
      `WITH inserted AS (
         INSERT INTO confirmations (run_id, call_id, agent, identity, server_name, tool_name, title, annotations,
                                    fingerprint, binding, arguments_preview, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11,
                 now() + make_interval(secs => $12::double precision))
         ON CONFLICT (run_id, call_id) DO NOTHING
         RETURNING ${CONFIRMATION_COLUMNS}
       )
       SELECT ${CONFIRMATION_COLUMNS} FROM inserted
       UNION ALL
       SELECT ${CONFIRMATION_COLUMNS} FROM confirmations WHERE run_id = $1 AND call_id = $2
       LIMIT 1`,
      [
        c.runId,
        toText(c.callId),
        toText(c.agent),
        toText(c.identity),
        toText(c.serverName),
        toText(c.toolName),
        c.title === null ? null : toText(c.title),
        toJsonb(c.annotations),
        toText(c.fingerprint),
        toText(c.binding),
        toText(c.argumentsPreview),
        ttlMs / 1000,
      ],
    );
    const row = rows[0];
    if (!row) throw new Error(`the confirmation of call ${c.callId} of run ${c.runId} was not stored`);
    return toConfirmation(row);
  }

  async confirmations(runId: string): Promise<ConfirmationRecord[]> {
    if (typeof runId !== "string" || runId.length === 0 || runId.length > MAX_RUN_ID) return [];
    const { rows } = await this.#pool.query<ConfirmationRow>(
      `SELECT ${CONFIRMATION_COLUMNS} FROM confirmations WHERE run_id = $1 ORDER BY requested_at, call_id`,
      [runId],
    );
    return rows.map(toConfirmation);
  }

  async pendingConfirmations(options: { limit?: number } = {}): Promise<ConfirmationRecord[]> {
    const { rows } = await this.#pool.query<ConfirmationRow>(
      `SELECT ${CONFIRMATION_COLUMNS} FROM confirmations WHERE status = 'pending'
        ORDER BY requested_at, run_id, call_id LIMIT $1`,
      [options.limit ?? 1000],
    );
    return rows.map(toConfirmation);
  }

  async answerConfirmation(
    runId: string,
    callId: string,
    answer: ConfirmationAnswer,
  ): Promise<ConfirmationAnswerOutcome> {
    if (typeof runId !== "string" || runId.length === 0 || runId.length > MAX_RUN_ID)
      return { outcome: "not_found" };
    return this.transaction(async (client) => {
      // The run's row lock orders the answers of one run's confirmations, so the last one sees the others
      // committed and releases the run (exactly once).
      await client.query("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", [runId]);
      await client.query(
        `UPDATE confirmations SET status = 'expired', answered_at = now(), answered_by = 'expiry', reason = $3
          WHERE run_id = $1 AND call_id = $2 AND status = 'pending' AND expires_at <= now()`,
        [runId, toText(callId), EXPIRED_REASON],
      );
      const updated = await client.query<ConfirmationRow>(
        `UPDATE confirmations SET status = $3, scope = $4, reason = $5, answered_at = now(), answered_by = $6
          WHERE run_id = $1 AND call_id = $2 AND status = 'pending'
          RETURNING ${CONFIRMATION_COLUMNS}`,
        [
          runId,
          toText(callId),
          statusOf(answer.decision),
          answer.scope,
          answer.reason === undefined ? null : toText(answer.reason),
          toText(answer.answeredBy),
        ],
      );
      const answered = updated.rows[0];
      if (answered) {
        return {
          outcome: "answered",
          record: toConfirmation(answered),
          released: await release(client, runId),
        };
      }
      const { rows } = await client.query<ConfirmationRow>(
        `SELECT ${CONFIRMATION_COLUMNS} FROM confirmations WHERE run_id = $1 AND call_id = $2`,
        [runId, toText(callId)],
      );
      const row = rows[0];
      return row ? { outcome: "closed", record: toConfirmation(row) } : { outcome: "not_found" };
    });
  }

  async releaseRun(runId: string): Promise<boolean> {
    if (typeof runId !== "string" || runId.length === 0 || runId.length > MAX_RUN_ID) return false;
    return this.transaction(async (client) => {
      await client.query("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", [runId]);
      return release(client, runId);
    });
  }

  async expireConfirmations(): Promise<ExpiredConfirmations> {
    const { rows } = await this.#pool.query<ConfirmationRow>(
      `UPDATE confirmations SET status = 'expired', answered_at = now(), answered_by = 'expiry', reason = $1
        WHERE status = 'pending' AND expires_at <= now()
        RETURNING ${CONFIRMATION_COLUMNS}`,
      [EXPIRED_REASON],
    );
    const expired = rows.map(toConfirmation);
    const released: string[] = [];
    for (const runId of new Set(expired.map((record) => record.runId))) {
      if (await this.releaseRun(runId)) released.push(runId);
    }
    return { expired, released };
  }

  async appendAudit(entry: Record<string, unknown>): Promise<void> {
    await this.#pool.query("INSERT INTO audit (entry) VALUES ($1::jsonb)", [toJsonb(entry)]);
  }

  /** The last `limit` audit entries, newest first. */
  async listAudit(
    options: { limit?: number } = {},
  ): Promise<Array<{ id: number; at: string; entry: Record<string, unknown> }>> {
    const { rows } = await this.#pool.query<{ id: string; at: Date; entry: Record<string, unknown> }>(
      "SELECT id, at, entry FROM audit ORDER BY id DESC LIMIT $1",
      [options.limit ?? 100],
    );
    return rows.map((row) => ({ id: Number(row.id), at: row.at.toISOString(), entry: row.entry }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#pollTimer) clearInterval(this.#pollTimer);
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#subscriptions.clear();
    const listener = this.#listener;
    this.#listener = undefined;
    if (listener) {
      listener.removeAllListeners();
      listener.on("error", () => {});
      await listener.end().catch(() => {});
    }
    await this.#pool.end().catch(() => {});
  }
}

/**
 * Inside a transaction holding the run's row lock: a run `awaiting_confirmation` without pending
 * confirmations goes back to `paused`. True when it did.
 */
async function release(client: pg.PoolClient, runId: string): Promise<boolean> {
  const { rowCount } = await client.query(
    `UPDATE runs SET status = 'paused', updated_at = now()
      WHERE id = $1 AND status = 'awaiting_confirmation'
        AND NOT EXISTS (SELECT 1 FROM confirmations WHERE run_id = $1 AND status = 'pending')`,
    [runId],
  );
  return rowCount === 1;
}

/** `cause` as an Error whose message carries no password (the original may quote the URL). */
function redactCause(cause: unknown, url: string, target: DatabaseTarget): unknown {
  if (!(cause instanceof Error)) return cause;
  const message = redactSecret(cause.message, url, target);
  if (message === cause.message) return cause;
  const copy = new Error(message);
  copy.name = cause.name;
  return copy;
}
