import { beforeAll, describe, expect, it } from "vitest";
import { checkReadOnlySql, checkReadOnlySqlLoaded, loadSqlParser } from "./check-read-only-sql.js";
import { DENIED_FUNCTION_FAMILIES } from "./internal/denied-functions.js";

beforeAll(() => loadSqlParser());

const verdict = (sql: string) => checkReadOnlySqlLoaded(sql);
const rule = (sql: string) => {
  const v = verdict(sql);
  return v.ok ? "ok" : v.rule;
};

/** Ways to hide a call or clause from a naive check; `X` is replaced by the construct. */
const DISGUISES = [
  (x: string) => `SELECT ${x}`,
  (x: string) => `select ${x.toLowerCase()}`,
  (x: string) => `SeLeCt ${x}`,
  (x: string) => `/* harmless */ SELECT -- comment\n ${x}`,
  (x: string) => `\n\t SELECT\n\n(((${x})))\t;`,
  (x: string) => `SELECT 1 WHERE EXISTS (SELECT ${x})`,
  (x: string) => `SELECT * FROM (SELECT ${x} AS v) AS sub`,
  (x: string) => `WITH c AS (SELECT ${x} AS v) SELECT * FROM c`,
  (x: string) => `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE ${x} IS NULL) TABLE r`,
  (x: string) => `SELECT CASE WHEN random() > 2 THEN ${x} END`,
  (x: string) => `VALUES (1, ${x})`,
  (x: string) => `SELECT 1 UNION ALL SELECT ${x}`,
  (x: string) => `SELECT coalesce(null, ${x}) FROM generate_series(1, 1) AS g, LATERAL (SELECT 1) AS l`,
  (x: string) => `EXPLAIN SELECT ${x}`,
  (x: string) => `EXPLAIN (ANALYZE, BUFFERS) SELECT ${x}`,
  (x: string) => `SELECT array_agg(v) FILTER (WHERE ${x} IS NOT NULL) FROM (VALUES (1)) AS t(v)`,
  (x: string) => `SELECT $$;DROP TABLE t;$$, ${x}`,
];

/** One sample call per family (arguments do not matter to the parser). */
const CALLS: Record<string, string[]> = {
  sequence: ["nextval('orders_id_seq')", "setval('s', 1)", 'pg_catalog."nextval"($q$s$q$)', "NEXTVAL('s')"],
  "advisory-lock": [
    "pg_advisory_lock(1)",
    "pg_try_advisory_lock(1, 2)",
    "pg_advisory_xact_lock_shared(1)",
    "pg_catalog.pg_advisory_unlock_all()",
  ],
  "backend-signal": [
    "pg_terminate_backend(1)",
    "pg_cancel_backend(pg_backend_pid())",
    "pg_reload_conf()",
    '"pg_catalog"."pg_rotate_logfile"()',
  ],
  "server-file": [
    "pg_read_file('/etc/passwd')",
    "pg_ls_dir('.')",
    "pg_read_binary_file('x', 0, 10)",
    "pg_stat_file('x')",
  ],
  "large-object": ["lo_import('/etc/passwd')", "lo_export(1, '/tmp/x')", "lo_unlink(1)", "loread(0, 1)"],
  "config-setting": ["set_config('work_mem', '1GB', false)", "SET_CONFIG('a', 'b', true)", "setseed(0.5)"],
  notification: ["pg_notify('ch', 'hi')", "pg_catalog.pg_notify('ch', 'x')"],
  replication: [
    "pg_create_logical_replication_slot('s', 'pgoutput')",
    "pg_drop_replication_slot('s')",
    "pg_logical_slot_get_changes('s', null, null)",
    "pg_replication_origin_create('o')",
  ],
  "backup-recovery": [
    "pg_switch_wal()",
    "pg_backup_start('l')",
    "pg_promote()",
    "pg_create_restore_point('p')",
  ],
  "remote-connection": [
    "dblink('host=x', 'DELETE FROM t')",
    "dblink_exec('DELETE FROM t')",
    "public.dblink_connect('c', 'host=x')",
    "net.http_post('http://x', '{}')",
    "http_get('http://x')",
  ],
  "dynamic-sql": [
    "query_to_xml('DELETE FROM t RETURNING 1', true, true, '')",
    "ts_stat('SELECT pg_advisory_lock(1)')",
    "crosstab('SELECT 1')",
    "database_to_xml(true, true, '')",
  ],
  "job-scheduling": ["cron.schedule('* * * * *', 'DELETE FROM t')", "schedule('x', 'y')"],
  maintenance: [
    "pg_stat_reset()",
    "brin_summarize_new_values('i')",
    "gin_clean_pending_list('i')",
    "txid_current()",
    "pg_current_xact_id()",
  ],
  delay: ["pg_sleep(10)", "pg_sleep_for('5 minutes')", "pg_catalog.pg_sleep_until(now())"],
};

