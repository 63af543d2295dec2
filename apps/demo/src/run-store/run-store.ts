// Runs are saved after every round as plain JSON, so `agentforge resume <id>` can continue one in a new
// process with fresh MCP connections. No MCP object is ever in a saved run.
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolLoopState } from "@agentforge/agent-runtime/langchain";
import { MCPError } from "@agentforge/mcp-config";
import type { Provider } from "../shared/providers.js";
import { UsageError } from "../shared/usage-error.js";

/**
 * `awaiting_confirmation`: stopped until a person answers the confirmations of its pending calls (see
 * confirmations.ts); resumable once every one is answered or expired.
 */
export type RunStatus = "running" | "paused" | "awaiting_confirmation" | "finished" | "failed";

/** A saved documentation run. */
export interface DocsRun {
  id: string;
  agent: string;
  /** The folder documented (its real path). */
  folder: string;
  model: Provider;
  /** The roster the run was started with (absolute path); `resume` uses it. Absent in older records. */
  configPath?: string;
  maxRounds: number;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  state: ToolLoopState;
  /** The Markdown overview, once finished. */
  document?: string;
  /** Why it failed, when it did. */
  error?: string;
}

/**
 * A saved run's file exists but cannot be read as a run (cut short, edited by hand, unreadable): never
 * reported as "no such run", which would hide that a run was lost.
 */
export class RunRecordError extends MCPError<"RUN_RECORD_UNREADABLE"> {
  static override readonly errorName: string = "RunRecordError";
  /** The file concerned. */
  readonly file: string;

  constructor(file: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      `${why} — the saved run ${file} cannot be read as a run. Restore it from a backup, or move it away to start afresh.`,
      { code: "RUN_RECORD_UNREADABLE", cause },
    );
    this.file = file;
  }
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class RunStore {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, "runs");
    mkdirSync(this.dir, { recursive: true });
  }

  newId(): string {
    return randomUUID();
  }

  /** Write atomically (temp file + rename), so a crash never leaves half a run. */
  save(run: DocsRun): void {
    const file = join(this.dir, `${run.id}.json`);
    writeFileSync(
      `${file}.tmp`,
      `${JSON.stringify({ ...run, updatedAt: new Date().toISOString() }, null, 2)}\n`,
    );
    renameSync(`${file}.tmp`, file);
  }

  load(id: string): DocsRun {
    if (!ID.test(id)) throw new UsageError(`"${id}" is not a run id (a UUID printed when the run started)`);
    const file = join(this.dir, `${id}.json`);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new UsageError(`no saved run ${id} in ${this.dir}`);
      }
      throw new RunRecordError(file, error);
    }
    let run: unknown;
    try {
      run = JSON.parse(text);
    } catch (error) {
      throw new RunRecordError(file, error);
    }
    if (typeof run !== "object" || run === null || (run as { id?: unknown }).id !== id) {
      throw new RunRecordError(file, new Error(`it does not hold run ${id}`));
    }
    return run as DocsRun;
  }
}
