// A database handle shared by every postgres server instance (one per HTTP session): the backend (a pg
// pool to PostgreSQL, or to the embedded PGlite), the read-only runner, and `query()` = all four layers.
import { checkReadOnlySqlLoaded, loadSqlParser, type ReadOnlyRule } from "./check-read-only-sql.js";
import { type Backend, createPGliteBackend, createPostgresBackend } from "./internal/backend.js";
import { ReadOnlyRunner, type RunnerLimits } from "./internal/read-only-runner.js";
import { SAMPLE_SCHEMA_SQL } from "./internal/sample-schema.js";
import {
  POSTGRES_HARD_MAX_ROWS,
  type PostgresDatabaseOptions,
  resolvePostgresOptions,
} from "./postgres-options.js";

export { POSTGRES_HARD_MAX_ROWS, type PostgresDatabaseOptions, resolvePostgresOptions };

/** One column of a query result. */
export interface PostgresColumn {
  name: string;
  /** The PostgreSQL type, as format_type() prints it (`integer`, `numeric(10,2)`, `text[]`). */
  type: string;
}

/** A query result; `json` is the exact document `execute_query` returns. */
export interface PostgresQueryResult {
  columns: PostgresColumn[];
  /** Rows as arrays in column order, values serialized as the README describes. */
  rows: unknown[][];
  rowCount: number;
  truncated: boolean;
  /** Set when truncated: the row cap or the character cap cut the result. */
  truncatedBy?: "max_rows" | "max_chars";
  /** `{"columns":…,"rows":…,"rowCount":…,"truncated":…}` — lossless (json values embedded verbatim). */
  json: string;
}

/** Why a query failed: refused by a rule, a PostgreSQL error (with SQLSTATE), a timeout, or no database. */
export type PostgresQueryFailure =
  | { reason: "refused"; rule: ReadOnlyRule; message: string }
  | { reason: "database"; sqlstate: string; message: string }
  | { reason: "timeout"; sqlstate: string; message: string }
  | { reason: "too-large"; message: string }
  | { reason: "unavailable"; message: string };

/** The outcome of `PostgresDatabase.query`. */
export type PostgresQueryOutcome =
  | { ok: true; result: PostgresQueryResult }
  | { ok: false; error: PostgresQueryFailure };

/** An open database: pass it to `createPostgresServer({ database })` to share it between servers. */
export interface PostgresDatabase {
  /** `postgres` (a server reached by URL) or `pglite` (the embedded engine). */
  readonly kind: "postgres" | "pglite";
  /** One line without connection details, e.g. `embedded PGlite (in memory, sample schema)`. */
  readonly description: string;
  /** The effective limits. */
  readonly limits: Readonly<Required<Omit<PostgresDatabaseOptions, "url" | "sampleSchema" | "initSql">>>;
  /** Run one query through every read-only layer. Never throws for a refused or failing query. */
  query(
    sql: string,
    params?: readonly unknown[],
    options?: { maxRows?: number },
  ): Promise<PostgresQueryOutcome>;
  /** Close the pool (and stop the embedded engine). */
  close(): Promise<void>;
}

/** Internal access for the server and the tests. */
export interface PostgresDatabaseInternals {
  backend: Backend;
  runner: ReadOnlyRunner;
  /** Run trusted SQL (the server's catalog queries) through layers 2–4. */
  runTrusted(sql: string, params: readonly unknown[], maxRows: number): Promise<PostgresQueryOutcome>;
}

const internals = new WeakMap<PostgresDatabase, PostgresDatabaseInternals>();

/** The internals of a database opened by `openPostgresDatabase`. */
export function databaseInternals(database: PostgresDatabase): PostgresDatabaseInternals {
  const found = internals.get(database);
  if (!found) throw new TypeError("database must come from openPostgresDatabase()");
  return found;
}

