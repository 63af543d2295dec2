// Docs runs started over REST: `runDocs` in this process on the one shared MCP stack, at most `maxRuns` at
// a time; their run-level events and their executors' tool-call events appended to the run repository
// (files or PostgreSQL), and the views of saved runs.
import {
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_STARTED,
  MCP_TOOL_DEFINITION_CHANGED,
} from "@agentforge/agent-runtime";
import type { ToolCallRecord } from "@agentforge/agent-runtime/langchain";
import type { Application } from "../application.js";
import { type RunDocsOptions, type RunEvent, runDocs } from "../docs/run-docs.js";
import { RunConfigMismatchError, RunFolderError } from "../docs/run-errors.js";
import type { RunStatus } from "../docs/run-store.js";
import { UsageError } from "../internal/usage-error.js";
import type { RunRepository, StoredRun } from "../service/run-repository.js";
import { ApiError } from "./api-error.js";
import type { ResumeRunBody, StartRunBody } from "./body-schemas.js";
import { isInside, resolveAllowedFolder } from "./folder-guard.js";
import type { RunEventRecord } from "./run-event-log.js";

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
}

/** Receives a run's new events; `null` once the run stopped in this process. */
export type RunWatcher = (event: RunEventRecord | null) => void;

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EXECUTOR_EVENTS = [
  MCP_TOOL_CALL_STARTED,
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_DEFINITION_CHANGED,
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

  constructor(options: RunManagerOptions) {
    this.#options = options;
    this.#repo = options.repository;
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
  ): Promise<{ replay: RunEventRecord[]; live: boolean; stop: () => void }> {
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
    // Live: going on here, or (a shared store) in another instance, whose events arrive by subscription.
    const live = this.#active.has(id) || (this.#repo.kind !== "files" && run.status === "running");
    return { replay, live, stop };
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

  /** Start a docs run on a folder under the allowed base; resolves once it has started (its id known). */
  async start(body: StartRunBody): Promise<RunView> {
    const folder = resolveAllowedFolder(this.#options.allowedBase, body.folder);
    this.#take();
    const id = await this.#launch({
      folder,
      ...(body.model ? { model: body.model } : {}),
      ...(body.maxRounds !== undefined ? { maxRounds: body.maxRounds } : {}),
      ...(body.pauseAfter !== undefined ? { pauseAfter: body.pauseAfter } : {}),
    });
    return this.get(id);
  }

  /** Continue a paused (or interrupted) run in this process. */
  async resume(id: string, body: ResumeRunBody): Promise<RunView> {
    const run = await this.#load(id);
    if (this.#active.has(id) || this.#resuming.has(id))
      throw new ApiError(409, "RUN_ACTIVE", `run ${id} is running in this process already`);
    if (run.status === "finished")
      throw new ApiError(409, "RUN_FINISHED", `run ${id} is finished; there is nothing to resume`);
    if (!isInside(this.#options.allowedBase, run.folder)) {
      throw new ApiError(
        403,
        "FOLDER_NOT_ALLOWED",
        `run ${id} documents ${run.folder}, outside the allowed base ${this.#options.allowedBase}`,
      );
    }
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
        await this.#repo.save(run).catch(() => undefined);
        throw error;
      }
    } finally {
      this.#resuming.delete(id);
    }
    return this.get(id);
  }

  /** Runs `runDocs` in the slot already taken; the slot is given back when the run stops (or fails to start). */
  #launch(
    options: Pick<RunDocsOptions, "folder" | "resumeId" | "model" | "maxRounds" | "pauseAfter">,
  ): Promise<string> {
    const controller = new AbortController();
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
        appending = appending.then(() => this.#repo.appendEvent(id, type, data)).catch(() => undefined);
      };
      const onEvent = (event: RunEvent) => {
        if (event.type === "run_started") {
          runId = event.runId;
          this.#active.set(event.runId, { controller, settled });
          resolveStarted(event.runId);
        }
        append(event.type, { ...event });
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
        onEvent,
        onExecutor: (executor) => {
          for (const name of EXECUTOR_EVENTS) {
            executor.events.on(name, (event) => append(name, { runId, ...event }));
          }
        },
      }).then(
        () => undefined,
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
        .finally(() => {
          this.#slots--;
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
    const active = [...this.#active.values()];
    for (const run of active) run.controller.abort(new Error("the server is shutting down"));
    await Promise.all(active.map((run) => run.settled));
  }
}
