// Layer 1 of the read-only guard: parse with PostgreSQL's own parser (libpg_query compiled to WASM) and
// accept only one plain query whose whole tree is free of writes, locks and side-effecting calls.
import { loadModule, parseSync } from "libpg-query";
import { deniedFunctionFamily } from "./internal/denied-functions.js";

/** Which rule refused a query. */
export type ReadOnlyRule =
  | "syntax"
  | "empty"
  | "single-statement"
  | "statement-kind"
  | "select-into"
  | "locking-clause"
  | "data-modifying-cte"
  | "denied-function";

/** The verdict of `checkReadOnlySql`: accepted with its statement kind, or refused by one named rule. */
export type ReadOnlyVerdict =
  | { ok: true; statement: "select" | "explain" | "show" }
  | {
      ok: false;
      rule: ReadOnlyRule;
      /** What was refused and why, e.g. `a data-modifying statement (DELETE) inside WITH is not allowed`. */
      message: string;
      /** For `denied-function`: the function and its deny-list family. */
      function?: string;
      family?: string;
    };

type Refusal = Extract<ReadOnlyVerdict, { ok: false }>;

const STATEMENT_LABELS: Record<string, string> = {
  InsertStmt: "INSERT",
  UpdateStmt: "UPDATE",
  DeleteStmt: "DELETE",
  MergeStmt: "MERGE",
  VariableSetStmt: "SET",
  TransactionStmt: "transaction control",
  CopyStmt: "COPY",
  DoStmt: "DO",
  CallStmt: "CALL",
  LockStmt: "LOCK",
  NotifyStmt: "NOTIFY",
  ListenStmt: "LISTEN",
  UnlistenStmt: "UNLISTEN",
  DeclareCursorStmt: "DECLARE CURSOR",
  FetchStmt: "FETCH",
  ClosePortalStmt: "CLOSE",
  ExecuteStmt: "EXECUTE",
  PrepareStmt: "PREPARE",
  DeallocateStmt: "DEALLOCATE",
  CreateTableAsStmt: "CREATE TABLE AS",
  VacuumStmt: "VACUUM/ANALYZE",
  DiscardStmt: "DISCARD",
  TruncateStmt: "TRUNCATE",
  DropStmt: "DROP",
  AlterSystemStmt: "ALTER SYSTEM",
  CheckPointStmt: "CHECKPOINT",
  LoadStmt: "LOAD",
  RefreshMatViewStmt: "REFRESH MATERIALIZED VIEW",
  ReindexStmt: "REINDEX",
  ClusterStmt: "CLUSTER",
};

/** `CreateFunctionStmt` → `CREATE FUNCTION`. */
function statementLabel(nodeName: string): string {
  return (
    STATEMENT_LABELS[nodeName] ??
    nodeName
      .replace(/Stmt$/, "")
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .toUpperCase()
  );
}

const ALLOWED = "only SELECT, VALUES, TABLE, set operations (UNION/INTERSECT/EXCEPT), EXPLAIN and SHOW";
const DATA_MODIFYING = new Set(["InsertStmt", "UpdateStmt", "DeleteStmt", "MergeStmt"]);

type Node = Record<string, unknown>;
const isObject = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The single key of a parse node such as `{ SelectStmt: {...} }`. */
function nodeKind(node: unknown): [string, Node] | undefined {
  if (!isObject(node)) return undefined;
  const keys = Object.keys(node);
  const key = keys[0];
  if (keys.length !== 1 || key === undefined) return undefined;
  const body = node[key];
  return isObject(body) ? [key, body] : undefined;
}

const stringValue = (node: unknown): string | undefined => {
  const kind = nodeKind(node);
  return kind?.[0] === "String" && typeof kind[1].sval === "string" ? kind[1].sval : undefined;
};

const LOCK_STRENGTH: Record<string, string> = {
  LCS_FORUPDATE: "FOR UPDATE",
  LCS_FORNOKEYUPDATE: "FOR NO KEY UPDATE",
  LCS_FORSHARE: "FOR SHARE",
  LCS_FORKEYSHARE: "FOR KEY SHARE",
};