function toOutcome(outcome: Awaited<ReturnType<ReadOnlyRunner["run"]>>): PostgresQueryOutcome {
  if (!outcome.ok) return { ok: false, error: outcome.failure as PostgresQueryFailure };
  const { columns, rowsJson, truncated, truncatedBy } = outcome.rows;
  const json = `{"columns":${JSON.stringify(columns)},"rows":[${rowsJson.join(",")}],"rowCount":${rowsJson.length},"truncated":${truncated}${truncatedBy ? `,"truncatedBy":"${truncatedBy}"` : ""}}`;
  let rows: unknown[][] | undefined;
  return {
    ok: true,
    result: {
      columns,
      get rows() {
        rows ??= rowsJson.map((row) => JSON.parse(row) as unknown[]);
        return rows;
      },
      rowCount: rowsJson.length,
      truncated,
      ...(truncatedBy ? { truncatedBy } : {}),
      json,
    },
  };
}

/**
 * Open the database a postgres server queries: a pool to PostgreSQL for a `postgres://` URL, or the
 * embedded PGlite engine (in memory with the sample schema by default, or a `pglite:///dir` directory).
 * Starting PGlite takes a few seconds (WebAssembly). Close it with `close()`.
 */
export async function openPostgresDatabase(options: PostgresDatabaseOptions = {}): Promise<PostgresDatabase> {
  const { location, limits } = resolvePostgresOptions(options);
  const loading = loadSqlParser();
  const settings = {
    poolSize: limits.poolSize,
    // One message may hold at most the reply's characters, 4 bytes each in UTF-8, plus framing.
    maxMessageBytes: limits.maxResultChars * 4 + 1024,
    connectTimeoutMs: 15_000,
  };
  let backend: Backend;
  if (location.kind === "postgres") {
    backend = createPostgresBackend(location.connectionString, settings);
  } else {
    const initSql: string[] = [];
    if (location.dataDir === undefined && options.sampleSchema !== false) initSql.push(SAMPLE_SCHEMA_SQL);
    if (options.initSql) initSql.push(options.initSql);
    backend = await createPGliteBackend({
      ...settings,
      ...(location.dataDir !== undefined ? { dataDir: location.dataDir } : {}),
      initSql,
    });
  }
  // The parser's WebAssembly compiles while the database starts (and the bin's probe runs); the first
  // query waits for it.
  let parserReady = false;
  loading.catch(() => undefined);
  const runnerLimits: RunnerLimits = {
    statementTimeoutMs: limits.statementTimeoutMs,
    lockTimeoutMs: limits.lockTimeoutMs,
    idleInTransactionTimeoutMs: limits.idleInTransactionTimeoutMs,
    maxResultChars: limits.maxResultChars,
    watchdogGraceMs: 1000,
  };
  const runner = new ReadOnlyRunner(backend, runnerLimits, location.secrets);
  let closing: Promise<void> | undefined;
  const database: PostgresDatabase = {
    kind: backend.kind,
    description: backend.description,
    limits,
    async query(sql, params = [], queryOptions = {}) {
      const maxRows = queryOptions.maxRows ?? limits.defaultMaxRows;
      if (!Number.isInteger(maxRows) || maxRows < 1 || maxRows > limits.maxRowsLimit) {
        throw new RangeError(`maxRows must be an integer from 1 to ${limits.maxRowsLimit}, got ${maxRows}`);
      }
      if (!parserReady) {
        await loading;
        parserReady = true;
      }
      const verdict = checkReadOnlySqlLoaded(sql);
      if (!verdict.ok) {
        return { ok: false, error: { reason: "refused", rule: verdict.rule, message: verdict.message } };
      }
      return toOutcome(await runner.run(sql, params, maxRows));
    },
    close() {
      closing ??= backend.close();
      return closing;
    },
  };
  internals.set(database, {
    backend,
    runner,
    runTrusted: async (sql, params, maxRows) => toOutcome(await runner.run(sql, params, maxRows)),
  });
  return database;
}
