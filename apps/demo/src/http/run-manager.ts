// Docs runs started over REST: `runDocs` on the one shared MCP stack of this process, at most `maxRuns` at
// a time; their run-level events and their executors' tool-call events appended to the run repository
// (files or PostgreSQL), and the views of saved runs.
//
// Two ways of running:
// - files (no queue): a start or resume runs `runDocs` in this process at once (one instance).
// - with a run queue (PostgreSQL): a start saves the run `paused` and queues a "start" job, a resume
//   queues a "resume" job; every instance works the queue (`executeJob`, the run already claimed by the
//   queue) with `maxRuns` handlers at most. Admission (429) counts, per instance, the jobs executing
//   here plus the jobs this instance queued that no instance has taken yet, so one instance never
//   accepts more than `maxRuns` runs it cannot start at once.

import { randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import {
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_CONFIRMATION_REQUESTED,
  MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_INPUT_ROUND,
  MCP_TOOL_CALL_STARTED,
  MCP_TOOL_DEFINITION_CHANGED,
} from "@agentforge/agent-runtime";
import type { ToolCallRecord } from "@agentforge/agent-runtime/langchain";
import type { Application } from "../app/application.js";
import { SHIPPED_CONFIG } from "../app/shipped-config.js";
import { DOCS_AGENT, type RunDocsOptions, type RunEvent, runDocs } from "../docs-agent/run-docs.js";
import { RunConfigMismatchError, RunFolderError } from "../docs-agent/run-errors.js";
import { chooseProvider, PROVIDER_SPECS, type Provider } from "../docs-agent/select-model.js";
import { DEFAULT_CONFIRMATION_TTL_MS } from "../run-store/confirmations.js";
import type { RunJob, RunJobContext, RunQueue } from "../run-store/postgres/run-queue.js";
import type { RunEventRecord } from "../run-store/run-event-log.js";
import type { RunRepository, StoredRun } from "../run-store/run-repository.js";
import type { RunStatus } from "../run-store/run-store.js";
import { isInside } from "../shared/is-inside.js";
import { UsageError } from "../shared/usage-error.js";
import { type WarningSink, warnOnStderr } from "../shared/warnings.js";
import { ApiError } from "./api-error.js";
import type { ResumeRunBody, StartRunBody } from "./body-schemas.js";
import { resolveAllowedFolder } from "./folder-guard.js";

/** A run as the REST API returns it (`GET /api/v1/runs/{id}`). */
export interface RunView {
  id: string;
  status: RunStatus;
  /** Going on in this process right now (its events stream live). */
  active: boolean;
  /** The folder documented (real path). */
  folder: string;
  model: string;
  maxRounds: number;
  /** Tool rounds completed. */
  round: number;
  /** Every tool call so far: identity, round, duration, ok, error code (never arguments or results). */
  calls: ToolCallRecord[];
  createdAt: string;
  updatedAt: string;
  /** The Markdown overview, once finished. */
  document: string | null;
  /** Why it failed, when it did. */
  error: string | null;
  /** Events recorded so far (the last SSE id). */
  eventCount: number;
  /** The `serve` instance that runs it or ran it last (null for CLI runs). */
  ownerInstance: string | null;
  links: { self: string; events: string; resume: string };
}

/** How the REST API runs docs. */
export interface RunManagerOptions {
  /** Real path of the folder every documented folder must be inside. */
  allowedBase: string;
  /** The state folder (the runs' own roster path is checked against `configPath`). */
  stateDir: string;
  configPath?: string;
  env: NodeJS.ProcessEnv;
  /** The one MCP stack every run uses. */
  application: Application;
  /** Where runs and their events are kept. */
  repository: RunRepository;
  /** This process's instance id (recorded as each run's `ownerInstance`). */
  instanceId: string;
  /** Runs going on at once in this process (default 4); beyond it start and resume answer 429. */
  maxRuns?: number;
  /** Seconds a 429 asks the client to wait (`Retry-After`, default 5). */
  retryAfterSeconds?: number;
  /**
   * Run through this queue (PostgreSQL: shared by every instance) instead of in-process at once. The
   * caller starts its work (`queue.work(executeJob)`); `close()` stops it.
   */
  queue?: RunQueue;
  /**
   * Of these runs, the ones whose queue job no other instance has taken (still queued, or claimed by
   * this one): the admission count keeps them until this instance's handler starts them.
   */
  queuedRuns?: (ids: readonly string[]) => Promise<Set<string>>;
  /** Where a run event or record that could not be stored is reported (default: stderr). */
  warn?: WarningSink;
  /** How long a run waits for a person's confirmation before it counts as denied (default 24 h). */
  confirmationTtlMs?: number;
}

/** Receives a run's new events; `null` once the run stopped in this process. */
export type RunWatcher = (event: RunEventRecord | null) => void;

/** How long a stream waits for the closing events of a run another instance just finished. */
const SETTLE_MS = 10_000;
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EXECUTOR_EVENTS = [
  MCP_TOOL_CALL_STARTED,
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_INPUT_ROUND,
  MCP_TOOL_DEFINITION_CHANGED,
  MCP_TOOL_CALL_CONFIRMATION_REQUESTED,
  MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
] as const;

/** The default of `--max-runs`. */
export const DEFAULT_MAX_RUNS = 4;

interface ActiveRun {
  controller: AbortController;
  /** Settles once the run stopped and its last event was appended. */
  settled: Promise<void>;
}

/** Starts, resumes and describes docs runs; `close()` pauses every active run and waits for it. */
export class RunManager {
  readonly #options: RunManagerOptions;
  readonly #repo: RunRepository;
  readonly #active = new Map<string, ActiveRun>();
  readonly #stopped = new Map<string, Set<() => void>>();
  /** Runs being resumed here (between the claim and their start). */
  readonly #resuming = new Set<string>();
  readonly maxRuns: number;
  /** Slots taken: runs going on plus runs being started. */
  #slots = 0;
  #closing = false;
  /** With a queue: runs this instance queued whose job no instance has taken yet (as far as known here). */
  readonly #enqueued = new Set<string>();
  /** With a queue: requests admitted and being queued right now. */
  #admitting = 0;
  /** With a queue: runs whose job this instance is executing (from the job's start to its end). */
  readonly #jobs = new Set<string>();
  readonly #warn: WarningSink;
  /**
   * Told when a run stopped here `awaiting_confirmation` (the confirmation desk releases and resumes it
   * if its confirmations were answered while it was stopping).
   */
  onAwaiting: ((runId: string) => Promise<void>) | undefined;

  constructor(options: RunManagerOptions) {
    this.#options = options;
    this.#repo = options.repository;
    this.#warn = options.warn ?? warnOnStderr;
    this.maxRuns = options.maxRuns ?? DEFAULT_MAX_RUNS;
  }

  /** Runs going on in this process. */
  get activeCount(): number {
    return this.#active.size;
  }

  async #load(id: string): Promise<StoredRun> {
    const run = RUN_ID.test(id) ? await this.#repo.load(id) : undefined;
    if (!run) {
      throw new ApiError(
        404,
        "RUN_NOT_FOUND",
        `no run "${id}" (run ids are the UUIDs POST /api/v1/runs returns)`,
      );
    }
    return run;
  }

  #view(run: StoredRun, eventCount: number): RunView {
    const base = `/api/v1/runs/${run.id}`;
    return {
      id: run.id,
      status: run.status,
      active: this.#active.has(run.id),
      folder: run.folder,
      model: run.model,
      maxRounds: run.maxRounds,
      round: run.state.round,
      calls: run.state.calls,
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
      document: run.document ?? null,
      error: run.error ?? null,
      eventCount,
      ownerInstance: run.ownerInstance ?? null,
      links: { self: base, events: `${base}/events`, resume: `${base}/resume` },
    };
  }

  /** The view of a saved run. */
  async get(id: string): Promise<RunView> {
    const run = await this.#load(id);
    return this.#view(run, (await this.#repo.eventsSince(id, 0)).length);
  }

  /** The newest runs (without their event counts: `eventCount` is -1 in a listing). */
  async list(limit = 50): Promise<RunView[]> {
    return (await this.#repo.list({ limit })).map((run) => this.#view(run, -1));
  }

  /**
   * A run's events after `afterId` and the live ones from now on (404 RUN_NOT_FOUND for an unknown id).
   * `live` is false when the run is not going on in this process (the stream then ends after the replay).
   */
  async events(
    id: string,
    afterId: number,
    watcher: RunWatcher,
  ): Promise<{
    replay: RunEventRecord[];
    live: boolean;
    /**
     * With a shared store, a run that just finished on another instance may be saved as finished
     * before its last events are stored: the stream then stays open this long (ms) for them, and ends
     * at the first live `run_finished` or when nothing arrives.
     */
    settleMs?: number;
    /** The stored events after `afterId` (to catch up when the run stops here). */
    catchUp: (afterId: number) => Promise<RunEventRecord[]>;
    stop: () => void;
  }> {
    const run = await this.#load(id);
    // Subscribe before reading the replay, so nothing falls in between (duplicates are skipped by id).
    const stopEvents = this.#repo.subscribe(id, watcher);
    const onStopped = () => watcher(null);
    let stoppedSet = this.#stopped.get(id);
    if (!stoppedSet) {
      stoppedSet = new Set();
      this.#stopped.set(id, stoppedSet);
    }
    stoppedSet.add(onStopped);
    const set = stoppedSet;
    const stop = () => {
      stopEvents();
      set.delete(onStopped);
      if (set.size === 0 && this.#stopped.get(id) === set) this.#stopped.delete(id);
    };
    const replay = await this.#repo.eventsSince(id, afterId);
    // Live: going on here, or (a shared store) in another instance or queued for one, whose events
    // arrive by subscription.
    const live =
      this.#active.has(id) ||
      (this.#repo.kind !== "files" &&
        (run.status === "running" || (await this.#isQueued(id).catch(() => false))));
    const catchUp = (after: number) => this.#repo.eventsSince(id, after);
    // The run's status is saved before its closing event is stored: a replay that does not end with the
    // stretch's run_finished may still get it.
    const closed = (() => {
      for (let i = replay.length - 1; i >= 0; i--) {
        const type = replay[i]?.type;
        if (type === "run_finished") return true;
        if (type === "run_started") return false;
      }
      return replay.length === 0 && afterId > 0;
    })();
    if (!live && this.#repo.kind !== "files" && !closed)
      return { replay, live: true, settleMs: SETTLE_MS, catchUp, stop };
    return { replay, live, catchUp, stop };
  }

  #take(): void {
    if (this.#closing)
      throw new ApiError(503, "SHUTTING_DOWN", "the server is shutting down; start or resume the run later");
    if (this.#slots >= this.maxRuns) {
      const retryAfter = this.#options.retryAfterSeconds ?? 5;
      throw new ApiError(
        429,
        "TOO_MANY_RUNS",
        `${this.#slots} runs are going on, the most this server runs at once (--max-runs ${this.maxRuns}); retry later`,
        { maxRuns: this.maxRuns, active: this.#slots, retryAfterSeconds: retryAfter },
        { "Retry-After": String(retryAfter) },
      );
    }
    this.#slots++;
  }

  async #isQueued(id: string): Promise<boolean> {
    const queuedRuns = this.#options.queuedRuns;
    return queuedRuns ? (await queuedRuns([id])).has(id) : false;
  }

  /** With a queue: take one admission (429 when this instance has `maxRuns` executing or waiting). */
  async #admit(): Promise<void> {
    const taken = () => this.#jobs.size + this.#enqueued.size + this.#admitting;
    if (!this.#closing && taken() >= this.maxRuns && this.#enqueued.size > 0 && this.#options.queuedRuns) {
      // Some of the jobs queued here may have been taken by other instances meanwhile.
      const ids = [...this.#enqueued];
      const waiting = await this.#options.queuedRuns(ids);
      for (const id of ids) if (!waiting.has(id)) this.#enqueued.delete(id);
    }
    if (this.#closing)
      throw new ApiError(503, "SHUTTING_DOWN", "the server is shutting down; start or resume the run later");
    const count = taken();
    if (count >= this.maxRuns) {
      const retryAfter = this.#options.retryAfterSeconds ?? 5;
      throw new ApiError(
        429,
        "TOO_MANY_RUNS",
        `${count} runs are going on or queued by this instance, the most it accepts at once (--max-runs ${this.maxRuns}); retry later`,
        { maxRuns: this.maxRuns, active: count, retryAfterSeconds: retryAfter },
        { "Retry-After": String(retryAfter) },
      );
    }
    this.#admitting++;
  }

  /** Start a docs run on a folder under the allowed base; resolves once it has started (its id known). */
  async start(body: StartRunBody): Promise<RunView> {
    const folder = resolveAllowedFolder(this.#options.allowedBase, body.folder);
    if (this.#options.queue) return this.#startQueued(folder, body, this.#options.queue);
    this.#take();
    const id = await this.#launch({
      folder,
      ...(body.model ? { model: body.model } : {}),
      ...(body.maxRounds !== undefined ? { maxRounds: body.maxRounds } : {}),
      ...(body.pauseAfter !== undefined ? { pauseAfter: body.pauseAfter } : {}),
    });
    return this.get(id);
  }

  /** With a queue: save the new run `paused` and queue its "start" job (any instance may take it). */
  async #startQueued(folder: string, body: StartRunBody, queue: RunQueue): Promise<RunView> {
    const provider = this.#usableProvider(body.model);
    await this.#admit();
    const id = randomUUID();
    try {
      const now = new Date().toISOString();
      const run: StoredRun = {
        id,
        agent: DOCS_AGENT,
        folder,
        model: provider as StoredRun["model"],
        configPath: rosterPath(this.#options.configPath ?? SHIPPED_CONFIG),
        maxRounds: body.maxRounds ?? 3,
        status: "paused",
        createdAt: now,
        updatedAt: now,
        state: { messages: [], round: 0, calls: [], finished: false },
      };
      await this.#repo.save(run);
      const queued = await queue.enqueue({
        runId: id,
        kind: "start",
        options: body.pauseAfter !== undefined ? { pauseAfter: body.pauseAfter } : {},
      });
      if (!queued) {
        await this.#repo.save({
          ...run,
          status: "failed",
          error: "the run could not be queued (the instance is stopping)",
        });
        throw new ApiError(503, "SHUTTING_DOWN", "the server is shutting down; start the run later");
      }
      // (Its job may have started here already: then it is counted as executing.)
      if (!this.#jobs.has(id)) this.#enqueued.add(id);
    } finally {
      this.#admitting--;
    }
    return this.get(id);
  }

  /**
   * With a queue: the provider a run would use, checked now (the job may run on another instance, so a
   * model that cannot be used is refused here with 400, as in files mode, not found out later).
   */
  #usableProvider(requested: string | undefined): Provider {
    let provider: Provider;
    try {
      provider = chooseProvider(requested, this.#options.env);
    } catch (error) {
      throw new ApiError(400, "RUN_START_FAILED", `the run could not start: ${(error as Error).message}`);
    }
    const keyVar = provider === "offline" ? undefined : PROVIDER_SPECS[provider].keyVar;
    if (keyVar && !this.#options.env[keyVar]) {
      throw new ApiError(
        400,
        "RUN_START_FAILED",
        `the run could not start: the model "${provider}" needs ${keyVar}, which is not set in the server's environment`,
      );
    }
    return provider;
  }

  /** With a queue: queue a "resume" job; of concurrent resumes (any instances) exactly one is accepted. */
  async #resumeQueued(run: StoredRun, body: ResumeRunBody, queue: RunQueue): Promise<RunView> {
    const id = run.id;
    if (run.status === "running")
      throw new ApiError(
        409,
        "RUN_ACTIVE",
        `run ${id} is running (instance ${run.ownerInstance ?? "unknown"})`,
      );
    if (body.model !== undefined) this.#usableProvider(body.model);
    await this.#admit();
    try {
      const queued = await queue.enqueue({
        runId: id,
        kind: "resume",
        options: {
          ...(body.model ? { model: body.model } : {}),
          ...(body.maxRounds !== undefined ? { maxRounds: body.maxRounds } : {}),
          ...(body.pauseAfter !== undefined ? { pauseAfter: body.pauseAfter } : {}),
        },
      });
      if (!queued) {
        if (this.#closing)
          throw new ApiError(503, "SHUTTING_DOWN", "the server is shutting down; resume the run later");
        const now = await this.#repo.load(id);
        if (now?.status === "finished")
          throw new ApiError(409, "RUN_FINISHED", `run ${id} is finished; there is nothing to resume`);
        throw new ApiError(409, "RUN_ACTIVE", `run ${id} is running or queued already`);
      }
      // (Its job may have started here already: then it is counted as executing.)
      if (!this.#jobs.has(id)) this.#enqueued.add(id);
    } finally {
      this.#admitting--;
    }
    return this.get(id);
  }

  /**
   * The run queue's handler: continue the (already claimed) run with `runDocs` on the shared
   * Application until it ends or `context.signal` aborts (then it is saved paused). A run that cannot
   * start (its folder or roster changed) is saved failed with the reason; the job is not retried.
   */
  async executeJob(job: RunJob, context: RunJobContext): Promise<void> {
    this.#jobs.add(job.runId);
    this.#enqueued.delete(job.runId);
    try {
      await this.#executeJob(job, context);
    } finally {
      this.#jobs.delete(job.runId);
    }
  }

  async #executeJob(job: RunJob, context: RunJobContext): Promise<void> {
    let id: string;
    try {
      id = await this.#launch(
        {
          resumeId: job.runId,
          ...(job.options.model ? { model: job.options.model } : {}),
          ...(job.options.maxRounds !== undefined ? { maxRounds: job.options.maxRounds } : {}),
          ...(job.options.pauseAfter !== undefined ? { pauseAfter: job.options.pauseAfter } : {}),
        },
        { signal: context.signal, resumed: job.kind === "resume" || job.attempt > 0 },
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const run = await this.#repo.load(job.runId);
      if (run && run.status === "running" && run.ownerInstance === this.#options.instanceId) {
        await this.#repo.save({ ...run, status: "failed", error: message });
        await this.#repo
          .appendEvent(job.runId, "run_finished", {
            type: "run_finished",
            runId: job.runId,
            status: "failed",
            calls: run.state.calls.length,
            error: message,
          })
          .catch((cause: unknown) =>
            this.#warn({
              code: "RUN_EVENT_WRITE_FAILED",
              message: `the run_finished event of run ${job.runId} (failed: it could not start) was not stored`,
              cause,
            }),
          );
      }
      return;
    }
    await this.#active.get(id)?.settled;
  }

  /** Continue a paused (or interrupted) run in this process. */
  async resume(id: string, body: ResumeRunBody): Promise<RunView> {
    const run = await this.#load(id);
    if (this.#active.has(id) || this.#resuming.has(id))
      throw new ApiError(409, "RUN_ACTIVE", `run ${id} is running in this process already`);
    if (run.status === "finished")
      throw new ApiError(409, "RUN_FINISHED", `run ${id} is finished; there is nothing to resume`);
    if (run.status === "awaiting_confirmation")
      throw new ApiError(
        409,
        "CONFIRMATION_PENDING",
        `run ${id} waits for a person to confirm a tool call; answer it (GET /api/v1/confirmations) and the run continues`,
        { runId: id },
      );
    if (!isInside(this.#options.allowedBase, run.folder)) {
      throw new ApiError(
        403,
        "FOLDER_NOT_ALLOWED",
        `run ${id} documents ${run.folder}, outside the allowed base ${this.#options.allowedBase}`,
      );
    }
    if (this.#options.queue) return this.#resumeQueued(run, body, this.#options.queue);
    this.#take();
    this.#resuming.add(id);
    try {
      try {
        // With files, one process owns the state folder: a "running" run that is not active here was
        // interrupted (the process that ran it ended) and may be resumed. Shared stores claim atomically.
        const interrupted = this.#repo.kind === "files" && run.status === "running";
        if (!interrupted && !(await this.#repo.claim(id, this.#options.instanceId))) {
          throw new ApiError(409, "RUN_ACTIVE", `run ${id} is being run by another instance`);
        }
      } catch (error) {
        this.#slots--; // not launched: the slot is free again
        throw error;
      }
      // From here the launch gives the slot back when the run stops or fails to start.
      try {
        await this.#launch({
          resumeId: id,
          ...(body.model ? { model: body.model } : {}),
          ...(body.maxRounds !== undefined ? { maxRounds: body.maxRounds } : {}),
          ...(body.pauseAfter !== undefined ? { pauseAfter: body.pauseAfter } : {}),
        });
      } catch (error) {
        // Refused before it started (its folder, its roster): it stays as it was, not "running".
        await this.#repo.save(run).catch((cause: unknown) =>
          this.#warn({
            code: "RUN_SAVE_FAILED",
            message: `run ${id} could not be put back as it was after its resume was refused; it may show as running`,
            cause,
          }),
        );
        throw error;
      }
    } finally {
      this.#resuming.delete(id);
    }
    return this.get(id);
  }

  /**
   * Runs `runDocs`: in the slot already taken (given back when the run stops or fails to start), or, for
   * a queue job (`job`), under the job's signal.
   */
  #launch(
    options: Pick<RunDocsOptions, "folder" | "resumeId" | "model" | "maxRounds" | "pauseAfter">,
    job?: { signal: AbortSignal; resumed: boolean },
  ): Promise<string> {
    const controller = new AbortController();
    if (job) {
      if (job.signal.aborted) controller.abort(job.signal.reason);
      else job.signal.addEventListener("abort", () => controller.abort(job.signal.reason), { once: true });
    }
    let finish: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => {
      finish = resolve;
    });
    return new Promise<string>((resolveStarted, rejectStarted) => {
      let runId: string | undefined;
      // Appends are chained per run: ids follow the order events happened in.
      let appending: Promise<unknown> = Promise.resolve();
      const append = (type: string, data: Record<string, unknown>) => {
        const id = runId;
        if (id === undefined) return;
        appending = appending.then(() =>
          this.#repo.appendEvent(id, type, data).catch((cause: unknown) =>
            this.#warn({
              code: "RUN_EVENT_WRITE_FAILED",
              message: `the ${type} event of run ${id} was not stored (its stream and history miss it)`,
              cause,
            }),
          ),
        );
      };
      let awaiting = false;
      const onEvent = (event: RunEvent) => {
        if (event.type === "run_finished" && event.status === "awaiting_confirmation") awaiting = true;
        if (event.type === "run_started") {
          runId = event.runId;
          this.#active.set(event.runId, { controller, settled });
          resolveStarted(event.runId);
        }
        // A queued start runs as the continuation of the run saved at POST: it is not a resume.
        append(
          event.type,
          job && event.type === "run_started" ? { ...event, resumed: job.resumed } : { ...event },
        );
      };
      const done: Promise<void> = runDocs({
        ...options,
        ...(this.#options.configPath ? { configPath: this.#options.configPath } : {}),
        configSource: "serve",
        allowedBase: this.#options.allowedBase,
        stateDir: this.#options.stateDir,
        env: this.#options.env,
        signal: controller.signal,
        application: this.#options.application,
        repository: this.#repo,
        instanceId: this.#options.instanceId,
        // Nobody at a terminal: a call that needs confirmation stops the run until someone answers.
        confirmation: {
          kind: "pause",
          ttlMs: this.#options.confirmationTtlMs ?? DEFAULT_CONFIRMATION_TTL_MS,
        },
        onEvent,
        onExecutor: (executor) => {
          for (const name of EXECUTOR_EVENTS) {
            executor.events.on(name, (event) => append(name, { runId, ...event }));
          }
        },
      }).then(
        () => {
          // runDocs returns without starting a run that is finished already.
          if (runId === undefined)
            rejectStarted(
              new ApiError(409, "RUN_FINISHED", "the run is finished; there is nothing to resume"),
            );
        },
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          if (runId === undefined) {
            rejectStarted(
              error instanceof ApiError
                ? error
                : RunFolderError.isInstance(error)
                  ? new ApiError(403, "FOLDER_NOT_ALLOWED", error.message, {
                      runId: error.runId,
                      folder: error.folder,
                    })
                  : RunConfigMismatchError.isInstance(error)
                    ? new ApiError(409, "RUN_CONFIG_MISMATCH", error.message, {
                        runId: error.runId,
                        configPath: error.recorded,
                      })
                    : new ApiError(
                        error instanceof UsageError ? 400 : 500,
                        "RUN_START_FAILED",
                        `the run could not start: ${message}`,
                      ),
            );
          }
        },
      );
      void done
        .then(() => appending)
        .then(async () => {
          if (awaiting && runId !== undefined) await this.onAwaiting?.(runId);
        })
        .finally(() => {
          if (!job) this.#slots--;
          if (runId !== undefined) {
            this.#active.delete(runId);
            for (const stopped of [...(this.#stopped.get(runId) ?? [])]) stopped();
          }
          finish();
        });
    });
  }

  /** Refuse new runs (503), stop every active run (each is saved as paused, resumable) and wait for them. */
  async close(): Promise<void> {
    this.#closing = true;
    // The queue aborts its handlers (their runs are saved paused) and waits for them before it stops.
    await this.#options.queue?.stop();
    const active = [...this.#active.values()];
    for (const run of active) run.controller.abort(new Error("the server is shutting down"));
    await Promise.all(active.map((run) => run.settled));
  }
}

/** The path a roster is known by (as `runDocs` records it): its real path when it exists, else absolute. */
function rosterPath(path: string): string {
  const absolute = resolvePath(path);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}
