// The postgres server's options, their defaults and the tool texts that depend on them: imported by the
// bin at start, so nothing here may import pg, PGlite, libpg-query, the SDK or zod.
import { DatabaseUrlError, parseDatabaseUrl } from "./internal/database-url.js";

/** The hard cap of `max_rows` (and the highest `maxRowsLimit`). */
export const POSTGRES_HARD_MAX_ROWS = 10_000;

/** Options of `openPostgresDatabase` (and of `createPostgresServer`). */
export interface PostgresDatabaseOptions {
  /**
   * `postgres://…` / `postgresql://…`, `pglite:///path/to/dir` (a persistent PGlite directory) or
   * `pglite://` (in memory). Default: an in-memory PGlite seeded with the sample schema. The bin reads it
   * from `DATABASE_URL`.
   */
  url?: string;
  /** `SET LOCAL statement_timeout` of every query, ms (default 5000). */
  statementTimeoutMs?: number;
  /** `SET LOCAL lock_timeout`, ms (default 2000). */
  lockTimeoutMs?: number;
  /** `SET LOCAL idle_in_transaction_session_timeout`, ms (default 10000). */
  idleInTransactionTimeoutMs?: number;
  /** Default `max_rows` of `execute_query` (default 1000). */
  defaultMaxRows?: number;
  /** Highest `max_rows` a caller may ask for (default and maximum 10,000). */
  maxRowsLimit?: number;
  /** Most characters the JSON of one result may have; rows past it are cut (default 4,000,000). */
  maxResultChars?: number;
  /** Pooled connections (default 4; 2 for PGlite, which runs one query at a time anyway). */
  poolSize?: number;
  /** In-memory PGlite only: seed the sample schema (default true). */
  sampleSchema?: boolean;
  /** PGlite only: SQL run when the embedded engine starts, after the sample schema (your own demo data). */
  initSql?: string;
}

function positiveInt(
  options: PostgresDatabaseOptions,
  field: keyof PostgresDatabaseOptions,
  fallback: number,
) {
  const value = options[field];
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new RangeError(`${field} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Check the options and resolve their defaults (throws RangeError/TypeError naming the field). */
export function resolvePostgresOptions(options: PostgresDatabaseOptions) {
  const maxRowsLimit = positiveInt(options, "maxRowsLimit", POSTGRES_HARD_MAX_ROWS);
  if (maxRowsLimit > POSTGRES_HARD_MAX_ROWS) {
    throw new RangeError(`maxRowsLimit must be at most ${POSTGRES_HARD_MAX_ROWS}, got ${maxRowsLimit}`);
  }
  const defaultMaxRows = positiveInt(options, "defaultMaxRows", Math.min(1000, maxRowsLimit));
  if (defaultMaxRows > maxRowsLimit) {
    throw new RangeError(
      `defaultMaxRows must be at most maxRowsLimit (${maxRowsLimit}), got ${defaultMaxRows}`,
    );
  }
  let location: ReturnType<typeof parseDatabaseUrl>;
  try {
    location = parseDatabaseUrl(options.url);
  } catch (error) {
    if (error instanceof DatabaseUrlError) throw new TypeError(error.message);
    throw error;
  }
  if (location.kind === "postgres" && options.initSql !== undefined) {
    throw new TypeError("initSql only applies to an embedded PGlite database (url pglite://... or none)");
  }
  return {
    location,
    limits: {
      statementTimeoutMs: positiveInt(options, "statementTimeoutMs", 5000),
      lockTimeoutMs: positiveInt(options, "lockTimeoutMs", 2000),
      idleInTransactionTimeoutMs: positiveInt(options, "idleInTransactionTimeoutMs", 10_000),
      defaultMaxRows,
      maxRowsLimit,
      maxResultChars: positiveInt(options, "maxResultChars", 4_000_000),
      poolSize: positiveInt(options, "poolSize", location.kind === "pglite" ? 2 : 4),
    },
  };
}

/** The limits `resolvePostgresOptions` returns. */
export type PostgresLimits = ReturnType<typeof resolvePostgresOptions>["limits"];

/** The description of `execute_query`, which states the statement timeout. */
export function executeQueryDescription(limits: Pick<PostgresLimits, "statementTimeoutMs">): string {
  return [
    "Runs one read-only SQL query (SELECT, VALUES, TABLE, UNION/INTERSECT/EXCEPT, EXPLAIN [ANALYZE] of those, SHOW) and returns",
    '{"columns":[{"name","type"}],"rows":[[...]],"rowCount","truncated"}. Rows are arrays in column order.',
    "Use $1, $2, ... placeholders with params instead of inlining values.",
    "bigint and numeric come back as strings, json/jsonb as nested JSON, timestamps as ISO 8601, intervals as ISO 8601 durations, bytea as \\x hex.",
    `Writes, locks, data-modifying CTEs and side-effecting functions are refused; each query runs in a read-only transaction that is rolled back, with a ${limits.statementTimeoutMs} ms timeout.`,
  ].join(" ");
}

/** The description of `execute_query`'s `max_rows` argument. */
export function maxRowsDescription(limits: Pick<PostgresLimits, "defaultMaxRows" | "maxRowsLimit">): string {
  return `most rows returned (default ${limits.defaultMaxRows}, at most ${limits.maxRowsLimit})`;
}
