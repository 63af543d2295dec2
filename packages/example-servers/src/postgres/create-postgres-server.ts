import { type CallToolResult, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { SERVER_OPTIONS } from "../internal/server-options.js";
import { VERSION } from "../internal/version.js";
import { DESCRIBE_TABLE_SQL, LIST_SCHEMAS_SQL, LIST_TABLES_SQL } from "./internal/catalog-queries.js";
import { reportCleanupFailure } from "./internal/report-cleanup-failure.js";
import {
  databaseInternals,
  openPostgresDatabase,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
  type PostgresQueryFailure,
  type PostgresQueryOutcome,
  resolvePostgresOptions,
} from "./open-postgres-database.js";
import { executeQueryDescription, maxRowsDescription } from "./postgres-options.js";

/** Options of `createPostgresServer`. */
export interface PostgresServerOptions extends PostgresDatabaseOptions {
  /**
   * An open database (from `openPostgresDatabase`) to share between servers, e.g. one server per HTTP
   * session; the server does not close it. Without it, the server opens its own from the other options
   * on first use and closes it when the server closes.
   */
  database?: PostgresDatabase;
}

/** Servers that opened their own database (no `database` option) → how to close it, awaited. */
const ownDatabases = new WeakMap<McpServer, () => Promise<void>>();

/**
 * Close the database a server opened for itself, if it opened one (internal: the bin awaits it at exit,
 * so an embedded engine stops cleanly). Servers given a `database` have nothing to close.
 */
export async function closeOwnDatabase(server: McpServer): Promise<void> {
  await ownDatabases.get(server)?.();
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The text of a failed call: which rule refused it, or the SQLSTATE and message. */
export function describeQueryFailure(failure: PostgresQueryFailure): string {
  switch (failure.reason) {
    case "refused":
      return `Refused by the read-only guard (rule: ${failure.rule}): ${failure.message}. This server runs one read-only query at a time.`;
    case "database":
    case "timeout":
      return `PostgreSQL error ${failure.sqlstate}: ${failure.message}`;
    case "too-large":
      return `Result too large: ${failure.message}`;
    default:
      return `Database unavailable: ${failure.message}`;
  }
}

const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: "text", text }] });

/** The first row's first value of a catalog query's result, parsed. */
function firstValue(outcome: Extract<PostgresQueryOutcome, { ok: true }>, column: number): unknown {
  return outcome.result.rows[0]?.[column];
}

const schemaEntry = z.object({
  name: z.string(),
  owner: z.string().nullable(),
  system: z.boolean(),
  comment: z.string().nullable(),
});
const tableEntry = z.object({
  name: z.string(),
  kind: z.string(),
  rowEstimate: z.number().nullable().describe("planner estimate from the last ANALYZE; null if unknown"),
  comment: z.string().nullable(),
});
const columnEntry = z.object({
  name: z.string(),
  type: z.string(),
  nullable: z.boolean(),
  default: z.string().nullable(),
  comment: z.string().nullable(),
});
const foreignKeyEntry = z.object({
  name: z.string(),
  columns: z.array(z.string()),
  references: z.object({ schema: z.string(), table: z.string(), columns: z.array(z.string()) }),
  onUpdate: z.string().nullable(),
  onDelete: z.string().nullable(),
});
const indexEntry = z.object({
  name: z.string(),
  definition: z.string(),
  unique: z.boolean(),
  primary: z.boolean(),
});

/**
 * A read-only PostgreSQL MCP server: `list_schemas`, `list_tables`, `describe_table` and `execute_query`.
 * Every query is parsed by PostgreSQL's own parser and refused unless it is one plain read (layer 1),
 * then runs in a rolled-back READ ONLY transaction with timeouts on a reset pooled connection (layer 2),
 * with rows capped server-side (layer 3) and errors that name the rule or the SQLSTATE (layer 4).
 */
