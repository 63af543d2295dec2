// Runs as jobs on a PostgreSQL job queue (pg-boss 10), shared by every `serve` instance on one database.
//
// A job is one attempt at executing a run. Its pg-boss expiry (`expireInSeconds`) is the lease: pg-boss
// 10 has no heartbeat, so a job cannot be kept alive longer. The run is therefore executed in slices of at
// most one lease: the handler gets an AbortSignal that fires shortly before the lease ends, pauses the run
// (saved, resumable), and the queue enqueues a continuation job that any instance may take. When an
// instance dies mid-run, its job stays `active` until pg-boss's maintenance (any live instance) expires it;
// pg-boss then retries it (bounded: `retryLimit`, `retryDelaySeconds`) on whichever instance fetches it,
// and when the retries are used up, moves it to a dead-letter queue whose worker pauses the run with an
// error note. The run row carries its own lease (`lease_expires_at`, a little shorter than the job's), and
// a sweep (on `work()` and every `sweepIntervalSeconds`) pauses any run still `running` after its lease,
// so a run is never `running` forever, even when its job is gone or it was claimed outside the queue.
import { randomUUID } from "node:crypto";
import PgBoss from "pg-boss";
import type { PostgresRunRepository } from "./postgres-run-repository.js";

/** Why a run job exists: a new run, or a paused run to continue (also a lease-end continuation). */
export type RunJobKind = "start" | "resume";

/** What the request that queued a job asked for (carried in the job, so any instance honours it). */
export interface RunJobOptions {
  /** Save and pause after this many tool rounds. */
  pauseAfter?: number;
  /** The model provider to continue with (a resume may change it). */
  model?: string;
  /** Tool rounds at most. */
  maxRounds?: number;
}

/** One job handed to the run handler. */
export interface RunJob {
  runId: string;
  kind: RunJobKind;
  /** What the request asked for (empty for a lease-end continuation). */
  options: RunJobOptions;
  /** The queue's id of this job (a retry keeps it). */
  jobId: string;
  /** 0 for the first attempt, then 1, 2... for pg-boss retries (the previous attempt failed or expired). */
  attempt: number;
}

/** What the handler gets with a job. */
export interface RunJobContext {
  /** Aborts shortly before the lease ends, or when the queue stops: pause and save the run, then return. */
  signal: AbortSignal;
  /** When the run's lease ends (after that, another instance may take the run over). */
  leaseEndsAt: Date;
  /** The instance executing the job. */
  instanceId: string;
}

/**
 * Executes one run job. When it is called the run is already claimed (`running`, owned by this instance):
 * it must NOT claim again; it continues the run from its saved state (for `start` too: a retried start
 * continues what the first attempt saved), saves the outcome (`finished`, `failed`, or `paused` when
 * `signal` aborts) and resolves. A throw fails the attempt (pg-boss retries it, bounded).
 */
export type RunJobHandler = (job: RunJob, context: RunJobContext) => Promise<void>;

/** What `enqueue` takes. */
export interface RunJobRequest {
  runId: string;
  kind: RunJobKind;
  options?: RunJobOptions;
}

/**
 * The shape shared by the run queues: pg-boss (`PgBossRunQueue`, several instances) and an in-process
 * queue for files mode (one instance).
 */
export interface RunQueue {
  /**
   * Queue a job for a saved run that is `paused` or `failed` (a new run is saved `paused` before its
   * `start`). Resolves false, queuing nothing, when the run is unknown, running, finished, or already has
   * a job queued or executing; of several concurrent calls for one run, exactly one resolves true.
   */
  enqueue(request: RunJobRequest): Promise<boolean>;
  /** Start executing jobs, at most `concurrency` at a time in this instance. */
  work(handler: RunJobHandler, options: { concurrency: number }): Promise<void>;
  /**
   * Stop taking jobs; abort the running handlers (their runs are paused) and wait for them. With
   * `graceful: false` nothing is waited for (the runs' jobs expire and are retried elsewhere).
   */
  stop(options?: { graceful?: boolean }): Promise<void>;
}

/** How to open the pg-boss run queue. */
export interface OpenPgBossRunQueueOptions {
  /** The store whose runs are executed (and whose database holds the queue). */
  repository: PostgresRunRepository;
  /** Schema of pg-boss's tables (default `<repository schema>_queue`), created by pg-boss itself. */
  schema?: string;
  /** Queue name (default `agentforge-runs`; its dead-letter queue is `<name>-failed`). */
  queueName?: string;
  /** The lease: a job's expiry in seconds (default 600; at least 2). */
  leaseSeconds?: number;
  /** Retries of a failed or expired job (default 2). */
  retryLimit?: number;
  /** Seconds before a retry (default 10). */
  retryDelaySeconds?: number;
  /** How often pg-boss looks for expired jobs, in seconds (default 30; shared by all instances). */
  maintenanceIntervalSeconds?: number;
  /** How often this instance pauses runs whose lease ended, in seconds (default 30). */
  sweepIntervalSeconds?: number;
  /** How often an idle worker polls for jobs, in seconds (default 2; at least 0.5). */
  pollingIntervalSeconds?: number;
  /** Called with errors pg-boss reports in the background (default: ignored). Never has the URL. */
  onError?: (error: Error) => void;
}

