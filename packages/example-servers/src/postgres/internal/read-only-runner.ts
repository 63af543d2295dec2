// Layers 2–4 of the read-only guard, identical for PostgreSQL and PGlite:
//  2. a pooled connection, BEGIN TRANSACTION READ ONLY with SET LOCAL timeouts, the query over the
//     extended protocol, ROLLBACK always and the session reset (DISCARD ALL) before the reply, in one
//     round trip (see pipeline-query.ts);
//  3. rows read through a portal, at most max_rows + 1 of them (the server stops there), and no more
//     characters kept than the reply may hold (one message is bounded by the connection guard), so
//     memory stays flat whatever the query would return;
//  4. failures reported with the SQLSTATE and message, connection details never.
import type { Duplex } from "node:stream";
import type { Backend, PooledClient } from "./backend.js";
import { redact } from "./database-url.js";
import { MessageTooLargeError } from "./message-size-guard.js";
import { builtinType, catalogType, type TypeInfo } from "./pg-types.js";
import { type FieldDescription, PipelineError, PipelineQuery, toPgParam } from "./pipeline-query.js";
import { reportCleanupFailure } from "./report-cleanup-failure.js";
import { valueToJson } from "./value-to-json.js";

/** Limits applied to every query. */
export interface RunnerLimits {
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  /** Most characters a result's JSON may have. */
  maxResultChars: number;
  /** How long past statementTimeoutMs the watchdog waits before it stops a query itself. */
  watchdogGraceMs: number;
}

/** A result column. */
export interface ResultColumn {
  name: string;
  /** The type as PostgreSQL names it (format_type), e.g. `numeric(10,2)`. */
  type: string;
}

/** Rows read by the runner, each already a JSON array text. */
export interface RunnerRows {
  columns: ResultColumn[];
  rowsJson: string[];
  truncated: boolean;
  truncatedBy?: "max_rows" | "max_chars";
}

/** Why a query produced no result. */
export type QueryFailure =
  | { reason: "refused"; rule: string; message: string }
  | { reason: "database"; sqlstate: string; message: string }
  | { reason: "timeout"; sqlstate: string; message: string }
  | { reason: "too-large"; message: string }
  | { reason: "unavailable"; message: string };

/** The outcome of one query. */
export type RunnerOutcome = { ok: true; rows: RunnerRows } | { ok: false; failure: QueryFailure };

const PORTAL = "agentforge_q";
/** The Bind message counts parameters in 16 bits. */
const MAX_PARAMS = 32_767;

/**
 * DISCARD ALL, statement by statement: DISCARD ALL itself refuses to run in a pipeline, these do not.
 * (DISCARD TEMP is left out: a read-only transaction cannot create temporary tables.)
 */
const RESET_SESSION = [
  "CLOSE ALL",
  "SET SESSION AUTHORIZATION DEFAULT",
  "RESET ALL",
  "DEALLOCATE ALL",
  "UNLISTEN *",
  "SELECT pg_advisory_unlock_all()",
  "DISCARD PLANS",
  "DISCARD SEQUENCES",
];
const WIND_DOWN = ["ROLLBACK", ...RESET_SESSION];
const TYPE_CACHE_LIMIT = 2000;

class WatchdogError extends Error {
  override readonly name = "WatchdogError";
}

interface DatabaseErrorLike {
  code: string;
  message: string;
  detail?: string;
  hint?: string;
  position?: string;
  severity?: string;
}

const isDatabaseError = (error: unknown): error is DatabaseErrorLike => {
  if (!(error instanceof Error)) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && typeof severity === "string";
};

/** Runs SQL that layer 1 accepted (or the server's own catalog queries) inside the read-only envelope. */
export class ReadOnlyRunner {
  private readonly typeCache = new Map<string, TypeInfo>();
  private readonly prelude: readonly string[];

  constructor(
    private readonly backend: Backend,
    private readonly limits: RunnerLimits,
    private readonly secrets: readonly string[],
  ) {
    for (const [name, value] of Object.entries(limits)) {
      // They are interpolated into SQL below: integers only.
      if (!Number.isSafeInteger(value) || value < 0)
        throw new RangeError(`${name} must be an integer, got ${value}`);
    }
    // SET LOCAL, as one statement: set_config(name, value, true) is SET LOCAL (it ends with the
    // transaction), and one statement instead of eight matters on PGlite, where each costs a WASM call.
    // The output formats make the text of every value predictable whatever the role's or database's
    // defaults (see value-to-json.ts).
    const local = (name: string, value: string | number) => `set_config('${name}', '${value}', true)`;
    this.prelude = [
      "BEGIN TRANSACTION READ ONLY",
      `SELECT ${[
        local("statement_timeout", limits.statementTimeoutMs),
        local("lock_timeout", limits.lockTimeoutMs),
        local("idle_in_transaction_session_timeout", limits.idleInTransactionTimeoutMs),
        local("standard_conforming_strings", "on"),
        local("DateStyle", "ISO"),
        local("IntervalStyle", "iso_8601"),
        local("bytea_output", "hex"),
        local("extra_float_digits", "1"),
      ].join(", ")}`,
    ];
  }