describe("checkReadOnlySql: what it accepts", () => {
  it.each([
    ["SELECT 1", "select"],
    ["select * from customers c join orders o on o.customer_id = c.id where c.id = $1", "select"],
    ["VALUES (1, 'a'), (2, 'b')", "select"],
    ["TABLE customers", "select"],
    ["SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 EXCEPT SELECT 4", "select"],
    ["WITH t AS (SELECT 1 AS x) SELECT x FROM t", "select"],
    ["WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r", "select"],
    ["SELECT customer_id, sum(x) OVER (PARTITION BY customer_id ORDER BY id) FROM t", "select"],
    [
      "SELECT count(*) FILTER (WHERE status = 'paid'), percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM t",
      "select",
    ],
    ["EXPLAIN SELECT * FROM orders", "explain"],
    ["EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM orders", "explain"],
    ["EXPLAIN ANALYZE VERBOSE SELECT 1", "explain"],
    ["SHOW work_mem", "show"],
    ["SHOW ALL", "show"],
    ["SELECT 1;", "select"],
    ["  -- leading comment\n SELECT 1 /* trailing */ ;  ", "select"],
    ["SELECT 'nextval(1)', $$pg_sleep(10)$$, E'DELETE FROM t', $tag$ set_config() $tag$", "select"],
    ["SELECT nextval FROM (SELECT 1 AS nextval) AS t", "select"],
    ["SELECT current_setting('work_mem'), pg_backend_pid(), currval('s'), pg_relation_size('t')", "select"],
    ["SELECT for_update FROM orders AS for_update", "select"],
  ])("%s", async (sql, statement) => {
    expect(await checkReadOnlySql(sql)).toEqual({ ok: true, statement });
  });
});

