import type { Tool } from "@modelcontextprotocol/client";
import { ToolSchema } from "@modelcontextprotocol/core";
import type {
  DiscoveredTool,
  MCPJsonSchema,
  MCPToolAnnotations,
  MCPToolExecution,
  MCPToolProblem,
} from "../../discover-tools.js";
import { stableStringify } from "../shared/stable-stringify.js";

/** Tool names model APIs accept. */
const MODEL_SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const TASK_SUPPORT = new Set(["required", "optional", "forbidden"]);

/**
 * Read a tool's `execution` hint loosely: an object whose `taskSupport`, when present, is one of
 * "required" / "optional" / "forbidden". Anything else is a problem and the hint is treated as absent.
 */
export function readExecution(value: unknown): { execution?: MCPToolExecution; problem?: MCPToolProblem } {
  if (value === undefined) return {};
  if (!isObject(value)) {
    return {
      problem: {
        code: "EXECUTION_INVALID",
        message: `execution is ${describe(value)}, not an object; it is ignored (the tool is called without a task)`,
      },
    };
  }
  const taskSupport = value.taskSupport;
  if (taskSupport === undefined) return { execution: {} };
  if (typeof taskSupport === "string" && TASK_SUPPORT.has(taskSupport)) {
    return { execution: { taskSupport: taskSupport as NonNullable<MCPToolExecution["taskSupport"]> } };
  }
  return {
    problem: {
      code: "EXECUTION_INVALID",
      message: `execution.taskSupport is ${JSON.stringify(taskSupport) ?? "undefined"}, not "required", "optional" or "forbidden"; the execution hint is ignored`,
    },
  };
}

const isObjectSchema = (value: unknown): boolean => isObject(value) && value.type === "object";

// JSON data copied as data. structuredClone keeps own keys such as "__proto__" as plain properties.
function copy<T>(value: unknown): T {
  return (value === undefined ? undefined : structuredClone(value)) as T;
}

/** A plain-data DiscoveredTool from an SDK Tool (copied: no SDK object escapes). */
export function toDiscoveredTool(serverName: string, tool: Tool): DiscoveredTool {
  const out: DiscoveredTool = {
    identity: `${serverName}.${tool.name}`,
    serverName,
    toolName: tool.name,
    description: tool.description ?? "",
    inputSchema: structuredClone(tool.inputSchema) as MCPJsonSchema,
  };
  const title = tool.title ?? tool.annotations?.title;
  if (title !== undefined) out.title = title;
  if (tool.outputSchema) out.outputSchema = structuredClone(tool.outputSchema) as MCPJsonSchema;
  if (tool.annotations) out.annotations = structuredClone(tool.annotations) as MCPToolAnnotations;
  return out;
}

/** The result of reading a raw `tools/list` array. */
export interface ReadTools {
  /** Every entry with a string name, as data, with `problems` flagged. */
  tools: DiscoveredTool[];
  /** The entries that are valid MCP tools (for the SDK's output-schema validators). */
  valid: Tool[];
  /** Entries dropped because they are not objects with a string `name`. */
  dropped: number;
}

/**
 * Read the raw tools of a `tools/list` reply without trusting them: every entry that has a string name
 * comes through as data (whatever its schemas look like), with what is wrong flagged in `problems`.
 */