  /** Run one query and read at most `maxRows` rows of it. */
  async run(sql: string, params: readonly unknown[], maxRows: number): Promise<RunnerOutcome> {
    if (params.length > MAX_PARAMS) {
      return this.fail({
        reason: "database",
        sqlstate: "54023",
        message: `too many parameters: ${params.length} (at most ${MAX_PARAMS})`,
      });
    }
    let values: (string | null)[];
    try {
      values = params.map(toPgParam);
    } catch (error) {
      return this.fail({ reason: "database", sqlstate: "22023", message: `bad parameter: ${String(error)}` });
    }
    let client: PooledClient;
    try {
      client = await this.backend.acquire();
    } catch (error) {
      return this.fail(this.connectionFailure(error));
    }

    let released = false;
    let timedOut = false;
    let connectionError: unknown;
    const onError = (error: unknown) => {
      connectionError ??= error;
    };
    client.on("error", onError);
    const release = (destroy: boolean) => {
      if (released) return;
      released = true;
      client.removeListener("error", onError);
      client.release(destroy ? new Error("connection dropped") : undefined);
    };
    const watchdog = setTimeout(() => {
      timedOut = true;
      (client as unknown as { connection: { stream: Duplex } }).connection.stream.destroy(
        new WatchdogError("the query overran its statement timeout"),
      );
      this.backend.stuck().catch((error: unknown) => {
        reportCleanupFailure(
          "restarting the database engine to stop an overrunning query",
          error,
          this.secrets,
        );
      });
    }, this.limits.statementTimeoutMs + this.limits.watchdogGraceMs);

    const kept: (string | null)[][] = [];
    let seen = 0;
    let keptChars = 0;
    let overBudget = false;
    const onRow = (fields: (string | null)[]) => {
      seen++;
      if (overBudget || seen > maxRows) return;
      let chars = 2;
      for (const field of fields) chars += (field === null ? 4 : field.length) + 1;
      if (keptChars + chars > this.limits.maxResultChars) {
        overBudget = true;
        return;
      }
      keptChars += chars;
      kept.push(fields);
    };

    let outcome: RunnerOutcome;
    let clean = false;
    try {
      const result = await this.submit(
        client,
        new PipelineQuery({
          before: this.prelude,
          query: { text: sql, values, portal: PORTAL, rows: maxRows + 1 },
          after: WIND_DOWN,
          onRow,
        }),
      );
      // Rolled back and reset already. Names of types that are not built in come from the catalog.
      const fields = result.fields ?? [];
      const types = await this.columnTypes(client, fields);
      outcome = { ok: true, rows: this.toRows(fields, types, kept, seen > maxRows, overBudget) };
      clean = true;
    } catch (error) {
      const cause = error instanceof PipelineError ? error.original : error;
      outcome = { ok: false, failure: this.failure(cause, timedOut, connectionError) };
      // A failed query skipped the wind-down (the server skips to the Sync): roll back and reset now,
      // before replying. A failed wind-down, a dead connection or a timeout drops the connection.
      const queryFailed = error instanceof PipelineError && !error.afterQuery;
      if (queryFailed && !timedOut && connectionError === undefined && isDatabaseError(cause)) {
        try {
          await this.submit(client, new PipelineQuery({ before: [], after: WIND_DOWN }));
          clean = true;
        } catch {
          clean = false;
        }
      }
    }
    clearTimeout(watchdog);
    release(!clean);
    if (!clean && !timedOut) {
      try {
        await this.backend.dropped();
      } catch (error) {
        // The reply stands (it was decided above); the failed reset is reported.
        reportCleanupFailure("resetting the session of a dropped connection", error, this.secrets);
      }
    }
    return outcome.ok ? outcome : this.fail(outcome.failure);
  }

  private async submit(client: PooledClient, query: PipelineQuery) {
    // pg accepts any object with submit(); its typings only know its own Query classes.
    void client.query(query as unknown as string);
    return query.done;
  }

