// @agentforge/example-servers: first-party MCP servers, embeddable in-process or run as bins.

export {
  createFilesystemServer,
  DEFAULT_MAX_MEDIA_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  type FilesystemServerOptions,
} from "./filesystem/create-filesystem-server.js";
// Servers
export {
  countWords,
  createLocalToolsServer,
  type LocalToolsServerOptions,
} from "./local-tools/create-local-tools-server.js";
export {
  checkReadOnlySql,
  type ReadOnlyRule,
  type ReadOnlyVerdict,
} from "./postgres/check-read-only-sql.js";
export {
  createPostgresServer,
  describeQueryFailure,
  type PostgresServerOptions,
} from "./postgres/create-postgres-server.js";
export {
  openPostgresDatabase,
  POSTGRES_HARD_MAX_ROWS,
  type PostgresColumn,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
  type PostgresQueryFailure,
  type PostgresQueryOutcome,
  type PostgresQueryResult,
} from "./postgres/open-postgres-database.js";
export {
  createSequentialThinkingServer,
  type SequentialThinkingServerOptions,
  type ThoughtResult,
} from "./sequential-thinking/create-sequential-thinking-server.js";
// Serving
export {
  type HttpServerHandle,
  type HttpServerStats,
  isLoopbackHost,
  type ServeHttpOptions,
  serveHttp,
} from "./serve-http.js";
export { type StdioServerHandle, serveStdio } from "./serve-stdio.js";
