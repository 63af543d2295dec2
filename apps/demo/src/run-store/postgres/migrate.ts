// Schema migrations of the PostgreSQL run store: versioned SQL files in apps/demo/migrations, applied by
// node-pg-migrate on open. Idempotent (applied files are recorded in <schema>.pgmigrations) and safe
// when several instances start at once: node-pg-migrate holds a PostgreSQL advisory lock while it
// migrates, and in `wait` mode a second instance blocks on it, then finds nothing left to do.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runner } from "node-pg-migrate";
import type { ClientConfig } from "pg";

/** The first migration file; its presence identifies the migrations folder. */
const FIRST_MIGRATION = "1764547200000_runs-events-audit.sql";

/** Names a PostgreSQL schema may take here (lower case, so it never needs quoting). */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The folder holding the migration files: `migrations/` next to the app's `package.json`. Found by
 * walking up from this module, so it resolves both from `src/run-store/postgres/` (tests, tsx) and from a
 * bundled chunk in `dist/`.
 */
export function findMigrationsDir(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    const candidate = join(dir, "migrations");
    if (existsSync(join(candidate, FIRST_MIGRATION))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(
        `the migrations folder (with ${FIRST_MIGRATION}) was not found above ${from}; ship apps/demo/migrations beside dist/`,
      );
    }
    dir = parent;
  }
}

/** How to migrate. */
export interface MigrateOptions {
  /** Connection settings (a connection string in `connectionString`). */
  connection: ClientConfig;
  /** Schema the tables live in; created when missing. */
  schema: string;
  /** Folder of the migration files (default: `findMigrationsDir()`). */
  migrationsDir?: string;
}

/** Apply every pending migration; resolves with the names applied (empty when up to date). */
export async function migrate(options: MigrateOptions): Promise<string[]> {
  if (!SCHEMA_NAME.test(options.schema)) {
    throw new TypeError(
      `schema "${options.schema}" is not a plain PostgreSQL name (expected ${SCHEMA_NAME})`,
    );
  }
  const silent = () => {};
  const applied = await runner({
    databaseUrl: options.connection,
    dir: options.migrationsDir ?? findMigrationsDir(),
    direction: "up",
    migrationsTable: "pgmigrations",
    schema: options.schema,
    createSchema: true,
    checkOrder: true,
    singleTransaction: true,
    // Two instances starting at once: the second waits for the first's advisory lock, then has nothing to do.
    advisoryLockMode: "wait",
    logger: { debug: silent, info: silent, warn: silent, error: silent },
  });
  return applied.map((migration) => migration.name);
}
