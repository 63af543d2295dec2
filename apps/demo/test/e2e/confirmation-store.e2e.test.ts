// Confirmations in both run stores (files in a temp folder; PostgreSQL from TEST_DATABASE_URL, else
// PGlite), the same contract: a request stored once per call, the first answer wins (concurrently, and
// across two PostgreSQL instances), the last answer releases the run (awaiting_confirmation → paused)
// exactly once, expiry denies and releases, and nothing else is changed by a late answer.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewConfirmation } from "../../src/run-store/confirmations.js";
import { FileRunRepository } from "../../src/run-store/file-run-repository.js";
import {
  openPostgresRunRepository,
  type PostgresRunRepository,
} from "../../src/run-store/postgres/postgres-run-repository.js";
import { createTestDatabase, type TestDatabase } from "../../src/run-store/postgres/test-database.js";
import type { RunRepository, StoredRun } from "../../src/run-store/run-repository.js";

let counter = 0;
function runId(): string {
  counter++;
  return `${String(counter).padStart(8, "0")}-aaaa-4aaa-8aaa-${Date.now().toString(16).padStart(12, "0").slice(-12)}`;
}

function awaitingRun(id: string): StoredRun {
  const now = new Date().toISOString();
  return {
    id,
    agent: "documentation",
    folder: "/tmp/confirm",
    model: "offline",
    maxRounds: 3,
    status: "awaiting_confirmation",
    createdAt: now,
    updatedAt: now,
    state: { messages: [], round: 1, calls: [], finished: false },
  };
}

function request(runIdValue: string, callId: string): NewConfirmation {
  return {
    runId: runIdValue,
    callId,
    agent: "documentation",
    identity: "probe.delete_branch",
    serverName: "probe",
    toolName: "delete_branch",
    title: "Delete a branch",
    annotations: { destructiveHint: true },
    fingerprint: "fp-1",
    binding: `binding-${callId}`,
    argumentsPreview: '{"branch":"main"}',
  };
}

const HOUR = 3_600_000;

