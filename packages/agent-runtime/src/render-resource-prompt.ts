import { cleanModelText } from "./clean-model-text.js";
import { truncateText } from "./internal/truncate-text.js";
import type { RenderedToolResult } from "./render-tool-result.js";

/** One part of a read resource, as the client manager returns it (only the fields rendered). */
export interface MCPRawResourceContents {
  uri?: unknown;
  mimeType?: unknown;
  text?: unknown;
  blob?: unknown;
}

/** One message of a prompt, as the client manager returns it (only the fields rendered). */
export interface MCPRawPromptMessage {
  role?: unknown;
  content?: unknown;
}

function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

const str = (value: unknown, fallback: string): string => (typeof value === "string" ? value : fallback);

function renderContents(part: MCPRawResourceContents): string {
  const uri = str(part.uri, "?");
  if (typeof part.text === "string") return `[resource ${uri}]\n${part.text}`;
  const mime = str(part.mimeType, "application/octet-stream");
  return `[resource ${uri}, ${mime}, ${typeof part.blob === "string" ? base64Bytes(part.blob) : 0} bytes]`;
}

/**
 * The model-facing text of a read resource: each part as `[resource <uri>]` and its text, binary parts as
 * `[resource <uri>, <type>, N bytes]`; cleaned (`cleanModelText`) and capped at `maxChars`.
 */
export function renderResourceContents(
  contents: readonly MCPRawResourceContents[],
  maxChars: number,
): RenderedToolResult {
  const parts = Array.isArray(contents) ? contents.filter((p) => typeof p === "object" && p !== null) : [];
  return truncateText(cleanModelText(parts.map(renderContents).join("\n")), maxChars);
}

function renderPromptContent(content: unknown): string {
  if (typeof content !== "object" || content === null) return "";
  const part = content as Record<string, unknown>;
  switch (part.type) {
    case "text":
      return str(part.text, "");
    case "image":
    case "audio":
      return `[${str(part.mimeType, String(part.type))}, ${typeof part.data === "string" ? base64Bytes(part.data) : 0} bytes]`;
    case "resource":
      return renderContents((part.resource ?? {}) as MCPRawResourceContents);
    case "resource_link":
      return `[resource link: ${str(part.uri, "?")}]`;
    default:
      return `[${str(part.type, "unknown")} content]`;
  }
}

/**
 * The model-facing text of a prompt: each message as `[<role>]` and its content (binary parts summarised);
 * cleaned (`cleanModelText`) and capped at `maxChars`.
 */
export function renderPromptMessages(
  messages: readonly MCPRawPromptMessage[],
  maxChars: number,
): RenderedToolResult {
  const list = Array.isArray(messages) ? messages.filter((m) => typeof m === "object" && m !== null) : [];
  const text = list.map((m) => `[${str(m.role, "user")}]\n${renderPromptContent(m.content)}`).join("\n\n");
  return truncateText(cleanModelText(text), maxChars);
}