  /** Type names and serializers for the columns; asks the catalog (once per type) for non-built-in types. */
  private async columnTypes(client: PooledClient, fields: readonly FieldDescription[]): Promise<TypeInfo[]> {
    const key = (f: FieldDescription) => `${f.dataTypeID}:${f.dataTypeModifier}`;
    const unknown = fields.filter(
      (f) => !builtinType(f.dataTypeID, f.dataTypeModifier) && !this.typeCache.has(key(f)),
    );
    if (unknown.length > 0) {
      const result = await client.query<{
        oid: number;
        typmod: number;
        name: string | null;
        category: string | null;
        elem: number | null;
        delim: string | null;
      }>(
        `SELECT m.oid::int4 AS oid, m.typmod, format_type(m.oid, m.typmod) AS name,
                t.typcategory::text AS category, t.typelem::int4 AS elem, t.typdelim::text AS delim
         FROM unnest($1::oid[], $2::int4[]) AS m(oid, typmod) LEFT JOIN pg_type AS t ON t.oid = m.oid`,
        [unknown.map((f) => f.dataTypeID), unknown.map((f) => f.dataTypeModifier)],
      );
      if (this.typeCache.size > TYPE_CACHE_LIMIT) this.typeCache.clear();
      for (const row of result.rows) {
        this.typeCache.set(
          `${row.oid}:${row.typmod}`,
          catalogType(
            row.name ?? `oid ${row.oid}`,
            row.category ?? "",
            row.elem ?? 0,
            row.delim ?? ",",
            row.typmod,
          ),
        );
      }
    }
    return fields.map(
      (f) =>
        builtinType(f.dataTypeID, f.dataTypeModifier) ??
        this.typeCache.get(key(f)) ?? { name: `oid ${f.dataTypeID}`, kind: "string" },
    );
  }

  private toRows(
    fields: readonly FieldDescription[],
    types: readonly TypeInfo[],
    kept: readonly (string | null)[][],
    moreRows: boolean,
    overBudget: boolean,
  ): RunnerRows {
    const columns = fields.map((f, i) => ({ name: f.name, type: types[i]?.name ?? "unknown" }));
    const rowsJson: string[] = [];
    // The envelope ({"columns":...,"rows":[],"rowCount":N,"truncated":...}) counts too.
    let chars = JSON.stringify(columns).length + 100;
    let cut = overBudget;
    for (const row of kept) {
      let json = "[";
      for (let i = 0; i < row.length; i++) {
        if (i > 0) json += ",";
        json += valueToJson(row[i] ?? null, types[i] ?? { name: "", kind: "string" });
      }
      json += "]";
      if (chars + json.length + 1 > this.limits.maxResultChars) {
        cut = true;
        break;
      }
      chars += json.length + 1;
      rowsJson.push(json);
    }
    const truncated = cut || moreRows;
    return {
      columns,
      rowsJson,
      truncated,
      ...(truncated ? { truncatedBy: cut ? ("max_chars" as const) : ("max_rows" as const) } : {}),
    };
  }

  private failure(error: unknown, timedOut: boolean, connectionError: unknown): QueryFailure {
    if (timedOut) {
      return {
        reason: "timeout",
        sqlstate: "57014",
        message: `canceling statement due to statement timeout (${this.limits.statementTimeoutMs} ms)${
          this.backend.kind === "pglite" ? "; the embedded database was restarted to stop it" : ""
        }`,
      };
    }
    const cause = connectionError ?? error;
    if (cause instanceof MessageTooLargeError || error instanceof MessageTooLargeError) {
      const tooLarge = cause instanceof MessageTooLargeError ? cause : (error as MessageTooLargeError);
      return {
        reason: "too-large",
        message: `${tooLarge.message}; select fewer or smaller columns`,
      };
    }
    if (isDatabaseError(error)) return this.databaseFailure(error);
    return this.connectionFailure(cause);
  }

  private databaseFailure(error: DatabaseErrorLike): QueryFailure {
    const { code } = error;
    const generic: Record<string, string> = {
      "08": "the connection to the database failed",
      "28": "authentication failed (check the credentials in the connection settings)",
      "3D": "the database named in the connection settings does not exist",
    };
    const replaced = generic[code.slice(0, 2)];
    if (replaced) return { reason: "unavailable", message: `${replaced} (SQLSTATE ${code})` };
    let message = error.message;
    if (error.position) message += ` (at character ${error.position})`;
    if (error.detail) message += `. Detail: ${error.detail}`;
    if (error.hint) message += `. Hint: ${error.hint}`;
    if (code === "57014" && /statement timeout/.test(error.message)) {
      return {
        reason: "timeout",
        sqlstate: code,
        message: `${message} (${this.limits.statementTimeoutMs} ms)`,
      };
    }
    return { reason: "database", sqlstate: code, message };
  }

  /** A failure to reach the database, described by its error code only (messages may name hosts). */
  private connectionFailure(error: unknown): QueryFailure {
    const code = (error as { code?: unknown })?.code;
    const message = error instanceof Error ? error.message : "";
    if (/timeout exceeded when trying to connect/i.test(message)) {
      return { reason: "unavailable", message: "timed out waiting for a database connection" };
    }
    if (isDatabaseError(error)) return this.databaseFailure(error);
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) {
      return { reason: "unavailable", message: `cannot reach the database (${code})` };
    }
    if (/terminated|ended|closed/i.test(message)) {
      return { reason: "unavailable", message: "the database connection was closed during the query" };
    }
    return { reason: "unavailable", message: "cannot reach the database" };
  }

  private fail(failure: QueryFailure): RunnerOutcome {
    return { ok: false, failure: { ...failure, message: redact(failure.message, this.secrets) } };
  }
}