describe("checkReadOnlySql: statement kinds", () => {
  it.each([
    ["INSERT INTO t VALUES (1)", "INSERT"],
    ["update t set x = 1", "UPDATE"],
    ["DELETE FROM t", "DELETE"],
    ["MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE", "MERGE"],
    ["CREATE TABLE x (a int)", "CREATE"],
    ["DROP TABLE t", "DROP"],
    ["TRUNCATE t", "TRUNCATE"],
    ["ALTER TABLE t ADD COLUMN b int", "ALTER TABLE"],
    ["SET work_mem = '1GB'", "SET"],
    ["SET TRANSACTION READ WRITE", "SET"],
    ["RESET ALL", "SET"],
    ["BEGIN", "transaction control"],
    ["COMMIT", "transaction control"],
    ["COPY t TO PROGRAM 'rm -rf /'", "COPY"],
    ["COPY (SELECT 1) TO STDOUT", "COPY"],
    ["DO $$BEGIN DELETE FROM t; END$$", "DO"],
    ["CALL p()", "CALL"],
    ["LOCK TABLE t IN ACCESS EXCLUSIVE MODE", "LOCK"],
    ["NOTIFY ch, 'x'", "NOTIFY"],
    ["LISTEN ch", "LISTEN"],
    ["DECLARE c CURSOR WITH HOLD FOR SELECT 1", "DECLARE CURSOR"],
    ["PREPARE p AS DELETE FROM t", "PREPARE"],
    ["EXECUTE p", "EXECUTE"],
    ["CREATE TABLE x AS SELECT 1", "CREATE TABLE AS"],
    ["VACUUM t", "VACUUM/ANALYZE"],
    ["ANALYZE t", "VACUUM/ANALYZE"],
    ["DISCARD ALL", "DISCARD"],
    ["GRANT ALL ON t TO public", "GRANT"],
    ["ALTER SYSTEM SET work_mem = '1GB'", "ALTER SYSTEM"],
    ["REFRESH MATERIALIZED VIEW m", "REFRESH MATERIALIZED VIEW"],
    ["CHECKPOINT", "CHECKPOINT"],
    ["CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'", "CREATE FUNCTION"],
  ])("%s is refused", (sql, label) => {
    const v = verdict(sql);
    expect(v).toMatchObject({ ok: false, rule: "statement-kind" });
    expect(!v.ok && v.message).toContain(`${label} statements are not allowed`);
  });

  it.each([
    ["EXPLAIN ANALYZE DELETE FROM t", "EXPLAIN ANALYZE of DELETE is not allowed"],
    ["explain (analyze) update t set x = 1", "EXPLAIN ANALYZE of UPDATE is not allowed"],
    [
      "EXPLAIN (ANALYZE true, COSTS off) INSERT INTO t VALUES (1)",
      "EXPLAIN ANALYZE of INSERT is not allowed",
    ],
    ["EXPLAIN DELETE FROM t", "EXPLAIN of DELETE is not allowed"],
    ["EXPLAIN CREATE TABLE x AS SELECT 1", "EXPLAIN of CREATE TABLE AS is not allowed"],
    ["EXPLAIN ANALYZE SELECT * INTO x FROM t", "SELECT INTO is not allowed"],
    ["EXPLAIN ANALYZE WITH d AS (DELETE FROM t RETURNING 1) SELECT 1", "data-modifying statement (DELETE)"],
    ["EXPLAIN ANALYZE SELECT pg_advisory_lock(1)", "pg_advisory_lock() is not allowed"],
  ])("%s is refused", (sql, message) => {
    const v = verdict(sql);
    expect(v.ok).toBe(false);
    expect(!v.ok && v.message).toContain(message);
  });
});

describe("checkReadOnlySql: one statement only", () => {
  it.each([
    "SELECT 1; DELETE FROM t",
    "select 1;delete from t",
    "SELECT 1; SELECT 2",
    "SELECT $$a;$$; COMMIT",
    "SELECT 1 -- x\n; DROP TABLE t",
    "SELECT 1 /* ; */ ; /* */ BEGIN",
  ])("%j", (sql) => {
    expect(verdict(sql)).toMatchObject({ ok: false, rule: "single-statement" });
  });

  it("a semicolon inside literals, comments and dollar-quotes is not a separator", () => {
    expect(rule("SELECT ';DELETE FROM t;', $$;DROP TABLE t;$$, $x$ ; $x$ /* ; */ -- ;")).toBe("ok");
  });

  it.each([
    ["", "empty"],
    ["   \n\t", "empty"],
    ["-- only a comment", "empty"],
    [";;", "empty"],
    ["SELEC 1", "syntax"],
    ["SELECT 'unterminated", "syntax"],
    ["SELECT $$unterminated", "syntax"],
    ["SELECT (1", "syntax"],
  ])("%j → %s", (sql, expected) => {
    expect(rule(sql)).toBe(expected);
  });

  it("a syntax error says where", () => {
    const v = verdict("SELECT 1 FROM WHERE x");
    expect(!v.ok && v.message).toMatch(
      /^SQL syntax error: syntax error at or near "WHERE" \(at character 15\)$/,
    );
  });
});

