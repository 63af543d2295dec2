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
  /** The contested tool's name as the server listed it. */
  readonly toolName: string;
  /** The contested identity, `<server>.<tool>`. */
  readonly identity: string;
  /** The server that tried to register it. */
  readonly serverName: string;
  /** The server that owns it, when another one does. */
  readonly ownerServerName: string | undefined;

  constructor(
    message: string,
    options: { identity: string; serverName: string; toolName: string; ownerServerName?: string },
  ) {
    super(message, { code: "TOOL_DUPLICATE" });
    this.toolName = options.toolName;
    this.identity = options.identity;
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

/** What a denied request asked for. */
export type MCPPermissionSubject = "tool" | "resource" | "prompt";

/**
 * An agent asked for a tool (or a resource, or a prompt) its grants do not cover, or a deny pattern or a
 * pinned definition blocks.
 */
export class MCPPermissionDeniedError extends MCPError<"TOOL_DENIED"> {
  static override readonly errorName: string = "MCPPermissionDeniedError";
  /** The agent that asked. */
  readonly agent: string;
  /** What was asked for: a tool call (default), a resource read or a prompt. */
  readonly kind: MCPPermissionSubject;
  /**
   * What was asked for, as the grant patterns name it: `<server>.<tool>` for a tool, `<server>.<prompt>`
   * for a prompt, `<server>:<uri>` (without the URI's query and fragment) for a resource.
   */
  readonly identity: string;
  /** The server asked. */
  readonly serverName: string | undefined;
  /** `kind: "tool"`: the tool's name as its server lists it. */
  readonly toolName: string | undefined;
  /** `kind: "resource"`: the URI asked for, without its query and fragment. */
  readonly uri: string | undefined;
  /** `kind: "prompt"`: the prompt's name. */
  readonly promptName: string | undefined;
  /** Why the policy said no, as `MCPPermissionDecision.reason`. */
  readonly reason: string;
  /** The deny pattern that matched, if a deny rule decided. */
  readonly matchedPattern: string | undefined;

  constructor(options: {
    agent: string;
    identity: string;
    kind?: MCPPermissionSubject;
    serverName?: string;
    toolName?: string;
    uri?: string;
    promptName?: string;
    reason: string;
    matchedPattern?: string;
  }) {
    const kind = options.kind ?? "tool";
    const verb = kind === "resource" ? "read" : kind === "prompt" ? "get the prompt" : "call";
    super(`Agent "${options.agent}" may not ${verb} "${options.identity}": ${options.reason}`, {
      code: "TOOL_DENIED",
    });
    this.agent = options.agent;
    this.kind = kind;
    this.identity = options.identity;
    this.serverName = options.serverName;
    this.toolName = options.toolName;
    this.uri = options.uri;
    this.promptName = options.promptName;
    this.reason = options.reason;
    this.matchedPattern = options.matchedPattern;
  }
}
