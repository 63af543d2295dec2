import type { MCPError } from "@agentforge/mcp-config";
import { cleanModelText } from "./clean-model-text.js";
import { MCPToolExecutionError } from "./errors.js";
import { MAX_MCP_RESULT_CHARS } from "./limits.js";
import type { MCPToolNameMap } from "./mcp-tool-name-map.js";

/** Options of `toolErrorText`. */
export interface ToolErrorTextOptions {
  /**
   * The names the model was given: the identity of the tool called (`filesystem.read_text_file`) is
   * written as the model's name for it (`filesystem__read_text_file`), the name the model knows.
   */
  nameMap?: MCPToolNameMap;
  /** Most characters of the text, its truncation marker included (default `MAX_MCP_RESULT_CHARS`, 8000). */
  maxChars?: number;
}

// The marker `truncateText` ends a cut text with.
const CUT_MARKER = /\.\.\. \[(\d+) characters truncated\]$/;

/** `text` within `max` characters, the marker included; a text that was cut before says the whole cut. */
function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  const earlier = CUT_MARKER.exec(text);
  const before = earlier ? Number(earlier[1]) : 0;
  const body = earlier ? text.slice(0, earlier.index) : text;
  const marker = (cut: number) => `... [${cut} characters truncated]`;
  let keep = Math.max(0, max - marker(body.length + before).length);
  const last = body.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep -= 1; // never split a surrogate pair
  return `${body.slice(0, keep)}${marker(body.length - keep + before)}`;
}

/**
 * The text an executor error becomes for the model: the stable code and what happened — for a tool's own
 * error result, the tool's text, so the model can correct its call — in the tool names the model saw
 * (with `nameMap`). Every framework adapter answers refused calls with this text: it is cleaned
 * (`cleanModelText`: a server's message, stderr tail or HTTP body carries no escape, control, bidi
 * control or lone surrogate to the model) and at most `maxChars` long (8000), the marker
 * `... [N characters truncated]` included.
 */
export function toolErrorText(error: MCPError, options: ToolErrorTextOptions = {}): string {
  const max = options.maxChars ?? MAX_MCP_RESULT_CHARS;
  // A tool's own error result is the tool's text: given as it is (the model reads what the tool said).
  if (MCPToolExecutionError.isInstance(error) && error.toolErrorText !== undefined) {
    return bounded(cleanModelText(`Error (${error.code}): ${error.toolErrorText}`), max);
  }
  const identity = (error as { identity?: unknown }).identity;
  const modelName = typeof identity === "string" ? options.nameMap?.toModelName(identity) : undefined;
  const detail =
    modelName !== undefined && typeof identity === "string"
      ? error.message.split(identity).join(modelName)
      : error.message;
  return bounded(cleanModelText(`Error (${error.code}): ${detail}`), max);
}
