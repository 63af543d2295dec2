/**
 * The client's errors. All extend `MCPError` from @agentforge/mcp-config: switch on `code`, never parse
 * `message`; use `isInstance()` rather than `instanceof` across package copies. What a remote server said
 * is kept apart: a JSON-RPC error number goes in `rpcCode`, an HTTP status in `httpStatus`.
 * No message ever contains a secret value: every value of a variable a server's config reads is
 * replaced by `[REDACTED]` before it reaches a message, an event or a log file.
 */
import { MCPError, type MCPErrorOptions } from "@agentforge/mcp-config";

/** Codes of `MCPServerNotFoundError`. */
export type MCPServerNotFoundErrorCode =
  /** No server of that name is configured. */
  | "SERVER_NOT_FOUND"
  /** The server is configured with `enabled: false`. */
  | "SERVER_DISABLED";

/** Codes of `MCPConnectionError`: why a server could not be reached, or why a live connection ended. */
export type MCPConnectionErrorCode =
  /** stdio: the command does not exist (spawn ENOENT). */
  | "COMMAND_NOT_FOUND"
  /** stdio: the command exists but cannot be executed (spawn EACCES: no x bit, a directory, ...). */
  | "COMMAND_NOT_EXECUTABLE"
  /** stdio: the process exited before the MCP handshake completed (see `exitCode` and the stderr tail). */
  | "SERVER_EXITED"
  /** The server did not answer `initialize` within `connection_timeout`. */
  | "HANDSHAKE_TIMEOUT"
  /** The config cannot be used as it is: an unset `${VAR}`, a missing credential variable, an unreadable certificate. */
  | "SERVER_MISCONFIGURED"
  /** Any other start-up failure (e.g. `cwd` does not exist); the message says what happened. */
  | "SERVER_START_FAILED"
  /** http: connection refused, reset or timed out at the TCP level. */
  | "HTTP_UNREACHABLE"
  /** http: the host name does not resolve. */
  | "HTTP_DNS"
  /** http: TLS handshake failed (untrusted or mismatched certificate, client certificate refused). */
  | "HTTP_TLS"
  /** http: 401, the credentials are missing or were rejected. */
  | "HTTP_UNAUTHORIZED"
  /** http: 403, the credentials are valid but not allowed. */
  | "HTTP_FORBIDDEN"
  /** http: 404, nothing answers MCP at that URL (Streamable HTTP and legacy SSE both tried). */
  | "HTTP_NOT_FOUND"
  /** http: another unexpected HTTP status (see `httpStatus`). */
  | "HTTP_ERROR"
  /** OAuth: the authorization server refused the client credentials or could not be used, or a login failed (refused, wrong `state`). */
  | "AUTH_FAILED"
  /** OAuth `authorization_code`: the server needs a user login and this process cannot ask for one ("needs login"). */
  | "AUTH_REQUIRED"
  /** OAuth `authorization_code`: the browser did not come back to the loopback redirect in time. */
  | "LOGIN_TIMEOUT"
  /** A live connection ended while a request was in flight (process exited, HTTP session lost). */
  | "CONNECTION_LOST"
  /** The connection was closed by `close()`, `closeAll()`, `applyConfig()` or a health recycle. */
  | "CONNECTION_CLOSED";

/** Codes of `MCPTimeoutError`. */
export type MCPTimeoutErrorCode =
  /** A `tools/call` took longer than its timeout (or its max total timeout); cancellation was sent. */
  | "TOOL_TIMEOUT"
  /** Another request (`tools/list`, `ping`, waiting for a call slot) took longer than allowed. */
  | "REQUEST_TIMEOUT";

