// Errors of the PostgreSQL run store. Messages name the variable the URL came from and the host and
// database it points at — never the URL itself, so a password in it never reaches a log.
import { MCPError } from "@agentforge/mcp-config";

/** Codes of `RunDatabaseError`. */
export type RunDatabaseErrorCode =
  /** The URL is not a `postgres://` / `postgresql://` URL. */
  | "DATABASE_URL_INVALID"
  /** No connection could be made (server down, wrong host/port/database, authentication refused). */
  | "DATABASE_UNAVAILABLE"
  /** Connected, but the schema migrations could not be applied. */
  | "DATABASE_MIGRATION_FAILED"
  /** A save of a run that another instance runs now (its lease was lost); the save was refused. */
  | "RUN_LEASE_LOST";

/** A failure of the PostgreSQL run store (`DATABASE_URL` / `--database-url`). */
export class RunDatabaseError extends MCPError<RunDatabaseErrorCode> {
  static override readonly errorName: string = "RunDatabaseError";
  /** Where the URL came from: `DATABASE_URL`, `--database-url`, ... */
  readonly variable: string;
  /** Host (and port) the URL points at, when it could be read. */
  readonly host: string | null;
  /** Database name the URL points at, when it could be read. */
  readonly database: string | null;

  constructor(
    code: RunDatabaseErrorCode,
    message: string,
    context: { variable: string; host?: string | null; database?: string | null; cause?: unknown },
  ) {
    super(message, { code, ...(context.cause !== undefined ? { cause: context.cause } : {}) });
    this.variable = context.variable;
    this.host = context.host ?? null;
    this.database = context.database ?? null;
  }
}
