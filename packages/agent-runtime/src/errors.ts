import type { MCPClientErrorCode } from "@agentforge/mcp-client";
import { type MCPConfigErrorCode, MCPError } from "@agentforge/mcp-config";
import type { MCPPermissionsErrorCode } from "@agentforge/mcp-permissions";
import type { MCPConfirmationRequest } from "./confirmation.js";

/** Codes of the errors this package exports. */
export type MCPRuntimeErrorCode =
  /** The identity is not in the registry (or not among the tools bound for the model). */
  | "TOOL_NOT_FOUND"
  /** The arguments are not an object, not valid JSON, or break the tool's input schema; nothing was sent. */
  | "INVALID_ARGUMENTS"
  /** The tool answered with `isError: true`. */
  | "TOOL_ERROR"
  /** The call failed in the protocol or transport (server crashed, connection lost, bad reply). */
  | "TOOL_FAILED"
  /** The caller's AbortSignal cancelled the call (the server was sent an MCP cancellation). */
  | "TOOL_CANCELLED"
  /** The toolkit was closed; nothing is started after `close()`. */
  | "TOOLKIT_CLOSED"
  /** A run used up its tool searches (`max_searches`); the search was not made. */
  | "SEARCH_LIMIT_REACHED"
  /** The tool ranker failed (e.g. a custom ranker threw); nothing was found. */
  | "SEARCH_FAILED"
  /** The call needs a person's confirmation and none could be asked (or the run waits for one). */
  | "CONFIRMATION_REQUIRED"
  /** The person said no, the confirmation failed or timed out, or an answer was for another call. */
  | "CONFIRMATION_DENIED"
  /** The run made too many confirmation requests (a looping model); the call was not made. */
  | "CONFIRMATION_LIMIT_REACHED";

/**
 * Every code an error of the @agentforge packages can have — config, client, permissions and runtime —
 * so `switch (error.code)` over anything `execute()`, `tools()` or a tool loop throws is checked.
 */
export type MCPErrorCode =
  | MCPConfigErrorCode
  | MCPClientErrorCode
  | MCPPermissionsErrorCode
  | MCPRuntimeErrorCode;

const NAME_LIMIT = 200;

/** The server and tool parts of an identity (`<server>.<tool>`); a name without a dot has neither. */
function partsOf(identity: string): { serverName: string | undefined; toolName: string | undefined } {
  const dot = identity.indexOf(".");
  return dot > 0 && dot < identity.length - 1
    ? { serverName: identity.slice(0, dot), toolName: identity.slice(dot + 1) }
    : { serverName: undefined, toolName: undefined };
}

/** A name from a model or a server, bounded and on one line, for a message. */
function quoted(name: string): string {
  const line = String(name).replace(/[\r\n\t]/g, " ");
  return JSON.stringify(line.length > NAME_LIMIT ? `${line.slice(0, NAME_LIMIT - 1)}…` : line);
}

/**
 * The identity asked for is not a registered tool. `known` is what the message may list: the executor
 * passes only the tools the asking agent may call (never the whole registry), the tool loop the names
 * bound for the model.
 */
export class MCPToolNotFoundError extends MCPError<"TOOL_NOT_FOUND"> {
  static override readonly errorName: string = "MCPToolNotFoundError";
  /** What was asked for: an identity, `<server>.<tool>`, or the model tool name that maps to none. */
  readonly identity: string;
  /** The server part of the identity, when it has one. */
  readonly serverName: string | undefined;
  /** The tool part of the identity, when it has one. */
  readonly toolName: string | undefined;

  constructor(identity: string, known: readonly string[] = [], options: { reason?: string } = {}) {
    const hint =
      known.length > 0
        ? ` Known tools: ${known.slice(0, 20).join(", ")}${known.length > 20 ? ", ..." : ""}.`
        : "";
    const reason = options.reason ? ` ${options.reason}` : "";
    super(`Tool ${quoted(identity)} is not registered.${reason}${hint}`, { code: "TOOL_NOT_FOUND" });
    this.identity = identity;
    ({ serverName: this.serverName, toolName: this.toolName } = partsOf(identity));
  }
}

/** One way a call's arguments break the tool's input schema: a field path and what was expected. */
export interface MCPArgumentIssue {
  /** `(root)`, `path`, `options.tail`, `edits[2].oldText`. */
  path: string;
  /** What was expected; never the value sent. */
  message: string;
}

/**
 * A call's arguments are not an object, are not valid JSON, or break the tool's input schema. Refused
 * before anything is sent to the server; the message names each field path and what was expected, and
 * never the values (they may be secrets).
 */
export class MCPInvalidArgumentsError extends MCPError<"INVALID_ARGUMENTS"> {
  static override readonly errorName: string = "MCPInvalidArgumentsError";
  /** The identity called, `<server>.<tool>` (or the model tool name, when it maps to none). */
  readonly identity: string;
  /** The server part of the identity, when it has one. */
  readonly serverName: string | undefined;
  /** The tool part of the identity, when it has one. */
  readonly toolName: string | undefined;
  readonly issues: readonly MCPArgumentIssue[];

