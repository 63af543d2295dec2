// The PostgreSQL run store and run queue of `agentforge serve` (`DATABASE_URL` / `--database-url`).
// Load this module with a dynamic import() only when a database URL is set: it pulls in pg, pg-boss and
// node-pg-migrate, which files mode never needs.

// Errors
export { RunDatabaseError, type RunDatabaseErrorCode } from "./database-error.js";
// Migrations
export { findMigrationsDir, type MigrateOptions, migrate } from "./migrate.js";
// Store
export {
  type OpenPostgresRunRepositoryOptions,
  openPostgresRunRepository,
  PostgresRunRepository,
  RUN_EVENTS_CHANNEL,
} from "./postgres-run-repository.js";
// Queue
export {
  type OpenPgBossRunQueueOptions,
  openPgBossRunQueue,
  PgBossRunQueue,
  type RunJob,
  type RunJobContext,
  type RunJobHandler,
  type RunJobKind,
  type RunJobOptions,
  type RunJobRequest,
  type RunQueue,
} from "./run-queue.js";
