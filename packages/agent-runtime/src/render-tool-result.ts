import { cleanModelText } from "./clean-model-text.js";
import { truncateText } from "./internal/truncate-text.js";

/** A content part of an MCP tool result, as the SDK returns it (only the fields we render). */
export interface MCPContentPart {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
  /** MCP annotations; a part whose `audience` does not include `"assistant"` is kept from models. */
  annotations?: { audience?: unknown; [key: string]: unknown };
  [key: string]: unknown;
}

/** What `renderToolResult` needs of a raw `tools/call` result. */
export interface MCPRawToolResult {
  content?: MCPContentPart[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/** The model-facing text of a result, and whether it was cut. */
export interface RenderedToolResult {
  text: string;
  truncated: boolean;
  /** Length (UTF-16 code units) of the full rendering before the cap. */
  originalLength: number;
}

function base64Bytes(data: string | undefined): number {
  if (!data) return 0;
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function renderPart(part: MCPContentPart): string {
  switch (part.type) {
    case "text":
      return part.text ?? "";
    case "image":
    case "audio":
      return `[${part.mimeType ?? part.type}, ${base64Bytes(part.data)} bytes]`;
    case "resource_link":
      return `[resource link: ${part.uri ?? "?"}${part.name ? ` (${part.name})` : ""}${part.mimeType ? `, ${part.mimeType}` : ""}]`;
    case "resource": {
      const resource = part.resource ?? {};
      if (typeof resource.text === "string") return `[resource ${resource.uri ?? "?"}]\n${resource.text}`;
      return `[resource ${resource.uri ?? "?"}, ${resource.mimeType ?? "application/octet-stream"}, ${base64Bytes(resource.blob)} bytes]`;
    }
    default:
      return `[${part.type} content]`;
  }
}

/**
 * Whether a content part is meant for the model: true unless its `annotations.audience` is a list that
 * does not include `"assistant"` (e.g. `["user"]`). Parts that are not objects are not.
 */
export function isForAssistant(part: unknown): boolean {
  if (typeof part !== "object" || part === null) return false;
  const audience = (part as MCPContentPart).annotations?.audience;
  return !Array.isArray(audience) || audience.includes("assistant");
}

/** Shown when every part of a result was annotated for someone else than the assistant. */
export const HIDDEN_CONTENT_NOTE = "[The tool's output is intended for the user only; it is not shown here.]";

/**
 * The text of the most common result — only text parts, none annotated — in one pass (what the general
 * rendering below gives for it), or undefined for any other result.
 */
function plainText(parts: readonly unknown[]): string | undefined {
  let text: string | undefined;
  for (const part of parts) {
    if (typeof part !== "object" || part === null) return undefined;
    const { type, text: partText, annotations } = part as MCPContentPart;
    if (type !== "text" || typeof partText !== "string" || annotations !== undefined) return undefined;
    text = text === undefined ? partText : `${text}\n${partText}`;
  }
  return text;
}

/**
 * The model-facing rendering of a tool result: text parts joined by newlines; image, audio and
 * resource parts summarised as `[image/png, 12345 bytes]`-style lines; `structuredContent` as compact
 * JSON when there is no text part (nor a binary part whose data it would repeat). Parts annotated for an
 * audience without `"assistant"` are left out (the raw result keeps them); terminal escape sequences and
 * control characters are removed (`cleanModelText`); the whole is capped at `maxChars` (see `truncateText`).
 */
export function renderToolResult(result: MCPRawToolResult, maxChars: number): RenderedToolResult {
  const all = Array.isArray(result.content) ? result.content : [];
  const plain = plainText(all);
  if (plain !== undefined) return truncateText(cleanModelText(plain), maxChars);
  const parts = all.every(isForAssistant) ? all : all.filter(isForAssistant);
  const hasText = parts.some(
    (p) => p.type === "text" || (p.type === "resource" && typeof p.resource?.text === "string"),
  );
  // Binary parts are summarised; structuredContent that accompanies them would repeat their data.
  const hasBinary = parts.some(
    (p) => p.type === "image" || p.type === "audio" || (p.type === "resource" && p.resource?.blob),
  );
  const lines = parts.map(renderPart);
  if (!hasText && !hasBinary && result.structuredContent !== undefined)
    lines.push(JSON.stringify(result.structuredContent));
  if (lines.length === 0 && parts.length < all.length) lines.push(HIDDEN_CONTENT_NOTE);
  return truncateText(cleanModelText(lines.join("\n")), maxChars);
}
