import type { MCPError } from "@agentforge/mcp-config";
import { MCPToolExecutionError } from "./errors.js";
import type { MCPToolNameMap } from "./mcp-tool-name-map.js";

/** Options of `toolErrorText`. */
export interface ToolErrorTextOptions {
  /**
   * The names the model was given: the identity of the tool called (`filesystem.read_text_file`) is
   * written as the model's name for it (`filesystem__read_text_file`), the name the model knows.
   */
  nameMap?: MCPToolNameMap;
}

/**
 * The text an executor error becomes for the model: the stable code and what happened — for a tool's own
 * error result, the tool's (bounded) error text, so the model can correct its call — in the tool names
 * the model saw (with `nameMap`). Every framework adapter answers refused calls with this text.
 */
export function toolErrorText(error: MCPError, options: ToolErrorTextOptions = {}): string {
  // A tool's own error result is the tool's text: given as it is (the model reads what the tool said).
  if (MCPToolExecutionError.isInstance(error) && error.toolErrorText !== undefined) {
    return `Error (${error.code}): ${error.toolErrorText}`;
  }
  const identity = (error as { identity?: unknown }).identity;
  const modelName = typeof identity === "string" ? options.nameMap?.toModelName(identity) : undefined;
  const detail =
    modelName !== undefined && typeof identity === "string"
      ? error.message.split(identity).join(modelName)
      : error.message;
  return `Error (${error.code}): ${detail}`;
}
