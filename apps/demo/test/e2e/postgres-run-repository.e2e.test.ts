// The PostgreSQL run store against a real PostgreSQL (TEST_DATABASE_URL; else PGlite): migrations (twice, concurrently),
// runs round trip, events between two instances (two pools, two listening connections) with replay,
// concurrent claims, lease expiry, the save fence, the audit trail, and connection errors without the
// password. Each file gets its own database, dropped afterwards.
import { readdirSync } from "node:fs";
import { createServer } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunDatabaseError } from "../../src/run-store/postgres/database-error.js";
import { findMigrationsDir, migrate } from "../../src/run-store/postgres/migrate.js";
import {
  openPostgresRunRepository,
  type PostgresRunRepository,
} from "../../src/run-store/postgres/postgres-run-repository.js";
import {
  createTestDatabase,
  NEEDS_SERVER,
  type TestDatabase,
} from "../../src/run-store/postgres/test-database.js";
import type { RunEventRecord } from "../../src/run-store/run-event-log.js";
import type { StoredRun } from "../../src/run-store/run-repository.js";

/** Without TEST_DATABASE_URL the tests run on an embedded PGlite; the few that need a server are skipped. */
const onPglite = !process.env.TEST_DATABASE_URL;
if (onPglite) console.warn(`postgres-run-repository: running on PGlite; 2 tests skipped: ${NEEDS_SERVER}`);

function newRun(id: string, overrides: Partial<StoredRun> = {}): StoredRun {
  const now = new Date().toISOString();
  return {
    id,
    agent: "documentation",
    folder: "/srv/projects/demo",
    model: "offline",
    configPath: "/etc/agentforge/mcp_servers.yaml",
    maxRounds: 3,
    status: "paused",
    createdAt: now,
    updatedAt: now,
    state: { round: 0, calls: [] } as unknown as StoredRun["state"],
    ...overrides,
  };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

async function schemaShape(url: string, schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = await client.query<{ line: string }>(
      `SELECT table_name || '.' || column_name || ':' || data_type || ':' || is_nullable AS line
         FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, column_name`,
      [schema],
    );
    const indexes = await client.query<{ line: string }>(
      "SELECT indexname || ':' || indexdef AS line FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname",
      [schema],
    );
    const applied = await client.query<{ line: string }>(
      `SELECT 'migration:' || name AS line FROM ${client.escapeIdentifier(schema)}.pgmigrations ORDER BY id`,
    );
    return [...columns.rows, ...indexes.rows, ...applied.rows].map((row) =>
      row.line.replaceAll(`${schema}.`, "<schema>."),
    );
  } finally {
    await client.end();
  }
}

