// Docs runs started over REST: `runDocs` in this process, its run-level events and the executor's tool-call
// events recorded in a RunEventLog per run, and the views of saved runs (<stateDir>/runs/<id>.json).
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_STARTED,
  MCP_TOOL_DEFINITION_CHANGED,
} from "@agentforge/agent-runtime";
import type { ToolCallRecord } from "@agentforge/agent-runtime/langchain";
import { type RunDocsOptions, type RunEvent, runDocs } from "../docs/run-docs.js";
import { RunConfigMismatchError, RunFolderError } from "../docs/run-errors.js";
import { type DocsRun, type RunStatus, RunStore } from "../docs/run-store.js";
import { UsageError } from "../internal/usage-error.js";
import { ApiError } from "./api-error.js";
import type { ResumeRunBody, StartRunBody } from "./body-schemas.js";
import { isInside, resolveAllowedFolder } from "./folder-guard.js";
import { RunEventLog } from "./run-event-log.js";

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
  links: { self: string; events: string; resume: string };
}

/** How the REST API runs docs. */
export interface RunManagerOptions {
  /** Real path of the folder every documented folder must be inside. */
  allowedBase: string;
  /** Where runs and their event logs are saved. */
  stateDir: string;
  configPath?: string;
  env: NodeJS.ProcessEnv;
}

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EXECUTOR_EVENTS = [
  MCP_TOOL_CALL_STARTED,
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_DEFINITION_CHANGED,
] as const;

interface ActiveRun {
  controller: AbortController;
  done: Promise<void>;
}

/** Starts, resumes and describes docs runs; `close()` pauses every active run and waits for it. */
export class RunManager {
  readonly #options: RunManagerOptions;
  readonly #store: RunStore;
  readonly #active = new Map<string, ActiveRun>();
  readonly #logs = new Map<string, RunEventLog>();
  #closing = false;

  constructor(options: RunManagerOptions) {
    this.#options = options;
    this.#store = new RunStore(options.stateDir);
  }

  #eventsFile(id: string): string {
    return join(this.#options.stateDir, "run-events", `${id}.jsonl`);
  }

  #load(id: string): DocsRun {
    if (!RUN_ID.test(id) || !existsSync(join(this.#store.dir, `${id}.json`))) {
      throw new ApiError(
        404,
        "RUN_NOT_FOUND",
        `no run "${id}" (run ids are the UUIDs POST /api/v1/runs returns)`,
      );
    }
    return this.#store.load(id);
  }

  /** The event log of a run (404 RUN_NOT_FOUND for an unknown id). */
  events(id: string): RunEventLog {
    const log = this.#logs.get(id);
    if (log) return log;
    this.#load(id);
    return this.#log(id);
  }

  #log(id: string): RunEventLog {
    let log = this.#logs.get(id);
    if (!log) {
      log = RunEventLog.load(id, this.#eventsFile(id));
      this.#logs.set(id, log);
    }
    return log;
  }

  /** The view of a saved run. */
  get(id: string): RunView {
    const run = this.#load(id);
    const active = this.#active.has(id);
    const status = run.status;
    const base = `/api/v1/runs/${id}`;
    return {
      id: run.id,
      status,
      active,
      folder: run.folder,
      model: run.model,
      maxRounds: run.maxRounds,
      round: run.state.round,
      calls: run.state.calls,
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
      document: run.document ?? null,
      error: run.error ?? null,
      eventCount: this.#logs.get(id)?.size ?? RunEventLog.load(id, this.#eventsFile(id)).size,
      links: { self: base, events: `${base}/events`, resume: `${base}/resume` },
    };
  }

  /** Start a docs run on a folder under the allowed base; resolves once it has started (its id known). */
  async start(body: StartRunBody): Promise<RunView> {
    const folder = resolveAllowedFolder(this.#options.allowedBase, body.folder);
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
    const run = this.#load(id);
    if (this.#active.has(id))
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
    await this.#launch({
      resumeId: id,
      ...(body.model ? { model: body.model } : {}),
      ...(body.maxRounds !== undefined ? { maxRounds: body.maxRounds } : {}),
      ...(body.pauseAfter !== undefined ? { pauseAfter: body.pauseAfter } : {}),
    });
    return this.get(id);
  }

  #launch(
    options: Pick<RunDocsOptions, "folder" | "resumeId" | "model" | "maxRounds" | "pauseAfter">,
  ): Promise<string> {
    if (this.#closing)
      return Promise.reject(new ApiError(409, "RUN_START_FAILED", "the server is shutting down"));
    const controller = new AbortController();
    return new Promise<string>((resolveStarted, rejectStarted) => {
      let log: RunEventLog | undefined;
      let runId: string | undefined;
      const onEvent = (event: RunEvent) => {
        if (event.type === "run_started") {
          runId = event.runId;
          log = this.#log(event.runId);
          log.reopen();
          this.#active.set(event.runId, { controller, done });
          resolveStarted(event.runId);
        }
        log?.append(event.type, { ...event });
      };
      const done: Promise<void> = runDocs({
        ...options,
        ...(this.#options.configPath ? { configPath: this.#options.configPath } : {}),
        configSource: "serve",
        allowedBase: this.#options.allowedBase,
        stateDir: this.#options.stateDir,
        env: this.#options.env,
        signal: controller.signal,
        onEvent,
        onApplication: (app) => {
          for (const name of EXECUTOR_EVENTS) {
            app.executor.events.on(name, (event) => {
              log?.append(name, { runId, ...event });
            });
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
      void done.finally(() => {
        if (runId !== undefined) this.#active.delete(runId);
        log?.close();
      });
    });
  }

  /** Stop every active run (each is saved as paused, resumable) and wait for them. */
  async close(): Promise<void> {
    this.#closing = true;
    const active = [...this.#active.values()];
    for (const run of active) run.controller.abort(new Error("the server is shutting down"));
    await Promise.all(active.map((run) => run.done));
  }
}
