import { UsageError } from "../shared/usage-error.js";

/** A server name that the config does not have: a usage error (exit code 2, HTTP 404). */
export class UnknownServerError extends UsageError {
  /** The name asked for. */
  readonly serverName: string;
  /** Every configured name, enabled or not. */
  readonly known: string[];

  constructor(serverName: string, known: readonly string[]) {
    super(
      `no MCP server named "${serverName}" in the config; known servers: ${known.length ? known.join(", ") : "(none)"}`,
    );
    this.serverName = serverName;
    this.known = [...known];
  }
}