export function createPostgresServer(options: PostgresServerOptions = {}): McpServer {
  const { database: shared, ...databaseOptions } = options;
  const limits = shared?.limits ?? resolvePostgresOptions(databaseOptions).limits;
  let opening: Promise<PostgresDatabase> | undefined;
  const database = (): Promise<PostgresDatabase> => {
    if (shared) return Promise.resolve(shared);
    if (!opening) {
      opening = openPostgresDatabase(databaseOptions);
      // A failed start is retried on the next call rather than remembered.
      opening.catch(() => {
        opening = undefined;
      });
    }
    return opening;
  };

  const server = new McpServer({ name: "agentforge-postgres", version: VERSION }, SERVER_OPTIONS);
  if (!shared) {
    const closeDatabase = async () => {
      if (!opening) return;
      let db: PostgresDatabase;
      try {
        db = await opening;
      } catch {
        // It never opened: the call that waited for it got the error, and there is nothing to close.
        return;
      }
      await db.close();
    };
    ownDatabases.set(server, closeDatabase);
    const previous = server.server.onclose;
    server.server.onclose = () => {
      previous?.();
      closeDatabase().catch((error: unknown) => {
        reportCleanupFailure("closing the database of a closed session", error);
      });
    };
  }

  /** Run one of the server's own catalog queries (trusted SQL) through the same read-only runner. */
  const catalog = async (sql: string, params: unknown[]): Promise<PostgresQueryOutcome> => {
    let db: PostgresDatabase;
    try {
      db = await database();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, error: { reason: "unavailable", message } };
    }
    return databaseInternals(db).runTrusted(sql, params, 1);
  };

  server.registerTool(
    "list_schemas",
    {
      title: "List schemas",
      description:
        "Lists the database's schemas with owner and comment. System schemas (pg_catalog, information_schema, pg_toast, temporary) only when include_system is true.",
      inputSchema: z.object({
        include_system: z.boolean().default(false).describe("also list system schemas"),
      }),
      outputSchema: z.object({ schemas: z.array(schemaEntry) }),
      annotations: READ_ONLY,
    },
    async ({ include_system }) => {
      const outcome = await catalog(LIST_SCHEMAS_SQL, [include_system]);
      if (!outcome.ok) return errorResult(describeQueryFailure(outcome.error));
      const schemas = (firstValue(outcome, 0) ?? []) as z.infer<typeof schemaEntry>[];
      const structured = { schemas };
      return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
    },
  );

  server.registerTool(
    "list_tables",
    {
      title: "List tables",
      description:
        "Lists the tables, views, materialized views and foreign tables of a schema, with the planner's row estimate and comment.",
      inputSchema: z.object({
        schema: z.string().min(1).default("public").describe("schema name (default public)"),
      }),
      outputSchema: z.object({ schema: z.string(), tables: z.array(tableEntry), truncated: z.boolean() }),
      annotations: READ_ONLY,
    },
    async ({ schema }) => {
      const outcome = await catalog(LIST_TABLES_SQL, [schema, limits.maxRowsLimit + 1]);
      if (!outcome.ok) return errorResult(describeQueryFailure(outcome.error));
      if (Number(firstValue(outcome, 0)) === 0) {
        return errorResult(`Schema "${schema}" does not exist; list_schemas shows the schemas.`);
      }
      const all = (firstValue(outcome, 1) ?? []) as z.infer<typeof tableEntry>[];
      const structured = {
        schema,
        tables: all.slice(0, limits.maxRowsLimit),
        truncated: all.length > limits.maxRowsLimit,
      };
      return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
    },
  );

  server.registerTool(
    "describe_table",
    {
      title: "Describe a table",
      description:
        "Describes a table, view or materialized view: columns (type, nullability, default, comment), primary key, foreign keys, indexes and comment.",
      inputSchema: z.object({
        table: z.string().min(1).describe("table or view name, as stored (case-sensitive, unquoted)"),
        schema: z.string().min(1).default("public").describe("schema name (default public)"),
      }),
      outputSchema: z.object({
        schema: z.string(),
        name: z.string(),
        kind: z.string(),
        comment: z.string().nullable(),
        rowEstimate: z.number().nullable(),
        columns: z.array(columnEntry),
        primaryKey: z.array(z.string()).nullable(),
        foreignKeys: z.array(foreignKeyEntry),
        indexes: z.array(indexEntry),
      }),
      annotations: READ_ONLY,
    },
    async ({ table, schema }) => {
      const outcome = await catalog(DESCRIBE_TABLE_SQL, [schema, table]);
      if (!outcome.ok) return errorResult(describeQueryFailure(outcome.error));
      if (Number(firstValue(outcome, 0)) === 0) {
        return errorResult(`Schema "${schema}" does not exist; list_schemas shows the schemas.`);
      }
      const description = firstValue(outcome, 1) as Record<string, unknown> | null;
      if (!description) {
        return errorResult(
          `Table "${schema}.${table}" does not exist; list_tables {"schema": "${schema}"} shows its tables.`,
        );
      }
      return {
        content: [{ type: "text", text: JSON.stringify(description) }],
        structuredContent: description,
      };
    },
  );

  server.registerTool(
    "execute_query",
    {
      title: "Execute a read-only query",
      description: executeQueryDescription(limits),
      inputSchema: z.object({
        sql: z.string().min(1).describe("one read-only SQL statement"),
        params: z
          .array(z.unknown())
          .max(1000)
          .optional()
          .describe("values for $1, $2, ... (arrays become PostgreSQL arrays, objects JSON)"),
        max_rows: z
          .number()
          .int()
          .min(1)
          .max(limits.maxRowsLimit)
          .default(limits.defaultMaxRows)
          .describe(maxRowsDescription(limits)),
      }),
      annotations: READ_ONLY,
    },
    async ({ sql, params, max_rows }) => {
      let db: PostgresDatabase;
      try {
        db = await database();
      } catch (error) {
        return errorResult(`Database unavailable: ${error instanceof Error ? error.message : String(error)}`);
      }
      const outcome = await db.query(sql, params ?? [], { maxRows: max_rows });
      if (!outcome.ok) return errorResult(describeQueryFailure(outcome.error));
      return { content: [{ type: "text", text: outcome.result.json }] };
    },
  );

  return server;
}
