import { isForAssistant, type MCPContentPart, type MCPRawToolResult } from "./render-tool-result.js";

/** Image types every provider that takes images accepts (OpenAI, Anthropic, Gemini, Bedrock). */
export const MCP_MODEL_IMAGE_TYPES: readonly string[] = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
];

/** Default cap of the base64 data passed on as media from one tool result: 4 MiB of base64 text. */
export const MAX_MCP_MEDIA_BYTES = 4 * 1024 * 1024;

/** Which images/audio of a tool result go to the model as media (the rest stays a `[image/png, N bytes]` line). */
export interface MCPMediaOptions {
  /**
   * Media types passed on (default `MCP_MODEL_IMAGE_TYPES`: png, jpeg, gif, webp). Add audio types such as
   * `"audio/wav"` only for models that take audio in tool results.
   */
  mimeTypes?: readonly string[];
  /** Cap of the base64 text of all media of one result together (default `MAX_MCP_MEDIA_BYTES`, 4 MiB). */
  maxBytes?: number;
}

/** An image or audio part of a tool result, checked and ready to give a model. */
export interface MCPMediaPart {
  type: "image" | "audio";
  /** Lower-case media type, without parameters (e.g. `image/png`). */
  mimeType: string;
  /** Base64 data, exactly as the server sent it (validated). */
  data: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The first bytes of base64 data, decoded (or undefined when they do not decode). */
function head(data: string): Uint8Array | undefined {
  try {
    const bytes = atob(data.slice(0, 16));
    return Uint8Array.from(bytes, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function startsWith(bytes: Uint8Array, prefix: number[], at = 0): boolean {
  return prefix.every((b, i) => bytes[at + i] === b);
}

const SIGNATURES = new Map<string, (b: Uint8Array) => boolean>([
  ["image/png", (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ["image/jpeg", (b) => startsWith(b, [0xff, 0xd8, 0xff])],
  ["image/gif", (b) => startsWith(b, [0x47, 0x49, 0x46, 0x38])],
  [
    "image/webp",
    (b) => startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b, [0x57, 0x45, 0x42, 0x50], 8),
  ],
]);

/**
 * Whether an image's bytes are of its declared type (providers refuse a mismatch, e.g. Anthropic's "image
 * does not match the provided media type"). Types without a known signature pass.
 */
function signatureMatches(mimeType: string, data: string): boolean {
  const check = SIGNATURES.get(mimeType);
  if (!check) return true;
  const bytes = head(data);
  return bytes !== undefined && check(bytes);
}

/**
 * The image and audio parts of a tool result a model may be given: meant for the assistant (see
 * `isForAssistant`), of an accepted media type, valid base64 whose bytes match the declared image type,
 * and — in order — within the byte budget. Everything else is left out (the model still reads its
 * `[image/png, N bytes]` line in the result's text). Never throws.
 */
export function selectToolResultMedia(
  result: MCPRawToolResult,
  options: MCPMediaOptions = {},
): MCPMediaPart[] {
  const accepted = new Set((options.mimeTypes ?? MCP_MODEL_IMAGE_TYPES).map((t) => t.toLowerCase()));
  let budget = options.maxBytes ?? MAX_MCP_MEDIA_BYTES;
  const out: MCPMediaPart[] = [];
  const parts: unknown[] = Array.isArray(result?.content) ? result.content : [];
  for (const part of parts) {
    if (!isForAssistant(part)) continue;
    const { type, mimeType, data } = part as MCPContentPart;
    if ((type !== "image" && type !== "audio") || typeof mimeType !== "string" || typeof data !== "string")
      continue;
    const mime = (mimeType.split(";")[0] ?? "").trim().toLowerCase();
    if (!mime.startsWith(`${type}/`) || !accepted.has(mime)) continue;
    if (data.length === 0 || data.length > budget || data.length % 4 !== 0 || !BASE64.test(data)) continue;
    if (!signatureMatches(mime, data)) continue;
    budget -= data.length;
    out.push({ type, mimeType: mime, data });
  }
  return out;
}