/** Codes of `MCPRequestError`: a request failed while the connection stayed up. */
export type MCPRequestErrorCode =
  /** The server answered with a JSON-RPC error (see `rpcCode`). */
  | "RPC_ERROR"
  /** The reply was larger than `max_message_bytes`; it was discarded and the connection is still usable. */
  | "REPLY_TOO_LARGE"
  /** The caller's AbortSignal fired; `notifications/cancelled` was sent to the server. */
  | "REQUEST_CANCELLED"
  /** The reply is not a valid MCP result (wrong shape, or structured content not matching the output schema). */
  | "INVALID_REPLY"
  /** The server does not speak the protocol revision asked for (JSON-RPC -32022; the message lists the ones it does). */
  | "PROTOCOL_VERSION_UNSUPPORTED"
  /** The server refused the request's MCP headers as not matching its body (JSON-RPC -32020). */
  | "PROTOCOL_HEADER_MISMATCH"
  /** `resources/read`: the server has no resource at that URI (JSON-RPC -32002, or -32602 in 2026-07-28). */
  | "RESOURCE_NOT_FOUND"
  /** A request needed more input rounds (`input_required`) than the client allows. */
  | "INPUT_ROUNDS_EXCEEDED"
  /**
   * An `input_required` round carried a `requestState` over the client's limit (256 KiB, see
   * `limitBytes`); the request was stopped and the state neither sent back nor logged.
   */
  | "REQUEST_STATE_TOO_LARGE";

/** Codes of `MCPCapabilityError`. */
export type MCPCapabilityErrorCode =
  /** The server did not declare the capability the request needs (e.g. `resources`, `prompts`, `tasks`). */
  | "CAPABILITY_NOT_SUPPORTED"
  /**
   * The tool only runs as a task (`execution.taskSupport: "required"`) and the connection negotiated
   * 2026-07-28, where this client does not run tasks yet (the tasks extension, SEP-2663); the call was not sent.
   */
  | "TASK_EXECUTION_UNSUPPORTED";

/** Every code the client's errors use. */
export type MCPClientErrorCode =
  | MCPServerNotFoundErrorCode
  | MCPConnectionErrorCode
  | MCPTimeoutErrorCode
  | MCPRequestErrorCode
  | MCPCapabilityErrorCode;

/** Constructor options of `MCPServerNotFoundError`. */
export interface MCPServerNotFoundErrorOptions extends MCPErrorOptions<MCPServerNotFoundErrorCode> {
  /** The name that was asked for. */
  serverName?: string;
}

/** A server name is unknown or disabled. Raised before any connection attempt. */
export class MCPServerNotFoundError extends MCPError<MCPServerNotFoundErrorCode> {
  static override readonly errorName: string = "MCPServerNotFoundError";
  /** The name that was asked for. */
  readonly serverName: string | undefined;

  constructor(message: string, options: MCPServerNotFoundErrorOptions) {
    super(message, options);
    this.serverName = options.serverName;
  }
}

/** How a connection was made: stdio child process, Streamable HTTP, or the legacy HTTP+SSE transport. */
export type MCPConnectionKind = "stdio" | "streamable-http" | "sse";

/** Constructor options of `MCPConnectionError`. */
export interface MCPConnectionErrorOptions extends MCPErrorOptions<MCPConnectionErrorCode> {
  /** The server concerned. */
  serverName?: string;
  /** The transport that failed. */
  transport?: MCPConnectionKind;
  /** HTTP status the server answered with, when there was one. */
  httpStatus?: number;
  /** stdio: the child's exit code, when it exited. */
  exitCode?: number | null;
  /** stdio: the signal that ended the child, when one did. */
  signal?: string | null;
  /** stdio: the file holding the child's stderr. */
  stderrLogPath?: string;
}

/** A server could not be started or reached, or a live connection ended. */
export class MCPConnectionError extends MCPError<MCPConnectionErrorCode> {
  static override readonly errorName: string = "MCPConnectionError";
  /** The server concerned. */
  readonly serverName: string | undefined;
  /** The transport that failed. */
  readonly transport: MCPConnectionKind | undefined;
  /** HTTP status the server answered with (never used as `code`). */
  readonly httpStatus: number | undefined;
  /** stdio: the child's exit code, when it exited. */
  readonly exitCode: number | null | undefined;
  /** stdio: the signal that ended the child, when one did. */
  readonly signal: string | null | undefined;
  /** stdio: the file holding the child's stderr. */
  readonly stderrLogPath: string | undefined;

  constructor(message: string, options: MCPConnectionErrorOptions) {
    super(message, options);
    this.serverName = options.serverName;
    this.transport = options.transport;
    this.httpStatus = options.httpStatus;
    this.exitCode = options.exitCode;
    this.signal = options.signal;
    this.stderrLogPath = options.stderrLogPath;
  }
}

