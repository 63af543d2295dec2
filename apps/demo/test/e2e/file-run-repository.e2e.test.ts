// The files run store on a real temp folder: today's on-disk format (runs/<id>.json, run-events/<id>.jsonl,
// audit.jsonl), event numbering across reopenings, live subscription, atomic claims within the process.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileRunRepository } from "../../src/run-store/file-run-repository.js";
import { RunEventLog, type RunEventRecord } from "../../src/run-store/run-event-log.js";
import type { StoredRun } from "../../src/run-store/run-repository.js";
import { RunStore } from "../../src/run-store/run-store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentforge-repo-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(id: string, createdAt: string, status: StoredRun["status"] = "paused"): StoredRun {
  return {
    id,
    agent: "documentation",
    folder: "/tmp/x",
    model: "offline",
    maxRounds: 3,
    status,
    createdAt,
    updatedAt: createdAt,
    state: { messages: [], round: 1, calls: [], finished: false },
  };
}
const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";

describe("FileRunRepository", () => {
  it("saves runs in today's format (RunStore reads them) and lists them newest first", async () => {
    const repo = new FileRunRepository(dir);
    expect(repo.kind).toBe("files");
    await repo.save(run(A, "2026-01-01T00:00:00.000Z"));
    await repo.save({ ...run(B, "2026-02-01T00:00:00.000Z"), ownerInstance: "i-1" });
    expect(new RunStore(dir).load(A)).toMatchObject({ id: A, status: "paused" });
    expect((await repo.load(B))?.ownerInstance).toBe("i-1");
    expect(await repo.load("00000000-0000-4000-8000-000000000000")).toBeUndefined();
    expect(await repo.load("../../etc/passwd")).toBeUndefined();
    expect((await repo.list()).map((r) => r.id)).toEqual([B, A]);
    expect((await repo.list({ limit: 1 })).map((r) => r.id)).toEqual([B]);
  });

  it("reports a corrupt run file as RUN_RECORD_UNREADABLE, never as a missing run; lists the others with a warning", async () => {
    const warnings: string[] = [];
    const repo = new FileRunRepository(dir, {
      warn: (warning) => warnings.push(`${warning.code}: ${warning.message}`),
    });
    await repo.save(run(A, "2026-01-01T00:00:00.000Z"));
    writeFileSync(join(dir, "runs", `${B}.json`), '{"id": "cut short');
    await expect(repo.load(B)).rejects.toMatchObject({ code: "RUN_RECORD_UNREADABLE" });
    await expect(repo.load(B)).rejects.toThrow(/cannot be read as a run/);
    expect((await repo.list()).map((r) => r.id)).toEqual([A]);
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`^RUN_RECORD_UNREADABLE: .*${B}\\.json`))]);
    expect(await repo.load("33333333-3333-4333-8333-333333333333")).toBeUndefined();
  });

  it("claims a run that is not running exactly once; never a finished or unknown one", async () => {
    const repo = new FileRunRepository(dir);
    await repo.save(run(A, "2026-01-01T00:00:00.000Z"));
    await repo.save(run(B, "2026-01-01T00:00:00.000Z", "finished"));
    const claims = await Promise.all([repo.claim(A, "x"), repo.claim(A, "y"), repo.claim(A, "z")]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await repo.load(A)).toMatchObject({ status: "running", ownerInstance: "x" });
    expect(await repo.claim(B, "x")).toBe(false);
    expect(await repo.claim("33333333-3333-4333-8333-333333333333", "x")).toBe(false);
  });

  it("numbers events per run across reopenings, replays after an id, and delivers live ones", async () => {
    const repo = new FileRunRepository(dir);
    const seen: RunEventRecord[] = [];
    const stop = repo.subscribe(A, (event) => seen.push(event));
    await repo.appendEvent(A, "run_started", { runId: A });
    await repo.appendEvent(A, "run_finished", { runId: A, status: "paused" });
    await repo.appendEvent(B, "run_started", { runId: B });
    stop();
    const again = new FileRunRepository(dir);
    expect((await again.appendEvent(A, "run_started", { runId: A, resumed: true })).id).toBe(3);
    expect((await again.eventsSince(A, 1)).map((e) => [e.id, e.type])).toEqual([
      [2, "run_finished"],
      [3, "run_started"],
    ]);
    expect(seen.map((e) => e.id)).toEqual([1, 2]);
    // The event file is the one RunEventLog reads (the format of earlier versions).
    expect(RunEventLog.load(A, join(dir, "run-events", `${A}.jsonl`)).size).toBe(3);
    expect(await again.eventsSince("not-an-id", 0)).toEqual([]);
  });

  it("appends audit lines to audit.jsonl", async () => {
    const repo = new FileRunRepository(dir);
    await repo.appendAudit({ event: "MCP_TOOL_CALL_COMPLETED", tool: "local-tools.echo" });
    await repo.appendAudit({ event: "MCP_TOOL_CALL_FAILED", tool: "local-tools.echo" });
    const lines = readFileSync(join(dir, "audit.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).event)).toEqual([
      "MCP_TOOL_CALL_COMPLETED",
      "MCP_TOOL_CALL_FAILED",
    ]);
    await repo.close();
    expect(existsSync(join(dir, "runs"))).toBe(true);
  });
});
