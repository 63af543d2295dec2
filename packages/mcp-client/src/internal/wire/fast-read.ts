/**
 * Exact shortcuts for the two checks every tool call pays on its reply: "is this line a JSON-RPC
 * message" (the transport) and "is this a valid tools/call result" (the call path). Each recognises
 * only the plainest, most common shape — a result response, a result whose content is text parts — with
 * plain property checks, and answers `undefined` for anything else, which then goes through the SDK's
 * full schema exactly as before. What a shortcut accepts the schema accepts too, and with the same value
 * (the shapes it takes have nothing for the schema to default, strip or copy differently), so no check
 * is skipped: only the schema walk and its copies are.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import type { CallToolResult } from "../../types.js";

const hasOwn = Object.prototype.hasOwnProperty;
const objectProto = Object.prototype;

/** A JSON object whose own keys could be copied by a schema without surprise (no own `__proto__`). */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.getPrototypeOf(value) === objectProto &&
    !hasOwn.call(value, "__proto__")
  );
}

/**
 * A JSON-RPC result response (`{"jsonrpc":"2.0","id":…,"result":{…}}` and nothing else, the result
 * without `_meta`) as the message itself, or `undefined` when `value` has any other shape.
 */
export function plainResultResponse(value: unknown): JSONRPCMessage | undefined {
  if (!isPlainRecord(value)) return undefined;
  let keys = 0;
  for (const key in value) {
    if (key !== "jsonrpc" && key !== "id" && key !== "result") return undefined;
    keys++;
  }
  if (keys !== 3 || value.jsonrpc !== "2.0") return undefined;
  const id = value.id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id))) return undefined;
  const result = value.result;
  if (!isPlainRecord(result) || hasOwn.call(result, "_meta")) return undefined;
  return value as unknown as JSONRPCMessage;
}

/**
 * A tools/call result whose content is only `{type: "text", text}` parts, with an optional object
 * `structuredContent` and boolean `isError` (and any other keys, kept as they are), or `undefined` when
 * it has any other shape (`_meta`, other part types, annotations, no content...).
 */
export function plainToolResult(value: unknown): CallToolResult | undefined {
  if (!isPlainRecord(value) || hasOwn.call(value, "_meta")) return undefined;
  const content = value.content;
  if (!Array.isArray(content)) return undefined;
  for (let i = 0; i < content.length; i++) {
    const part: unknown = content[i];
    if (!isPlainRecord(part) || part.type !== "text" || typeof part.text !== "string") return undefined;
    let keys = 0;
    for (const _ in part) keys++;
    if (keys !== 2) return undefined;
  }
  const structured = value.structuredContent;
  if (structured !== undefined && !isPlainRecord(structured)) return undefined;
  const isError = value.isError;
  if (isError !== undefined && typeof isError !== "boolean") return undefined;
  return value as unknown as CallToolResult;
}
