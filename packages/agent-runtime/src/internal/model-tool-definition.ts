// What a model is given for one MCP tool, shared by the framework adapters (LangChain, AI SDK) and the
// tool-search threshold, so that "characters of definitions" means what is actually sent.
import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import { cleanModelText } from "../clean-model-text.js";

/** Tool descriptions from servers are cut to this many characters before they reach a model. */
export const MAX_TOOL_DESCRIPTION = 4000;

/** The description a model gets for a tool: its description (else title), cleaned and bounded; never empty. */
export function modelToolDescription(descriptor: MCPToolDescriptor): string {
  const raw = descriptor.description ?? descriptor.title;
  const given = typeof raw === "string" ? cleanModelText(raw) : "";
  if (given.trim().length === 0) return `MCP tool ${descriptor.identity}`;
  return given.length > MAX_TOOL_DESCRIPTION ? `${given.slice(0, MAX_TOOL_DESCRIPTION - 1)}…` : given;
}

/** Characters of one tool definition as a model gets it: name, description and input JSON Schema. */
export function definitionChars(name: string, description: string, inputSchema: unknown): number {
  return name.length + description.length + JSON.stringify(inputSchema).length;
}