function contract(name: string, open: () => { a: RunRepository; b: RunRepository }) {
  describe(name, () => {
    it("stores a request once per call and lists it as pending", async () => {
      const { a, b } = open();
      const id = runId();
      await a.save(awaitingRun(id));
      const first = await a.requestConfirmation(request(id, "call-1"), HOUR);
      const again = await b.requestConfirmation({ ...request(id, "call-1"), binding: "other" }, HOUR);
      expect(again).toEqual(first);
      expect(first).toMatchObject({
        status: "pending",
        scope: null,
        answeredBy: null,
        binding: "binding-call-1",
      });
      expect(Date.parse(first.expiresAt) - Date.parse(first.requestedAt)).toBeGreaterThan(HOUR - 5000);
      const pending = (await b.pendingConfirmations()).filter((r) => r.runId === id);
      expect(pending.map((r) => r.callId)).toEqual(["call-1"]);
      expect(await b.confirmations(id)).toHaveLength(1);
    });

    it("records only the first of concurrent answers and releases the run once", async () => {
      const { a, b } = open();
      const id = runId();
      await a.save(awaitingRun(id));
      await a.requestConfirmation(request(id, "call-1"), HOUR);
      const outcomes = await Promise.all([
        a.answerConfirmation(id, "call-1", { decision: "allow", scope: "call", answeredBy: "token:aaaa" }),
        b.answerConfirmation(id, "call-1", { decision: "deny", scope: "call", answeredBy: "token:bbbb" }),
        a.answerConfirmation(id, "call-1", { decision: "deny", scope: "run", answeredBy: "loopback" }),
      ]);
      const answered = outcomes.filter((o) => o.outcome === "answered");
      expect(answered).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === "closed")).toHaveLength(2);
      const winner = answered[0];
      if (winner?.outcome !== "answered") throw new Error("unreachable");
      expect(winner.released).toBe(true);
      const stored = (await b.confirmations(id))[0];
      expect(stored?.status).toBe(winner.record.status);
      expect(stored?.answeredBy).toBe(winner.record.answeredBy);
      expect((await b.load(id))?.status).toBe("paused");
      expect(await a.releaseRun(id)).toBe(false);
      expect((await a.pendingConfirmations()).some((r) => r.runId === id)).toBe(false);
    });

    it("keeps the run awaiting until its last confirmation is answered", async () => {
      const { a, b } = open();
      const id = runId();
      await a.save(awaitingRun(id));
      await a.requestConfirmation(request(id, "call-1"), HOUR);
      await a.requestConfirmation(request(id, "call-2"), HOUR);
      const both = await Promise.all([
        a.answerConfirmation(id, "call-1", { decision: "allow", scope: "run", answeredBy: "loopback" }),
        b.answerConfirmation(id, "call-2", {
          decision: "deny",
          scope: "call",
          answeredBy: "loopback",
          reason: "no",
        }),
      ]);
      // Exactly one of the two (the one committed last) released the run.
      expect(both.filter((o) => o.outcome === "answered" && o.released)).toHaveLength(1);
      expect((await a.load(id))?.status).toBe("paused");
      const records = await b.confirmations(id);
      expect(records.map((r) => [r.callId, r.status, r.scope, r.reason])).toEqual([
        ["call-1", "allowed", "run", null],
        ["call-2", "denied", "call", "no"],
      ]);
    });

    it("answers 'not found' for an unknown call or run", async () => {
      const { a } = open();
      const id = runId();
      await a.save(awaitingRun(id));
      await a.requestConfirmation(request(id, "call-1"), HOUR);
      expect(
        await a.answerConfirmation(id, "call-9", {
          decision: "allow",
          scope: "call",
          answeredBy: "loopback",
        }),
      ).toEqual({ outcome: "not_found" });
      expect(
        await a.answerConfirmation(runId(), "call-1", {
          decision: "allow",
          scope: "call",
          answeredBy: "loopback",
        }),
      ).toEqual({ outcome: "not_found" });
    });

    it("expires a pending confirmation as denied, releases its run, and refuses a late answer", async () => {
      const { a, b } = open();
      const id = runId();
      await a.save(awaitingRun(id));
      await a.requestConfirmation(request(id, "call-1"), 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      // A late answer finds it expired (and marks it so), not answerable.
      const late = await b.answerConfirmation(id, "call-1", {
        decision: "allow",
        scope: "call",
        answeredBy: "loopback",
      });
      expect(late.outcome).toBe("closed");
      if (late.outcome === "closed") expect(late.record.status).toBe("expired");
      // The sweep releases runs whose confirmations expired.
      const id2 = runId();
      await a.save(awaitingRun(id2));
      await a.requestConfirmation(request(id2, "call-1"), 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const [first, second] = await Promise.all([a.expireConfirmations(), b.expireConfirmations()]);
      const expired = [...(first?.expired ?? []), ...(second?.expired ?? [])].filter((r) => r.runId === id2);
      expect(expired.map((r) => [r.status, r.answeredBy])).toEqual([["expired", "expiry"]]);
      expect([...(first?.released ?? []), ...(second?.released ?? [])].filter((r) => r === id2)).toEqual([
        id2,
      ]);
      expect((await a.load(id2))?.status).toBe("paused");
    });
  });
}

describe("confirmations in files", () => {
  let dir: string;
  let repo: FileRunRepository;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentforge-confirm-"));
    repo = new FileRunRepository(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // One process owns a state folder: both "instances" are the one repository.
  contract("FileRunRepository", () => ({ a: repo, b: repo }));
});

describe("confirmations in PostgreSQL", () => {
  let database: TestDatabase;
  let a: PostgresRunRepository;
  let b: PostgresRunRepository;
  beforeAll(async () => {
    database = await createTestDatabase();
    a = await openPostgresRunRepository({ databaseUrl: database.url, instanceId: "instance-a" });
    b = await openPostgresRunRepository({ databaseUrl: database.url, instanceId: "instance-b" });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });
  contract("PostgresRunRepository (two instances)", () => ({ a, b }));
});
