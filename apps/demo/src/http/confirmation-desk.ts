// Where a person answers the confirmations unattended runs wait for (`GET /api/v1/confirmations`,
// `POST /api/v1/runs/{id}/confirmations/{callId}`, the /mcp page): the first answer is recorded (atomic
// across instances: the store decides), the run's event stream gets `confirmation_resolved`, and once a
// run has no pending confirmation left it is resumed through the run manager — the queue in PostgreSQL
// mode, so whichever instance takes the job continues it. Pending confirmations expire (a deny) after
// `--confirmation-ttl`; a sweep on every instance finds them.
import { createHash } from "node:crypto";
import {
  type ConfirmationAnnotations,
  type ConfirmationRecord,
  type ConfirmationScope,
  type ConfirmationStatus,
  DEFAULT_CONFIRMATION_TTL_MS,
  decisionOf,
} from "../run-store/confirmations.js";
import type { RunRepository } from "../run-store/run-repository.js";
import { type WarningSink, warnOnStderr } from "../shared/warnings.js";
import { ApiError } from "./api-error.js";
import type { AnswerConfirmationBody } from "./body-schemas.js";
import type { RunManager, RunView } from "./run-manager.js";

/** A confirmation as the REST API returns it. */
export interface ConfirmationView {
  runId: string;
  callId: string;
  agent: string;
  identity: string;
  serverName: string;
  toolName: string;
  title: string | null;
  annotations: ConfirmationAnnotations;
  /** The arguments for the person (bounded, escapes made visible, roster secrets redacted). */
  argumentsPreview: string;
  /** The tool definition's fingerprint the answer is bound to. */
  fingerprint: string;
  /** SHA-256 over the run, agent, identity, tool definition and arguments: the answer is for this only. */
  binding: string;
  status: ConfirmationStatus;
  scope: ConfirmationScope | null;
  reason: string | null;
  requestedAt: string;
  expiresAt: string;
  answeredAt: string | null;
  /** `token:<fingerprint>`, `loopback` or `expiry` (never a token). */
  answeredBy: string | null;
  links: { run: string; answer: string };
}

/** `POST /api/v1/runs/{id}/confirmations/{callId}`: the recorded answer and the run. */
export interface ConfirmationAnswerView {
  confirmation: ConfirmationView;
  /** True when this answer was the run's last pending one and the run was resumed (or queued). */
  resumed: boolean;
  /** Why the run was not resumed although it could be (e.g. 429: resume it later). */
  resumeError: { code: string; message: string } | null;
  run: RunView;
}

/** Options of the desk. */
export interface ConfirmationDeskOptions {
  repository: RunRepository;
  runs: RunManager;
  /** How long a confirmation waits before it expires as denied (default 24 h). */
  ttlMs?: number;
  /** How often pending confirmations are checked for expiry (default: a tenth of the TTL, 1 s to 30 s). */
  sweepMs?: number;
  warn?: WarningSink;
}

/** Who answers with this API token: `token:` and 12 hex characters of its SHA-256, or `loopback`. */
export function answererOf(token: string | undefined): string {
  if (!token) return "loopback";
  return `token:${createHash("sha256").update(token).digest("hex").slice(0, 12)}`;
}

/** The REST view of a stored confirmation. */
export function confirmationView(record: ConfirmationRecord): ConfirmationView {
  const run = `/api/v1/runs/${record.runId}`;
  return {
    runId: record.runId,
    callId: record.callId,
    agent: record.agent,
    identity: record.identity,
    serverName: record.serverName,
    toolName: record.toolName,
    title: record.title,
    annotations: record.annotations,
    argumentsPreview: record.argumentsPreview,
    fingerprint: record.fingerprint,
    binding: record.binding,
    status: record.status,
    scope: record.scope,
    reason: record.reason,
    requestedAt: record.requestedAt,
    expiresAt: record.expiresAt,
    answeredAt: record.answeredAt,
    answeredBy: record.answeredBy,
    links: { run, answer: `${run}/confirmations/${encodeURIComponent(record.callId)}` },
  };
}

/** Retries of a resume refused because the run's previous job is still ending. */
const RESUME_RETRIES = 5;
const RESUME_RETRY_MS = 400;

