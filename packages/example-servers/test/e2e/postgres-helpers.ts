// Test databases for the postgres server, the same fixtures on both backends:
//  - "postgres": a fresh database `t_<random>` on TEST_DATABASE_URL's server (dropped afterwards), or
//    PGlite when TEST_DATABASE_URL is unset, so a laptop without PostgreSQL still runs the suite;
//  - "pglite": the embedded engine.
// Each database comes with an independent inspection connection (a second pg client) for checking that
// nothing changed.
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import pg from "pg";
import { createPostgresServer } from "../../src/postgres/create-postgres-server.js";
import { SAMPLE_SCHEMA_SQL } from "../../src/postgres/internal/sample-schema.js";
import {
  databaseInternals,
  openPostgresDatabase,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
} from "../../src/postgres/open-postgres-database.js";

/** Which backends every suite runs against. */
export const BACKENDS = ["postgres", "pglite"] as const;
export type BackendName = (typeof BACKENDS)[number];

/** Objects the tests use besides the sample schema: a sequence, a table, functions with side effects. */
export const FIXTURES_SQL = `
CREATE SEQUENCE audit_seq;
SELECT nextval('audit_seq');
CREATE TABLE counters (id integer PRIMARY KEY, n integer NOT NULL);
INSERT INTO counters VALUES (1, 10), (2, 20);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE moods (id integer PRIMARY KEY, current mood NOT NULL, history mood[] NOT NULL);
INSERT INTO moods VALUES (1, 'happy', '{sad,ok,happy}');
-- Functions the parser cannot see into: only the transaction and the reset stop them.
CREATE FUNCTION bump() RETURNS integer LANGUAGE sql AS 'UPDATE counters SET n = n + 1 WHERE id = 1 RETURNING n';
CREATE FUNCTION next_audit() RETURNS bigint LANGUAGE sql AS $$SELECT nextval('audit_seq')$$;
CREATE FUNCTION grab_lock() RETURNS text LANGUAGE sql AS $$SELECT pg_advisory_lock(4242)::text$$;
CREATE FUNCTION grab_xact_lock() RETURNS text LANGUAGE sql AS $$SELECT pg_advisory_xact_lock(4243)::text$$;
CREATE FUNCTION set_work_mem() RETURNS text LANGUAGE sql AS $$SELECT set_config('work_mem', '77MB', false)$$;
CREATE FUNCTION notify_all() RETURNS text LANGUAGE sql AS $$SELECT pg_notify('events', 'hi')::text$$;
`;

/** Settings the suites use (small, so limits are reached quickly). */
export const TEST_LIMITS: PostgresDatabaseOptions = {
  statementTimeoutMs: 1500,
  lockTimeoutMs: 500,
  maxResultChars: 200_000,
  poolSize: 1,
};

/**
 * The request timeout of the suites' MCP clients: a call may wait for the embedded engine's restart (a
 * query that overran its timeout stops it), which takes long on a busy machine. Below the 180 s test budget.
 */
export const REQUEST_TIMEOUT_MS = 150_000;

/** An MCP client whose tool calls wait up to REQUEST_TIMEOUT_MS (unless a call says otherwise). */
class PatientClient extends Client {
  override callTool(...[params, options]: Parameters<Client["callTool"]>): ReturnType<Client["callTool"]> {
    return super.callTool(params, { timeout: REQUEST_TIMEOUT_MS, ...options });
  }
}

/** What the inspection connection sees; equal snapshots mean nothing changed. */
export interface Snapshot {
  data: string;
  sequences: string;
  advisoryLocks: number;
  relationLocks: number;
  /** ALTER DATABASE / ALTER ROLE settings of this database and of all databases. */
  persistentSettings: string;
  workMem: string;
}

/** A database for one test file, with its independent inspection connection. */
export interface TestDatabase {
  backend: BackendName;
  /** The engine actually used ("pglite" when TEST_DATABASE_URL is unset). */
  engine: "postgres" | "pglite";
  database: PostgresDatabase;
  /** The URL (real PostgreSQL only). */
  url?: string;
  /** A fresh independent connection (the caller closes it). */
  inspector(): Promise<pg.Client>;
  snapshot(): Promise<Snapshot>;
  /** An MCP client connected in-process to a server on this database. */
  connect(): Promise<Client>;
  close(): Promise<void>;
}