describe("PostgresRunRepository", () => {
  let database: TestDatabase;
  let a: PostgresRunRepository;
  let b: PostgresRunRepository;

  beforeAll(async () => {
    database = await createTestDatabase();
    const open = (instanceId: string) =>
      openPostgresRunRepository({ databaseUrl: database.url, instanceId, pollIntervalMs: 500 });
    if (onPglite) {
      a = await open("instance-a");
      b = await open("instance-b");
    } else {
      // Two app instances starting at once: both migrate, the advisory lock serializes them.
      [a, b] = await Promise.all([open("instance-a"), open("instance-b")]);
    }
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it.skipIf(onPglite)("applies the migrations once, concurrently and again, to the same schema", async () => {
    const connection = { connectionString: database.url };
    const concurrent = await Promise.all(
      Array.from({ length: 4 }, () => migrate({ connection, schema: "migrated_concurrently" })),
    );
    // Exactly one of the four applied the files; the others waited for the lock and found nothing to do.
    const files = readdirSync(findMigrationsDir()).filter((name) => name.endsWith(".sql")).length;
    expect(concurrent.filter((applied) => applied.length === files)).toHaveLength(1);
    expect(concurrent.filter((applied) => applied.length === 0)).toHaveLength(3);
    expect(await migrate({ connection, schema: "migrated_concurrently" })).toEqual([]);
    expect(await migrate({ connection, schema: "migrated_once" })).toHaveLength(files);
    expect(await migrate({ connection, schema: "migrated_once" })).toEqual([]);

    const once = await schemaShape(database.url, "migrated_once");
    expect(once.some((line) => line.startsWith("runs.state:jsonb"))).toBe(true);
    expect(once.some((line) => line.startsWith("run_events.data:jsonb"))).toBe(true);
    expect(once.some((line) => line.startsWith("audit.entry:jsonb"))).toBe(true);
    expect(await schemaShape(database.url, "migrated_concurrently")).toEqual(once);
    // The instances' own schema, migrated by two instances at once, has the same shape too.
    expect(await schemaShape(database.url, "agentforge")).toEqual(once);
    expect(findMigrationsDir()).toMatch(/apps[/\\]demo[/\\]migrations$/);
  });

  it("saves, loads and lists runs (newest first), across instances", async () => {
    const older = newRun("run-list-1", { createdAt: "2026-01-01T10:00:00.000Z" });
    const newer = newRun("run-list-2", {
      createdAt: "2026-01-02T10:00:00.000Z",
      status: "finished",
      document: "# Overview\n",
      ownerInstance: "instance-a",
      state: {
        round: 2,
        calls: [{ identity: "filesystem.read_text_file", ok: true }],
      } as unknown as StoredRun["state"],
    });
    await a.save(older);
    await a.save(newer);
    const loaded = await b.load("run-list-2");
    expect(loaded).toMatchObject({
      id: "run-list-2",
      agent: "documentation",
      folder: "/srv/projects/demo",
      model: "offline",
      configPath: "/etc/agentforge/mcp_servers.yaml",
      maxRounds: 3,
      status: "finished",
      createdAt: "2026-01-02T10:00:00.000Z",
      document: "# Overview\n",
      ownerInstance: "instance-a",
      state: newer.state,
    });
    expect(loaded?.error).toBeUndefined();
    expect(Date.parse(loaded?.updatedAt ?? "")).toBeGreaterThan(0);
    expect(await b.load("no-such-run")).toBeUndefined();

    const listed = (await b.list()).filter((run) => run.id.startsWith("run-list-"));
    expect(listed.map((run) => run.id)).toEqual(["run-list-2", "run-list-1"]);
    expect(await b.list({ limit: 1 })).toHaveLength(1);

    // Saving again replaces the record; text and JSON with NUL characters are stored (as U+FFFD).
    await b.save({
      ...older,
      status: "failed",
      error: "bad\0thing",
      state: { round: 1, calls: [], note: "a\0b" } as unknown as StoredRun["state"],
    });
    const replaced = await a.load("run-list-1");
    expect(replaced?.status).toBe("failed");
    expect(replaced?.error).toBe("bad\uFFFDthing");
    expect((replaced?.state as unknown as { note?: string } | undefined)?.note).toBe("a\uFFFDb");
  });

  it("stores any string a model can produce: lone surrogate halves in runs, events and audit lines", async () => {
    // A model's tool arguments echoed back by a server's error: `"\ud83d"` alone was refused by jsonb,
    // and the run was silently left paused.
    const lone = "path \ud83d and \ude00 and NUL \0";
    await a.save(
      newRun("run-lone-surrogate", {
        status: "failed",
        error: lone,
        document: lone,
        state: {
          round: 1,
          calls: [{ identity: "filesystem.read_text_file", error: lone }],
        } as unknown as StoredRun["state"],
      }),
    );
    const loaded = await b.load("run-lone-surrogate");
    const clean = "path \uFFFD and \uFFFD and NUL \uFFFD";
    expect(loaded?.error).toBe(clean);
    expect(loaded?.document).toBe(clean);
    expect(JSON.stringify(loaded?.state)).toContain(JSON.stringify(clean).slice(1, -1));
    const event = await a.appendEvent("run-lone-surrogate", "tool_failed", { message: lone, "k\udbff": 1 });
    expect(event.data).toMatchObject({ message: clean, "k\uFFFD": 1 });
    await a.appendAudit({ agent: "documentation", identity: "filesystem.read_text_file", message: lone });
    expect((await b.listAudit({ limit: 1 }))[0]?.entry.message).toBe(clean);
  });

  it("numbers events per run atomically and streams them to the other instance in order, with replay", async () => {
    const runId = "run-events";
    const onA: RunEventRecord[] = [];
    const onB: RunEventRecord[] = [];
    const offA = a.subscribe(runId, (event) => onA.push(event));
    const offB = b.subscribe(runId, (event) => onB.push(event));
    // Both instances append at once: ids are 1..40 with no duplicate and no gap.
    const big = "x".repeat(200_000);
    const appended = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? a : b).appendEvent(runId, i === 7 ? "big" : "tick", {
          runId,
          i,
          ...(i === 7 ? { big } : {}),
        }),
      ),
    );
    expect(appended.map((event) => event.id).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    await expect.poll(() => onB.length).toBe(40);
    await expect.poll(() => onA.length).toBe(40);
    expect(onB.map((event) => event.id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(onA.map((event) => event.id)).toEqual(onB.map((event) => event.id));
    const bigEvent = onB.find((event) => event.type === "big");
    expect(String(bigEvent?.data.big ?? "").length).toBe(200_000);
    const first = appended.find((event) => event.id === 1);
    expect(onB[0]).toEqual(first);
    expect(onB[0]?.data).toMatchObject({ type: first?.type, at: first?.at, runId });

    // Last-Event-ID replay.
    const replay = await b.eventsSince(runId, 35);
    expect(replay.map((event) => event.id)).toEqual([36, 37, 38, 39, 40]);
    expect(await b.eventsSince(runId, 40)).toEqual([]);
    expect(await b.eventsSince("no-such-run", 0)).toEqual([]);

    // Replay and live as one sequence: afterId first, then new events.
    const resumed: number[] = [];
    const offResumed = b.subscribe(runId, (event) => resumed.push(event.id), { afterId: 37 });
    await expect.poll(() => resumed).toEqual([38, 39, 40]);
    await a.appendEvent(runId, "tick", { runId });
    await expect.poll(() => resumed).toEqual([38, 39, 40, 41]);
    await expect.poll(() => onB.length).toBe(41);

    // After unsubscribing nothing more arrives; a listener that throws does not stop the others.
    await expect.poll(() => onA.length).toBe(41);
    offA();
    const throwing = b.subscribe(runId, () => {
      throw new Error("listener bug");
    });
    await a.appendEvent(runId, "tick", { runId });
    await expect.poll(() => onB.length).toBe(42);
    await expect.poll(() => resumed.length).toBe(5);
    expect(onA).toHaveLength(41);
    throwing();
    offB();
    offResumed();
  });

  it("leaves no gap between subscribe-then-replay while the other instance appends", async () => {
    for (let round = 0; round < 5; round++) {
      const runId = `run-overlap-${round}`;
      const live: number[] = [];
      const appending = Promise.all(
        Array.from({ length: 30 }, (_, i) => a.appendEvent(runId, "tick", { runId, i })),
      );
      const off = b.subscribe(runId, (event) => live.push(event.id));
      const replay = (await b.eventsSince(runId, 0)).map((event) => event.id);
      await appending;
      const last = replay.at(-1) ?? 0;
      // Replay is 1..last; live continues from at most last + 1, in order, to 30.
      expect(replay).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      await expect.poll(() => live.at(-1) ?? last).toBe(30);
      const first = live[0] ?? 31;
      expect(first).toBeLessThanOrEqual(last + 1);
      expect(live).toEqual(Array.from({ length: 30 - first + 1 }, (_, i) => first + i));
      off();
    }
  });

  it("streams events committed with fastEventCommit the same way", async () => {
    const fast = await openPostgresRunRepository({
      databaseUrl: database.url,
      instanceId: "instance-fast",
      fastEventCommit: true,
    });
    try {
      const seen: number[] = [];
      const off = b.subscribe("run-fast", (event) => seen.push(event.id), { afterId: 0 });
      await Promise.all(Array.from({ length: 10 }, (_, i) => fast.appendEvent("run-fast", "tick", { i })));
      await expect.poll(() => seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      off();
    } finally {
      await fast.close();
    }
  });

  it.skipIf(onPglite)(
    "keeps streaming after the listening connection is killed (re-LISTEN and catch up by id)",
    async () => {
      const runId = "run-reconnect";
      const seen: number[] = [];
      // From the run's first event: a subscription "from now on" reads its starting point
      // asynchronously, so an append racing it may land before that point.
      const off = b.subscribe(runId, (event) => seen.push(event.id), { afterId: 0 });
      await a.appendEvent(runId, "before", { runId });
      await expect.poll(() => seen).toEqual([1]);
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      try {
        const killed = await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'agentforge-listen' AND datname = current_database()`,
        );
        expect(killed.rowCount).toBeGreaterThanOrEqual(2);
      } finally {
        await admin.end();
      }
      // Appended while B has no listening connection: delivered by the catch-up, in order.
      await a.appendEvent(runId, "during", { runId });
      await a.appendEvent(runId, "during", { runId });
      await expect.poll(() => seen).toEqual([1, 2, 3]);
      await expect.poll(() => b.listening).toBe(true);
      await a.appendEvent(runId, "after", { runId });
      await expect.poll(() => seen).toEqual([1, 2, 3, 4]);
      off();
    },
  );

  it("lets exactly one of 10 concurrent claims from two instances win", async () => {
    await a.save(newRun("run-claim"));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0 ? a.claim("run-claim", "instance-a") : b.claim("run-claim", "instance-b"),
      ),
    );
    expect(results.filter((won) => won)).toHaveLength(1);
    const winner = results.findIndex((won) => won) % 2 === 0 ? "instance-a" : "instance-b";
    const claimed = await b.load("run-claim");
    expect(claimed).toMatchObject({ status: "running", ownerInstance: winner });
    // Running, finished or unknown runs are not claimable.
    expect(await a.claim("run-claim", "instance-a")).toBe(false);
    await a.save(newRun("run-finished", { status: "finished" }));
    expect(await b.claim("run-finished", "instance-b")).toBe(false);
    expect(await b.claim("no-such-run", "instance-b")).toBe(false);
  });

  it("refuses a save by an instance that lost the run to another (RUN_LEASE_LOST)", async () => {
    await a.save(newRun("run-fence"));
    expect(await b.claim("run-fence", "instance-b")).toBe(true);
    const stale = newRun("run-fence", { status: "running", ownerInstance: "instance-a" });
    const error = await a.save(stale).catch((caught: unknown) => caught);
    expect(RunDatabaseError.isInstance(error)).toBe(true);
    expect((error as RunDatabaseError).code).toBe("RUN_LEASE_LOST");
    expect((error as Error).message).toContain("instance-b");
    // The owner saves fine.
    await b.save({ ...stale, ownerInstance: "instance-b", status: "finished" });
    expect((await a.load("run-fence"))?.status).toBe("finished");
  });

  it("pauses a run whose owner's lease ended, so another instance can claim it", async () => {
    const shortLease = await openPostgresRunRepository({
      databaseUrl: database.url,
      instanceId: "instance-c",
      leaseSeconds: 1,
    });
    try {
      await shortLease.save(newRun("run-lease"));
      expect(await shortLease.claim("run-lease", "instance-c")).toBe(true);
      // instance-c "dies": nothing renews its lease. A sweep elsewhere pauses the run once the lease ended.
      await expect
        .poll(() => b.pauseExpiredRuns(), { timeout: 30_000, interval: 250 })
        .toContain("run-lease");
      const paused = await b.load("run-lease");
      expect(paused?.status).toBe("paused");
      expect(paused?.error).toContain('"instance-c"');
      const events = await b.eventsSince("run-lease", 0);
      expect(events.map((event) => event.type)).toContain("run_lease_expired");
      expect(await b.claim("run-lease", "instance-b")).toBe(true);
      // A renewed lease is not swept.
      expect(await b.renewLease("run-lease", "instance-b", 60_000)).toBe(true);
      expect(await b.renewLease("run-lease", "instance-c", 60_000)).toBe(false);
      expect(await a.pauseExpiredRuns("run-lease")).toEqual([]);

      // The per-round saves of a running run renew its lease.
      await b.save(newRun("run-renewed"));
      expect(await b.claimWithLease("run-renewed", "instance-b", 1)).toBe(true);
      await expect.poll(async () => (await b.load("run-renewed"))?.status).toBe("running");
      // The save itself renewed the lease: a sweep right after it finds nothing expired (no wait needed).
      await b.save(newRun("run-renewed", { status: "running", ownerInstance: "instance-b" }));
      expect(await a.pauseExpiredRuns("run-renewed")).toEqual([]);
    } finally {
      await shortLease.close();
    }
  });

  it("appends audit lines", async () => {
    await a.appendAudit({ agent: "documentation", identity: "filesystem.read_text_file", ok: true });
    await b.appendAudit({
      agent: "documentation",
      identity: "filesystem.list_directory",
      ok: false,
      code: "TOOL_DENIED",
    });
    const lines = await a.listAudit({ limit: 2 });
    expect(lines.map((line) => line.entry.identity)).toEqual([
      "filesystem.list_directory",
      "filesystem.read_text_file",
    ]);
    expect(lines[0]?.id).toBeGreaterThan(lines[1]?.id ?? Number.POSITIVE_INFINITY);
  });

  it("fails to open with DATABASE_UNAVAILABLE naming the variable, host and database, never the password", async () => {
    const port = await closedPort();
    const password = "S3cr3t-Pa55word";
    const error = await openPostgresRunRepository({
      databaseUrl: `postgres://agent:${password}@127.0.0.1:${port}/appdb`,
      instanceId: "instance-x",
    }).catch((caught: unknown) => caught);
    expect(RunDatabaseError.isInstance(error)).toBe(true);
    const dbError = error as RunDatabaseError;
    expect(dbError.code).toBe("DATABASE_UNAVAILABLE");
    expect(dbError.message).toContain("DATABASE_URL");
    expect(dbError.message).toContain(`127.0.0.1:${port}`);
    expect(dbError.message).toContain('"appdb"');
    expect(dbError.variable).toBe("DATABASE_URL");
    for (const text of [
      dbError.message,
      JSON.stringify(dbError.toJSON()),
      String(dbError.cause),
      dbError.stack ?? "",
    ]) {
      expect(text).not.toContain(password);
    }

    // A reachable server, a database that does not exist, the flag as the variable (PGlite serves any name).
    if (!onPglite) {
      const missing = new URL(database.url);
      missing.password = password;
      missing.pathname = "/no_such_database_here";
      const notFound = await openPostgresRunRepository({
        databaseUrl: missing.toString(),
        variable: "--database-url",
        instanceId: "instance-x",
      }).catch((caught: unknown) => caught);
      expect((notFound as RunDatabaseError).code).toBe("DATABASE_UNAVAILABLE");
      expect((notFound as Error).message).toContain("--database-url");
      expect((notFound as Error).message).toContain("no_such_database_here");
      expect((notFound as Error).message).not.toContain(password);
    }

    const invalid = await openPostgresRunRepository({
      databaseUrl: `mysql://agent:${password}@127.0.0.1/appdb`,
      instanceId: "instance-x",
    }).catch((caught: unknown) => caught);
    expect((invalid as RunDatabaseError).code).toBe("DATABASE_URL_INVALID");
    expect((invalid as Error).message).toContain("DATABASE_URL");
    expect((invalid as Error).message).not.toContain(password);
  });
});
