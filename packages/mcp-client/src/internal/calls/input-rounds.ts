/**
 * `input_required` rounds (2026-07-28 multi-round requests): what a round asks for, reduced to its modes
 * (never a message, schema, key or value), and the bound on the opaque `requestState` a server makes us
 * echo. The SDK client drives the rounds; the connection's client (client-setup) reports each one here.
 */
import { MCPRequestError } from "../../errors.js";
import type { MCPInputRound, MCPInputRoundMode } from "../../types.js";

/**
 * The most `requestState` a server may hand us to echo back, in UTF-8 bytes (256 KiB). The state is
 * opaque server data we keep in memory and send again on every round; a larger one fails the request
 * with `REQUEST_STATE_TOO_LARGE` instead of being echoed (it is never logged nor quoted).
 */
export const MAX_REQUEST_STATE_BYTES = 256 * 1024;

/** Who hears the rounds of a request: keyed by the request's params object (the SDK keeps it as given). */
const listeners = new WeakMap<object, (round: MCPInputRound) => void>();

/** Report the rounds of the request sent with `params` to `listener` (until `params` is dropped). */
export function listenToInputRounds(params: object, listener: (round: MCPInputRound) => void): void {
  listeners.set(params, listener);
}

/** The listener of the request sent with `params`, if any. */
export function inputRoundListener(params: unknown): ((round: MCPInputRound) => void) | undefined {
  return typeof params === "object" && params !== null ? listeners.get(params) : undefined;
}

/** The mode of one embedded input request (`{method, params}`), as its method and mode say. */
function modeOf(request: unknown): MCPInputRoundMode {
  const { method, params } = (typeof request === "object" && request !== null ? request : {}) as {
    method?: unknown;
    params?: { mode?: unknown } | null;
  };
  if (method === "elicitation/create") {
    const mode = typeof params === "object" && params !== null ? params.mode : undefined;
    if (mode === undefined || mode === "form") return "elicitation.form";
    return mode === "url" ? "elicitation.url" : "other";
  }
  if (method === "sampling/createMessage") return "sampling";
  if (method === "roots/list") return "roots";
  return "other";
}

/** The modes a round asks for, one per embedded request, sorted (a round with none only echoes state). */
export function roundModes(inputRequests: unknown): MCPInputRoundMode[] {
  if (typeof inputRequests !== "object" || inputRequests === null) return [];
  return Object.values(inputRequests).map(modeOf).sort();
}

/** What the check of a round needs to name the request in its error. */
export interface RoundRequest {
  serverName: string;
  method: string;
  toolName: string | undefined;
}

/** Throws `REQUEST_STATE_TOO_LARGE` when `requestState` is over `MAX_REQUEST_STATE_BYTES`. */
export function checkRequestState(requestState: unknown, request: RoundRequest): void {
  if (typeof requestState !== "string") return;
  // Every UTF-16 unit is at most 3 UTF-8 bytes: only a long state is measured.
  if (requestState.length * 3 <= MAX_REQUEST_STATE_BYTES) return;
  const bytes = Buffer.byteLength(requestState);
  if (bytes <= MAX_REQUEST_STATE_BYTES) return;
  const what = request.toolName ? `tools/call "${request.toolName}"` : request.method;
  throw new MCPRequestError(
    `${what} on MCP server "${request.serverName}" asked for more input with a requestState of ${bytes} bytes, over the client's limit of ${MAX_REQUEST_STATE_BYTES} bytes; the request was stopped and the state was not sent back.`,
    {
      code: "REQUEST_STATE_TOO_LARGE",
      serverName: request.serverName,
      method: request.method,
      limitBytes: MAX_REQUEST_STATE_BYTES,
      ...(request.toolName ? { toolName: request.toolName } : {}),
    },
  );
}
