import { describe, expect, it } from "vitest";
import { createPostgresServer, describeQueryFailure } from "./create-postgres-server.js";
import { POSTGRES_HARD_MAX_ROWS, resolvePostgresOptions } from "./open-postgres-database.js";

describe("resolvePostgresOptions", () => {
  it("has defaults of a few seconds and the documented caps", () => {
    expect(resolvePostgresOptions({}).limits).toEqual({
      statementTimeoutMs: 5000,
      lockTimeoutMs: 2000,
      idleInTransactionTimeoutMs: 10_000,
      defaultMaxRows: 1000,
      maxRowsLimit: POSTGRES_HARD_MAX_ROWS,
      maxResultChars: 4_000_000,
      poolSize: 2,
    });
    expect(resolvePostgresOptions({ url: "postgres://h/db" }).limits.poolSize).toBe(4);
    expect(resolvePostgresOptions({ maxRowsLimit: 50 }).limits.defaultMaxRows).toBe(50);
  });

  it.each([
    [{ statementTimeoutMs: 0 }, "statementTimeoutMs must be a positive integer, got 0"],
    [{ lockTimeoutMs: 1.5 }, "lockTimeoutMs must be a positive integer, got 1.5"],
    [{ poolSize: "4" as unknown as number }, 'poolSize must be a positive integer, got "4"'],
    [{ maxRowsLimit: 20_000 }, "maxRowsLimit must be at most 10000, got 20000"],
    [{ maxRowsLimit: 10, defaultMaxRows: 11 }, "defaultMaxRows must be at most maxRowsLimit (10), got 11"],
    [
      { url: "mysql://u:pw@h/db" },
      'url must start with postgres://, postgresql:// or pglite:// (got a "mysql://" URL)',
    ],
    [{ url: "postgres://h/db", initSql: "SELECT 1" }, "initSql only applies to an embedded PGlite database"],
  ])("%j is refused, naming the option", (options, message) => {
    expect(() => resolvePostgresOptions(options)).toThrow(message);
  });

  it("createPostgresServer checks its options at once, without connecting", () => {
    expect(() => createPostgresServer({ statementTimeoutMs: -1 })).toThrow(/statementTimeoutMs/);
    expect(typeof createPostgresServer({ url: "postgres://reader@127.0.0.1:1/shop" }).connect).toBe(
      "function",
    );
  });
});

describe("describeQueryFailure", () => {
  it("names the rule, or the SQLSTATE", () => {
    expect(describeQueryFailure({ reason: "refused", rule: "locking-clause", message: "no" })).toBe(
      "Refused by the read-only guard (rule: locking-clause): no. This server runs one read-only query at a time.",
    );
    expect(describeQueryFailure({ reason: "database", sqlstate: "42P01", message: "missing" })).toBe(
      "PostgreSQL error 42P01: missing",
    );
    expect(describeQueryFailure({ reason: "unavailable", message: "down" })).toBe(
      "Database unavailable: down",
    );
  });
});
