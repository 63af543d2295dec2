// @agentforge/example-servers: first-party MCP servers, embeddable in-process or run as bins.

// Servers: one factory per server, and its options
export {
  createLocalToolsServer,
  type LocalToolsServerOptions,
} from "./local-tools/create-local-tools-server.js";
export {
  createFilesystemServer,
  type FilesystemServerOptions,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_MEDIA_BYTES,
  NARROW_ROOTS_META,
} from "./filesystem/create-filesystem-server.js";
export {
  createSequentialThinkingServer,
  type SequentialThinkingServerOptions,
} from "./sequential-thinking/create-sequential-thinking-server.js";
export {
  createPostgresServer,
  type PostgresServerOptions,
} from "./postgres/create-postgres-server.js";

// PostgreSQL: one database shared by several servers, and the read-only check on its own
export {
  openPostgresDatabase,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
  POSTGRES_HARD_MAX_ROWS,
} from "./postgres/open-postgres-database.js";
export { checkReadOnlySql } from "./postgres/check-read-only-sql.js";

// Starting a first-party server as a child process: its command line, for a roster entry
export {
  serverCommand,
  type ServerCommand,
  type ServerCommandOptions,
  type FirstPartyServerName,
  FIRST_PARTY_SERVERS,
} from "./server-command.js";

// Running a server: stdio, or Streamable HTTP
export { serveStdio, type StdioServerHandle } from "./serve-stdio.js";
export {
  serveHttp,
  type ServeHttpOptions,
  type HttpServerHandle,
  type HttpServerStats,
} from "./serve-http.js";

// Results and failures (servers report errors as tool results; no error classes are exported)
export type { ThoughtResult } from "./sequential-thinking/create-sequential-thinking-server.js";
export type {
  PostgresQueryOutcome,
  PostgresQueryResult,
  PostgresColumn,
  PostgresQueryFailure,
} from "./postgres/open-postgres-database.js";
export type { ReadOnlyVerdict, ReadOnlyRule } from "./postgres/check-read-only-sql.js";
