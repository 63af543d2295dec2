import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { DiscoveredTool, MCPJsonSchema, MCPToolAnnotations } from "../discover-tools.js";
import { stableStringify } from "./stable-stringify.js";

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
