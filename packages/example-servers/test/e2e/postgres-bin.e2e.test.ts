// The built `agentforge-postgres` bin as a real child process, over stdio and Streamable HTTP, on the
// embedded default, a PGlite data directory and (with TEST_DATABASE_URL) a real PostgreSQL database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, connectStdio, runBin, startBin, stopAll, textOf } from "./helpers.js";
import { createFreshDatabase, jsonOf, type QueryJson } from "./postgres-helpers.js";

const clients: Client[] = [];
const track = (client: Client) => {
  clients.push(client);
  return client;
};
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await stopAll();
});

// Over stdio an embedded engine starts on the first call: on a busy machine that takes over a minute.
const query = async (client: Client, sql: string, params?: unknown[]) =>
  jsonOf<QueryJson>(
    await client.callTool(
      { name: "execute_query", arguments: { sql, ...(params ? { params } : {}) } },
      { timeout: 170_000 },
    ),
  );

describe("agentforge-postgres with no DATABASE_URL (embedded PGlite, sample schema)", () => {
  it("serves the sample shop over stdio", async () => {
    const client = track(await connectStdio("postgres"));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "describe_table",
      "execute_query",
      "list_schemas",
      "list_tables",
    ]);
    const tables = await client.callTool({ name: "list_tables", arguments: {} }, { timeout: 170_000 });
    expect((tables.structuredContent as { tables: { name: string }[] }).tables.map((t) => t.name)).toEqual([
      "customers",
      "order_items",
      "order_totals",
      "orders",
      "products",
    ]);
    const top = await query(
      client,
      `SELECT p.category, sum(i.quantity) AS units FROM order_items AS i JOIN products AS p ON p.id = i.product_id
       GROUP BY p.category ORDER BY units DESC, p.category LIMIT $1`,
      [2],
    );
    expect(top.columns).toEqual([
      { name: "category", type: "text" },
      { name: "units", type: "bigint" },
    ]);
    expect(top.rowCount).toBe(2);
    const refused = await client.callTool({
      name: "execute_query",
      arguments: { sql: "WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d" },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("(rule: data-modifying-cte)");
    expect((await query(client, "SELECT count(*) AS n FROM orders")).rows).toEqual([["120"]]);
  });

  it("serves Streamable HTTP; sessions share one embedded database", async () => {
    const bin = await startBin("postgres", ["--http"]);
    expect(bin.stderr()).toMatch(
      /listening on http:\/\/127\.0\.0\.1:\d+\/mcp \(database: embedded PGlite \(in memory, sample schema\)\)/,
    );
    const [a, b] = [track(await connectHttp(bin.url)), track(await connectHttp(bin.url))];
    const [ra, rb] = await Promise.all([
      query(a, "SELECT count(*) AS n FROM customers"),
      query(b, "SELECT name FROM products WHERE sku = $1", ["KB-010"]),
    ]);
    expect(ra.rows).toEqual([["24"]]);
    expect(rb.rows).toEqual([["Mechanical keyboard"]]);
  });

  it("exits promptly when stdin closes, and on SIGTERM, stopping the embedded engine", async () => {
    const bin = await startBin("postgres", []);
    expect(bin.stderr()).toContain("ready on stdio (database: embedded PGlite (in memory, sample schema))");
    // Over stdio the engine starts on the first call: make one, so that there is an engine to stop.
    let stdout = "";
    bin.child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    const line = (message: object) => `${JSON.stringify(message)}\n`;
    bin.child.stdin?.write(
      line({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "e2e", version: "1" },
        },
      }) +
        line({ jsonrpc: "2.0", method: "notifications/initialized" }) +
        line({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "execute_query", arguments: { sql: "SELECT 1" } },
        }),
    );
    await expect.poll(() => stdout.includes('"id":2'), { timeout: 170_000 }).toBe(true);
    expect(stdout).toContain('\\"rowCount\\":1');
    const exited = new Promise<number | null>((resolve) => bin.child.once("exit", (code) => resolve(code)));
    // It ends by itself with code 0 (how fast is a figure of `pnpm bench`, not of a test on a busy machine).
    bin.child.stdin?.end();
    expect(await exited).toBe(0);
    const http = await startBin("postgres", ["--http"]);
    const termExit = new Promise<number | null>((resolve) =>
      http.child.once("exit", (code) => resolve(code)),
    );
    http.child.kill("SIGTERM");
    expect(await termExit).toBe(0);
    // Two embedded engines start here (stdio on the first call, HTTP at start): each took about 90 s at
    // load 40 on 2 cores, so the e2e default of 180 s is not enough for both.
  }, 420_000);
});

