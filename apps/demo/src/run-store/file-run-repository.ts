// The single-instance run store: today's files, same format. Runs are `<stateDir>/runs/<id>.json`
// (RunStore, written atomically), their events `<stateDir>/run-events/<id>.jsonl` (RunEventLog, one JSON
// record per line), the audit trail `<stateDir>/audit.jsonl`. One process owns a state folder's runs:
// `claim` is atomic within this process only (use the PostgreSQL store for several instances).
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type WarningSink, warnOnStderr } from "../shared/warnings.js";
import {
  type ConfirmationAnswer,
  type ConfirmationAnswerOutcome,
  type ConfirmationRecord,
  type ExpiredConfirmations,
  type NewConfirmation,
  statusOf,
} from "./confirmations.js";
import { RunEventLog, type RunEventRecord } from "./run-event-log.js";
import type { RunRepository, StoredRun } from "./run-repository.js";
import { RunRecordError, RunStore } from "./run-store.js";

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Runs, events and audit lines in files under one state folder. */
export class FileRunRepository implements RunRepository {
  readonly kind = "files" as const;
  readonly stateDir: string;
  readonly #store: RunStore;
  readonly #logs = new Map<string, RunEventLog>();
  readonly #listeners = new Map<string, Set<(event: RunEventRecord) => void>>();

  readonly #warn: WarningSink;

  constructor(stateDir: string, options: { warn?: WarningSink } = {}) {
    this.stateDir = stateDir;
    this.#store = new RunStore(stateDir);
    this.#warn = options.warn ?? warnOnStderr;
  }

  async save(run: StoredRun): Promise<void> {
    this.#store.save(run);
  }

  async load(id: string): Promise<StoredRun | undefined> {
    return this.#loadSync(id);
  }

