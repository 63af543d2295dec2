import type { MCPError } from "@agentforge/mcp-config";
import { MCPToolExecutionError } from "./errors.js";

/**
 * The text an executor error becomes for the model: the stable code and what happened — for a tool's own
 * error result, the tool's (bounded) error text, so the model can correct its call. Every framework
 * adapter answers refused calls with this text.
 */
export function toolErrorText(error: MCPError): string {
  const detail =
    MCPToolExecutionError.isInstance(error) && error.toolErrorText !== undefined
      ? error.toolErrorText
      : error.message;
  return `Error (${error.code}): ${detail}`;
}
