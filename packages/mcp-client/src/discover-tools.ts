import type { MCPError } from "@agentforge/mcp-config";

/** A JSON Schema object as MCP tools declare it (`type: "object"` at the top). */
export interface MCPJsonSchema {
  /** Always `"object"` for tool input and output schemas. */
  type: "object";
  /** Property name -> its JSON Schema. */
  properties?: Record<string, unknown>;
  /** Required property names. */
  required?: string[];
  /** Any other JSON Schema keyword. */
  [keyword: string]: unknown;
}

/** Hints a server gives about a tool's behaviour (MCP `ToolAnnotations`); never trust them for security. */
export interface MCPToolAnnotations {
  /** Human-readable title. */
  title?: string;
  /** The tool does not modify its environment. */
  readOnlyHint?: boolean;
  /** The tool may perform destructive updates. */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments has no additional effect. */
  idempotentHint?: boolean;
  /** The tool interacts with an open world of external entities. */
  openWorldHint?: boolean;
  /** Any other annotation. */
  [hint: string]: unknown;
}

/** How a tool may be run (MCP `execution`): whether `tools/call` must, may or must not create a task. */
export interface MCPToolExecution {
  /**
   * `required`: the tool only runs as a task (the manager creates one and waits for its result);
   * `optional`: it may (the manager calls it plainly); `forbidden` or absent: plain calls only.
   */
  taskSupport?: "required" | "optional" | "forbidden";
}

/** One tool of one server, as plain serializable data (never an SDK object). */
export interface DiscoveredTool {
  /** `<server>.<tool>`, unique across servers (server names contain no dots). */
  identity: string;
  /** The server's name in the config. */
  serverName: string;
  /** The tool's name on that server. */
  toolName: string;
  /** Display title (from `title` or `annotations.title`), when the server gives one. */
  title?: string;
  /** What the tool does (empty when the server gives none). */
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: MCPJsonSchema;
  /** JSON Schema of `structuredContent`, when the tool declares one. */
  outputSchema?: MCPJsonSchema;
  /** Behaviour hints, when the server gives them. */
  annotations?: MCPToolAnnotations;
  /** How the tool may be run (task support), when the server says; a malformed hint is flagged and left out. */
  execution?: MCPToolExecution;
  /**
   * What is wrong with this definition, when something is (absent when nothing is). The client
   * delivers every tool a server lists, as data, and flags problems here instead of dropping or
   * rejecting: deciding (e.g. refusing a server whose list has duplicates) is the registry's job.
   */
  problems?: MCPToolProblem[];
}

/** Why a discovered tool definition is flagged (see `DiscoveredTool.problems`). */
export type MCPToolProblemCode =
  /** Another tool of the same list has the same name (every one of them is flagged). */
  | "DUPLICATE_NAME"
  /** The name does not match `^[a-zA-Z0-9_-]{1,64}$`, the pattern model APIs accept. */
  | "NAME_NOT_MODEL_SAFE"
  /** `inputSchema` is not a JSON Schema object with `type: "object"`; it is kept as the server sent it. */
  | "INPUT_SCHEMA_NOT_OBJECT"
  /** `outputSchema` is present but not an object schema, or cannot be compiled; results are not checked against it. */
  | "OUTPUT_SCHEMA_INVALID"
  /** `execution` is not an object, or its `taskSupport` is not "required"/"optional"/"forbidden"; it is ignored. */
  | "EXECUTION_INVALID"
  /**
   * The tool only runs as a task and was listed on a 2026-07-28 connection, where this client does not
   * run tasks yet (the tasks extension, SEP-2663): it is not offered to models, and calling it fails with
   * `TASK_EXECUTION_UNSUPPORTED` (2025-11-25 connections run it as a task).
   */
  | "TASK_EXECUTION_UNSUPPORTED"
  /** Another field breaks the MCP `Tool` schema (e.g. a description that is not a string); kept as far as possible. */
  | "INVALID_DEFINITION";

