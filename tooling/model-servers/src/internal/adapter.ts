import { randomBytes } from "node:crypto";
import type { ScriptedTurn } from "../types.js";

/** A JSON (or text) answer that is not a model reply: an error, a 404, a health text. */
export interface Rejection {
  status: number;
  /** JSON-serialisable body, or a string sent as text/plain. */
  body: unknown;
  /** The message recorded in `ReceivedRequest.error`. */
  message: string;
  headers?: Record<string, string>;
}

/** A successful model reply: one JSON body, or a list of stream frames written in order. */
export type Reply =
  | { kind: "json"; body: unknown; headers?: Record<string, string> }
  | { kind: "stream"; contentType: string; frames: string[]; headers?: Record<string, string> };

/** What the common server knows about one request when it asks the adapter. */
export interface RequestInfo {
  method: string;
  path: string;
  headers: Record<string, string>;
}

/**
 * One provider's API, as seen by the common server. The server calls, in order: `route` (is this an
 * endpoint of the API?), `authenticate`, `parseError` when the body is not JSON, `validate`, then takes a
 * turn and calls `checkTurn` and `respond`. Any returned Rejection is sent as is and consumes no turn
 * (except from `checkTurn`, which runs after the turn was taken).
 */
export interface ProviderAdapter {
  route(req: RequestInfo): Rejection | undefined;
  authenticate(req: RequestInfo, apiKey: string): Rejection | undefined;
  parseError(detail: string): Rejection;
  validate(req: RequestInfo, body: unknown): Rejection | undefined;
  /** A script problem (exhausted, a turn that breaks the request's own constraints, a throwing turn function): a 500. */
  scriptError(message: string): Rejection;
  /** A turn the model could not have produced for this request (e.g. tool calls under `tool_choice: "none"`). */
  checkTurn(body: unknown, turn: ScriptedTurn): string | undefined;
  respond(body: unknown, turn: ScriptedTurn): Reply;
}

/** Random alphanumeric id body, e.g. for `call_…`, `toolu_…`, `msg_…`. */
export function randomId(length = 24): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = randomBytes(length);
  let out = "";
  for (const byte of bytes) out += alphabet[byte % alphabet.length];
  return out;
}

/** A rough token count (4 characters per token), enough for plausible usage numbers. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? "");
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Splits text into at most `parts` non-empty pieces, so streams carry more than one delta. */
export function splitText(text: string, parts = 3): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The tool-name rule shared by OpenAI and Anthropic. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The arguments of a scripted call as a JSON text (argsText verbatim when given). */
export function argumentsText(call: { args?: Record<string, unknown>; argsText?: string }): string {
  return call.argsText ?? JSON.stringify(call.args ?? {});
}
