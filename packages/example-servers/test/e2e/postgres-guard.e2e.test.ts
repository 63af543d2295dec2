// The read-only layers against a real database, each on its own, on both backends. After every refused,
// failed or timed-out query an independent connection checks that no row, sequence, lock or setting
// changed.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseInternals } from "../../src/postgres/open-postgres-database.js";
import { textOf } from "./helpers.js";
import {
  BACKENDS,
  jsonOf,
  openTestDatabase,
  type QueryJson,
  type Snapshot,
  type TestDatabase,
} from "./postgres-helpers.js";

describe.each(BACKENDS)("read-only layers on %s", (backend) => {
  let db: TestDatabase;
  let client: Client;
  let before: Snapshot;

  const call = (sql: string, params?: unknown[]) =>
    client.callTool({ name: "execute_query", arguments: { sql, ...(params ? { params } : {}) } });
  /** Layers 2–4 alone: the runner without the parser check, as if layer 1 had missed something. */
  const unguarded = (sql: string) => databaseInternals(db.database).runTrusted(sql, [], 100);
  const expectUnchanged = async () => expect(await db.snapshot()).toEqual(before);

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    client = await db.connect();
    before = await db.snapshot();
    expect(before).toMatchObject({ advisoryLocks: 0, relationLocks: 0 });
  });
  afterAll(async () => {
    await db?.close();
  });

  describe("layer 1: refused queries name their rule and change nothing", () => {
    it.each([
      ["DELETE FROM counters", "statement-kind", "DELETE statements are not allowed"],
      ["update counters set n = 0", "statement-kind", "UPDATE statements are not allowed"],
      ["SELECT 1; DELETE FROM counters", "single-statement", "exactly one statement is allowed, got 2"],
      [
        "WITH d AS (DELETE FROM counters RETURNING *) SELECT * FROM d",
        "data-modifying-cte",
        "(DELETE) inside WITH",
      ],
      [
        "SELECT * FROM (WITH u AS (UPDATE counters SET n = 0 RETURNING 1) SELECT * FROM u) AS s",
        "data-modifying-cte",
        "(UPDATE) inside WITH",
      ],
      ["EXPLAIN ANALYZE DELETE FROM counters", "statement-kind", "EXPLAIN ANALYZE of DELETE is not allowed"],
      ["SELECT * INTO stolen FROM counters", "select-into", "SELECT INTO is not allowed"],
      ["SELECT * FROM counters FOR UPDATE", "locking-clause", "FOR UPDATE"],
      ["SELECT nextval('audit_seq')", "denied-function", "nextval"],
      ["select PG_CATALOG.SETVAL('orders_id_seq', 1)", "denied-function", "setval"],
      ["SELECT pg_advisory_lock(1)", "denied-function", "advisory"],
      ['SELECT "pg_catalog"."set_config"($$work_mem$$, $$1GB$$, false)', "denied-function", "set_config"],
      ["SELECT pg_notify('events', 'x')", "denied-function", "notification"],
      ["SELECT pg_terminate_backend(pg_backend_pid())", "denied-function", "backend-signal"],
      ["SELECT * FROM pg_ls_dir('.')", "denied-function", "server-file"],
      ["SELECT lo_import('/etc/passwd')", "denied-function", "large-object"],
      ["SELECT pg_sleep(60)", "denied-function", "delay"],
      [
        "SELECT query_to_xml('DELETE FROM counters RETURNING 1', true, true, '')",
        "denied-function",
        "dynamic-sql",
      ],
      [
        "SELECT * FROM pg_catalog.pg_logical_slot_get_changes('s', NULL, NULL)",
        "denied-function",
        "replication",
      ],
      ["select PG_SWITCH_WAL()", "denied-function", "backup-recovery"],
      [
        "SELECT dblink_exec('host=elsewhere', 'DELETE FROM counters')",
        "denied-function",
        "remote-connection",
      ],
      ["SELECT cron.schedule('* * * * *', $$DELETE FROM counters$$)", "denied-function", "job-scheduling"],
      ["WITH s AS (SELECT pg_stat_reset()) SELECT * FROM s", "denied-function", "maintenance"],
      ["/* just a read */ SELECT -- really\n (SELECT\tnextval('audit_seq'))", "denied-function", "sequence"],
      [
        "SELECT * FROM counters WHERE n > (WITH x AS (SELECT pg_advisory_lock(9)) SELECT 0 FROM x)",
        "denied-function",
        "advisory",
      ],
      [
        "SELECT $tag$harmless$tag$, (((pg_catalog.pg_notify($$a$$, $$b$$))))",
        "denied-function",
        "notification",
      ],
      ["SET work_mem = '1GB'", "statement-kind", "SET statements are not allowed"],
      ["COMMIT", "statement-kind", "transaction control statements are not allowed"],
      ["LOCK TABLE counters", "statement-kind", "LOCK statements are not allowed"],
    ])("%s", async (sql, rule, fragment) => {
      const result = await call(sql);
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toMatch(new RegExp(`^Refused by the read-only guard \\(rule: ${rule}\\): `));
      expect(text).toContain(fragment);
      await expectUnchanged();
    });
  });

  describe("layer 2 alone: what the parser cannot see is stopped by the transaction and the reset", () => {
    it("a function that updates a table fails in the READ ONLY transaction", async () => {
      const result = await call("SELECT bump()");
      expect(textOf(result)).toBe("PostgreSQL error 25006: cannot execute UPDATE in a read-only transaction");
      await expectUnchanged();
    });

    it("a function that advances a sequence fails", async () => {
      expect(textOf(await call("SELECT next_audit()"))).toBe(
        "PostgreSQL error 25006: cannot execute nextval() in a read-only transaction",
      );
      await expectUnchanged();
    });

    it("a session advisory lock taken by a function is released before the connection is reused", async () => {
      expect(jsonOf<QueryJson>(await call("SELECT grab_lock() AS got")).rows).toEqual([[""]]);
      await expectUnchanged();
      expect(jsonOf<QueryJson>(await call("SELECT grab_xact_lock() AS got")).rows).toEqual([[""]]);
      await expectUnchanged();
    });

    it("a session setting changed by a function does not outlive the query", async () => {
      expect(jsonOf<QueryJson>(await call("SELECT set_work_mem() AS v")).rows).toEqual([["77MB"]]);
      expect(jsonOf<QueryJson>(await call("SHOW work_mem")).rows).toEqual([[before.workMem]]);
      await expectUnchanged();
    });

    it("without the parser: writes, row locks, sequence changes and stacked statements all fail", async () => {
      const cases: [string, string][] = [
        ["DELETE FROM counters", "25006"],
        ["WITH d AS (DELETE FROM counters RETURNING *) SELECT * FROM d", "25006"],
        ["SELECT * FROM counters FOR UPDATE", "25006"],
        ["SELECT nextval('audit_seq')", "25006"],
        ["SELECT setval('orders_id_seq', 1)", "25006"],
        ["CREATE TABLE stolen AS SELECT * FROM counters", "25006"],
        ["SELECT 1; DELETE FROM counters", "42601"],
      ];
      for (const [sql, sqlstate] of cases) {
        const outcome = await unguarded(sql);
        expect(outcome, sql).toMatchObject({ ok: false, error: { reason: "database", sqlstate } });
      }
      await expectUnchanged();
    });

    it("without the parser: session state a query leaves behind is reset (DISCARD ALL)", async () => {
      expect(await unguarded("SELECT pg_advisory_lock(777)")).toMatchObject({ ok: true });
      expect(await unguarded("SELECT set_config('work_mem', '99MB', false)")).toMatchObject({ ok: true });
      const after = await unguarded("SHOW work_mem");
      expect(after.ok && after.result.rows).toEqual([[before.workMem]]);
      await expectUnchanged();
    });

    it("the reset clears any session state left on a pooled connection", async () => {
      // Leave state on the (single) pooled connection from outside any transaction, as if something
      // had got past every other layer; the next query's wind-down must clear all of it.
      const { backend } = databaseInternals(db.database);
      const pooled = await backend.acquire();
      try {
        await pooled.query("SET work_mem = '42MB'");
        await pooled.query("PREPARE leftover AS SELECT 1");
        await pooled.query("LISTEN leftover_channel");
        await pooled.query("BEGIN; DECLARE leftover CURSOR WITH HOLD FOR SELECT 1; COMMIT");
        await pooled.query("SELECT pg_advisory_lock(888)");
      } finally {
        pooled.release();
      }
      const state =
        "SELECT current_setting('work_mem') AS work_mem, (SELECT count(*) FROM pg_prepared_statements) AS prepared, (SELECT count(*) FROM pg_listening_channels()) AS listening, (SELECT count(*) FROM pg_cursors WHERE name = 'leftover') AS cursors";
      const first = await unguarded(state);
      expect(first.ok && first.result.rows).toEqual([["42MB", "1", "1", "1"]]);
      const second = await unguarded(state);
      expect(second.ok && second.result.rows).toEqual([[before.workMem, "0", "0", "0"]]);
      await expectUnchanged();
    });

    it("the server parses SQL with the same string rules as the guard (standard_conforming_strings)", async () => {
      const inspector = await db.inspector();
      try {
        // PGlite is one session shared by all connections: turn the setting off in it directly.
        if (db.engine === "pglite") await inspector.query("SET standard_conforming_strings = off");
        else {
          const setting = await inspector.query("SHOW standard_conforming_strings");
          expect(setting.rows[0]?.standard_conforming_strings).toBe("off");
        }
      } finally {
        await inspector.end();
      }
      // With backslash escapes, the server would see a pg_advisory_lock call the parser saw inside $$...$$.
      const result = jsonOf<QueryJson>(
        await call("SELECT 'a\\' AS one, $$' , pg_advisory_lock(5), '$$ AS two"),
      );
      expect(result.rows).toEqual([["a\\", "' , pg_advisory_lock(5), '"]]);
      await expectUnchanged();
    });
  });

  describe("timeouts", () => {
    it("a query running past statement_timeout is stopped and leaves nothing behind", async () => {
      // The query would run for hours: the 57014 answer proves the 1.5 s statement timeout (or, where the
      // engine cannot time out by itself, the watchdog) stopped it. No elapsed-time check: CI machines are busy.
      const result = await call("SELECT count(*) FROM (SELECT generate_series(1, 1000000000000)) AS s");
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^PostgreSQL error 57014: canceling statement due to statement timeout/);
      await expectUnchanged();
      expect(jsonOf<QueryJson>(await call("SELECT 'alive' AS s")).rows).toEqual([["alive"]]);
    });

    it("a query waiting for a lock gives up at lock_timeout, and holds none afterwards", async (context) => {
      // PGlite has a single backend: there is no second session to hold a lock against it.
      if (db.engine === "pglite") context.skip();
      const holder = await db.inspector();
      try {
        await holder.query("BEGIN");
        await holder.query("LOCK TABLE counters IN ACCESS EXCLUSIVE MODE");
        const result = await call("SELECT * FROM counters");
        expect(textOf(result)).toMatch(/^PostgreSQL error 55P03: canceling statement due to lock timeout/);
      } finally {
        await holder.query("ROLLBACK");
        await holder.end();
      }
      await expectUnchanged();
    });

    it("the timeouts are SET LOCAL: they apply inside the query's transaction only", async () => {
      const result = jsonOf<QueryJson>(
        await call(
          "SELECT current_setting('statement_timeout') AS st, current_setting('lock_timeout') AS lt, current_setting('transaction_read_only') AS ro",
        ),
      );
      expect(result.rows).toEqual([["1500ms", "500ms", "on"]]);
      const inspector = await db.inspector();
      try {
        const outside = await inspector.query("SELECT current_setting('statement_timeout') AS st");
        expect(outside.rows[0]?.st).toBe("0");
      } finally {
        await inspector.end();
      }
    });
  });

  describe("the least-privilege role of the README", () => {
    it("the server works as that role, and the role refuses what it was not granted", async (context) => {
      if (!db.url) return context.skip("needs a real PostgreSQL server (TEST_DATABASE_URL)");
      const role = `agent_reader_${Math.random().toString(36).slice(2, 8)}`;
      const owner = await db.inspector();
      const dbName = new URL(db.url).pathname.slice(1);
      try {
        await owner.query(`
          CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 8;
          ALTER ROLE ${role} SET default_transaction_read_only = on;
          ALTER ROLE ${role} SET statement_timeout = '5s';
          GRANT CONNECT ON DATABASE ${dbName} TO ${role};
          REVOKE CREATE ON SCHEMA public FROM PUBLIC;
          GRANT USAGE ON SCHEMA public TO ${role};
          GRANT SELECT ON customers, orders, order_items, products, order_totals TO ${role};
          REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;`);
        const url = new URL(db.url);
        url.username = role;
        const { openPostgresDatabase } = await import("../../src/postgres/open-postgres-database.js");
        const reader = await openPostgresDatabase({ url: url.toString(), poolSize: 1 });
        try {
          // Twice, so the second query runs on the connection the first one reset (as a non-superuser).
          for (let i = 0; i < 2; i++) {
            const ok = await reader.query("SELECT count(*) AS n FROM order_totals WHERE status = $1", [
              "paid",
            ]);
            expect(ok.ok && ok.result.rows[0]?.[0]).toMatch(/^\d+$/);
          }
          expect(await reader.query("SELECT * FROM counters")).toMatchObject({
            ok: false,
            error: { reason: "database", sqlstate: "42501" },
          });
          expect(await reader.query("SELECT bump()")).toMatchObject({
            ok: false,
            error: { reason: "database", sqlstate: "42501" },
          });
        } finally {
          await reader.close();
        }
      } finally {
        await owner.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`).catch(() => undefined);
        await owner.end();
      }
      await expectUnchanged();
    });
  });

  describe("connection details never appear in any output", () => {
    it("an unreachable server: no host, port, user or password in the error", async () => {
      const { openPostgresDatabase } = await import("../../src/postgres/open-postgres-database.js");
      const broken = await openPostgresDatabase({ url: "postgres://alice:hunter2-secret@127.0.0.1:1/shop" });
      try {
        const outcome = await broken.query("SELECT 1");
        expect(outcome).toEqual({
          ok: false,
          error: { reason: "unavailable", message: "cannot reach the database (ECONNREFUSED)" },
        });
      } finally {
        await broken.close();
      }
    });

    it("an unknown role: the message does not repeat it", async (context) => {
      if (!db.url) context.skip();
      const { openPostgresDatabase } = await import("../../src/postgres/open-postgres-database.js");
      const url = new URL(db.url ?? "");
      url.username = "no_such_role_x";
      url.password = "pw-secret-123";
      const broken = await openPostgresDatabase({ url: url.toString() });
      try {
        const outcome = await broken.query("SELECT 1");
        expect(outcome.ok).toBe(false);
        const text = JSON.stringify(outcome);
        expect(text).toContain("authentication failed (check the credentials in the connection settings)");
        expect(text).not.toContain("no_such_role_x");
        expect(text).not.toContain("pw-secret-123");
      } finally {
        await broken.close();
      }
    });
  });
});
