// The embedded engine's restart (the watchdog's answer to a query PGlite cannot time out by itself): the
// new engine starts from the snapshot taken after the first start's seed, holds the same data, and one
// restart at a time runs however often it is asked for. Counted (engine starts, live workers), never timed.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PGliteHost } from "../../src/postgres/internal/pglite-host.js";
import { databaseInternals } from "../../src/postgres/open-postgres-database.js";
import { textOf } from "./helpers.js";
import {
  jsonOf,
  openTestDatabase,
  type QueryJson,
  type Snapshot,
  type TestDatabase,
} from "./postgres-helpers.js";

describe("restarting the embedded engine", () => {
  let db: TestDatabase;
  let client: Client;
  let host: PGliteHost;
  let seeded: Snapshot;

  const call = (sql: string) => client.callTool({ name: "execute_query", arguments: { sql } });

  beforeAll(async () => {
    db = await openTestDatabase("pglite");
    client = await db.connect();
    const found = databaseInternals(db.database).backend.host;
    if (!found) throw new Error("the pglite backend has no host");
    host = found;
    seeded = await db.snapshot();
  });
  afterAll(async () => {
    await db?.close();
  });

  it("the first engine ran initdb and the seed, and kept a snapshot of the result", () => {
    expect(host.stats()).toMatchObject({ starts: 1, snapshotStarts: 0, liveWorkers: 1 });
    // The seeded cluster's data directory (tens of MB uncompressed).
    expect(host.stats().snapshotBytes).toBeGreaterThan(1_000_000);
  });

  it("after the watchdog restarts it, the engine starts from the snapshot with the seeded data", async () => {
    const before = host.stats();
    const stuck = await call("SELECT count(*) FROM (SELECT generate_series(1, 1000000000000)) AS s");
    expect(stuck.isError).toBe(true);
    expect(textOf(stuck)).toMatch(
      /^PostgreSQL error 57014: canceling statement due to statement timeout \(1500 ms\); the embedded database was restarted/,
    );
    await host.address();
    expect(host.stats()).toMatchObject({
      starts: before.starts + 1,
      snapshotStarts: before.snapshotStarts + 1,
      liveWorkers: 1,
    });
    // Rows, sequences, enum types and functions of the seed, as the first engine had them.
    expect(await db.snapshot()).toEqual(seeded);
    const tables = await client.callTool({ name: "list_tables", arguments: {} });
    expect(tables.isError).toBeFalsy();
    expect(jsonOf<QueryJson>(await call("SELECT count(*)::int AS n FROM counters")).rows).toEqual([[2]]);
    // The seed's functions are there (and still cannot write).
    expect(textOf(await call("SELECT bump() AS n"))).toMatch(
      /^PostgreSQL error 25006: cannot execute UPDATE/,
    );
    expect(await db.snapshot()).toEqual(seeded);
  });

  it("restart() asked for twice before the first finished starts one engine and leaves one worker", async () => {
    const before = host.stats();
    const first = host.restart();
    const second = host.restart();
    expect(second).toBe(first);
    const [a, b] = await Promise.all([first, second]);
    expect(b).toBe(a);
    expect(host.stats()).toMatchObject({
      starts: before.starts + 1,
      snapshotStarts: before.snapshotStarts + 1,
      liveWorkers: 1,
    });
    expect(jsonOf<QueryJson>(await call("SELECT 'alive' AS s")).rows).toEqual([["alive"]]);
    // Once it serves, the next restart is a restart of its own.
    await host.restart();
    expect(host.stats()).toMatchObject({ starts: before.starts + 2, liveWorkers: 1 });
    expect(await db.snapshot()).toEqual(seeded);
  });

  it("closing stops the last worker", async () => {
    const other = await openTestDatabase("pglite");
    const otherHost = databaseInternals(other.database).backend.host;
    // Same seed in the same process: the second database starts from the first one's snapshot.
    expect(otherHost?.stats()).toMatchObject({ starts: 1, snapshotStarts: 1, liveWorkers: 1 });
    await other.close();
    expect(otherHost?.stats().liveWorkers).toBe(0);
  });
});