export function readTools(serverName: string, raw: readonly unknown[]): ReadTools {
  const out: ReadTools = { tools: [], valid: [], dropped: 0 };
  const counts = new Map<string, number>();
  for (const entry of raw) {
    if (isObject(entry) && typeof entry.name === "string") {
      counts.set(entry.name, (counts.get(entry.name) ?? 0) + 1);
    }
  }
  for (const entry of raw) {
    if (!isObject(entry) || typeof entry.name !== "string") {
      out.dropped++;
      continue;
    }
    const problems: MCPToolProblem[] = [];
    // The execution hint is read on its own, so a bad one is flagged without failing the whole tool.
    const { execution: rawExecution, ...definition } = entry;
    const { execution, problem: executionProblem } = readExecution(rawExecution);
    const parsed = ToolSchema.safeParse(definition);
    let tool: DiscoveredTool;
    if (parsed.success) {
      tool = toDiscoveredTool(serverName, parsed.data);
      out.valid.push(parsed.data);
    } else {
      tool = {
        identity: `${serverName}.${entry.name}`,
        serverName,
        toolName: entry.name,
        description: typeof entry.description === "string" ? entry.description : "",
        inputSchema: copy<MCPJsonSchema>(entry.inputSchema ?? null),
      };
      const title = typeof entry.title === "string" ? entry.title : undefined;
      if (title !== undefined) tool.title = title;
      if (entry.outputSchema !== undefined) tool.outputSchema = copy<MCPJsonSchema>(entry.outputSchema);
      if (isObject(entry.annotations)) tool.annotations = copy<MCPToolAnnotations>(entry.annotations);
      if (!isObjectSchema(entry.inputSchema)) {
        problems.push({
          code: "INPUT_SCHEMA_NOT_OBJECT",
          message: `inputSchema is ${describe(entry.inputSchema)}, not a JSON Schema object with type "object"; it is kept as sent`,
        });
      }
      if (entry.outputSchema !== undefined && !isObjectSchema(entry.outputSchema)) {
        problems.push({
          code: "OUTPUT_SCHEMA_INVALID",
          message: `outputSchema is ${describe(entry.outputSchema)}, not a JSON Schema object with type "object"; results are not checked against it`,
        });
      }
      if (problems.length === 0) {
        const path = parsed.error.issues[0]?.path.join(".") || "(root)";
        problems.push({
          code: "INVALID_DEFINITION",
          message: `the definition breaks the MCP Tool schema at ${path}; it is kept as far as possible`,
        });
      }
    }
    if (execution) tool.execution = execution;
    if (executionProblem) problems.push(executionProblem);
    if (!MODEL_SAFE_NAME.test(entry.name)) {
      problems.push({
        code: "NAME_NOT_MODEL_SAFE",
        message: "the name does not match ^[a-zA-Z0-9_-]{1,64}$; model APIs refuse such names",
      });
    }
    const count = counts.get(entry.name) ?? 0;
    if (count > 1) {
      problems.push({
        code: "DUPLICATE_NAME",
        message: `the server listed ${count} tools with this name`,
      });
    }
    if (problems.length) tool.problems = problems;
    out.tools.push(tool);
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return "an array";
  if (isObject(value)) return `an object with type ${JSON.stringify(value.type) ?? "missing"}`;
  return `a ${typeof value}`;
}

/** Tool names added, removed and changed between two lists of one server. */
export interface ToolDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/** What changed between `before` and `after` (by tool name, then by definition). */
export function diffTools(before: readonly DiscoveredTool[], after: readonly DiscoveredTool[]): ToolDiff {
  const old = new Map(before.map((tool) => [tool.toolName, stableStringify(tool)]));
  const now = new Map(after.map((tool) => [tool.toolName, stableStringify(tool)]));
  const diff: ToolDiff = { added: [], removed: [], changed: [] };
  for (const [name, text] of now) {
    const previous = old.get(name);
    if (previous === undefined) diff.added.push(name);
    else if (previous !== text) diff.changed.push(name);
  }
  for (const name of old.keys()) if (!now.has(name)) diff.removed.push(name);
  return diff;
}

/** Whether a diff has any change. */
export function hasChanges(diff: ToolDiff): boolean {
  return diff.added.length + diff.removed.length + diff.changed.length > 0;
}

/** Why a task-required tool cannot be called on a 2026-07-28 connection (a problem, and the call's error). */
export function taskUnsupportedMessage(serverName: string, toolName: string): string {
  return `tool "${toolName}" of MCP server "${serverName}" only runs as a task (execution.taskSupport "required"), and this client does not run tasks on 2026-07-28 connections (the tasks extension, SEP-2663, is not supported yet), so it is not offered to models. Fix: if the server also speaks 2025-11-25, set protocol_version: 2025-11-25 for it to run the tool as a task.`;
}

/**
 * On a 2026-07-28 connection: flag each task-required tool `TASK_EXECUTION_UNSUPPORTED` (this client runs
 * tasks only on 2025-11-25 connections), so that nothing offers it to a model.
 */
export function flagTasksUnsupported(tools: DiscoveredTool[]): void {
  for (const tool of tools) {
    if (tool.execution?.taskSupport !== "required") continue;
    const problem: MCPToolProblem = {
      code: "TASK_EXECUTION_UNSUPPORTED",
      message: taskUnsupportedMessage(tool.serverName, tool.toolName),
    };
    tool.problems = [...(tool.problems ?? []), problem];
  }
}