/** One problem of a discovered tool definition. */
export interface MCPToolProblem {
  /** What is wrong. */
  code: MCPToolProblemCode;
  /** A short explanation for logs and management surfaces. */
  message: string;
}

/** How discovery went for one server. */
export interface MCPServerDiscovery {
  /** The server's name. */
  serverName: string;
  /** `ok` with its tools, or `failed` with the error. */
  status: "ok" | "failed";
  /** Number of tools found (0 when failed). */
  toolCount: number;
  /** Why it failed (an `MCPConnectionError`, `MCPTimeoutError`, ...). */
  error?: MCPError;
  /** Time spent on this server, connection included. */
  durationMs: number;
}

/** Result of `discoverAll`: every tool found, and a per-server report. */
export interface MCPDiscoveryResult {
  /** Tools of every server that answered, in config order. */
  tools: DiscoveredTool[];
  /** One entry per enabled server, in config order. */
  servers: MCPServerDiscovery[];
  /** Wall time of the whole discovery. */
  durationMs: number;
}

/** Options of `discoverTools` and `discoverAll`. */
export interface DiscoverOptions {
  /** Abandon waiting when this fires. */
  signal?: AbortSignal;
}

/** What discovery needs of a manager (an `MCPClientManager` is one). */
export interface MCPToolSource {
  /** Names of the enabled servers. */
  serverNames(): string[];
  /** The tools of one server (all pages). */
  listTools(serverName: string, options?: DiscoverOptions): Promise<DiscoveredTool[]>;
}

/**
 * Whether a tool only runs as a task (`execution.taskSupport === "required"`). `MCPClientManager.callTool`
 * handles such tools (it creates the task and waits for its result); a caller that cannot (e.g. one
 * that binds tools to a model through another client) should not offer them.
 */
export function requiresTaskExecution(tool: Pick<DiscoveredTool, "execution">): boolean {
  return tool.execution?.taskSupport === "required";
}

/**
 * Why a discovered tool cannot be called and so must not be offered to a model, when it cannot: the
 * message of its `TASK_EXECUTION_UNSUPPORTED` problem (see `MCPToolProblemCode`); `undefined` otherwise.
 */
export function toolUnavailableReason(tool: Pick<DiscoveredTool, "problems">): string | undefined {
  return tool.problems?.find((problem) => problem.code === "TASK_EXECUTION_UNSUPPORTED")?.message;
}

/**
 * The tools of one server: connects if needed (reusing the live connection otherwise), follows
 * `tools/list` pagination, caches the list on the manager (a later difference fires `toolsChanged`).
 * Throws `MCPServerNotFoundError`, `MCPConnectionError`, `MCPTimeoutError` or `MCPRequestError`.
 */
export function discoverTools(
  manager: MCPToolSource,
  serverName: string,
  options: DiscoverOptions = {},
): Promise<DiscoveredTool[]> {
  return manager.listTools(serverName, options);
}

/**
 * Discover every enabled server in parallel. A server that fails is reported in `servers`, never
 * thrown; the whole call takes about as long as the slowest server (each bounded by its own
 * `connection_timeout`), not the sum.
 */
export async function discoverAll(
  manager: MCPToolSource,
  options: DiscoverOptions = {},
): Promise<MCPDiscoveryResult> {
  const started = performance.now();
  const servers = await Promise.all(
    manager.serverNames().map(async (serverName) => {
      const begin = performance.now();
      try {
        const tools = await manager.listTools(serverName, options);
        const report: MCPServerDiscovery = {
          serverName,
          status: "ok",
          toolCount: tools.length,
          durationMs: performance.now() - begin,
        };
        return { tools, report };
      } catch (error) {
        const report: MCPServerDiscovery = {
          serverName,
          status: "failed",
          toolCount: 0,
          error: error as MCPError,
          durationMs: performance.now() - begin,
        };
        return { tools: [] as DiscoveredTool[], report };
      }
    }),
  );
  return {
    tools: servers.flatMap((result) => result.tools),
    servers: servers.map((result) => result.report),
    durationMs: performance.now() - started,
  };
}