  constructor(identity: string, issues: readonly MCPArgumentIssue[]) {
    const list = issues.map((i) => `${i.path}: ${i.message}`).join("; ");
    super(
      `The arguments for ${quoted(identity)} do not match its input schema: ${list}. Fix these fields and call the tool again.`,
      { code: "INVALID_ARGUMENTS" },
    );
    this.identity = identity;
    ({ serverName: this.serverName, toolName: this.toolName } = partsOf(identity));
    this.issues = issues.map((i) => ({ path: i.path, message: i.message }));
  }
}

/** A tool call that returned an error result, failed in transit, or was cancelled. */
export class MCPToolExecutionError extends MCPError<"TOOL_ERROR" | "TOOL_FAILED" | "TOOL_CANCELLED"> {
  static override readonly errorName: string = "MCPToolExecutionError";
  /** The identity called, `<server>.<tool>`. */
  readonly identity: string;
  readonly serverName: string;
  /** The tool's name as its server lists it. */
  readonly toolName: string;
  /**
   * For TOOL_ERROR: the tool's error text, bounded like any result. It is tool output (it may echo the
   * arguments), so it is kept out of `message` and `toJSON()`: give it to the model, not to logs.
   */
  declare readonly toolErrorText: string | undefined;
  /** A JSON-RPC error number the server sent, if any. */
  readonly rpcCode: number | undefined;

  constructor(
    message: string,
    options: {
      code: "TOOL_ERROR" | "TOOL_FAILED" | "TOOL_CANCELLED";
      identity: string;
      serverName: string;
      toolName: string;
      toolErrorText?: string;
      rpcCode?: number;
      cause?: unknown;
    },
  ) {
    super(message, { code: options.code, cause: options.cause });
    this.identity = options.identity;
    this.serverName = options.serverName;
    this.toolName = options.toolName;
    Object.defineProperty(this, "toolErrorText", { value: options.toolErrorText, enumerable: false });
    this.rpcCode = options.rpcCode;
  }
}

/**
 * A toolkit was used after `close()` (or `await using` ended). A closed toolkit starts no server again:
 * create a new one with `createMCPToolkit`.
 */
export class MCPToolkitClosedError extends MCPError<"TOOLKIT_CLOSED"> {
  static override readonly errorName: string = "MCPToolkitClosedError";
  /** What was called on the closed toolkit, e.g. `tools`, `execute`, `reload`. */
  readonly operation: string;

  constructor(operation: string) {
    super(
      `The MCP toolkit is closed, so ${operation}() cannot run: its servers were stopped. Create a new toolkit with createMCPToolkit().`,
      { code: "TOOLKIT_CLOSED" },
    );
    this.operation = operation;
  }
}

/**
 * A tool search was refused or failed: `SEARCH_LIMIT_REACHED` (the run's `max_searches` are used up),
 * `SEARCH_FAILED` (the ranker threw; the error is the `cause`). The message names the agent; it never
 * holds the query.
 */
export class MCPToolSearchError extends MCPError<"SEARCH_LIMIT_REACHED" | "SEARCH_FAILED"> {
  static override readonly errorName: string = "MCPToolSearchError";
  /** The agent that searched. */
  readonly agent: string;

  constructor(
    message: string,
    options: { code: "SEARCH_LIMIT_REACHED" | "SEARCH_FAILED"; agent: string; cause?: unknown },
  ) {
    super(message, { code: options.code, cause: options.cause });
    this.agent = options.agent;
  }
}

/** The codes of `MCPConfirmationError`. */
export type MCPConfirmationErrorCode =
  | "CONFIRMATION_REQUIRED"
  | "CONFIRMATION_DENIED"
  | "CONFIRMATION_LIMIT_REACHED";

/**
 * A call that needs a person's confirmation did not get it, so it was not made: `CONFIRMATION_REQUIRED`
 * (no one could be asked: no `confirm` handler, or the run pauses until someone answers — then `request`
 * is what to show them), `CONFIRMATION_DENIED` (the person said no, the handler failed or timed out, or
 * an answer given was for another call), `CONFIRMATION_LIMIT_REACHED` (the run made too many
 * confirmation requests). The message names the tool and never holds argument values.
 */
export class MCPConfirmationError extends MCPError<MCPConfirmationErrorCode> {
  static override readonly errorName: string = "MCPConfirmationError";
  /** The identity called, `<server>.<tool>`. */
  readonly identity: string;
  readonly serverName: string;
  /** The tool's name as its server lists it. */
  readonly toolName: string;
  /** The agent that called. */
  readonly agent: string;
  /** The call's id (the confirmation request's `callId`). */
  readonly callId: string;
  /**
   * The confirmation request, when one was made: what to show a person (it holds the argument preview,
   * so it is kept out of `toJSON()` and logs).
   */
  declare readonly request: MCPConfirmationRequest | undefined;

  constructor(
    message: string,
    options: {
      code: MCPConfirmationErrorCode;
      identity: string;
      serverName: string;
      toolName: string;
      agent: string;
      callId: string;
      request?: MCPConfirmationRequest;
      cause?: unknown;
    },
  ) {
    super(message, { code: options.code, cause: options.cause });
    this.identity = options.identity;
    this.serverName = options.serverName;
    this.toolName = options.toolName;
    this.agent = options.agent;
    this.callId = options.callId;
    Object.defineProperty(this, "request", { value: options.request, enumerable: false });
  }
}
