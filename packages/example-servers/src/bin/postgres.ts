import type { McpServer } from "@modelcontextprotocol/server";
import { UsageError } from "../internal/parse-cli.js";
import { runServerCli } from "../internal/run-server-cli.js";
import { postgresSnapshot } from "../internal/stdio-snapshots.js";
import { VERSION } from "../internal/version.js";
import {
  type DatabaseLocation,
  DatabaseUrlError,
  parseDatabaseUrl,
} from "../postgres/internal/database-url.js";
import {
  POSTGRES_HARD_MAX_ROWS,
  type PostgresDatabaseOptions,
  resolvePostgresOptions,
} from "../postgres/postgres-options.js";

/** What the start-up line says about the database, without connection details. */
function describeLocation(location: DatabaseLocation): string {
  if (location.kind === "postgres") return "PostgreSQL (DATABASE_URL)";
  return location.dataDir !== undefined
    ? "embedded PGlite (data directory)"
    : "embedded PGlite (in memory, sample schema)";
}

function intOption(name: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > max) {
    throw new UsageError(`--${name} expects a whole number from 1 to ${max}, got "${value}"`);
  }
  return n;
}

// Not awaited: the bins are built as CommonJS, which has no top-level await (see tsup.config.ts).
void runServerCli({
  bin: "agentforge-postgres",
  version: VERSION,
  summary: "read-only PostgreSQL MCP server (list_schemas, list_tables, describe_table, execute_query)",
  // Descriptions start with spaces: these names are longer than the usage's option column.
  options: [
    {
      name: "statement-timeout",
      valueName: "MS",
      description: "statement_timeout of every query (default 5000)",
    },
    { name: "lock-timeout", valueName: "MS", description: "lock_timeout of every query (default 2000)" },
    {
      name: "idle-timeout",
      valueName: "MS",
      description: "idle_in_transaction_session_timeout (default 10000)",
    },
    {
      name: "max-rows",
      valueName: "N",
      description: `highest max_rows a caller may ask for (default and at most ${POSTGRES_HARD_MAX_ROWS})`,
    },
    { name: "pool-size", valueName: "N", description: "pooled connections (default 4; 2 for PGlite)" },
  ],
  details: [
    "DATABASE_URL     postgres://user:password@host:5432/db (use a read-only role), or",
    "                 pglite:///path/to/dir for a PGlite data directory. Unset: an embedded",
    "                 PostgreSQL (PGlite) in memory with a sample schema (shop: customers, orders, ...).",
    "                 The URL and its password never appear in any output.",
  ],
  async prepare(request) {
    const url = process.env.DATABASE_URL || undefined;
    try {
      parseDatabaseUrl(url, "DATABASE_URL");
    } catch (error) {
      if (error instanceof DatabaseUrlError) throw new UsageError(error.message);
      throw error;
    }
    const day = 24 * 3600 * 1000;
    const options: PostgresDatabaseOptions = {
      ...(url !== undefined ? { url } : {}),
    };
    const set = <K extends keyof PostgresDatabaseOptions>(
      key: K,
      value: PostgresDatabaseOptions[K] | undefined,
    ) => {
      if (value !== undefined) options[key] = value;
    };
    set("statementTimeoutMs", intOption("statement-timeout", request.options["statement-timeout"], day));
    set("lockTimeoutMs", intOption("lock-timeout", request.options["lock-timeout"], day));
    set("idleInTransactionTimeoutMs", intOption("idle-timeout", request.options["idle-timeout"], day));
    set("maxRowsLimit", intOption("max-rows", request.options["max-rows"], POSTGRES_HARD_MAX_ROWS));
    set("poolSize", intOption("pool-size", request.options["pool-size"], 100));
    if (options.maxRowsLimit !== undefined && options.maxRowsLimit < 1000) {
      options.defaultMaxRows = options.maxRowsLimit;
    }
    let resolved: ReturnType<typeof resolvePostgresOptions>;
    try {
      resolved = resolvePostgresOptions(options);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    if (request.transport === "stdio") {
      // One client: its server opens the database on the first tool call (pg, PGlite and the SQL parser
      // load then), so initialize and tools/list are answered at once; an unreachable database is that
      // call's tool error, as for every later call.
      // A connection normally has one server; a client that probes with server/discover and falls
      // back to initialize has two (the probe's never opens its database). All are closed at exit.
      const servers: McpServer[] = [];
      let closeOwnDatabase: ((server: McpServer) => Promise<void>) | undefined;
      return {
        create: async () => {
          const loaded = await import("../postgres/create-postgres-server.js");
          closeOwnDatabase = loaded.closeOwnDatabase;
          const server = loaded.createPostgresServer(options);
          servers.push(server);
          return server;
        },
        describe: `database: ${describeLocation(resolved.location)}`,
        close: async () => {
          await Promise.all(servers.map((server) => closeOwnDatabase?.(server)));
        },
        stdioSnapshot: postgresSnapshot(resolved.limits),
      };
    }
    // HTTP: one database shared by every session, opened now; an unreachable one fails the start.
    const [{ createPostgresServer, describeQueryFailure }, { databaseInternals, openPostgresDatabase }] =
      await Promise.all([
        import("../postgres/create-postgres-server.js"),
        import("../postgres/open-postgres-database.js"),
      ]);
    const database = await openPostgresDatabase(options);
    const probe = await databaseInternals(database).runTrusted("SELECT 1", [], 1);
    if (!probe.ok) {
      await database.close();
      throw new Error(describeQueryFailure(probe.error));
    }
    return {
      create: () => createPostgresServer({ database }),
      describe: `database: ${database.description}`,
      close: () => database.close(),
    };
  },
});
