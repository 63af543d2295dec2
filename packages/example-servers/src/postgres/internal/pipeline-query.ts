// A pg "submittable" that sends one whole query's life in a single write, over the extended protocol
// (which refuses more than one statement by itself), ending with a single Sync:
//
//   before:  Parse/Bind/Execute "BEGIN TRANSACTION READ ONLY", then the SET LOCAL settings
//   query:   Parse (the SQL) / Bind (named portal, text parameters) / Describe / Execute (at most N rows)
//   after:   Parse/Bind/Execute "ROLLBACK", then the statements of DISCARD ALL
//
// If any statement fails, the server skips everything up to the Sync: the query can never run outside
// the read-only transaction, and a failed query leaves the wind-down to the caller. The portal is read
// once, for at most N rows (the server stops there), and ROLLBACK closes it.

/** A column as the RowDescription describes it. */
export interface FieldDescription {
  name: string;
  dataTypeID: number;
  dataTypeModifier: number;
}

/** What the pipeline returned. */
export interface PipelineResult {
  fields: FieldDescription[] | undefined;
  /** True when the portal had more rows than asked for (PortalSuspended). */
  suspended: boolean;
}

/** The error of a pipeline, and whether the query itself had completed before it (the wind-down failed). */
export class PipelineError extends Error {
  override readonly name = "PipelineError";
  constructor(
    readonly original: Error,
    readonly afterQuery: boolean,
  ) {
    super(original.message);
  }
}

interface Connection {
  stream: { write(data: Buffer): boolean; writable?: boolean };
}

// Frontend messages of the extended protocol, encoded here so a whole pipeline is one buffer and one
// write (unnamed statements only; every parameter and result in text format).
const cstring = (text: string) => Buffer.from(`${text}\0`, "utf8");

function message(type: string, parts: readonly Buffer[]): Buffer {
  const length = parts.reduce((n, part) => n + part.length, 4);
  const header = Buffer.allocUnsafe(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(length, 1);
  return Buffer.concat([header, ...parts], length + 1);
}

const int16 = (n: number) => {
  const b = Buffer.allocUnsafe(2);
  b.writeInt16BE(n);
  return b;
};
const int32 = (n: number) => {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32BE(n);
  return b;
};

/** Parse (unnamed statement, parameter types inferred). */
const parseMessage = (text: string) => message("P", [cstring(""), cstring(text), int16(0)]);

/** Bind (text parameters, text results). */
function bindMessage(portal: string, values: readonly (string | null)[]): Buffer {
  const parts: Buffer[] = [cstring(portal), cstring(""), int16(0), int16(values.length)];
  for (const value of values) {
    if (value === null) parts.push(int32(-1));
    else {
      const bytes = Buffer.from(value, "utf8");
      parts.push(int32(bytes.length), bytes);
    }
  }
  parts.push(int16(0));
  return message("B", parts);
}

const describePortal = (portal: string) => message("D", [Buffer.from("P", "latin1"), cstring(portal)]);
const executeMessage = (portal: string, rows: number) => message("E", [cstring(portal), int32(rows)]);
const SYNC = message("S", []);

const encodedStatements = new WeakMap<readonly string[], Buffer>();

/** Parse/Bind/Execute of each statement (no parameters, all rows), cached per statement list. */
function encodeStatements(statements: readonly string[]): Buffer {
  let encoded = encodedStatements.get(statements);
  if (!encoded) {
    const empty = bindMessage("", []);
    const execute = executeMessage("", 0);
    encoded = Buffer.concat(statements.flatMap((text) => [parseMessage(text), empty, execute]));
    encodedStatements.set(statements, encoded);
  }
  return encoded;
}

/** The whole pipeline as bytes: statements before, the query, statements after, Sync. */
export function encodePipeline(options: PipelineOptions): Buffer {
  const { before, query, after } = options;
  const parts = [encodeStatements(before)];
  if (query) {
    parts.push(
      parseMessage(query.text),
      bindMessage(query.portal, query.values),
      describePortal(query.portal),
      executeMessage(query.portal, query.rows),
    );
  }
  parts.push(encodeStatements(after), SYNC);
  return Buffer.concat(parts);
}

/** Options of one pipeline. */
export interface PipelineOptions {
  /** Statements run first, each on its own (BEGIN, SET LOCAL ...). */
  before: readonly string[];
  /** The query, its parameters (already text), its portal and the most rows to read. */
  query?: { text: string; values: (string | null)[]; portal: string; rows: number };
  /** Statements run after the query (ROLLBACK, the reset). */
  after: readonly string[];
  /** Called for every row of the query, fields as text (null for NULL). */
  onRow?: (fields: (string | null)[]) => void;
}

type Phase = "before" | "query" | "after";

/** One round trip; pass to `client.query(...)`, then await `done`. */
export class PipelineQuery {
  readonly done: Promise<PipelineResult>;
  private resolve!: (result: PipelineResult) => void;
  private reject!: (error: Error) => void;
  private fields: FieldDescription[] | undefined;
  private suspended = false;
  private beforeLeft: number;
  private phase: Phase;
  private error: PipelineError | undefined;
  private settled = false;

  constructor(private readonly options: PipelineOptions) {
    this.beforeLeft = options.before.length;
    this.phase = this.beforeLeft > 0 ? "before" : options.query ? "query" : "after";
    this.done = new Promise<PipelineResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Rejections are read by the caller; never let one go unhandled in between.
    this.done.catch(() => undefined);
  }

  /** Called by pg when it is this query's turn on the connection. */
  submit(connection: Connection): Error | null {
    let bytes: Buffer;
    try {
      bytes = encodePipeline(this.options);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    connection.stream.write(bytes);
    return null;
  }

  handleRowDescription(message: { fields: FieldDescription[] }): void {
    this.fields = message.fields.map((f) => ({
      name: f.name,
      dataTypeID: f.dataTypeID,
      dataTypeModifier: f.dataTypeModifier,
    }));
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    // Rows of the other statements (set_config, pg_advisory_unlock_all) are not the query's.
    if (this.phase === "query") this.options.onRow?.(message.fields);
  }

  handlePortalSuspended(): void {
    this.suspended = true;
    this.phase = "after";
  }

  handleCommandComplete(): void {
    if (this.phase === "before") {
      this.beforeLeft--;
      if (this.beforeLeft === 0) this.phase = this.options.query ? "query" : "after";
    } else if (this.phase === "query") {
      this.phase = "after";
    }
  }

  handleEmptyQuery(): void {}

  handleCopyInResponse(connection: { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail("COPY is not supported");
  }

  handleCopyData(): void {}

  /** A server ErrorResponse (a ReadyForQuery follows) or a dead connection (nothing follows). */
  handleError(error: Error): void {
    this.error ??= new PipelineError(error, this.phase === "after");
    // pg stops routing messages to this query after an error; settle now so the caller can react.
    this.finish();
  }

  handleReadyForQuery(): void {
    this.finish();
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.error) this.reject(this.error);
    else this.resolve({ fields: this.fields, suspended: this.suspended });
  }
}

/** A JSON parameter value in PostgreSQL text form (arrays become PostgreSQL arrays, objects JSON). */
export function toPgParam(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return String(value);
  }
  if (Array.isArray(value)) return toPgArray(value);
  return JSON.stringify(value);
}

function toPgArray(values: readonly unknown[]): string {
  const items = values.map((item) => {
    if (item === null || item === undefined) return "NULL";
    if (Array.isArray(item)) return toPgArray(item);
    const text = toPgParam(item) ?? "";
    return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  });
  return `{${items.join(",")}}`;
}