// Locks first, in a statement of their own: the data statement below locks the tables it reads.
const LOCKS_SQL = `
SELECT
  (SELECT count(*) FROM pg_locks WHERE database = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND locktype = 'advisory')::int AS "advisoryLocks",
  (SELECT count(*) FROM pg_locks WHERE database = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND locktype = 'relation' AND relation IN
     ('customers'::regclass, 'orders'::regclass, 'order_items'::regclass, 'counters'::regclass))::int AS "relationLocks"`;

const SNAPSHOT_SQL = `
SELECT
  (SELECT md5(string_agg(x, '|' ORDER BY x)) FROM (
     SELECT 'c' || t::text AS x FROM customers AS t UNION ALL SELECT 'o' || t::text FROM orders AS t
     UNION ALL SELECT 'i' || t::text FROM order_items AS t UNION ALL SELECT 'p' || t::text FROM products AS t
     UNION ALL SELECT 'k' || t::text FROM counters AS t UNION ALL SELECT 'm' || t::text FROM moods AS t) AS all_rows
  ) AS data,
  (SELECT last_value || '/' || is_called FROM audit_seq) || ' ' ||
  (SELECT last_value || '/' || is_called FROM orders_id_seq) AS sequences,
  (SELECT coalesce(string_agg(setrole || ':' || setconfig::text, ';' ORDER BY setrole), '') FROM pg_db_role_setting
     WHERE setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))) AS "persistentSettings",
  current_setting('work_mem') AS "workMem"`;

/**
 * A fresh database `t_<random>` with the sample schema and the fixtures on TEST_DATABASE_URL's server
 * (undefined when TEST_DATABASE_URL is unset); `drop()` removes it.
 */
export async function createFreshDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return undefined;
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    // The string-literal trap: the server must still parse SQL as the guard's parser did.
    await admin.query(`ALTER DATABASE ${name} SET standard_conforming_strings = off`);
  } finally {
    await admin.end();
  }
  const target = new URL(adminUrl);
  target.pathname = `/${name}`;
  const url = target.toString();
  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  try {
    await owner.query(SAMPLE_SCHEMA_SQL);
    await owner.query(FIXTURES_SQL);
  } finally {
    await owner.end();
  }
  return {
    url,
    async drop() {
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      try {
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

/** Open the test database of `backend` with the fixtures and `options` (defaults: TEST_LIMITS). */
export async function openTestDatabase(
  backend: BackendName,
  options: PostgresDatabaseOptions = TEST_LIMITS,
): Promise<TestDatabase> {
  const fresh = backend === "postgres" ? await createFreshDatabase() : undefined;
  const url = fresh?.url;
  const database = fresh
    ? await openPostgresDatabase({ ...options, url: fresh.url })
    : await openPostgresDatabase({ ...options, initSql: FIXTURES_SQL });
  const dropDatabase = async () => {
    await fresh?.drop();
  };
  const clients: Client[] = [];
  const inspector = async () => {
    const client = new pg.Client(await databaseInternals(database).backend.connectionConfig());
    client.on("error", () => undefined);
    await client.connect();
    return client;
  };
  return {
    backend,
    engine: database.kind,
    database,
    ...(url !== undefined ? { url } : {}),
    inspector,
    async snapshot() {
      const client = await inspector();
      try {
        const locks = (await client.query<Pick<Snapshot, "advisoryLocks" | "relationLocks">>(LOCKS_SQL))
          .rows[0];
        const rest = (await client.query<Omit<Snapshot, "advisoryLocks" | "relationLocks">>(SNAPSHOT_SQL))
          .rows[0];
        if (!locks || !rest) throw new Error("no snapshot row");
        return { ...locks, ...rest };
      } finally {
        await client.end();
      }
    },
    async connect() {
      const server = createPostgresServer({ database });
      const client = new PatientClient({ name: "postgres-e2e", version: "0.0.0" });
      const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
      await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.splice(0).map((c) => c.close()));
      await database.close();
      await dropDatabase();
    },
  };
}

/** The parsed JSON text of a successful tool result (fails the test on a tool error). */
export function jsonOf<T = Record<string, unknown>>(result: unknown): T {
  const r = result as { isError?: boolean; content?: { text?: string }[] };
  const text = r.content?.map((c) => c.text ?? "").join("") ?? "";
  if (r.isError) throw new Error(`tool error: ${text}`);
  return JSON.parse(text) as T;
}

/** The query result shape returned by execute_query. */
export interface QueryJson {
  columns: { name: string; type: string }[];
  rows: unknown[][];
  rowCount: number;
  truncated: boolean;
  truncatedBy?: string;
}