/** Constructor options of `MCPTimeoutError`. */
export interface MCPTimeoutErrorOptions extends MCPErrorOptions<MCPTimeoutErrorCode> {
  /** The server concerned. */
  serverName?: string;
  /** The tool, for `TOOL_TIMEOUT`. */
  toolName?: string;
  /** The JSON-RPC method that timed out. */
  method?: string;
  /** The limit that was exceeded, in milliseconds. */
  timeoutMs?: number;
  /** How long the request had run when it was given up, in milliseconds. */
  elapsedMs?: number;
}

/** A request took longer than its limit. For tool calls, `notifications/cancelled` was sent. */
export class MCPTimeoutError extends MCPError<MCPTimeoutErrorCode> {
  static override readonly errorName: string = "MCPTimeoutError";
  /** The server concerned. */
  readonly serverName: string | undefined;
  /** The tool, for `TOOL_TIMEOUT`. */
  readonly toolName: string | undefined;
  /** The JSON-RPC method that timed out. */
  readonly method: string | undefined;
  /** The limit that was exceeded, in milliseconds. */
  readonly timeoutMs: number | undefined;
  /** How long the request had run when it was given up, in milliseconds. */
  readonly elapsedMs: number | undefined;

  constructor(message: string, options: MCPTimeoutErrorOptions) {
    super(message, options);
    this.serverName = options.serverName;
    this.toolName = options.toolName;
    this.method = options.method;
    this.timeoutMs = options.timeoutMs;
    this.elapsedMs = options.elapsedMs;
  }
}

/** Constructor options of `MCPRequestError`. */
export interface MCPRequestErrorOptions extends MCPErrorOptions<MCPRequestErrorCode> {
  /** The server concerned. */
  serverName?: string;
  /** The tool, for `tools/call`. */
  toolName?: string;
  /** The JSON-RPC method. */
  method?: string;
  /** The JSON-RPC error code the server answered with (`RPC_ERROR`). */
  rpcCode?: number;
  /** `REPLY_TOO_LARGE`: the limit in bytes. */
  limitBytes?: number;
  /** `REPLY_TOO_LARGE`: the size of the refused reply in bytes. */
  replyBytes?: number;
}

/** One request failed while the connection stayed usable (server error, reply too large, cancelled). */
export class MCPRequestError extends MCPError<MCPRequestErrorCode> {
  static override readonly errorName: string = "MCPRequestError";
  /** The server concerned. */
  readonly serverName: string | undefined;
  /** The tool, for `tools/call`. */
  readonly toolName: string | undefined;
  /** The JSON-RPC method. */
  readonly method: string | undefined;
  /** The JSON-RPC error code the server answered with (never used as `code`). */
  readonly rpcCode: number | undefined;
  /** `REPLY_TOO_LARGE`, `REQUEST_STATE_TOO_LARGE`: the limit in bytes. */
  readonly limitBytes: number | undefined;
  /** `REPLY_TOO_LARGE`: the size of the refused reply in bytes. */
  readonly replyBytes: number | undefined;

  constructor(message: string, options: MCPRequestErrorOptions) {
    super(message, options);
    this.serverName = options.serverName;
    this.toolName = options.toolName;
    this.method = options.method;
    this.rpcCode = options.rpcCode;
    this.limitBytes = options.limitBytes;
    this.replyBytes = options.replyBytes;
  }
}

/** Constructor options of `MCPCapabilityError`. */
export interface MCPCapabilityErrorOptions extends MCPErrorOptions<MCPCapabilityErrorCode> {
  /** The server concerned. */
  serverName?: string;
  /** The server capability that is missing (`resources`, `prompts`, `tasks`). */
  capability?: string;
  /** The JSON-RPC method that needs it. */
  method?: string;
}

/**
 * The server does not offer what was asked (it did not declare the capability in its handshake). Raised
 * before anything is sent; the connection stays usable.
 */
export class MCPCapabilityError extends MCPError<MCPCapabilityErrorCode> {
  static override readonly errorName: string = "MCPCapabilityError";
  /** The server concerned. */
  readonly serverName: string | undefined;
  /** The server capability that is missing. */
  readonly capability: string | undefined;
  /** The JSON-RPC method that needs it. */
  readonly method: string | undefined;

  constructor(message: string, options: MCPCapabilityErrorOptions) {
    super(message, options);
    this.serverName = options.serverName;
    this.capability = options.capability;
    this.method = options.method;
  }
}
