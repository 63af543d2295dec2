// The two backends behind one interface: a pg pool to a PostgreSQL server, or a pg pool to the embedded
// PGlite engine over its socket. Everything above this file (parse → read-only transaction → rollback →
// reset) is the same code for both.
import pg from "pg";
import { guardedClientClass } from "./message-size-guard.js";
import { type PGliteAddress, PGliteHost } from "./pglite-host.js";
import { reportCleanupFailure } from "./report-cleanup-failure.js";

/** A pooled connection to the database. */
export type PooledClient = pg.PoolClient;

/** What the query runner needs from a database. */
export interface Backend {
  readonly kind: "postgres" | "pglite";
  /** One line without connection details. */
  readonly description: string;
  /** A pooled connection (waits through an embedded engine's restart). */
  acquire(): Promise<PooledClient>;
  /** A query overran the watchdog: make sure it stops (the embedded engine is restarted). */
  stuck(): Promise<void>;
  /** A connection was dropped before its reset: make sure no session state outlives it. */
  dropped(): Promise<void>;
  /** Settings for an independent connection to the same database (tests, diagnostics). */
  connectionConfig(): Promise<pg.ClientConfig>;
  /** The embedded engine's host (PGlite only; tests read its counters). */
  readonly host?: PGliteHost;
  close(): Promise<void>;
}

/** Pool settings shared by both backends. */
export interface PoolSettings {
  poolSize: number;
  /** Largest single backend message accepted (see message-size-guard.ts). */
  maxMessageBytes: number;
  connectTimeoutMs: number;
}

// Startup options: a second line behind BEGIN READ ONLY, and the same string-literal rules as the parser
// that checked the SQL (with standard_conforming_strings off, a backslash would end strings differently).
const STARTUP_OPTIONS = "-c default_transaction_read_only=on -c standard_conforming_strings=on";

function makePool(config: pg.PoolConfig, settings: PoolSettings): pg.Pool {
  const pool = new pg.Pool({
    ...config,
    Client: guardedClientClass(settings.maxMessageBytes),
    max: settings.poolSize,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    allowExitOnIdle: true,
    application_name: "agentforge-postgres",
  });
  // An idle connection that dies is simply dropped from the pool.
  pool.on("error", () => undefined);
  return pool;
}

/** A PostgreSQL server reached through a connection string. */
export function createPostgresBackend(connectionString: string, settings: PoolSettings): Backend {
  const pool = makePool({ connectionString, options: STARTUP_OPTIONS }, settings);
  return {
    kind: "postgres",
    description: "PostgreSQL (DATABASE_URL)",
    acquire: () => pool.connect(),
    // The server's statement_timeout stops the query; the connection was destroyed by the watchdog.
    stuck: async () => undefined,
    // The server ends a dropped session, and its transaction and session state with it.
    dropped: async () => undefined,
    connectionConfig: async () => ({ connectionString }),
    close: () => pool.end(),
  };
}

/** Options of the embedded backend. */
export interface EmbeddedSettings extends PoolSettings {
  dataDir?: string;
  initSql: readonly string[];
}

/** The embedded PGlite engine. */
export async function createPGliteBackend(settings: EmbeddedSettings): Promise<Backend> {
  const host = await PGliteHost.start({
    ...(settings.dataDir !== undefined ? { dataDir: settings.dataDir } : {}),
    initSql: settings.initSql,
    // Room beyond the pool for independent connections (inspection, tests).
    maxConnections: settings.poolSize + 2,
  });
  let pool: pg.Pool | undefined;
  let poolAddress: PGliteAddress | undefined;
  let closed = false;
  /** A clean-up step that fails because the database was closed meanwhile has nothing left to clean. */
  const unlessClosed = async (step: () => Promise<void>) => {
    if (closed) return;
    try {
      await step();
    } catch (error) {
      if (!closed) throw error;
    }
  };
  const currentPool = async (): Promise<pg.Pool> => {
    const address = await host.address();
    if (!pool || poolAddress !== address) {
      const old = pool;
      pool = makePool(
        { host: address.host, port: address.port, user: "postgres", database: "postgres", ssl: false },
        settings,
      );
      poolAddress = address;
      // The old pool's connections went with the stopped engine; ending it only lets go of them.
      if (old) {
        old.end().catch((error: unknown) => {
          reportCleanupFailure("closing the connection pool of the replaced embedded database", error);
        });
      }
    }
    return pool;
  };
  await currentPool();
  const description = settings.dataDir
    ? "embedded PGlite (data directory)"
    : `embedded PGlite (in memory${settings.initSql.length > 0 ? ", sample schema" : ""})`;
  return {
    kind: "pglite",
    description,
    acquire: async () => (await currentPool()).connect(),
    stuck: () =>
      unlessClosed(async () => {
        await host.restart();
      }),
    // PGlite is one session shared by every socket connection: reset it from a fresh connection.
    dropped: () =>
      unlessClosed(async () => {
        const client = await (await currentPool()).connect();
        try {
          await client.query("ROLLBACK");
          await client.query("DISCARD ALL");
          client.release();
        } catch (error) {
          client.release(error instanceof Error ? error : true);
          await host.restart();
        }
      }),
    connectionConfig: async () => {
      const address = await host.address();
      return { host: address.host, port: address.port, user: "postgres", database: "postgres", ssl: false };
    },
    host,
    close: async () => {
      closed = true;
      try {
        await pool?.end();
      } finally {
        await host.close();
      }
    },
  };
}