  /** The run, undefined when there is no such run; a file that is not a run throws RunRecordError. */
  #loadSync(id: string): StoredRun | undefined {
    if (!RUN_ID.test(id)) return undefined;
    try {
      return this.#store.load(id) as StoredRun;
    } catch (error) {
      if (RunRecordError.isInstance(error)) throw error;
      return undefined;
    }
  }

  async list(options: { limit?: number } = {}): Promise<StoredRun[]> {
    let names: string[];
    try {
      names = readdirSync(this.#store.dir);
    } catch {
      return [];
    }
    const runs = names
      .filter((name) => name.endsWith(".json"))
      .map((name) => {
        try {
          return this.#loadSync(name.slice(0, -".json".length));
        } catch (error) {
          // One unreadable file does not hide the other runs; it is reported, not skipped silently.
          this.#warn({ code: "RUN_RECORD_UNREADABLE", message: (error as Error).message });
          return undefined;
        }
      })
      .filter((run): run is StoredRun => run !== undefined)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    return options.limit !== undefined ? runs.slice(0, options.limit) : runs;
  }

  async claim(id: string, instanceId: string): Promise<boolean> {
    // Load, test and save without an await in between: atomic within this process.
    const run = this.#loadSync(id);
    if (!run || run.status === "running" || run.status === "finished") return false;
    const claimed: StoredRun = { ...run, status: "running", ownerInstance: instanceId };
    this.#store.save(claimed);
    return true;
  }

  #log(runId: string): RunEventLog {
    let log = this.#logs.get(runId);
    if (!log) {
      log = RunEventLog.load(runId, join(this.stateDir, "run-events", `${runId}.jsonl`));
      this.#logs.set(runId, log);
    }
    return log;
  }

  async appendEvent(runId: string, type: string, data: Record<string, unknown>): Promise<RunEventRecord> {
    const record = this.#log(runId).append(type, data);
    // A stopped run's events are read from its file again when asked for: memory stays bounded.
    if (type === "run_finished") this.#logs.delete(runId);
    for (const listener of this.#listeners.get(runId) ?? []) {
      try {
        listener(record);
      } catch {
        // a listener's failure is its own
      }
    }
    return record;
  }

  async eventsSince(runId: string, afterId: number): Promise<RunEventRecord[]> {
    if (!RUN_ID.test(runId)) return [];
    return this.#log(runId).since(afterId);
  }

  subscribe(runId: string, listener: (event: RunEventRecord) => void): () => void {
    let set = this.#listeners.get(runId);
    if (!set) {
      set = new Set();
      this.#listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(runId) === set) this.#listeners.delete(runId);
    };
  }

  async appendAudit(entry: Record<string, unknown>): Promise<void> {
    mkdirSync(this.stateDir, { recursive: true });
    appendFileSync(join(this.stateDir, "audit.jsonl"), `${JSON.stringify(entry)}\n`);
  }

  // Confirmations: `<stateDir>/confirmations/<runId>.json`, one array per run, written atomically. Every
  // read-modify-write below runs without an await in between: atomic within this process, which owns
  // the state folder.

  #confirmationFile(runId: string): string {
    return join(this.stateDir, "confirmations", `${runId}.json`);
  }

  #readConfirmations(runId: string): ConfirmationRecord[] {
    if (!RUN_ID.test(runId)) return [];
    let text: string;
    try {
      text = readFileSync(this.#confirmationFile(runId), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) {
      throw new RunRecordError(this.#confirmationFile(runId), new Error("it is not a list of confirmations"));
    }
    return value as ConfirmationRecord[];
  }

  #writeConfirmations(runId: string, records: ConfirmationRecord[]): void {
    const file = this.#confirmationFile(runId);
    mkdirSync(join(this.stateDir, "confirmations"), { recursive: true });
    writeFileSync(`${file}.tmp`, `${JSON.stringify(records, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
  }

  /** Mark the pending confirmations past their time expired; resolves with the ones that were. */
  #expireIn(records: ConfirmationRecord[], now: number): ConfirmationRecord[] {
    const expired: ConfirmationRecord[] = [];
    for (const record of records) {
      if (record.status === "pending" && Date.parse(record.expiresAt) <= now) {
        record.status = "expired";
        record.answeredAt = new Date(now).toISOString();
        record.answeredBy = "expiry";
        record.reason = "nobody answered before it expired";
        expired.push(record);
      }
    }
    return expired;
  }

  async requestConfirmation(confirmation: NewConfirmation, ttlMs: number): Promise<ConfirmationRecord> {
    const records = this.#readConfirmations(confirmation.runId);
    const existing = records.find((r) => r.callId === confirmation.callId);
    if (existing) return existing;
    const now = Date.now();
    const record: ConfirmationRecord = {
      ...confirmation,
      requestedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttlMs).toISOString(),
      status: "pending",
      scope: null,
      reason: null,
      answeredAt: null,
      answeredBy: null,
    };
    this.#writeConfirmations(confirmation.runId, [...records, record]);
    return record;
  }

  async confirmations(runId: string): Promise<ConfirmationRecord[]> {
    return this.#readConfirmations(runId);
  }

  async pendingConfirmations(options: { limit?: number } = {}): Promise<ConfirmationRecord[]> {
    let names: string[];
    try {
      names = readdirSync(join(this.stateDir, "confirmations"));
    } catch {
      return [];
    }
    const pending: ConfirmationRecord[] = [];
    for (const name of names) {
      if (!name.endsWith(".json")) continue;
      try {
        pending.push(
          ...this.#readConfirmations(name.slice(0, -".json".length)).filter((r) => r.status === "pending"),
        );
      } catch (error) {
        this.#warn({
          code: "RUN_RECORD_UNREADABLE",
          message: `the confirmations file ${name} cannot be read`,
          cause: error,
        });
      }
    }
    pending.sort((a, b) => (a.requestedAt < b.requestedAt ? -1 : a.requestedAt > b.requestedAt ? 1 : 0));
    return options.limit !== undefined ? pending.slice(0, options.limit) : pending;
  }

  async answerConfirmation(
    runId: string,
    callId: string,
    answer: ConfirmationAnswer,
  ): Promise<ConfirmationAnswerOutcome> {
    const records = this.#readConfirmations(runId);
    const record = records.find((r) => r.callId === callId);
    if (!record) return { outcome: "not_found" };
    if (this.#expireIn([record], Date.now()).length > 0) {
      this.#writeConfirmations(runId, records);
      return { outcome: "closed", record };
    }
    if (record.status !== "pending") return { outcome: "closed", record };
    record.status = statusOf(answer.decision);
    record.scope = answer.scope;
    record.reason = answer.reason ?? null;
    record.answeredAt = new Date().toISOString();
    record.answeredBy = answer.answeredBy;
    this.#writeConfirmations(runId, records);
    return { outcome: "answered", record, released: this.#release(runId, records) };
  }

  /** The run back to `paused` when it awaits confirmations and none is pending any more. */
  #release(runId: string, records: ConfirmationRecord[]): boolean {
    if (records.some((r) => r.status === "pending")) return false;
    const run = this.#loadSync(runId);
    if (run?.status !== "awaiting_confirmation") return false;
    this.#store.save({ ...run, status: "paused" });
    return true;
  }

  async releaseRun(runId: string): Promise<boolean> {
    return this.#release(runId, this.#readConfirmations(runId));
  }

  async expireConfirmations(): Promise<ExpiredConfirmations> {
    const result: ExpiredConfirmations = { expired: [], released: [] };
    let names: string[];
    try {
      names = readdirSync(join(this.stateDir, "confirmations"));
    } catch {
      return result;
    }
    const now = Date.now();
    for (const name of names) {
      if (!name.endsWith(".json")) continue;
      const runId = name.slice(0, -".json".length);
      let records: ConfirmationRecord[];
      try {
        records = this.#readConfirmations(runId);
      } catch (error) {
        this.#warn({
          code: "RUN_RECORD_UNREADABLE",
          message: `the confirmations file ${name} cannot be read`,
          cause: error,
        });
        continue;
      }
      const expired = this.#expireIn(records, now);
      if (expired.length === 0) continue;
      this.#writeConfirmations(runId, records);
      result.expired.push(...expired);
      if (this.#release(runId, records)) result.released.push(runId);
    }
    return result;
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#logs.clear();
  }
}
