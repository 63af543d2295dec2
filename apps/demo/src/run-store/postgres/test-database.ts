// For tests and benchmarks only: a fresh database per test file, dropped afterwards, so parallel test
// files never share tables or queues. With TEST_DATABASE_URL: a new database on that PostgreSQL server.
// Without it: an embedded PostgreSQL (PGlite) served on a loopback port by pglite-socket.
import { randomBytes } from "node:crypto";
import pg from "pg";

/** A database created for one test file. */
export interface TestDatabase {
  /** Its URL. */
  url: string;
  /**
   * `postgres` (a real server) or `pglite`: one embedded backend session that every connection shares
   * (queries run one at a time; session state such as search_path and advisory locks is shared).
   */
  engine: "postgres" | "pglite";
  /** Drop it (connections still open are terminated). */
  drop(): Promise<void>;
}

/** Why a test needs a real PostgreSQL server, when the tests run on PGlite. */
export const NEEDS_SERVER =
  "needs a real PostgreSQL server (set TEST_DATABASE_URL): PGlite runs every connection in one backend session, so session settings, advisory locks and backend termination cannot be exercised on it";

/** Create a fresh database: on the TEST_DATABASE_URL server, else an embedded PGlite. */
export async function createTestDatabase(prefix = "agentforge_t"): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return createPgliteDatabase();
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    engine: "postgres",
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

async function createPgliteDatabase(): Promise<TestDatabase> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 100 });
  await server.start();
  const port = Number(server.getServerConn().split(":").at(-1));
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    engine: "pglite",
    async drop() {
      await server.stop();
      await db.close();
    },
  };
}