interface JobData {
  runId: string;
  kind: RunJobKind;
  jobId: string;
  options?: RunJobOptions;
}

interface Active {
  controller: AbortController;
  done: Promise<unknown>;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function isJobData(value: unknown): value is JobData {
  if (typeof value !== "object" || value === null) return false;
  const data = value as Record<string, unknown>;
  return (
    typeof data.runId === "string" &&
    data.runId.length > 0 &&
    data.runId.length <= 200 &&
    (data.kind === "start" || data.kind === "resume") &&
    typeof data.jobId === "string"
  );
}

/** The job's options, keeping only well-formed values (job data is read back from the database). */
function jobOptionsOf(value: unknown): RunJobOptions {
  if (typeof value !== "object" || value === null) return {};
  const raw = value as Record<string, unknown>;
  const count = (n: unknown) => typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= 1000;
  return {
    ...(count(raw.pauseAfter) ? { pauseAfter: raw.pauseAfter as number } : {}),
    ...(count(raw.maxRounds) ? { maxRounds: raw.maxRounds as number } : {}),
    ...(typeof raw.model === "string" && raw.model.length <= 100 ? { model: raw.model } : {}),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why the queue aborted a handler. */
class RunSliceEnd extends Error {
  constructor(readonly why: "lease" | "stop") {
    super(
      why === "lease"
        ? "the run's lease is ending; it is paused and continued by the next job"
        : "the instance is stopping",
    );
  }
}

/** Open the queue: start pg-boss (it creates or migrates its schema) and create the queues. */
export async function openPgBossRunQueue(options: OpenPgBossRunQueueOptions): Promise<PgBossRunQueue> {
  const queue = new PgBossRunQueue(options);
  await queue.start();
  return queue;
}

/** Run jobs on pg-boss (see the module comment). Open it with `openPgBossRunQueue`. */
export class PgBossRunQueue implements RunQueue {
  /** Queue name. */
  readonly name: string;
  /** Dead-letter queue name. */
  readonly deadLetterName: string;
  /** Job expiry in seconds. */
  readonly leaseSeconds: number;
  readonly retryLimit: number;
  readonly #repository: PostgresRunRepository;
  readonly #options: OpenPgBossRunQueueOptions;
  readonly #boss: PgBoss;
  readonly #active = new Set<Active>();
  readonly #loops: Promise<void>[] = [];
  readonly #sleepers = new Set<{ resolve: () => void }>();
  #sweepTimer: NodeJS.Timeout | undefined;
  #working = false;
  #stopped = false;

  /** @internal Use `openPgBossRunQueue`. */
  constructor(options: OpenPgBossRunQueueOptions) {
    const repository = options.repository;
    const schema = options.schema ?? `${repository.schema}_queue`;
    if (!SCHEMA_NAME.test(schema)) {
      throw new TypeError(
        `queue schema "${schema}" is not a plain PostgreSQL name (expected ${SCHEMA_NAME})`,
      );
    }
    this.leaseSeconds = Math.max(2, options.leaseSeconds ?? 600);
    this.retryLimit = Math.max(0, Math.floor(options.retryLimit ?? 2));
    this.name = options.queueName ?? "agentforge-runs";
    this.deadLetterName = `${this.name}-failed`;
    this.#repository = repository;
    this.#options = options;
    const connection = repository.connection("agentforge-queue");
    this.#boss = new PgBoss({
      connectionString: connection.connectionString as string,
      application_name: "agentforge-queue",
      schema,
      max: 4,
      schedule: false,
      supervise: true,
      migrate: true,
      maintenanceIntervalSeconds: Math.max(1, Math.floor(options.maintenanceIntervalSeconds ?? 30)),
    });
    // pg-boss emits background failures as 'error'; an unhandled 'error' event would crash the host.
    this.#boss.on("error", (error: Error) => {
      try {
        options.onError?.(error);
      } catch {
        // the reporter's own failure is not ours to raise
      }
    });
  }

  /** @internal Start pg-boss and create the queues (idempotent, safe from several instances at once). */
  async start(): Promise<void> {
    try {
      await this.#boss.start();
      const common = {
        retryLimit: this.retryLimit,
        retryDelay: Math.max(0, Math.floor(this.#options.retryDelaySeconds ?? 10)),
        expireInSeconds: this.leaseSeconds,
      };
      await this.#boss.createQueue(this.deadLetterName, {
        name: this.deadLetterName,
        retryLimit: 2,
        retryDelay: 5,
      });
      const queue = { name: this.name, policy: "short" as const, deadLetter: this.deadLetterName, ...common };
      await this.#boss.createQueue(this.name, queue);
      // createQueue keeps an existing queue's settings; apply this instance's.
      await this.#boss.updateQueue(this.name, queue);
    } catch (error) {
      await this.#boss.stop({ graceful: false, wait: true }).catch(() => {});
      throw this.#repository.databaseError("DATABASE_UNAVAILABLE", error);
    }
  }

  async enqueue(request: RunJobRequest): Promise<boolean> {
    if (this.#stopped) return false;
    return this.#enqueue(request);
  }

  async #enqueue(request: RunJobRequest): Promise<boolean> {
    const jobId = randomUUID();
    const options = jobOptionsOf(request.options);
    const data: JobData = {
      runId: request.runId,
      kind: request.kind,
      jobId,
      ...(Object.keys(options).length > 0 ? { options } : {}),
    };
    try {
      const queued = await this.#repository.transaction(async (client) => {
        if (!(await this.#repository.reserveJob(client, request.runId, jobId))) return false;
        const sent = await this.#boss.send(this.name, data, {
          id: jobId,
          singletonKey: request.runId,
          retryLimit: this.retryLimit,
          retryDelay: Math.max(0, Math.floor(this.#options.retryDelaySeconds ?? 10)),
          expireInSeconds: this.leaseSeconds,
          db: { executeSql: (text: string, values: unknown[]) => client.query(text, values) },
        });
        if (sent === null) throw new Rollback();
        return true;
      });
      if (queued) this.#wake();
      return queued;
    } catch (error) {
      if (error instanceof Rollback) return false;
      throw error;
    }
  }

  async work(handler: RunJobHandler, options: { concurrency: number }): Promise<void> {
    if (this.#stopped) throw new Error("the run queue is stopped");
    if (this.#working) throw new Error("work() was called already on this run queue");
    this.#working = true;
    const concurrency = Math.max(1, Math.floor(options.concurrency));
    const pollingMs = Math.max(0.5, this.#options.pollingIntervalSeconds ?? 2) * 1000;
    await this.sweep();
    // pg-boss's own work() completes or fails each job without awaiting it, so a database error at that
    // moment would be an unhandled rejection in the host. Jobs are fetched, completed and failed here
    // through pg-boss's API instead, every call awaited: one fetch loop per instance takes up to the
    // free slots' worth of jobs, and each job is completed on its own when its handler settles.
    this.#loops.push(
      this.#fetchLoop(this.name, concurrency, pollingMs, (job) => this.#execute(job, handler)),
    );
    this.#loops.push(this.#fetchLoop(this.deadLetterName, 1, pollingMs, (job) => this.#deadLetter(job)));
    const every = Math.max(1, this.#options.sweepIntervalSeconds ?? 30) * 1000;
    this.#sweepTimer = setInterval(() => {
      void this.sweep().catch((error: unknown) => this.#report(error));
    }, every);
    this.#sweepTimer.unref();
  }

  /** Fetch jobs of `queue` while slots are free, run each with `run`, complete or fail it, until stopped. */
  async #fetchLoop(
    queue: string,
    slots: number,
    pollingMs: number,
    run: (job: PgBoss.JobWithMetadata<JobData>) => Promise<unknown>,
  ): Promise<void> {
    const running = new Set<Promise<void>>();
    while (!this.#stopped) {
      const free = slots - running.size;
      if (free <= 0) {
        await Promise.race([...running, this.#sleep(pollingMs)]);
        continue;
      }
      let jobs: PgBoss.JobWithMetadata<JobData>[] = [];
      try {
        jobs = (await this.#boss.fetch<JobData>(queue, { batchSize: free, includeMetadata: true })) ?? [];
      } catch (error) {
        this.#report(error);
      }
      for (const job of jobs) {
        const settled: Promise<void> = run(job)
          .then(
            (output) =>
              this.#boss.complete(queue, job.id, typeof output === "object" && output !== null ? output : {}),
            (error: unknown) => this.#boss.fail(queue, job.id, { message: messageOf(error) }),
          )
          .then(
            () => undefined,
            (error: unknown) => this.#report(error),
          )
          .finally(() => {
            running.delete(settled);
            this.#wake();
          });
        running.add(settled);
      }
      if (jobs.length === 0 && !this.#stopped) await this.#sleep(pollingMs);
    }
    await Promise.allSettled([...running]);
  }

  /** Wait `ms`, or less when woken (a job was queued here, a slot freed, or the queue stops). */
  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      const waiter = { resolve: done };
      this.#sleepers.add(waiter);
      const sleepers = this.#sleepers;
      function done() {
        clearTimeout(timer);
        sleepers.delete(waiter);
        resolve();
      }
    });
  }

  #wake(): void {
    for (const sleeper of [...this.#sleepers]) sleeper.resolve();
  }

  /** Pause every run still `running` after its lease ended; resolves with their ids. */
  sweep(): Promise<string[]> {
    return this.#repository.pauseExpiredRuns();
  }

  #report(error: unknown): void {
    try {
      this.#options.onError?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // ignore
    }
  }

  async #execute(job: PgBoss.JobWithMetadata<JobData>, handler: RunJobHandler): Promise<unknown> {
    const data = job.data;
    if (!isJobData(data)) return { skipped: "malformed job data" };
    const repository = this.#repository;
    if (this.#stopped) {
      // Fetched while this instance began to stop: hand the run to a fresh job another instance takes.
      await repository.endJob(data.runId, job.id);
      await this.#enqueue({ runId: data.runId, kind: data.kind, options: jobOptionsOf(data.options) });
      return { requeued: "this instance was stopping" };
    }
    const instanceId = repository.instanceId;
    const leaseMs = this.leaseSeconds * 1000;
    // The run's lease ends a margin before the job's, and the handler is told a margin before that.
    const margin = Math.min(30_000, leaseMs / 5);
    const started = Date.now();
    // A previous attempt's instance may have died with the run `running`: its lease has ended by now.
    await repository.pauseExpiredRuns(data.runId);
    // The job's lease runs from its start as recorded by the database (the clock pg-boss expires it by).
    const startedOn = job.startedOn instanceof Date ? job.startedOn.getTime() : Date.now();
    const leaseEndsAt = new Date(startedOn + leaseMs - margin);
    if (!(await repository.claimWithLease(data.runId, instanceId, leaseEndsAt, job.id))) {
      await repository.endJob(data.runId, job.id);
      return { skipped: "the run is running elsewhere, finished, or gone" };
    }
    const controller = new AbortController();
    // Told a margin before the run's lease ends, by this process's clock from when it got the job (a
    // little after the database recorded the job's start), so a clock skew between hosts cannot matter.
    const timer = setTimeout(
      () => controller.abort(new RunSliceEnd("lease")),
      Math.max(0, leaseMs - 2 * margin - (Date.now() - started)),
    );
    const run: RunJob = {
      runId: data.runId,
      kind: data.kind,
      options: jobOptionsOf(data.options),
      jobId: job.id,
      attempt: job.retryCount,
    };
    const context: RunJobContext = {
      signal: controller.signal,
      leaseEndsAt,
      instanceId,
    };
    const done = (async () => {
      try {
        await handler(run, context);
      } catch (error) {
        await repository.endJob(data.runId, job.id, {
          instanceId,
          note: `the run's job failed (attempt ${job.retryCount + 1} of ${this.retryLimit + 1}): ${messageOf(error)}`,
          keepJob: job.retryCount < this.retryLimit,
        });
        throw error;
      } finally {
        clearTimeout(timer);
      }
      const sliceEnded =
        controller.signal.aborted &&
        controller.signal.reason instanceof RunSliceEnd &&
        controller.signal.reason.why === "lease";
      await repository.endJob(data.runId, job.id, {
        instanceId,
        note: "the run handler returned while the run was still marked running; it is paused",
        onlyWhenPausing: true,
      });
      if (sliceEnded && !this.#stopped) {
        const current = await repository.load(data.runId);
        if (current?.status === "paused") await this.enqueue({ runId: data.runId, kind: "resume" });
      }
      return { runId: data.runId };
    })();
    const entry: Active = { controller, done };
    this.#active.add(entry);
    try {
      return await done;
    } finally {
      this.#active.delete(entry);
    }
  }

  async #deadLetter(job: PgBoss.Job<JobData>): Promise<void> {
    const data = job.data;
    if (!isJobData(data)) return;
    await this.#repository.pauseExpiredRuns(data.runId);
    await this.#repository.endJob(data.runId, data.jobId, {
      note: `the run's queue job failed ${this.retryLimit + 1} time(s) (an error, or its instance stopped before the lease ended) and is not retried; resume the run to continue it`,
    });
  }

  async stop(options: { graceful?: boolean } = {}): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    const graceful = options.graceful !== false;
    for (const entry of this.#active) entry.controller.abort(new RunSliceEnd("stop"));
    this.#wake();
    // Graceful: the aborted handlers save their runs paused; their jobs are completed before pg-boss stops.
    if (graceful) await Promise.allSettled(this.#loops);
    await this.#boss.stop({ graceful, wait: true, timeout: 30_000 }).catch(() => {});
  }
}

class Rollback extends Error {}
