// Per-run confinement over one shared MCP stack. `agentforge serve` starts the workspace servers (those
// whose config reads `AGENTFORGE_WORKSPACE`, e.g. the filesystem server) once, rooted at the allowed
// base, and every run shares them. A run must still read only its own folder, so each run's executor
// calls the servers through this guard: before a call to a workspace server, every path argument is
// resolved (relative paths against the run's folder, symlinks followed up to the deepest existing part)
// and must lie inside the run's folder; otherwise the call is refused locally — never sent — and the
// model gets an error tool message it can correct. Every guarded call also carries the run's folder as
// `_meta["io.agentforge/roots"]`, so the first-party filesystem server narrows that call's sandbox to the
// folder and checks again after it opens (a folder swapped between the two checks is refused there).
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { MCPToolCallClient } from "@agentforge/agent-runtime";
import { MCPError, type MCPServerConfig } from "@agentforge/mcp-config";
import { isInside } from "../shared/is-inside.js";

/** The environment variable naming the workspace folder in the roster (`env: { WORKSPACE_ROOT: AGENTFORGE_WORKSPACE }`). */
export const WORKSPACE_VARIABLE = "AGENTFORGE_WORKSPACE";

/**
 * The request `_meta` key with which the first-party filesystem server narrows one call's sandbox to some
 * of its folders (`NARROW_ROOTS_META` of @agentforge/example-servers; a test pins the two together, and it
 * is not imported so that the CLI does not load the server's code). The guard checks before the call;
 * with this the server also checks after it opens, so a folder swapped in between is refused there.
 * Servers that do not know the key ignore it.
 */
export const NARROW_ROOTS_META = "io.agentforge/roots";

/** Argument names (any case) whose string values, or arrays of strings, are paths. */
const PATH_KEY = /^(path|paths|file|files|filename|directory|dir|folder|root|source|destination|target)$/i;

/**
 * The longest path argument the guard resolves (Linux's PATH_MAX). Longer ones are refused before any
 * file-system call: a model can send any length, and resolving it must never stall the service.
 */
export const MAX_PATH_ARGUMENT_LENGTH = 4096;

/** A path argument longer than `MAX_PATH_ARGUMENT_LENGTH` (refused before it is sent). */
export class RunPathTooLongError extends MCPError<"PATH_TOO_LONG"> {
  static override readonly errorName: string = "RunPathTooLongError";
  /** The argument path, e.g. `path` or `paths[1]`. */
  readonly argument: string;
  readonly serverName: string;
  readonly toolName: string;

  constructor(options: { serverName: string; toolName: string; argument: string; length: number }) {
    super(
      `the path in "${options.argument}" is ${options.length} characters long, over the limit of ${MAX_PATH_ARGUMENT_LENGTH} — so ${options.serverName}.${options.toolName} was not called; use a shorter path`,
      { code: "PATH_TOO_LONG" },
    );
    this.argument = options.argument;
    this.serverName = options.serverName;
    this.toolName = options.toolName;
  }
}

/** A tool call that names a path outside the run's folder (refused before it is sent). */
export class RunPathOutsideFolderError extends MCPError<"PATH_OUTSIDE_RUN_FOLDER"> {
  static override readonly errorName: string = "RunPathOutsideFolderError";
  /** The argument path, e.g. `path` or `paths[1]`. */
  readonly argument: string;
  readonly serverName: string;
  readonly toolName: string;

  constructor(options: { serverName: string; toolName: string; argument: string; folder: string }) {
    super(
      `${options.serverName}.${options.toolName}: the path in "${options.argument}" is outside this run's folder ${options.folder}; this run may only read files under that folder`,
      { code: "PATH_OUTSIDE_RUN_FOLDER" },
    );
    this.argument = options.argument;
    this.serverName = options.serverName;
    this.toolName = options.toolName;
  }
}

/** Whether a server is rooted at the workspace (its `env` reads `AGENTFORGE_WORKSPACE`). */
export function isWorkspaceServer(config: MCPServerConfig): boolean {
  return (
    config.transport === "stdio" &&
    Object.values(config.env ?? {}).some((name) => String(name) === WORKSPACE_VARIABLE)
  );
}

/**
 * The real path of `path` (absolute, normalized, at most `MAX_PATH_ARGUMENT_LENGTH` long), resolving
 * symlinks up to its deepest existing ancestor. One native `realpath` call per missing trailing part
 * (the kernel resolves each in one pass), so the work is bounded by the path's length.
 */
export function realish(path: string): string {
  let current = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync.native(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

/**
 * The client a run's executor calls through: the shared manager, with every call to a workspace server
 * checked against `folder` (a real path). `list_allowed_directories` of a workspace server is answered
 * with the run's folder (that is the run's sandbox), without asking the server.
 */
export function runWorkspaceGuard(manager: MCPToolCallClient, folder: string): MCPToolCallClient {
  const guarded = (server: string): boolean => {
    try {
      return isWorkspaceServer(manager.getConfig(server));
    } catch {
      return false; // unknown: the manager refuses it with its own error
    }
  };
  return {
    getConfig: (name) => manager.getConfig(name),
    callTool: async (server, toolName, args, options) => {
      if (!guarded(server)) return manager.callTool(server, toolName, args, options);
      if (toolName === "list_allowed_directories") {
        return { content: [{ type: "text", text: `Allowed directories:\n${folder}` }] };
      }
      const checked: Record<string, unknown> = { ...(args ?? {}) };
      const check = (value: string, argument: string): string => {
        if (value.length > MAX_PATH_ARGUMENT_LENGTH) {
          throw new RunPathTooLongError({ serverName: server, toolName, argument, length: value.length });
        }
        const absolute = isAbsolute(value) ? resolve(value) : resolve(folder, value);
        if (!isInside(folder, absolute) || !isInside(folder, realish(absolute))) {
          throw new RunPathOutsideFolderError({ serverName: server, toolName, argument, folder });
        }
        return absolute;
      };
      for (const [key, value] of Object.entries(checked)) {
        if (!PATH_KEY.test(key)) continue;
        if (typeof value === "string") checked[key] = check(value, key);
        else if (Array.isArray(value))
          checked[key] = value.map((item, i) =>
            typeof item === "string" ? check(item, `${key}[${i}]`) : item,
          );
      }
      return manager.callTool(server, toolName, checked, {
        ...options,
        meta: { ...options?.meta, [NARROW_ROOTS_META]: [folder] },
      });
    },
  };
}