/** Answers confirmations and resumes the runs waiting for them. `close()` stops the expiry sweep. */
export class ConfirmationDesk {
  readonly ttlMs: number;
  readonly #repo: RunRepository;
  readonly #runs: RunManager;
  readonly #warn: WarningSink;
  readonly #sweepMs: number;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(options: ConfirmationDeskOptions) {
    this.#repo = options.repository;
    this.#runs = options.runs;
    this.#warn = options.warn ?? warnOnStderr;
    this.ttlMs = options.ttlMs ?? DEFAULT_CONFIRMATION_TTL_MS;
    this.#sweepMs = options.sweepMs ?? Math.min(30_000, Math.max(1000, Math.floor(this.ttlMs / 10)));
  }

  /** Sweep now and then every `sweepMs` (also finds what expired while no instance was running). */
  start(): void {
    if (this.#timer) return;
    void this.sweep();
    this.#timer = setInterval(() => void this.sweep(), this.#sweepMs);
    this.#timer.unref();
  }

  /** Stop sweeping; waits for a sweep under way. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }

  /** The pending confirmations of every run, oldest first. */
  async pending(limit = 200): Promise<ConfirmationView[]> {
    return (await this.#repo.pendingConfirmations({ limit })).map(confirmationView);
  }

  /** Record an answer (404 unknown run or call, 409 answered or expired already) and resume the run. */
  async answer(
    runId: string,
    callId: string,
    body: AnswerConfirmationBody,
    answeredBy: string,
  ): Promise<ConfirmationAnswerView> {
    await this.#runs.get(runId); // 404 RUN_NOT_FOUND first
    const outcome = await this.#repo.answerConfirmation(runId, callId, {
      decision: body.decision,
      scope: body.scope ?? "call",
      answeredBy,
      ...(body.reason !== undefined ? { reason: body.reason } : {}),
    });
    if (outcome.outcome === "not_found") {
      throw new ApiError(
        404,
        "CONFIRMATION_NOT_FOUND",
        `run ${runId} has no confirmation for call "${callId}" (GET /api/v1/confirmations lists the pending ones)`,
        { runId, callId },
      );
    }
    if (outcome.outcome === "closed") {
      const expired = outcome.record.status === "expired";
      throw new ApiError(
        409,
        expired ? "CONFIRMATION_EXPIRED" : "CONFIRMATION_ANSWERED",
        expired
          ? `the confirmation of call "${callId}" of run ${runId} expired at ${outcome.record.expiresAt} (denied)`
          : `the confirmation of call "${callId}" of run ${runId} was answered already (${outcome.record.status})`,
        { runId, callId, confirmation: confirmationView(outcome.record) },
      );
    }
    await this.#resolved(outcome.record);
    const resume = outcome.released ? await this.#resume(runId) : { resumed: false, error: null };
    return {
      confirmation: confirmationView(outcome.record),
      resumed: resume.resumed,
      resumeError: resume.error,
      run: await this.#runs.get(runId),
    };
  }

  /**
   * A run just stopped `awaiting_confirmation`: an answer given while it was stopping found it still
   * running and could not release it; do it now.
   */
  async afterAwaiting(runId: string): Promise<void> {
    try {
      if (await this.#repo.releaseRun(runId)) await this.#resume(runId);
    } catch (cause) {
      this.#warn({
        code: "BACKGROUND_TASK_FAILED",
        message: `run ${runId} could not be resumed after its confirmations were answered; resume it by hand`,
        cause,
      });
    }
  }

  /** Expire what is due (a deny), tell the runs' streams, resume the runs released. */
  sweep(): Promise<void> {
    this.#sweeping ??= (async () => {
      try {
        const { expired, released } = await this.#repo.expireConfirmations();
        for (const record of expired) await this.#resolved(record);
        for (const runId of released) await this.#resume(runId);
      } catch (cause) {
        this.#warn({
          code: "BACKGROUND_TASK_FAILED",
          message: "the expiry sweep of pending confirmations failed; it runs again",
          cause,
        });
      } finally {
        this.#sweeping = undefined;
      }
    })();
    return this.#sweeping;
  }

  /** The run's `confirmation_resolved` event: who, what, how long it waited — never the arguments. */
  async #resolved(record: ConfirmationRecord): Promise<void> {
    const waitedMs =
      record.answeredAt === null ? null : Date.parse(record.answeredAt) - Date.parse(record.requestedAt);
    try {
      await this.#repo.appendEvent(record.runId, "confirmation_resolved", {
        runId: record.runId,
        callId: record.callId,
        identity: record.identity,
        decision: decisionOf(record) ?? "deny",
        status: record.status,
        scope: record.scope,
        answeredBy: record.answeredBy,
        waitedMs,
      });
    } catch (cause) {
      this.#warn({
        code: "RUN_EVENT_WRITE_FAILED",
        message: `the confirmation_resolved event of run ${record.runId} was not stored`,
        cause,
      });
    }
  }

  async #resume(
    runId: string,
  ): Promise<{ resumed: boolean; error: { code: string; message: string } | null }> {
    try {
      // The run's last job may be finishing on its instance for a moment after the run stopped (its
      // queue reservation is cleared right after): a few short retries bridge that.
      for (let attempt = 0; ; attempt++) {
        try {
          await this.#runs.resume(runId, {});
          return { resumed: true, error: null };
        } catch (error) {
          if (!(error instanceof ApiError && error.code === "RUN_ACTIVE") || attempt >= RESUME_RETRIES)
            throw error;
          await new Promise((resolve) => setTimeout(resolve, RESUME_RETRY_MS));
        }
      }
    } catch (error) {
      const api = error instanceof ApiError ? error : undefined;
      const failure = {
        code: api?.code ?? "RUN_START_FAILED",
        message: error instanceof Error ? error.message : String(error),
      };
      this.#warn({
        code: "BACKGROUND_TASK_FAILED",
        message: `run ${runId} has its confirmations answered but was not resumed (${failure.code}); resume it with POST /api/v1/runs/${runId}/resume`,
        cause: error,
      });
      return { resumed: false, error: failure };
    }
  }
}
