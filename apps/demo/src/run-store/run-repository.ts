// Where `agentforge serve` keeps runs, their events and the audit trail: local files (the default) or
// PostgreSQL (`DATABASE_URL` / `--database-url`, shared by several instances). The run manager only talks
// to this interface; which store is used is chosen once at start.

import type { RunEventRecord } from "./run-event-log.js";
import type { DocsRun } from "./run-store.js";

/** A run as stored: the saved docs run plus who runs it. */
export interface StoredRun extends DocsRun {
  /** The `serve` instance that runs the run or ran it last (absent for CLI runs). */
  ownerInstance?: string;
}

/** A store of runs, run events and audit lines. Every method may be called concurrently. */
export interface RunRepository {
  /** `files` (one process, `<stateDir>`) or `postgres` (any number of instances). */
  readonly kind: "files" | "postgres";
  /** Insert or replace a run (its `updatedAt` is set by the store). */
  save(run: StoredRun): Promise<void>;
  /** The run with this id, or undefined when there is none. */
  load(id: string): Promise<StoredRun | undefined>;
  /** Runs, newest first. */
  list(options?: { limit?: number }): Promise<StoredRun[]>;
  /**
   * Take a run that is not running (paused, or failed and resumable) for `instanceId`: marks it
   * `running`, owned by that instance, atomically. Exactly one of several concurrent claims of one run
   * resolves true (across instances, for `postgres`); the others resolve false.
   */
  claim(id: string, instanceId: string): Promise<boolean>;
  /** Append an event; ids are 1, 2, 3... per run across its whole life (a resume continues them). */
  appendEvent(runId: string, type: string, data: Record<string, unknown>): Promise<RunEventRecord>;
  /** The run's events with an id above `afterId`, in order (the SSE `Last-Event-ID` replay). */
  eventsSince(runId: string, afterId: number): Promise<RunEventRecord[]>;
  /**
   * Live events of a run appended from now on, by this instance or (for `postgres`) any other, each
   * delivered once and in id order. Returns the function that stops listening.
   */
  subscribe(runId: string, listener: (event: RunEventRecord) => void): () => void;
  /** Append one audit line (who called what, how it ended; never arguments or results). */
  appendAudit(entry: Record<string, unknown>): Promise<void>;
  /** Release connections and listeners. */
  close(): Promise<void>;
}
