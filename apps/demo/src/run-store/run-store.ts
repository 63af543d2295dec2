// Runs are saved after every round as plain JSON, so `agentforge resume <id>` can continue one in a new
// process with fresh MCP connections. No MCP object is ever in a saved run.
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolLoopState } from "@agentforge/agent-runtime/langchain";
import type { Provider } from "../shared/providers.js";
import { UsageError } from "../shared/usage-error.js";

export type RunStatus = "running" | "paused" | "finished" | "failed";

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
    let text: string;
    try {
      text = readFileSync(join(this.dir, `${id}.json`), "utf8");
    } catch {
      throw new UsageError(`no saved run ${id} in ${this.dir}`);
    }
    return JSON.parse(text) as DocsRun;
  }
}
