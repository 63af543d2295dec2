import { MCPError } from "@agentforge/mcp-config";

/** Codes of the errors this package exports. */
export type MCPRuntimeErrorCode =
  /** The identity is not in the registry. */
  | "TOOL_NOT_FOUND"
  /** The tool answered with `isError: true`. */
  | "TOOL_ERROR"
  /** The call failed in the protocol or transport (server crashed, connection lost, bad reply). */
  | "TOOL_FAILED"
  /** The caller's AbortSignal cancelled the call (the server was sent an MCP cancellation). */
  | "TOOL_CANCELLED";

/** The identity asked for is not a registered tool. */
export class MCPToolNotFoundError extends MCPError<"TOOL_NOT_FOUND"> {
  static override readonly errorName: string = "MCPToolNotFoundError";
  /** The identity asked for. */
  readonly toolName: string;
  /** The server part of the identity, when it has one. */
  readonly serverName: string | undefined;

  constructor(toolName: string, known: readonly string[] = []) {
    const hint =
      known.length > 0
        ? ` Known tools: ${known.slice(0, 20).join(", ")}${known.length > 20 ? ", ..." : ""}.`
        : "";
    super(`Tool "${toolName}" is not registered.${hint}`, { code: "TOOL_NOT_FOUND" });
    this.toolName = toolName;
    const dot = toolName.indexOf(".");
    this.serverName = dot > 0 ? toolName.slice(0, dot) : undefined;
  }
}

/** A tool call that returned an error result, failed in transit, or was cancelled. */
export class MCPToolExecutionError extends MCPError<"TOOL_ERROR" | "TOOL_FAILED" | "TOOL_CANCELLED"> {
  static override readonly errorName: string = "MCPToolExecutionError";
  /** The identity called. */
  readonly toolName: string;
  readonly serverName: string;
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
      toolName: string;
      serverName: string;
      toolErrorText?: string;
      rpcCode?: number;
      cause?: unknown;
    },
  ) {
    super(message, { code: options.code, cause: options.cause });
    this.toolName = options.toolName;
    this.serverName = options.serverName;
    Object.defineProperty(this, "toolErrorText", { value: options.toolErrorText, enumerable: false });
    this.rpcCode = options.rpcCode;
  }
}
