// Where `agentforge serve` keeps runs, their events and the audit trail: local files (the default) or
// PostgreSQL (`DATABASE_URL` / `--database-url`, shared by several instances). The run manager only talks
// to this interface; which store is used is chosen once at start.

import type {
  ConfirmationAnswer,
  ConfirmationAnswerOutcome,
  ConfirmationRecord,
  ExpiredConfirmations,
  NewConfirmation,
} from "./confirmations.js";
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
  /**
   * Store a pending confirmation of a run's call, expiring `ttlMs` from now. The same `(runId, callId)`
   * again resolves with the record stored first (a run asks once per call).
   */
  requestConfirmation(confirmation: NewConfirmation, ttlMs: number): Promise<ConfirmationRecord>;
  /** Every confirmation of a run, oldest first. */
  confirmations(runId: string): Promise<ConfirmationRecord[]>;
  /** The pending confirmations of every run, oldest first. */
  pendingConfirmations(options?: { limit?: number }): Promise<ConfirmationRecord[]>;
  /**
   * Record an answer. Only the first answer to a pending, unexpired confirmation counts (atomic across
   * instances, for `postgres`); when it was the run's last pending one, the run goes from
   * `awaiting_confirmation` to `paused` in the same step (`released`), ready to be resumed.
   */
  answerConfirmation(
    runId: string,
    callId: string,
    answer: ConfirmationAnswer,
  ): Promise<ConfirmationAnswerOutcome>;
  /**
   * A run `awaiting_confirmation` whose confirmations are all answered goes back to `paused`: true when
   * this call did it (exactly one of concurrent calls).
   */
  releaseRun(runId: string): Promise<boolean>;
  /** Pending confirmations past their time become `expired` (a deny); their runs are released. */
  expireConfirmations(): Promise<ExpiredConfirmations>;
  /** Release connections and listeners. */
  close(): Promise<void>;
}
