import type { ContentBlock, StandardSchemaV1 } from "@modelcontextprotocol/client";
import { CallToolResultSchema, ContentBlockSchema } from "@modelcontextprotocol/core";
import type { CallToolResult } from "../../types.js";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function note(part: unknown): ContentBlock {
  const type = isObject(part) && typeof part.type === "string" ? part.type : undefined;
  if (type === "image" || type === "audio") {
    return {
      type: "text",
      text: `[${type} content omitted: its data is not valid base64 or its fields are malformed]`,
    };
  }
  const shown =
    type === undefined ? "without a type" : `of unknown type ${JSON.stringify(type.slice(0, 40))}`;
  return { type: "text", text: `[content part ${shown} omitted]` };
}

/**
 * A valid `CallToolResult` from a raw `tools/call` reply, or `undefined` when the reply is not a
 * tool result at all. Content parts the client cannot represent (unknown types, images or audio
 * whose data is not base64, malformed parts) are replaced by a short text part saying what was
 * omitted, so a result never fails as a whole because of one part.
 */
export function toCallToolResult(raw: unknown): CallToolResult | undefined {
  const strict = CallToolResultSchema.safeParse(raw);
  if (strict.success) {
    const structured = strict.data.structuredContent;
    if (structured === undefined || isObject(structured)) return strict.data as CallToolResult;
  }
  if (!isObject(raw)) return undefined;
  const repaired: Record<string, unknown> = { ...raw };
  if (Array.isArray(raw.content)) {
    repaired.content = raw.content.map((part) => {
      const parsed = ContentBlockSchema.safeParse(part);
      return parsed.success ? parsed.data : note(part);
    });
  }
  if (repaired.structuredContent !== undefined && !isObject(repaired.structuredContent)) {
    delete repaired.structuredContent;
  }
  const again = CallToolResultSchema.safeParse(repaired);
  return again.success ? (again.data as CallToolResult) : undefined;
}

/**
 * The result schema given to the SDK for a 2025-11-25 `tools/call`: it takes the reply as it is. The
 * reply is checked in full right after by the call path (`plainToolResult`, else `toCallToolResult`,
 * else INVALID_REPLY), so the SDK's loose `ResultSchema` would only walk and copy it once more.
 */
export const UNCHECKED_RESULT: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "agentforge", validate: (value: unknown) => ({ value }) },
};