/** Walk the whole tree (every subquery, CTE, expression and function argument) for forbidden nodes. */
function findForbidden(root: unknown): Refusal | undefined {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    if (!isObject(value)) continue;
    for (const [key, body] of Object.entries(value)) {
      if (isObject(body)) {
        if (DATA_MODIFYING.has(key)) {
          return {
            ok: false,
            rule: "data-modifying-cte",
            message: `a data-modifying statement (${statementLabel(key)}) inside WITH is not allowed`,
          };
        }
        if (key === "SelectStmt") {
          if (body.intoClause !== undefined) {
            return {
              ok: false,
              rule: "select-into",
              message: "SELECT INTO is not allowed: it creates a table",
            };
          }
          if (Array.isArray(body.lockingClause) && body.lockingClause.length > 0) {
            const clause = nodeKind(body.lockingClause[0])?.[1];
            const strength = LOCK_STRENGTH[String(clause?.strength)] ?? "FOR UPDATE/SHARE";
            return {
              ok: false,
              rule: "locking-clause",
              message: `the locking clause ${strength} is not allowed: it takes row locks`,
            };
          }
        }
        if (key === "FuncCall") {
          const parts = Array.isArray(body.funcname) ? body.funcname.map(stringValue) : [];
          const name = parts.at(-1);
          const schema = parts.length > 1 ? parts.at(-2) : undefined;
          if (name !== undefined) {
            const family = deniedFunctionFamily(name, schema);
            if (family) {
              const shown = parts.filter((p) => p !== undefined).join(".");
              return {
                ok: false,
                rule: "denied-function",
                message: `function ${shown}() is not allowed: ${family.reason} (deny list: ${family.id})`,
                function: shown,
                family: family.id,
              };
            }
          }
        }
      }
      if (typeof body === "object" && body !== null) stack.push(body);
    }
  }
  return undefined;
}

/** Check one top-level statement node (also the target of EXPLAIN). */
function checkStatement(statement: unknown, context: string): ReadOnlyVerdict {
  const kind = nodeKind(statement);
  if (!kind) {
    return { ok: false, rule: "statement-kind", message: `unrecognised statement: ${ALLOWED} are allowed` };
  }
  const [name, body] = kind;
  if (name === "SelectStmt") {
    return findForbidden(statement) ?? { ok: true, statement: "select" };
  }
  if (name === "VariableShowStmt" && context === "") return { ok: true, statement: "show" };
  if (name === "ExplainStmt" && context === "") {
    const analyze = Array.isArray(body.options)
      ? body.options.some((option) => nodeKind(option)?.[1].defname === "analyze")
      : false;
    const inner = checkStatement(body.query, analyze ? "EXPLAIN ANALYZE of " : "EXPLAIN of ");
    return inner.ok ? { ok: true, statement: "explain" } : inner;
  }
  const label = statementLabel(name);
  return {
    ok: false,
    rule: "statement-kind",
    message: `${context}${label} ${context ? "is" : "statements are"} not allowed: ${ALLOWED} are allowed`,
  };
}

let loaded: Promise<void> | undefined;

/** Load the parser's WebAssembly module (done once; `checkReadOnlySql` does it on first use). */
export function loadSqlParser(): Promise<void> {
  loaded ??= loadModule();
  return loaded;
}

/**
 * Decide whether `sql` is a read-only query this server may run: exactly one SELECT / VALUES / TABLE /
 * set operation, EXPLAIN of one, or SHOW, with no data-modifying CTE, SELECT INTO, locking clause or call
 * to a denied function anywhere in its tree. Uses PostgreSQL's own parser, so comments, quoting,
 * dollar-quoting and nesting cannot hide anything.
 */
export async function checkReadOnlySql(sql: string): Promise<ReadOnlyVerdict> {
  await loadSqlParser();
  return checkReadOnlySqlLoaded(sql);
}

/** `checkReadOnlySql` once the parser is loaded (synchronous, for the hot path). */
export function checkReadOnlySqlLoaded(sql: string): ReadOnlyVerdict {
  if (sql.trim() === "") return { ok: false, rule: "empty", message: "the query is empty" };
  let tree: { stmts?: unknown[] };
  try {
    tree = parseSync(sql) as { stmts?: unknown[] };
  } catch (error) {
    const details = (error as { sqlDetails?: { cursorPosition?: number } }).sqlDetails;
    const message = error instanceof Error ? error.message : String(error);
    const at =
      details?.cursorPosition !== undefined && details.cursorPosition >= 0
        ? ` (at character ${details.cursorPosition + 1})`
        : "";
    return { ok: false, rule: "syntax", message: `SQL syntax error: ${message}${at}` };
  }
  const statements = tree.stmts ?? [];
  if (statements.length === 0) {
    return { ok: false, rule: "empty", message: "the query has no statement (only comments or semicolons)" };
  }
  if (statements.length > 1) {
    return {
      ok: false,
      rule: "single-statement",
      message: `exactly one statement is allowed, got ${statements.length}`,
    };
  }
  const raw = statements[0] as { stmt?: unknown };
  return checkStatement(raw.stmt, "");
}
