// Confirmations in service mode: several `agentforge serve` processes on one real PostgreSQL
// (TEST_DATABASE_URL; a fresh database for this file; skipped with the reason when unset). A run waiting
// for a confirmation is listed by every instance; two answers at once on two instances: exactly one
// counts (409 for the other); the answer resumes the run through the shared queue and it finishes. A
// restart while a confirmation is pending loses nothing. A confirmation nobody answers expires (denied)
// and the run continues.
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../src/run-store/postgres/test-database.js";
import { CONFIRMED_TOOL, callApi, requireConfirmation, seedAwaitingRun } from "./confirmation-fixtures.js";
import { type Roster, readSse, type Served, startServe, tempRoster } from "./mcp-fixtures.js";

const skipReason = process.env.TEST_DATABASE_URL
  ? undefined
  : "TEST_DATABASE_URL is not set: serve instances share runs and confirmations through PostgreSQL and its pg-boss queue, which needs a real server";
if (skipReason) console.warn(`confirmations-service e2e tests skipped: ${skipReason}`);

const POLL = { timeout: 170_000, interval: 250 };

let roster: Roster;
/** The roster with a `confirm:` grant (its runs stop for a person's confirmation). */
let confirming: Roster;
let db: TestDatabase;
const started: Served[] = [];

async function instance(name: string, extra: string[] = [], on: Roster = roster): Promise<Served> {
  const served = await startServe(
    [
      "--port",
      "0",
      "--config",
      on.config,
      "--state-dir",
      join(on.dir, `state-${name}`),
      "--allowed-base",
      on.base,
      "--no-check",
      "--health-interval",
      "0",
      "--database-url",
      db.url,
      "--queue-maintenance-seconds",
      "2",
      ...extra,
    ],
    { env: roster.env, cwd: roster.dir, timeoutMs: 120_000 },
  );
  started.push(served);
  return served;
}

const seed = (calls: Array<{ callId: string }>, ttlMs?: number) =>
  seedAwaitingRun(
    { databaseUrl: db.url },
    {
      folder: realpathSync(join(roster.base, "proj")),
      configPath: realpathSync(roster.config),
      calls,
      ...(ttlMs !== undefined ? { ttlMs } : {}),
    },
  );

const statusOf = async (at: Served, id: string) =>
  (await callApi(at.url, "GET", `/api/v1/runs/${id}`)).json.status;

