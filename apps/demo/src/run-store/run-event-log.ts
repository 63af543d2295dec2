// The events of one docs run, numbered 1, 2, 3… across the run's whole life (a resume continues the
// numbering), kept in memory and appended to <stateDir>/run-events/<id>.jsonl, so a client can replay
// them with Last-Event-ID — also after the serving process restarted.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";

/** One event as stored and sent over SSE (`id`, `event: type`, `data: JSON of data`). */
export interface RunEventRecord {
  /** 1-based, increasing; the SSE event id. */
  id: number;
  /** `run_started`, `MCP_TOOL_CALL_STARTED`, `round_saved`, `run_finished`, ... */
  type: string;
  /** ISO 8601 time it was recorded. */
  at: string;
  /** The event's payload (always has `type`, `at` and `runId`). */
  data: Record<string, unknown>;
}

/** Receives each new event; `null` when the log closes (the run stopped). */
export type RunEventListener = (event: RunEventRecord | null) => void;

/** The events of one run. */
export class RunEventLog {
  readonly runId: string;
  readonly #events: RunEventRecord[];
  readonly #listeners = new Set<RunEventListener>();
  readonly #file: string | undefined;
  #open = false;

  constructor(runId: string, options: { file?: string; events?: RunEventRecord[] } = {}) {
    this.runId = runId;
    this.#file = options.file;
    this.#events = options.events ?? [];
  }

  /** The log saved in `file` (empty when there is none). Lines that do not parse are skipped. */
  static load(runId: string, file: string): RunEventLog {
    const events: RunEventRecord[] = [];
    if (existsSync(file)) {
      for (const line of readFileSync(file, "utf8").split("\n")) {
        if (!line.trim()) continue;
        try {
          const record = JSON.parse(line) as RunEventRecord;
          if (Number.isInteger(record.id) && typeof record.type === "string") events.push(record);
        } catch {
          // a torn last line after a crash
        }
      }
    }
    return new RunEventLog(runId, { file, events });
  }

  /** Whether the run is going on in this process (new events may come). */
  get open(): boolean {
    return this.#open;
  }

  /** The id of the last event (0 when none). */
  get lastId(): number {
    return this.#events.at(-1)?.id ?? 0;
  }

  /** Number of events. */
  get size(): number {
    return this.#events.length;
  }

  /** Events after `lastId`, in order. */
  since(lastId = 0): RunEventRecord[] {
    return this.#events.filter((event) => event.id > lastId);
  }

  /** Record an event and deliver it to every listener. */
  append(type: string, data: Record<string, unknown>): RunEventRecord {
    const at = new Date().toISOString();
    const record: RunEventRecord = { id: this.lastId + 1, type, at, data: { type, at, ...data } };
    this.#events.push(record);
    if (this.#file) {
      try {
        mkdirSync(dirname(this.#file), { recursive: true });
        appendFileSync(this.#file, `${JSON.stringify(record)}\n`);
      } catch {
        // replay after a restart is best effort; the live stream goes on
      }
    }
    for (const listener of this.#listeners) listener(record);
    return record;
  }

  /** Mark the run as going on (a start or a resume). */
  reopen(): void {
    this.#open = true;
  }

  /** Mark the run as stopped: listeners get `null`. */
  close(): void {
    this.#open = false;
    for (const listener of this.#listeners) listener(null);
  }

  /** Listen to new events; returns the function that stops listening. */
  subscribe(listener: RunEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
