// The contract with pg's internals that the postgres server relies on, checked against the installed pg
// and a real database (TEST_DATABASE_URL's server when set, and always the embedded PGlite engine):
//  - message-size-guard.ts patches `Connection.attachListeners(stream)` to watch the raw backend stream;
//  - pipeline-query.ts is a "submittable": pg calls `submit(connection)`, the query writes its bytes to
//    `connection.stream`, and pg calls one `handle*` method per backend message in order;
//  - read-only-runner.ts stops an overrunning query by destroying `client.connection.stream`.
// None of this is public pg API. When a pg update breaks one of these, the failure says which assumption
// broke and what it means for our code, with the installed pg version.
import { createRequire } from "node:module";
import type { Duplex } from "node:stream";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { guardedClientClass, MessageTooLargeError } from "../../src/postgres/internal/message-size-guard.js";
import { PGliteHost } from "../../src/postgres/internal/pglite-host.js";
import {
  PipelineError,
  type PipelineOptions,
  PipelineQuery,
  type PipelineResult,
} from "../../src/postgres/internal/pipeline-query.js";

const PG_VERSION: string = createRequire(import.meta.url)("pg/package.json").version;

/** The failure message of one assumption: what pg no longer does, and what that breaks here. */
const broken = (assumption: string, consequence: string) =>
  `pg ${PG_VERSION} broke an assumption of the postgres server: ${assumption}. ${consequence}; ` +
  `re-check src/postgres/internal/ against pg ${PG_VERSION} before upgrading.`;

/** Run `step`; if it throws, fail with the assumption's message (the thrown error as cause). */
async function holds<T>(message: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new Error(`${message}\n  (it threw: ${error instanceof Error ? error.message : String(error)})`, {
      cause: error,
    });
  }
}

interface ConnectionInternals {
  stream: Duplex;
  attachListeners(stream: Duplex): void;
}
const connectionOf = (client: pg.Client) =>
  (client as unknown as { connection: ConnectionInternals }).connection;

const ENGINES = process.env.TEST_DATABASE_URL ? (["postgres", "pglite"] as const) : (["pglite"] as const);