describe("agentforge-postgres with DATABASE_URL=pglite:///dir", () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pglite-data-"));
    const db = await PGlite.create(dir);
    await db.exec(
      "CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'kept on disk');",
    );
    await db.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("opens the persistent directory read-only", async () => {
    const client = track(await connectStdio("postgres", [], { DATABASE_URL: `pglite://${dir}` }));
    expect((await query(client, "SELECT body FROM notes")).rows).toEqual([["kept on disk"]]);
    const refused = await client.callTool({ name: "execute_query", arguments: { sql: "DELETE FROM notes" } });
    expect(textOf(refused)).toContain("(rule: statement-kind)");
    const tables = await client.callTool({ name: "list_tables", arguments: {} });
    expect((tables.structuredContent as { tables: { name: string }[] }).tables.map((t) => t.name)).toEqual([
      "notes",
    ]);
  });
});

describe("agentforge-postgres with DATABASE_URL=postgres://", () => {
  let fresh: Awaited<ReturnType<typeof createFreshDatabase>>;
  beforeAll(async () => {
    fresh = await createFreshDatabase();
  });
  afterAll(async () => {
    await fresh?.drop();
  });

  it("serves a real PostgreSQL database; the password never shows", async (context) => {
    if (!fresh) return context.skip("TEST_DATABASE_URL is not set");
    // The server trusts local connections, so any password works: it must still never be printed.
    const url = new URL(fresh.url);
    url.password = "Sup3r-Secret-Pw";
    const bin = await startBin("postgres", ["--http"], { env: { DATABASE_URL: url.toString() } });
    expect(bin.stderr()).toContain("(database: PostgreSQL (DATABASE_URL))");
    const client = track(await connectHttp(bin.url));
    expect((await query(client, "SELECT count(*) AS n FROM customers")).rows).toEqual([["24"]]);
    const failures = await Promise.all(
      ["SELECT * FROM missing", "SELECT pg_read_file('x')", "SELECT 1 +"].map((sql) =>
        client.callTool({ name: "execute_query", arguments: { sql } }),
      ),
    );
    for (const failure of failures) {
      expect(failure.isError).toBe(true);
      expect(textOf(failure)).not.toContain("Sup3r-Secret-Pw");
      expect(textOf(failure)).not.toContain(url.host);
      expect(textOf(failure)).not.toContain(url.pathname);
    }
    await bin.stop();
    expect(bin.stderr()).not.toContain("Sup3r-Secret-Pw");
    expect(bin.stderr()).not.toContain(url.host);
    expect(bin.stderr()).not.toContain(url.pathname);
  });
});

describe("agentforge-postgres start-up errors", () => {
  it("a DATABASE_URL of another kind: exit code 2, the value is not repeated", async () => {
    const result = await runBin("postgres", [], { DATABASE_URL: "mysql://root:hunter2-pw@db.internal/shop" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'DATABASE_URL must start with postgres://, postgresql:// or pglite:// (got a "mysql://" URL)',
    );
    expect(result.stderr).not.toContain("hunter2-pw");
    expect(result.stderr).not.toContain("db.internal");
    expect(result.stdout).toBe("");
  });

  it("an unreachable database over HTTP: exit code 1 at start, no host, port, user or password", async () => {
    const result = await runBin("postgres", ["--http"], {
      DATABASE_URL: "postgres://alice:hunter2-pw@127.0.0.1:1/shop",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "agentforge-postgres: cannot start: Database unavailable: cannot reach the database (ECONNREFUSED)\n",
    );
  });

  it("an unreachable database over stdio: tools are listed, each call is a tool error without secrets", async () => {
    // Over stdio the database is opened on the first call (cold start), so the failure is that call's.
    const client = track(
      await connectStdio("postgres", [], { DATABASE_URL: "postgres://alice:hunter2-pw@127.0.0.1:1/shop" }),
    );
    expect((await client.listTools()).tools).toHaveLength(4);
    for (const call of [
      { name: "execute_query", arguments: { sql: "SELECT 1" } },
      { name: "list_tables", arguments: {} },
    ]) {
      const result = await client.callTool(call);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe("Database unavailable: cannot reach the database (ECONNREFUSED)");
    }
  });

  it("--help, --version and bad option values", async () => {
    const help = await runBin("postgres", ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^agentforge-postgres \d+\.\d+\.\d+ — read-only PostgreSQL MCP server/);
    expect(help.stdout).toContain("DATABASE_URL");
    expect((await runBin("postgres", ["--version"])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const rows = await runBin("postgres", ["--max-rows", "20000"]);
    expect(rows.code).toBe(2);
    expect(rows.stderr).toContain('--max-rows expects a whole number from 1 to 10000, got "20000"');
    const timeout = await runBin("postgres", ["--statement-timeout", "soon"]);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toContain("--statement-timeout expects a whole number");
  });
});