describe("checkReadOnlySql: data-modifying CTEs", () => {
  it.each([
    "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
    "with d as (delete from t returning *) select 1",
    "WITH x AS (SELECT 1), d AS MATERIALIZED (UPDATE t SET a = 1 RETURNING a) SELECT * FROM x",
    "WITH i AS (INSERT INTO t VALUES (1) RETURNING 1) SELECT 1",
    "SELECT * FROM (WITH d AS (DELETE FROM t RETURNING 1) SELECT * FROM d) AS s",
    "SELECT (WITH d AS (DELETE FROM t RETURNING 1) SELECT count(*) FROM d)",
    "SELECT 1 WHERE EXISTS (WITH d AS (DELETE FROM t RETURNING 1) SELECT 1 FROM d)",
    "WITH a AS (WITH b AS (DELETE FROM t RETURNING 1) SELECT * FROM b) SELECT * FROM a",
    "/* hide */ WITH\n d AS (\n  DELETE /* x */ FROM t RETURNING *\n) TABLE d",
    "WITH m AS (MERGE INTO t USING s ON true WHEN MATCHED THEN DELETE RETURNING 1) SELECT 1",
  ])("%j", (sql) => {
    const v = verdict(sql);
    expect(v).toMatchObject({ ok: false, rule: "data-modifying-cte" });
    expect(!v.ok && v.message).toMatch(
      /a data-modifying statement \((DELETE|UPDATE|INSERT|MERGE)\) inside WITH/,
    );
  });
});

describe("checkReadOnlySql: SELECT INTO and locking clauses", () => {
  it.each([
    "SELECT * INTO copy FROM t",
    "select 1 into temp x",
    "SELECT 1 INTO UNLOGGED TABLE x",
    "(SELECT 1 INTO x)",
  ])("%j → select-into", (sql) => {
    expect(rule(sql)).toBe("select-into");
  });

  it.each([
    ["SELECT * FROM t FOR UPDATE", "FOR UPDATE"],
    ["select * from t for share", "FOR SHARE"],
    ["SELECT * FROM t FOR NO KEY UPDATE NOWAIT", "FOR NO KEY UPDATE"],
    ["SELECT * FROM t FOR KEY SHARE SKIP LOCKED", "FOR KEY SHARE"],
    ["SELECT * FROM (SELECT * FROM t FOR UPDATE) AS s", "FOR UPDATE"],
    ["WITH l AS (SELECT * FROM t FOR UPDATE OF t) SELECT * FROM l", "FOR UPDATE"],
    ["SELECT 1 WHERE EXISTS (SELECT 1 FROM t FOR SHARE)", "FOR SHARE"],
    ["SELECT * FROM t /* c */ FOR\n\tUPDATE", "FOR UPDATE"],
  ])("%j → locking-clause", (sql, strength) => {
    const v = verdict(sql);
    expect(v).toMatchObject({ ok: false, rule: "locking-clause" });
    expect(!v.ok && v.message).toContain(strength);
  });
});

describe("checkReadOnlySql: the function deny list", () => {
  it("has a sample for every family", () => {
    expect(Object.keys(CALLS).sort()).toEqual(DENIED_FUNCTION_FAMILIES.map((f) => f.id).sort());
  });

  for (const [family, calls] of Object.entries(CALLS)) {
    describe(family, () => {
      for (const call of calls) {
        it(`${call} in every disguise`, () => {
          for (const disguise of DISGUISES) {
            const sql = disguise(call);
            const v = verdict(sql);
            expect(v, sql).toMatchObject({ ok: false, rule: "denied-function", family });
          }
        });
      }
    });
  }

  it("names the function and why", () => {
    const v = verdict("SELECT pg_catalog.pg_advisory_lock(42)");
    expect(!v.ok && v.message).toBe(
      "function pg_catalog.pg_advisory_lock() is not allowed: advisory locks can outlive the query and block other sessions (deny list: advisory-lock)",
    );
  });

  it("a table function in FROM is a call too", () => {
    expect(rule("SELECT * FROM pg_ls_dir('.') AS f")).toBe("denied-function");
    expect(rule("SELECT * FROM ROWS FROM (generate_series(1, 2), pg_ls_dir('.'))")).toBe("denied-function");
    expect(rule("SELECT * FROM t, LATERAL pg_read_file(t.path) AS f")).toBe("denied-function");
  });

  it("pg_cron's names are denied unqualified or in schema cron, not in other schemas", () => {
    expect(rule("SELECT cron.unschedule(1)")).toBe("denied-function");
    expect(rule("SELECT unschedule(1)")).toBe("denied-function");
    expect(rule("SELECT app.schedule(1)")).toBe("ok");
  });

  it("names that only look similar are allowed", () => {
    expect(rule("SELECT pg_advisory(1), lock(1), sleep(1), my_nextval(1), currval('s')")).toBe("ok");
  });
});
