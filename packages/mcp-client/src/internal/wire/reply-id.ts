/** JSON-RPC id forms: a number or a JSON string. */
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
// Servers built on the TypeScript SDK write `{"result":...,"jsonrpc":"2.0","id":7}` (id last); others
// (the Python SDK, most hand-written servers) write `{"jsonrpc":"2.0","id":7,...}` (id first).
const TAIL_ID = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);
const HEAD_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
const HEAD_METHOD = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"method"\s*:/;

/** The JSON-RPC id of a message known only by its first and last bytes, when it can be told. */
export function replyIdFromEdges(head: string, tail: string): string | number | undefined {
  const match = HEAD_ID.exec(head) ?? TAIL_ID.exec(tail);
  if (!match?.[1]) return undefined;
  try {
    const id: unknown = JSON.parse(match[1]);
    return typeof id === "number" || typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a message known by its first bytes is a request or notification from the server. */
export function isServerInitiated(head: string): boolean {
  return HEAD_METHOD.test(head);
}
