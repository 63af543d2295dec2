// The single-instance run store: today's files, same format. Runs are `<stateDir>/runs/<id>.json`
// (RunStore, written atomically), their events `<stateDir>/run-events/<id>.jsonl` (RunEventLog, one JSON
// record per line), the audit trail `<stateDir>/audit.jsonl`. One process owns a state folder's runs:
// `claim` is atomic within this process only (use the PostgreSQL store for several instances).
import { appendFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type WarningSink, warnOnStderr } from "../shared/warnings.js";
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

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#logs.clear();
  }
}