describe.each(ENGINES)("the pg internals we rely on (pg %s)", (engine) => {
  let host: PGliteHost | undefined;
  let config: pg.ClientConfig;
  const open: pg.Client[] = [];

  /** A connected client of `Class` (errors are recorded, never thrown). */
  async function connect(Class: typeof pg.Client = pg.Client, before?: (client: pg.Client) => void) {
    const client = new Class(config);
    const errors: Error[] = [];
    client.on("error", (error) => errors.push(error));
    open.push(client);
    before?.(client);
    await client.connect();
    return { client, errors };
  }

  beforeAll(async () => {
    if (engine === "postgres") {
      config = { connectionString: process.env.TEST_DATABASE_URL };
    } else {
      host = await PGliteHost.start({ initSql: [], maxConnections: 4 });
      const address = await host.address();
      config = { host: address.host, port: address.port, user: "postgres", database: "postgres", ssl: false };
    }
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.end().catch(() => undefined)));
  });
  afterAll(async () => {
    await host?.close();
  });

  describe("message-size-guard.ts: Connection.attachListeners(stream)", () => {
    it("exists on every client's connection and is called once, with the connection's stream, on connect", async () => {
      const calls: Duplex[] = [];
      const firstBytes: Buffer[] = [];
      let streamAtCall: Duplex | undefined;
      const message = broken(
        "pg no longer calls Connection.attachListeners(stream) when it connects",
        "message-size-guard's patch would be skipped and a huge row buffered whole; the guard must be re-done",
      );
      const { client } = await connect(pg.Client, (c) => {
        const connection = connectionOf(c);
        expect(
          typeof connection?.attachListeners,
          broken(
            "pg.Client has no `connection.attachListeners` method right after construction",
            "guardedClientClass cannot patch it; the guard must be re-done",
          ),
        ).toBe("function");
        const original = connection.attachListeners.bind(connection);
        connection.attachListeners = (stream: Duplex) => {
          calls.push(stream);
          streamAtCall = connection.stream;
          stream.once("data", (chunk: Buffer) => firstBytes.push(chunk));
          original(stream);
        };
      });
      expect(calls, message).toHaveLength(1);
      expect(
        calls[0] === streamAtCall,
        broken(
          "the stream passed to attachListeners is not `connection.stream`",
          "the guard would watch a different stream than the one the parser reads",
        ),
      ).toBe(true);
      // The guard parses message headers from the first byte on: the stream must start on a message
      // boundary (AuthenticationRequest 'R'), after any TLS negotiation.
      expect(
        firstBytes[0]?.subarray(0, 1).toString("latin1"),
        broken(
          "the stream given to attachListeners does not start with the backend's first message ('R')",
          "the guard would read message lengths at the wrong offsets",
        ),
      ).toBe("R");
      expect((await client.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    });

    it("pg.Pool builds its connections with the Client class it is given (the guarded one)", async () => {
      const Guarded = guardedClientClass(1 << 20);
      const pool = new pg.Pool({ ...config, Client: Guarded, max: 1 });
      pool.on("error", () => undefined);
      try {
        const client = await pool.connect();
        expect(
          client instanceof Guarded,
          broken(
            "pg.Pool ignores its `Client` option",
            "backend.ts's pools would open unguarded connections",
          ),
        ).toBe(true);
        client.release();
      } finally {
        await pool.end();
      }
    });

    it("an oversized row fails the query and the client with MessageTooLargeError before it is buffered", async () => {
      const rowBytes = 8_000_000;
      const limit = 64 * 1024;
      // An unguarded client reads the same row: whatever fails below is the guard.
      const plain = await connect();
      const control = await plain.client.query(`SELECT repeat('x', ${rowBytes}) AS big`);
      expect(control.rows[0]?.big).toHaveLength(rowBytes);

      let received = 0;
      const guardMessage = broken(
        "a guardedClientClass client cannot be built or connected",
        "backend.ts's pools could not open a connection",
      );
      const guarded = await holds(guardMessage, () =>
        connect(guardedClientClass(limit), (c) => {
          const connection = connectionOf(c);
          const patched = connection.attachListeners;
          connection.attachListeners = (stream: Duplex) => {
            stream.on("data", (chunk: Buffer) => {
              received += chunk.length;
            });
            patched.call(connection, stream);
          };
        }),
      );
      received = 0;
      const failure = await guarded.client.query(`SELECT repeat('x', ${rowBytes}) AS big`).then(
        () => undefined,
        (error: unknown) => error,
      );
      const message = broken(
        "a guarded client did not fail with MessageTooLargeError on a row over its limit",
        "the guard no longer sees the bytes pg parses (attachListeners patch skipped, or the stream replaced)",
      );
      expect(failure, message).toBeInstanceOf(MessageTooLargeError);
      expect(failure, message).toMatchObject({ limit });
      expect((failure as MessageTooLargeError).bytes, message).toBeGreaterThan(rowBytes);
      await expect
        .poll(() => guarded.errors[0], {
          message: broken(
            "destroying connection.stream with an error no longer makes the client emit that error",
            "read-only-runner.ts would not see why the connection died",
          ),
        })
        .toBeInstanceOf(MessageTooLargeError);
      // The guard stopped reading within a few socket reads of the header, not after the whole row.
      expect(
        received,
        broken(
          "the whole oversized row was read before the guard tripped",
          "the guard no longer protects memory",
        ),
      ).toBeLessThan(rowBytes / 4);
    });
  });

  describe("pipeline-query.ts: pg's submittable protocol", () => {
    /** What pg did to one PipelineQuery: its method calls in order, and handlers it wanted but we lack. */
    interface Recording {
      query: PipelineQuery;
      calls: string[];
      missing: string[];
      submittedTo: unknown[];
      /** The arguments of the last call of each method. */
      args: Record<string, unknown[]>;
      rows: (string | null)[][];
    }

    /** A PipelineQuery behind a proxy that records every method pg calls on it. */
    function recorded(options: Omit<PipelineOptions, "onRow">): Recording {
      const rows: (string | null)[][] = [];
      const target = new PipelineQuery({ ...options, onRow: (fields) => rows.push(fields) });
      const calls: string[] = [];
      const missing: string[] = [];
      const submittedTo: unknown[] = [];
      const args: Record<string, unknown[]> = {};
      const query = new Proxy(target, {
        get(object, key, receiver) {
          const value = Reflect.get(object, key, receiver);
          if (typeof key === "string" && /^handle[A-Z]/.test(key) && value === undefined) missing.push(key);
          if (typeof value !== "function" || typeof key !== "string") return value;
          return (...given: unknown[]) => {
            const name = key.replace(/^handle/, "");
            calls.push(name);
            args[name] = given;
            if (key === "submit") submittedTo.push(given[0]);
            return (value as (...a: unknown[]) => unknown).apply(object, given);
          };
        },
      });
      return { query, calls, missing, submittedTo, args, rows };
    }

    const ORDER = (what: string) =>
      broken(
        `pg no longer calls a submittable's methods in the order pipeline-query.ts expects (${what})`,
        "PipelineQuery tracks which statement a message belongs to from this order: rows could be " +
          "attributed to the wrong statement, or a query never settle",
      );

    /** Submit like read-only-runner.ts does and wait for the outcome. */
    async function run(client: pg.Client, recording: Recording): Promise<PipelineResult | PipelineError> {
      void client.query(recording.query as unknown as string);
      return recording.query.done.catch((error: PipelineError) => error);
    }

    const BEFORE = ["BEGIN TRANSACTION READ ONLY", "SELECT set_config('lock_timeout', '1000', true)"];
    const QUERY = "SELECT g AS n, NULL::text AS nothing FROM generate_series(1, 3) AS g";

    it("submit(connection) gets the client's connection, whose stream takes the pipeline's bytes", async () => {
      const { client } = await connect();
      const recording = recorded({ before: [], after: ["SELECT 1"] });
      const result = await run(client, recording);
      expect(
        recording.submittedTo[0] === connectionOf(client),
        broken(
          "pg no longer passes the client's Connection to a submittable's submit()",
          "PipelineQuery writes its bytes to `connection.stream`",
        ),
      ).toBe(true);
      expect(typeof connectionOf(client).stream?.write, ORDER("connection.stream.write")).toBe("function");
      expect(result, ORDER("a one-statement pipeline did not resolve")).not.toBeInstanceOf(Error);
    });

    it("a query read to its end: CommandComplete per statement, rows between, ReadyForQuery last", async () => {
      const { client } = await connect();
      const recording = recorded({
        before: BEFORE,
        query: { text: QUERY, values: [], portal: "contract_q", rows: 10 },
        after: ["ROLLBACK"],
      });
      const result = await run(client, recording);
      expect(recording.calls, ORDER("query read to its end")).toEqual([
        "submit",
        "CommandComplete", // BEGIN
        "DataRow", // set_config
        "CommandComplete",
        "RowDescription", // Describe of the query's portal
        "DataRow",
        "DataRow",
        "DataRow",
        "CommandComplete", // the query
        "CommandComplete", // ROLLBACK
        "ReadyForQuery",
      ]);
      expect(recording.missing, ORDER("pg asked for handlers PipelineQuery lacks")).toEqual([]);
      expect(
        result,
        broken(
          "RowDescription fields or DataRow values no longer arrive as pipeline-query.ts reads them",
          "column names/types (name, dataTypeID, dataTypeModifier) or text values (null for NULL) would be wrong",
        ),
      ).toEqual({
        fields: [
          { name: "n", dataTypeID: 23, dataTypeModifier: -1 },
          { name: "nothing", dataTypeID: 25, dataTypeModifier: -1 },
        ],
        suspended: false,
      });
      expect(recording.rows, ORDER("only the query's rows reach onRow, as text")).toEqual([
        ["1", null],
        ["2", null],
        ["3", null],
      ]);
      expect((await client.query("SELECT 2 AS two")).rows, ORDER("the client is usable after")).toEqual([
        { two: 2 },
      ]);
    });

    it("a query with more rows than asked for: PortalSuspended instead of its CommandComplete", async () => {
      const { client } = await connect();
      const recording = recorded({
        before: BEFORE,
        query: { text: QUERY, values: [], portal: "contract_q", rows: 2 },
        after: ["ROLLBACK"],
      });
      const result = await run(client, recording);
      expect(recording.calls, ORDER("portal suspended")).toEqual([
        "submit",
        "CommandComplete",
        "DataRow",
        "CommandComplete",
        "RowDescription",
        "DataRow",
        "DataRow",
        "PortalSuspended",
        "CommandComplete",
        "ReadyForQuery",
      ]);
      expect(result, ORDER("portal suspended")).toMatchObject({ suspended: true });
      expect(recording.rows).toEqual([
        ["1", null],
        ["2", null],
      ]);
    });

    it("a failing query: handleError with the server's error, no ReadyForQuery, then the next query runs", async () => {
      const { client } = await connect();
      const recording = recorded({
        before: BEFORE,
        query: { text: "SELECT * FROM contract_no_such_table", values: [], portal: "contract_q", rows: 10 },
        after: ["ROLLBACK"],
      });
      const result = await run(client, recording);
      expect(recording.calls, ORDER("failing query")).toEqual([
        "submit",
        "CommandComplete",
        "DataRow",
        "CommandComplete",
        "Error",
      ]);
      expect(result, ORDER("failing query")).toBeInstanceOf(PipelineError);
      expect(
        (result as PipelineError).original,
        broken(
          "a server ErrorResponse no longer reaches handleError as an Error with `code` (SQLSTATE) and `severity`",
          "read-only-runner.ts would report it as a lost connection",
        ),
      ).toMatchObject({ code: "42P01", severity: "ERROR" });
      expect((result as PipelineError).afterQuery).toBe(false);
      // The runner's wind-down: pg waits for the failed pipeline's ReadyForQuery, then submits the next.
      const windDown = recorded({ before: [], after: ["ROLLBACK"] });
      expect(await run(client, windDown), ORDER("wind-down after a failure")).not.toBeInstanceOf(Error);
      expect(windDown.calls, ORDER("wind-down after a failure")).toEqual([
        "submit",
        "CommandComplete",
        "ReadyForQuery",
      ]);
    });

    it("a failing statement after the query is reported as after the query", async () => {
      const { client } = await connect();
      const recording = recorded({
        before: BEFORE,
        query: { text: "SELECT 1 AS one", values: [], portal: "contract_q", rows: 10 },
        after: ["SELECT 1 / 0", "ROLLBACK"],
      });
      const result = await run(client, recording);
      expect(recording.calls, ORDER("failing wind-down")).toEqual([
        "submit",
        "CommandComplete",
        "DataRow",
        "CommandComplete",
        "RowDescription",
        "DataRow",
        "CommandComplete",
        "Error",
      ]);
      expect(result, ORDER("failing wind-down")).toMatchObject({ afterQuery: true });
      expect(recording.rows).toEqual([["1"]]);
      await run(client, recorded({ before: [], after: ["ROLLBACK"] }));
    });

    it("an empty query: handleEmptyQuery", async () => {
      const { client } = await connect();
      const recording = recorded({
        before: [],
        query: { text: "", values: [], portal: "contract_q", rows: 10 },
        after: [],
      });
      expect(await run(client, recording), ORDER("empty query")).not.toBeInstanceOf(Error);
      expect(recording.calls, ORDER("empty query")).toEqual(["submit", "EmptyQuery", "ReadyForQuery"]);
    });

    it("COPY ... TO STDOUT: handleCopyData per row", async () => {
      const { client } = await connect();
      const recording = recorded({
        before: [],
        query: { text: "COPY (SELECT 1) TO STDOUT", values: [], portal: "contract_q", rows: 10 },
        after: [],
      });
      expect(await run(client, recording), ORDER("COPY TO STDOUT")).not.toBeInstanceOf(Error);
      expect(recording.calls, ORDER("COPY TO STDOUT")).toEqual([
        "submit",
        "CopyData",
        "CommandComplete",
        "ReadyForQuery",
      ]);
    });

    it("a destroyed connection.stream (the watchdog): handleError with the destroying error, the client emits it", async () => {
      const { client, errors } = await connect();
      const recording = recorded({
        before: BEFORE,
        query: { text: QUERY, values: [], portal: "contract_q", rows: 10 },
        after: ["ROLLBACK"],
      });
      const stop = new Error("contract: the watchdog stopped the query");
      const result = run(client, recording);
      connectionOf(client).stream.destroy(stop);
      const outcome = await result;
      const message = broken(
        "destroying `client.connection.stream` with an error no longer fails the active query with that error",
        "read-only-runner.ts's watchdog could not stop an overrunning query",
      );
      expect(recording.calls.slice(0, 1), message).toEqual(["submit"]);
      expect(recording.calls.at(-1), message).toBe("Error");
      expect(recording.calls, message).not.toContain("ReadyForQuery");
      expect(outcome, message).toBeInstanceOf(PipelineError);
      expect((outcome as PipelineError).original, message).toBe(stop);
      await expect.poll(() => errors[0], { message }).toBe(stop);
    });

    it("a guarded connection tripping mid-query fails the pipeline with MessageTooLargeError", async () => {
      const { client, errors } = await connect(guardedClientClass(64 * 1024));
      const recording = recorded({
        before: BEFORE,
        query: { text: "SELECT repeat('x', 1000000) AS big", values: [], portal: "contract_q", rows: 10 },
        after: ["ROLLBACK"],
      });
      const outcome = await run(client, recording);
      const message = broken(
        "a guarded connection that trips no longer fails the active submittable with MessageTooLargeError",
        "read-only-runner.ts would report a lost connection instead of a too-large reply",
      );
      expect(outcome, message).toBeInstanceOf(PipelineError);
      expect((outcome as PipelineError).original, message).toBeInstanceOf(MessageTooLargeError);
      expect(recording.rows, message).toEqual([]);
      await expect.poll(() => errors[0], { message }).toBeInstanceOf(MessageTooLargeError);
    });
    // Last: a COPY FROM STDIN inside a pipeline costs the connection (the pipeline's next messages arrive
    // during copy-in: "protocol synchronization was lost"), and on PGlite its one shared session with it.
    // Layer 1 and the read-only transaction keep COPY FROM away from the runner; this pins only pg's side.
    it("COPY ... FROM STDIN: handleCopyInResponse(connection) gets a connection with sendCopyFail, the query fails", async () => {
      const { client } = await connect();
      await client.query("CREATE TEMP TABLE IF NOT EXISTS contract_copy (a integer)");
      const recording = recorded({
        before: ["BEGIN"],
        query: { text: "COPY contract_copy FROM STDIN", values: [], portal: "contract_q", rows: 10 },
        after: ["ROLLBACK"],
      });
      const result = await run(client, recording);
      expect(recording.calls.slice(0, 3), ORDER("COPY FROM STDIN")).toEqual([
        "submit",
        "CommandComplete",
        "CopyInResponse",
      ]);
      expect(recording.calls.at(-1), ORDER("COPY FROM STDIN")).toBe("Error");
      expect(
        typeof (recording.args.CopyInResponse?.[0] as { sendCopyFail?: unknown } | undefined)?.sendCopyFail,
        broken(
          "pg no longer passes a Connection with sendCopyFail(message) to handleCopyInResponse",
          "PipelineQuery.handleCopyInResponse would throw inside pg's message handler",
        ),
      ).toBe("function");
      expect(result, ORDER("COPY FROM STDIN")).toBeInstanceOf(PipelineError);
    });
  });
});
