import { MCPError } from "@agentforge/mcp-config";

/** Codes of the errors this package exports. */
export type MCPPermissionsErrorCode =
  /** A tool identity is claimed by a second server, or twice with different definitions. */
  | "TOOL_DUPLICATE"
  /** The policy denied an agent's call (thrown by the executor from a deny decision). */
  | "TOOL_DENIED"
  /** `restoreApprovals` was given something that is not an approvals snapshot. */
  | "SNAPSHOT_INVALID";

/**
 * A tool identity that another server already owns, or a server listing one tool name twice. The registry
 * rejects such a server's whole tool list (see `MCPToolRegistry.replaceServer`).
 */
export class MCPDuplicateToolError extends MCPError<"TOOL_DUPLICATE"> {
  static override readonly errorName: string = "MCPDuplicateToolError";
  /** The contested tool name as the server listed it (registry errors); older callers may pass an identity. */
  readonly toolName: string;
  /** The contested identity, `<server>.<tool>`. */
  readonly identity: string;
  /** The server that tried to register it. */
  readonly serverName: string;
  /** The server that owns it, when another one does. */
  readonly ownerServerName: string | undefined;

  constructor(
    message: string,
    options: { toolName: string; serverName: string; ownerServerName?: string; identity?: string },
  ) {
    super(message, { code: "TOOL_DUPLICATE" });
    this.toolName = options.toolName;
    this.identity = options.identity ?? options.toolName;
    this.serverName = options.serverName;
    this.ownerServerName = options.ownerServerName;
  }
}

/** `MCPToolRegistry.restoreApprovals` was given data that is not an approvals snapshot. */
export class MCPApprovalsSnapshotError extends MCPError<"SNAPSHOT_INVALID"> {
  static override readonly errorName: string = "MCPApprovalsSnapshotError";
  /** Where in the snapshot the problem is, e.g. `approvals[3].definition`. */
  readonly path: string;

  constructor(path: string, expected: string) {
    super(
      `The approvals snapshot is invalid at "${path}": expected ${expected}. Pass what registry.exportApprovals() returned (as parsed JSON), or start without one.`,
      { code: "SNAPSHOT_INVALID" },
    );
    this.path = path;
  }
}

/** An agent asked for a tool its grants do not cover (or a deny pattern / pinned definition blocks). */
export class MCPPermissionDeniedError extends MCPError<"TOOL_DENIED"> {
  static override readonly errorName: string = "MCPPermissionDeniedError";
  /** The agent that asked. */
  readonly agent: string;
  /** The identity asked for, `<server>.<tool>`. */
  readonly toolName: string;
  /** The server part of the identity. */
  readonly serverName: string | undefined;
  /** Why the policy said no, as `MCPPermissionDecision.reason`. */
  readonly reason: string;
  /** The deny pattern that matched, if a deny rule decided. */
  readonly matchedPattern: string | undefined;

  constructor(options: {
    agent: string;
    toolName: string;
    serverName?: string;
    reason: string;
    matchedPattern?: string;
  }) {
    super(`Agent "${options.agent}" may not call "${options.toolName}": ${options.reason}`, {
      code: "TOOL_DENIED",
    });
    this.agent = options.agent;
    this.toolName = options.toolName;
    this.serverName = options.serverName;
    this.reason = options.reason;
    this.matchedPattern = options.matchedPattern;
  }
}