describe.skipIf(skipReason !== undefined)("confirmations across serve instances (PostgreSQL)", () => {
  beforeAll(async () => {
    roster = await tempRoster();
    confirming = await tempRoster();
    requireConfirmation(confirming.config);
    db = await createTestDatabase();
  }, 120_000);
  afterEach(async () => {
    await Promise.all(started.splice(0).map((served) => served.stop()));
  });
  afterAll(async () => {
    await db?.drop();
    roster?.cleanup();
    confirming?.cleanup();
  });

  it("is listed on every instance; of two answers at once on A and B one counts; the run finishes", {
    timeout: 300_000,
  }, async () => {
    const [a, b] = [await instance("a"), await instance("b")];
    const id = await seed([{ callId: "call-1" }]);
    for (const at of [a, b]) {
      const list = (await callApi(at.url, "GET", "/api/v1/confirmations")).json.confirmations as Array<{
        runId: string;
      }>;
      expect(list.map((c) => c.runId)).toContain(id);
    }
    const path = `/api/v1/runs/${id}/confirmations/call-1`;
    const answers = await Promise.all([
      callApi(a.url, "POST", path, { body: { decision: "allow" } }),
      callApi(b.url, "POST", path, { body: { decision: "deny" } }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
    const conflict = answers.find((r) => r.status === 409);
    expect(conflict?.json.error).toMatchObject({ code: "CONFIRMATION_ANSWERED" });
    await expect.poll(() => statusOf(a, id), POLL).toBe("finished");
    const { events } = await readSse(`${b.url}/api/v1/runs/${id}/events`, { timeoutMs: 60_000 });
    expect(events.filter((e) => e.event === "confirmation_resolved")).toHaveLength(1);
    expect(events.at(-1)?.data).toMatchObject({ type: "run_finished", status: "finished" });
  });

  it("a run stopped for a confirmation on A (then stopped) is confirmed on B, which finishes it", {
    timeout: 300_000,
  }, async () => {
    const a = await instance("real-a", [], confirming);
    const aId = /; instance ([0-9a-f-]{36});/.exec(a.stderr())?.[1];
    const created = await callApi(a.url, "POST", "/api/v1/runs", { body: { folder: "proj" } });
    expect(created.status).toBe(202);
    const id = created.json.id as string;
    await expect.poll(() => statusOf(a, id), POLL).toBe("awaiting_confirmation");
    expect((await callApi(a.url, "GET", `/api/v1/runs/${id}`)).json.ownerInstance).toBe(aId);
    const b = await instance("real-b", [], confirming);
    const bId = /; instance ([0-9a-f-]{36});/.exec(b.stderr())?.[1];
    // A goes away: what waits is in the database, not in A.
    expect(await a.stop()).toBe(0);
    const list = (await callApi(b.url, "GET", "/api/v1/confirmations")).json.confirmations as Array<{
      runId: string;
      identity: string;
      links: { answer: string };
    }>;
    const pending = list.find((c) => c.runId === id);
    expect(pending?.identity).toBe(CONFIRMED_TOOL);
    const answer = await callApi(b.url, "POST", pending?.links.answer ?? "", { body: { decision: "allow" } });
    expect(answer.status).toBe(202);
    await expect.poll(() => statusOf(b, id), POLL).toBe("finished");
    const run = (await callApi(b.url, "GET", `/api/v1/runs/${id}`)).json;
    expect(run.ownerInstance).toBe(bId);
    const tree = (run.calls as Array<{ identity: string; ok: boolean }>).filter(
      (c) => c.identity === CONFIRMED_TOOL,
    );
    expect(tree).toEqual([expect.objectContaining({ ok: true })]);
  });

  it("survives a restart while the confirmation is pending", { timeout: 300_000 }, async () => {
    const first = await instance("restart-1");
    const id = await seed([{ callId: "call-1" }]);
    expect(await statusOf(first, id)).toBe("awaiting_confirmation");
    expect(await first.stop()).toBe(0);
    started.splice(started.indexOf(first), 1);
    const second = await instance("restart-2");
    const list = (await callApi(second.url, "GET", "/api/v1/confirmations")).json.confirmations as Array<{
      runId: string;
      status: string;
    }>;
    expect(list.find((c) => c.runId === id)?.status).toBe("pending");
    const answer = await callApi(second.url, "POST", `/api/v1/runs/${id}/confirmations/call-1`, {
      body: { decision: "allow", scope: "run" },
    });
    expect(answer.status).toBe(202);
    await expect.poll(() => statusOf(second, id), POLL).toBe("finished");
  });

  it("expires a confirmation nobody answers (denied) and the run continues", {
    timeout: 300_000,
  }, async () => {
    const at = await instance("expiry", ["--confirmation-ttl", "5s"]);
    const id = await seed([{ callId: "call-1" }], 1500);
    await expect.poll(() => statusOf(at, id), POLL).toBe("finished");
    const { events } = await readSse(`${at.url}/api/v1/runs/${id}/events`, { timeoutMs: 60_000 });
    expect(events.find((e) => e.event === "confirmation_resolved")?.data).toMatchObject({
      callId: "call-1",
      decision: "deny",
      status: "expired",
      answeredBy: "expiry",
    });
    const late = await callApi(at.url, "POST", `/api/v1/runs/${id}/confirmations/call-1`, {
      body: { decision: "allow" },
    });
    expect(late.status).toBe(409);
    expect((late.json.error as { code: string }).code).toBe("CONFIRMATION_EXPIRED");
  });
});
