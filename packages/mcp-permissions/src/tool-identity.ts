import { SERVER_NAME_PATTERN } from "@agentforge/mcp-config";

/** Tool names as MCP allows them (plus `/`), so look-alike Unicode never passes as an identity. */
const TOOL_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;

/** A tool as the registry and policy see it: plain data, structurally what mcp-client discovers. */
export interface MCPToolDescriptor {
  /** `<server>.<tool>`: the server name never contains a dot; the tool name may. */
  identity: string;
  serverName: string;
  toolName: string;
  title?: string;
  description?: string;
  /** The tool's input JSON Schema. */
  inputSchema: Record<string, unknown>;
  /** The tool's output JSON Schema, when it declares one. */
  outputSchema?: Record<string, unknown>;
  /** The tool's annotations (readOnlyHint, destructiveHint, ...). */
  annotations?: Record<string, unknown>;
}

/** `<server>.<tool>` for a server and tool name. */
export function toolIdentity(serverName: string, toolName: string): string {
  return `${serverName}.${toolName}`;
}

// Identities parse the same every time, and the executor and the policy both parse each call's: the
// well-formed ones are remembered in a bounded map (cleared when full), so a call skips the two syntax
// regexes for an identity seen before. The parts are frozen, as they are shared.
const PARSED_LIMIT = 1024;
const parsed = new Map<string, { serverName: string; toolName: string }>();

/**
 * Split an identity at its FIRST dot into server and tool, or undefined when it is not a well-formed
 * identity (server name per the config rules, tool name of MCP tool-name characters). The result is
 * frozen (it may be shared between calls).
 */
export function parseToolIdentity(identity: string): { serverName: string; toolName: string } | undefined {
  if (typeof identity !== "string") return undefined;
  const known = parsed.get(identity);
  if (known) return known;
  const dot = identity.indexOf(".");
  if (dot <= 0) return undefined;
  const serverName = identity.slice(0, dot);
  const toolName = identity.slice(dot + 1);
  if (!SERVER_NAME_PATTERN.test(serverName) || !TOOL_NAME.test(toolName)) return undefined;
  if (parsed.size >= PARSED_LIMIT) parsed.clear();
  const parts = Object.freeze({ serverName, toolName });
  parsed.set(identity, parts);
  return parts;
}
