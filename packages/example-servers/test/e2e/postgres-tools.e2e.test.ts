// Every tool, honest analytical queries, serialization and the row/size caps — on real PostgreSQL
// (TEST_DATABASE_URL; PGlite when unset) and on the embedded PGlite, with the same assertions.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf } from "./helpers.js";
import {
  BACKENDS,
  jsonOf,
  openTestDatabase,
  type QueryJson,
  TEST_LIMITS,
  type TestDatabase,
} from "./postgres-helpers.js";

describe.each(BACKENDS)("postgres tools on %s", (backend) => {
  let db: TestDatabase;
  let client: Client;
  const query = async (sql: string, extra: Record<string, unknown> = {}) =>
    jsonOf<QueryJson>(await client.callTool({ name: "execute_query", arguments: { sql, ...extra } }));

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    client = await db.connect();
  });
  afterAll(async () => {
    await db?.close();
  });

  it("lists the four read-only tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "describe_table",
      "execute_query",
      "list_schemas",
      "list_tables",
    ]);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool.description?.length).toBeGreaterThan(40);
    }
    const execute = tools.find((t) => t.name === "execute_query");
    expect(execute?.inputSchema.required).toEqual(["sql"]);
    expect(execute?.inputSchema.properties).toMatchObject({
      max_rows: { type: "integer", minimum: 1, maximum: 10000, default: 1000 },
    });
  });

  it("list_schemas: user schemas, and system ones on request", async () => {
    const result = await client.callTool({ name: "list_schemas", arguments: {} });
    const names = (result.structuredContent as { schemas: { name: string }[] }).schemas.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(["analytics", "public"]));
    expect(names).not.toContain("pg_catalog");
    expect(names).not.toContain("information_schema");
    const analytics = (result.structuredContent as { schemas: Record<string, unknown>[] }).schemas.find(
      (s) => s.name === "analytics",
    );
    expect(analytics).toMatchObject({ system: false, comment: "Derived data" });
    const all = await client.callTool({ name: "list_schemas", arguments: { include_system: true } });
    const allNames = (all.structuredContent as { schemas: { name: string; system: boolean }[] }).schemas;
    expect(allNames).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "pg_catalog", system: true }),
        expect.objectContaining({ name: "information_schema", system: true }),
      ]),
    );
  });

  it("list_tables: tables, views and materialized views with row estimates", async () => {
    const result = await client.callTool({ name: "list_tables", arguments: {} });
    const { schema, tables, truncated } = result.structuredContent as {
      schema: string;
      tables: { name: string; kind: string; rowEstimate: number | null; comment: string | null }[];
      truncated: boolean;
    };
    expect(schema).toBe("public");
    expect(truncated).toBe(false);
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(["counters", "customers", "order_items", "order_totals", "orders", "products"]),
    );
    expect(tables.find((t) => t.name === "customers")).toEqual({
      name: "customers",
      kind: "table",
      rowEstimate: 24,
      comment: "People who have an account in the shop",
    });
    expect(tables.find((t) => t.name === "order_totals")).toMatchObject({ kind: "view", rowEstimate: null });
    const analytics = await client.callTool({ name: "list_tables", arguments: { schema: "analytics" } });
    expect((analytics.structuredContent as { tables: unknown[] }).tables).toEqual([
      expect.objectContaining({ name: "monthly_revenue", kind: "materialized view" }),
    ]);
    const missing = await client.callTool({ name: "list_tables", arguments: { schema: "nope" } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe('Schema "nope" does not exist; list_schemas shows the schemas.');
  });

  it("describe_table: columns, primary key, foreign keys, indexes, comments", async () => {
    const result = await client.callTool({ name: "describe_table", arguments: { table: "orders" } });
    expect(result.isError).toBeFalsy();
    const table = result.structuredContent as Record<string, unknown>;
    expect(table).toMatchObject({
      schema: "public",
      name: "orders",
      kind: "table",
      comment: "One row per checkout",
      rowEstimate: 120,
      primaryKey: ["id"],
      foreignKeys: [
        {
          name: "orders_customer_id_fkey",
          columns: ["customer_id"],
          references: { schema: "public", table: "customers", columns: ["id"] },
          onUpdate: "no action",
          onDelete: "cascade",
        },
      ],
    });
    expect(table.columns).toEqual([
      {
        name: "id",
        type: "bigint",
        nullable: false,
        default: "nextval('orders_id_seq'::regclass)",
        comment: null,
      },
      { name: "customer_id", type: "bigint", nullable: false, default: null, comment: null },
      { name: "status", type: "text", nullable: false, default: null, comment: null },
      { name: "ordered_at", type: "timestamp with time zone", nullable: false, default: null, comment: null },
      { name: "shipped_on", type: "date", nullable: true, default: null, comment: null },
      { name: "delivery_window", type: "interval", nullable: true, default: null, comment: null },
    ]);
    expect(table.indexes).toEqual([
      expect.objectContaining({ name: "orders_customer_id_idx", unique: false, primary: false }),
      expect.objectContaining({ name: "orders_ordered_at_idx" }),
      {
        name: "orders_pkey",
        definition: "CREATE UNIQUE INDEX orders_pkey ON public.orders USING btree (id)",
        unique: true,
        primary: true,
      },
    ]);
    const items = (await client.callTool({ name: "describe_table", arguments: { table: "order_items" } }))
      .structuredContent as { primaryKey: string[]; columns: { name: string; type: string }[] };
    expect(items.primaryKey).toEqual(["order_id", "line"]);
    expect(items.columns.find((c) => c.name === "unit_price")?.type).toBe("numeric(10,2)");
    const customers = (await client.callTool({ name: "describe_table", arguments: { table: "customers" } }))
      .structuredContent as { columns: { name: string; comment: string | null; type: string }[] };
    expect(customers.columns.find((c) => c.name === "country")).toMatchObject({
      type: "character(2)",
      comment: "ISO 3166-1 alpha-2 country code",
    });
    const view = await client.callTool({
      name: "describe_table",
      arguments: { schema: "analytics", table: "monthly_revenue" },
    });
    expect(view.structuredContent).toMatchObject({
      kind: "materialized view",
      primaryKey: null,
      foreignKeys: [],
    });
    const missing = await client.callTool({ name: "describe_table", arguments: { table: "nope" } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe(
      'Table "public.nope" does not exist; list_tables {"schema": "public"} shows its tables.',
    );
  });

  it("joins, aggregates and parameters", async () => {
    const result = await query(
      `SELECT c.country, count(DISTINCT o.id) AS orders, sum(i.quantity * i.unit_price) AS revenue
       FROM customers AS c JOIN orders AS o ON o.customer_id = c.id JOIN order_items AS i ON i.order_id = o.id
       WHERE o.status <> $1
       GROUP BY c.country HAVING count(*) > $2 ORDER BY revenue DESC, c.country`,
      { params: ["cancelled", 1] },
    );
    expect(result.columns).toEqual([
      { name: "country", type: "character(2)" },
      { name: "orders", type: "bigint" },
      { name: "revenue", type: "numeric" },
    ]);
    expect(result.rowCount).toBe(result.rows.length);
    expect(result.rowCount).toBeGreaterThan(2);
    for (const [country, orders, revenue] of result.rows) {
      expect(country).toMatch(/^[A-Z]{2}$/);
      expect(orders).toMatch(/^\d+$/);
      expect(revenue).toMatch(/^\d+\.\d{2}$/);
    }
    const total = await query("SELECT sum(total) AS total FROM order_totals WHERE status <> 'cancelled'");
    const byCountry = result.rows.reduce((sum, row) => sum + Number(row[2]), 0);
    expect(Number(total.rows[0]?.[0])).toBeCloseTo(byCountry, 2);
  });

  it("window functions and CTEs (recursive too)", async () => {
    const ranked = await query(`
      WITH spend AS (
        SELECT customer_id, sum(total) AS spent FROM order_totals GROUP BY customer_id
      )
      SELECT customer_id, spent, row_number() OVER (ORDER BY spent DESC, customer_id) AS place,
             round(100 * spent / sum(spent) OVER (), 1) AS share
      FROM spend ORDER BY place LIMIT 3`);
    expect(ranked.rows.map((r) => r[2])).toEqual(["1", "2", "3"]);
    const spent = ranked.rows.map((r) => Number(r[1]));
    expect(spent).toEqual([...spent].sort((a, b) => b - a));
    const recursive = await query(
      "WITH RECURSIVE fib(a, b) AS (SELECT 0::numeric, 1::numeric UNION ALL SELECT b, a + b FROM fib WHERE b < 1e30) SELECT max(a) FROM fib",
    );
    let [a, b] = [0n, 1n];
    while (b < 10n ** 30n) [a, b] = [b, a + b];
    expect(recursive.rows).toEqual([[String(a)]]);
    const running = await query(
      "SELECT id, sum(n) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) AS running FROM counters ORDER BY id",
    );
    expect(running.rows).toEqual([
      [1, "10"],
      [2, "30"],
    ]);
  });

  it("VALUES, TABLE, set operations, EXPLAIN, EXPLAIN ANALYZE, SHOW", async () => {
    expect((await query("VALUES (1, 'a'), (2, 'b')")).rows).toEqual([
      [1, "a"],
      [2, "b"],
    ]);
    expect((await query("TABLE counters")).rowCount).toBe(2);
    expect((await query("SELECT 1 UNION SELECT 2 EXCEPT SELECT 2 ORDER BY 1")).rows).toEqual([[1]]);
    const plan = await query("EXPLAIN SELECT * FROM orders WHERE customer_id = 3");
    expect(plan.columns).toEqual([{ name: "QUERY PLAN", type: "text" }]);
    expect(String(plan.rows[0]?.[0])).toMatch(/Scan/);
    const analyzed = await query("EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM order_items");
    expect(analyzed.columns[0]?.type).toBe("json");
    const [[planJson]] = analyzed.rows as [[{ Plan: { "Actual Rows": number } }[]]];
    expect(planJson[0]?.Plan["Actual Rows"]).toBe(1);
    const show = await query("SHOW lock_timeout");
    expect(show.rows).toEqual([["500ms"]]);
  });

  it("serializes every kind of value losslessly and predictably", async () => {
    const result = await client.callTool({
      name: "execute_query",
      arguments: {
        sql: `SELECT 9223372036854775807::bigint AS big, 12345678901234567890.123456789::numeric AS num,
                     42::int AS i, 2.5::float8 AS f, 'NaN'::float8 AS nan, true AS b, NULL::text AS n,
                     date '2024-02-29' AS d, timestamp '2024-01-02 03:04:05.123456' AS ts,
                     timestamptz '2024-01-02 03:04:05.5+00' AS tstz, interval '1 year 2 months 3 days 04:05:06.5' AS iv,
                     '\\xdeadbeef'::bytea AS bin, '{"n": 12345678901234567890, "s": "é"}'::jsonb AS j,
                     ARRAY[1, NULL, 3] AS arr, ARRAY[['a', 'b'], ['c', NULL]] AS grid,
                     'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u`,
      },
    });
    const text = textOf(result);
    // The exact bytes: the JSON number inside jsonb stays exact, bigint and numeric are strings.
    expect(text).toContain(
      '"rows":[["9223372036854775807","12345678901234567890.123456789",42,2.5,"NaN",true,null,"2024-02-29","2024-01-02T03:04:05.123456",',
    );
    expect(text).toContain(
      '"P1Y2M3DT4H5M6.5S","\\\\xdeadbeef",{"n": 12345678901234567890, "s": "é"},[1,null,3],[["a","b"],["c",null]],"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]]',
    );
    const parsed = jsonOf<QueryJson>(result);
    expect(String(parsed.rows[0]?.[9])).toMatch(/^2024-01-02T\d{2}:\d{2}:05\.5[+-]\d{2}:\d{2}$/);
    expect(parsed.columns.map((c) => c.type)).toEqual([
      "bigint",
      "numeric",
      "integer",
      "double precision",
      "double precision",
      "boolean",
      "text",
      "date",
      "timestamp without time zone",
      "timestamp with time zone",
      "interval",
      "bytea",
      "jsonb",
      "integer[]",
      "text[]",
      "uuid",
    ]);
  });

  it("user-defined types (enum and enum[]) get their names from the catalog", async () => {
    const result = await query("SELECT current, history FROM moods");
    expect(result.columns).toEqual([
      { name: "current", type: "mood" },
      { name: "history", type: "mood[]" },
    ]);
    expect(result.rows).toEqual([["happy", ["sad", "ok", "happy"]]]);
  });

  it("caps rows server-side: a 10-million-row query returns max_rows at once", async () => {
    // Producing 10 million rows would run into the 1.5 s statement timeout: a result (not a 57014 error)
    // shows the cap stopped the query at Execute.
    const result = await query("SELECT generate_series(1, 10000000) AS g", { max_rows: 5 });
    expect(result.rows).toEqual([[1], [2], [3], [4], [5]]);
    expect(result).toMatchObject({ rowCount: 5, truncated: true, truncatedBy: "max_rows" });
  });

  it("max_rows above the hard cap is an input error naming the field", async () => {
    const result = await client.callTool({
      name: "execute_query",
      arguments: { sql: "SELECT 1", max_rows: 10001 },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/max_rows/);
    const missing = await client.callTool({ name: "execute_query", arguments: {} });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/sql/);
  });

  describe("on a database with a 120 s statement timeout", () => {
    // Its own database: producing and sending a 5 MB row may take longer than TEST_LIMITS' 1.5 s on a
    // loaded machine, and then the timeout (not the size limit) would answer.
    let roomy: TestDatabase;
    let roomyClient: Client;
    beforeAll(async () => {
      roomy = await openTestDatabase(backend, { ...TEST_LIMITS, statementTimeoutMs: 120_000 });
      roomyClient = await roomy.connect();
    });
    afterAll(async () => {
      await roomy?.close();
    });

    const roomyQuery = async (sql: string, extra: Record<string, unknown> = {}) =>
      jsonOf<QueryJson>(await roomyClient.callTool({ name: "execute_query", arguments: { sql, ...extra } }));

    // Here too: 10,000 rows produced and sent can take longer than 1.5 s on a loaded machine (seen at
    // load 45: the statement timeout answered instead of the row cap).
    it("caps rows at the default 1,000, and max_rows = 10,000 returns them all untruncated", async () => {
      const defaults = await roomyQuery("SELECT generate_series(1, 5000) AS g");
      expect(defaults).toMatchObject({ rowCount: 1000, truncated: true });
      const exact = await roomyQuery("SELECT generate_series(1, 10000) AS g", { max_rows: 10000 });
      expect(exact).toMatchObject({ rowCount: 10000, truncated: false });
      expect(exact.rows.at(-1)).toEqual([10000]);
    });

    it("bounds the reply: rows past the character budget are cut, one huge row is refused", async () => {
      const wide = await roomyQuery("SELECT g, repeat('x', 1000) AS pad FROM generate_series(1, 1000) AS g");
      expect(wide).toMatchObject({ truncated: true, truncatedBy: "max_chars" });
      expect(wide.rowCount).toBeGreaterThan(150);
      expect(wide.rowCount).toBeLessThan(200);
      const huge = await roomyClient.callTool({
        name: "execute_query",
        arguments: { sql: "SELECT repeat('x', 5000000) AS big" },
      });
      expect(huge.isError).toBe(true);
      expect(textOf(huge)).toMatch(
        /^Result too large: one row of the result is \d+ bytes, over the 801024-byte limit/,
      );
      // The connection it killed is replaced.
      expect((await roomyQuery("SELECT 1 AS ok")).rows).toEqual([[1]]);
    });
  });

  it("PostgreSQL errors come back with their SQLSTATE and message", async () => {
    const missing = await client.callTool({
      name: "execute_query",
      arguments: { sql: "SELECT * FROM nope" },
    });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe('PostgreSQL error 42P01: relation "nope" does not exist (at character 15)');
    const zero = await client.callTool({ name: "execute_query", arguments: { sql: "SELECT 1 / 0" } });
    expect(textOf(zero)).toBe("PostgreSQL error 22012: division by zero");
    const param = await client.callTool({
      name: "execute_query",
      arguments: { sql: "SELECT $1::int", params: ["not a number"] },
    });
    expect(textOf(param)).toBe(
      'PostgreSQL error 22P02: invalid input syntax for type integer: "not a number"',
    );
    expect((await query("SELECT 'still fine' AS s")).rows).toEqual([["still fine"]]);
  });

  it("serves concurrent calls", async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => query("SELECT $1::int * 2 AS v", { params: [i] })),
    );
    expect(results.map((r) => r.rows[0]?.[0])).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
  });
});
