// Nothing the app fails to write is dropped (hostile-input issue item 4; adopters issue, "no swallowed
// failure"): a run whose state cannot be saved stops and fails with RUN_SAVE_FAILED (never a silent
// "paused"), an audit log that cannot be written is an AUDIT_WRITE_FAILED warning, and a run event the
// store refuses is a RUN_EVENT_WRITE_FAILED warning in `serve`'s log. Real MCP servers, real files.
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Application } from "../../src/app/application.js";
import { type RunEvent, runDocs } from "../../src/docs-agent/run-docs.js";
import { RunSaveError } from "../../src/docs-agent/run-errors.js";
import { startServer } from "../../src/http/start-server.js";
import { FileRunRepository } from "../../src/run-store/file-run-repository.js";
import type { StoredRun } from "../../src/run-store/run-repository.js";
import type { AppWarning } from "../../src/shared/warnings.js";

const SAMPLE = join(import.meta.dirname, "..", "..", "sample-project");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The files store, refusing the saves `refuse` picks (a full disk, a dropped database). */
class FailingSaves extends FileRunRepository {
  constructor(
    dir: string,
    private readonly refuse: (run: StoredRun) => boolean,
  ) {
    super(dir);
  }
  override async save(run: StoredRun): Promise<void> {
    if (this.refuse(run)) throw new Error(`ENOSPC: no space left on device, write '${run.id}.json'`);
    return super.save(run);
  }
}

describe("a run whose state cannot be saved", () => {
  it.each([
    ["after a tool round", (run: StoredRun) => run.state.round >= 1 && run.status === "running"],
    ["at its end", (run: StoredRun) => run.status === "finished"],
  ])("fails visibly with RUN_SAVE_FAILED when the save %s fails", async (_label, refuse) => {
    const state = tempDir("agentforge-save-");
    const folder = join(tempDir("agentforge-folder-"), "project");
    cpSync(SAMPLE, folder, { recursive: true });
    const repository = new FailingSaves(state, refuse);
    const events: RunEvent[] = [];
    const outcome = await runDocs({
      folder,
      model: "offline",
      stateDir: state,
      repository,
      env: { ...process.env, AGENTFORGE_WORKSPACE: folder },
      onEvent: (event) => events.push(event),
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(RunSaveError.isInstance(outcome)).toBe(true);
    expect(outcome).toMatchObject({ code: "RUN_SAVE_FAILED" });
    expect((outcome as Error).message).toMatch(/^ENOSPC: no space left on device.*could not be saved/);
    const finished = events.filter((event) => event.type === "run_finished");
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ status: "failed", error: expect.stringMatching(/RUN|saved/) });
    expect(events.some((event) => event.type === "run_finished" && event.status === "paused")).toBe(false);
  });
});

describe("an audit log that cannot be written", () => {
  it("is an AUDIT_WRITE_FAILED warning per line, and the calls still succeed", async () => {
    const state = tempDir("agentforge-audit-");
    // A folder where the audit file should be: every write fails.
    mkdirSync(join(state, "audit.jsonl"));
    const warnings: AppWarning[] = [];
    const app = await Application.create({
      stateDir: state,
      servers: ["filesystem"],
      env: { ...process.env, AGENTFORGE_WORKSPACE: state },
      warn: (warning) => warnings.push(warning),
    });
    try {
      const result = await app.executor.execute("documentation", "filesystem.list_allowed_directories", {});
      expect(result.text).toContain(state);
      await expect.poll(() => warnings.map((w) => w.code)).toContain("AUDIT_WRITE_FAILED");
      expect(warnings.every((w) => w.code === "AUDIT_WRITE_FAILED")).toBe(true);
    } finally {
      await app.shutdown();
    }
  });
});

describe("serve with a store that refuses run events", () => {
  it("logs RUN_EVENT_WRITE_FAILED naming the run and the event, and the run still finishes", async () => {
    const base = tempDir("agentforge-serve-base-");
    const state = tempDir("agentforge-serve-state-");
    cpSync(SAMPLE, join(base, "project"), { recursive: true });
    const repository = new (class extends FileRunRepository {
      override appendEvent(runId: string, type: string, data: Record<string, unknown>) {
        if (type === "round_saved") return Promise.reject(new Error("disk quota exceeded"));
        return super.appendEvent(runId, type, data);
      }
    })(state);
    const lines: string[] = [];
    const server = await startServer({
      port: 0,
      allowedBase: base,
      stateDir: state,
      repository,
      checkOnStart: false,
      healthIntervalMs: 0,
      log: (line) => lines.push(line),
    });
    cleanups.push(() => server.close());
    const started = await fetch(`${server.url}/api/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ folder: "project", model: "offline" }),
    });
    expect(started.status).toBe(202);
    const { id } = (await started.json()) as { id: string };
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${server.url}/api/v1/runs/${id}`)).json()) as { status: string }).status,
      )
      .toBe("finished");
    expect(
      lines.some((line) =>
        /warning RUN_EVENT_WRITE_FAILED: the round_saved event of run .* was not stored .*disk quota exceeded/.test(
          line,
        ),
      ),
    ).toBe(true);
  });
});
