// A person's confirmation of one tool call: what they are shown (the request), what they answer (the
// decision), what binds the answer to that exact call (the binding), and the plain-data state a run keeps
// (how many requests it made, which tools were confirmed for the whole run, which answers were used).
import { cleanText, escapeJsonText } from "@agentforge/mcp-config";
import type { MCPConfirmationBasis, MCPToolDescriptor } from "@agentforge/mcp-permissions";
import { MAX_MCP_CONFIRMATION_PREVIEW_CHARS } from "./limits.js";

/** A person's answer: allow the call or deny it. */
export type MCPConfirmationDecisionValue = "allow" | "deny";

/** What an `allow` covers: this call only (default), or the same tool for the rest of the run. */
export type MCPConfirmationScope = "call" | "run";

/** What a `confirm` handler answers. */
export interface MCPConfirmationDecision {
  decision: MCPConfirmationDecisionValue;
  /**
   * `call` (default): this call only. `run`: every later call of the same identity (and the same
   * definition) in the same run goes ahead without asking — only with a `confirmationRun`.
   */
  scope?: MCPConfirmationScope;
  /** Why (shown to the model on a deny, cleaned and bounded). */
  reason?: string;
  /** Who answered (a user name, a token's id), recorded on the RESOLVED event; never a secret. */
  answeredBy?: string;
}

/** The tool's annotations as a person is shown them: only the hints, and only when they are booleans. */
export interface MCPConfirmationAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * What a person is asked to confirm: who calls which tool, the tool's title, annotations and definition
 * fingerprint, and a preview of the arguments — bounded (`MAX_MCP_CONFIRMATION_PREVIEW_CHARS`), as JSON
 * whose control characters, terminal escapes and bidirectional controls are written as visible `\uXXXX`
 * escapes, with the roster's secret values redacted. Everything here is plain data (store it, send it).
 * Text fields came from a server or a model: they are cleaned, but escape them for HTML as usual.
 */
export interface MCPConfirmationRequest {
  /** The call's id: answer with it (`MCPConfirmationAnswer.callId`); the call's events carry it. */
  callId: string;
  /** The run's id, when the call belongs to a run. */
  runId?: string;
  agent: string;
  /** `<server>.<tool>`. */
  identity: string;
  serverName: string;
  toolName: string;
  /** The tool's title (or its name), cleaned, on one line, bounded. */
  title: string;
  /** The tool's annotation hints as its server lists them (a server can lie: they only add confirmation). */
  annotations: MCPConfirmationAnnotations;
  /** The registry's fingerprint of the tool's definition. */
  fingerprint: string;
  /**
   * SHA-256 (hex) over the run, the agent, the identity, the tool's whole definition and the canonical
   * JSON of the arguments. An answer is valid only for a call with the same binding.
   */
  binding: string;
  /** The arguments as a person can safely read them (see above). */
  argumentsPreview: string;
  /** Whether `argumentsPreview` was cut. */
  previewTruncated: boolean;
  /** Why the call needs confirmation: a `confirm` pattern, or its annotations (`confirm_destructive`). */
  basis: MCPConfirmationBasis;
  /** The policy's reason, in one line. */
  reason: string;
  /** ISO 8601 time of the request. */
  requestedAt: string;
}

/** Options a `confirm` handler gets: abort when the call no longer waits (timeout, cancelled run). */
export interface MCPConfirmHandlerOptions {
  signal: AbortSignal;
}

/**
 * Asks a person to confirm one call (`MCPToolExecutorOptions.confirm`): resolve with their decision. A
 * handler that throws, or answers after `confirmationTimeoutMs`, denies the call.
 */
export type MCPConfirmHandler = (
  request: MCPConfirmationRequest,
  options: MCPConfirmHandlerOptions,
) => MCPConfirmationDecision | Promise<MCPConfirmationDecision>;

/**
 * An answer given with a call (`MCPExecuteOptions.confirmation`) instead of asking: a run resumed after a
 * person answered its pending request, an AI SDK approval. The executor checks `binding` against the call
 * it is given: other arguments, another definition, another run or agent — refused
 * (CONFIRMATION_DENIED). An answer is used once per run (by `callId`).
 */
export interface MCPConfirmationAnswer extends MCPConfirmationDecision {
  /** The `binding` of the request answered. */
  binding: string;
  /** The `callId` of the request answered: the call reports under it, and it cannot be used twice in a run. */
  callId?: string;
  /** The request's `requestedAt`, so the RESOLVED event says how long it waited. */
  requestedAt?: string;
}

/**
 * What a run remembers about confirmations, as plain JSON data (keep it in the run's state, store it,
 * restore it): its id, how many requests it made, which tools were confirmed for the whole run, which
 * answers were used. The executor updates it in place.
 */
export interface MCPConfirmationRun {
  /** The run's id; part of every binding, so an answer of one run never serves another. */
  runId: string;
  /** Confirmation requests made so far (bounded by `maxConfirmationsPerRun`). */
  requests: number;
  /** Tools confirmed for the rest of the run (`scope: "run"`): identity and definition digest. */
  confirmedForRun: { identity: string; definition: string }[];
  /** `callId`s of the answers used (each answer serves one call). */
  usedAnswers: string[];
}

/**
 * The answer to give `execute` (as `confirmation`) for a request a person answered: their decision, bound
 * to the request's call (`binding`, `callId`, `requestedAt`). For loops of your own: call with
 * `deferConfirmation`, keep `error.request`, and call again with this once someone answered.
 */
export function confirmationAnswer(
  request: Pick<MCPConfirmationRequest, "binding" | "callId" | "requestedAt">,
  decision: MCPConfirmationDecision,
): MCPConfirmationAnswer {
  if (decision?.decision !== "allow" && decision?.decision !== "deny") {
    throw new TypeError('confirmationAnswer: decision must be { decision: "allow" | "deny", ... }');
  }
  return {
    ...decision,
    binding: request.binding,
    callId: request.callId,
    requestedAt: request.requestedAt,
  };
}

/** A fresh confirmation state for a run (`runId`: yours, else a random UUID). */
export function createConfirmationRun(runId?: string): MCPConfirmationRun {
  const id = runId ?? globalThis.crypto.randomUUID();
  if (typeof id !== "string" || id.length === 0 || id.length > 200) {
    throw new TypeError("createConfirmationRun: runId must be a string of 1 to 200 characters");
  }
  return { runId: id, requests: 0, confirmedForRun: [], usedAnswers: [] };
}

/**
 * A JSON value with object keys sorted at every level (the JSON of equal values is equal text, whatever
 * the key order). What JSON drops (undefined, functions) is dropped; a cycle or a value too deep throws.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value, 0);
}

const MAX_DEPTH = 200;

function canonical(value: unknown, depth: number): string {
  if (depth > MAX_DEPTH) throw new RangeError("canonicalJson: the value is nested too deeply");
  if (value === null || typeof value !== "object") {
    if (typeof value === "bigint") return JSON.stringify(value.toString());
    return JSON.stringify(value) ?? "null";
  }
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === "function") return canonical(json.call(value), depth + 1);
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item, depth + 1)).join(",")}]`;
  const entries = Object.keys(value)
    .filter((key) => {
      const item = (value as Record<string, unknown>)[key];
      return item !== undefined && typeof item !== "function" && typeof item !== "symbol";
    })
    .sort();
  return `{${entries.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key], depth + 1)}`).join(",")}}`;
}

const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Node's hash functions when running on Node (found without importing it: the root entry loads anywhere). */
interface NodeHash {
  createHash(algorithm: "sha256"): {
    update(text: string, encoding: "utf8"): { digest(encoding: "hex"): string };
  };
}
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.("node:crypto") as NodeHash | undefined;

/**
 * SHA-256 of `text` (UTF-8) in hex: Node's `createHash` on Node (synchronous, about a microsecond for a
 * small text), else Web Crypto (browsers, workers).
 */
export async function sha256Hex(text: string): Promise<string> {
  if (nodeCrypto) return nodeCrypto.createHash("sha256").update(text, "utf8").digest("hex");
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", encoder.encode(text)));
  let out = "";
  for (const byte of digest) out += HEX[byte];
  return out;
}

/** The parts of a definition a model or a person relies on, canonical (as the registry fingerprints it). */
export function definitionText(tool: MCPToolDescriptor): string {
  return canonicalJson({
    name: tool.toolName,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  });
}

/** What a binding is computed over. */
export interface MCPConfirmationBindingInput {
  /** The run's id (`""` when the call belongs to no run). */
  runId?: string;
  agent: string;
  /** The tool as registered: its whole definition is bound (its digest, see `definitionDigest`). */
  tool: MCPToolDescriptor;
  /** The call's arguments. */
  args: unknown;
}

/** Digests of registered definitions (a changed definition is a new descriptor object). */
const digests = new WeakMap<MCPToolDescriptor, string>();

/** SHA-256 (hex) of a tool's canonical definition: what run-wide confirmations are kept by. */
export async function definitionDigest(tool: MCPToolDescriptor): Promise<string> {
  const known = digests.get(tool);
  if (known !== undefined) return known;
  const digest = await sha256Hex(definitionText(tool));
  digests.set(tool, digest);
  return digest;
}

/**
 * The binding of a call: SHA-256 (hex) over the run's id, the agent, the identity, the digest of the
 * tool's definition and the canonical JSON of the arguments. Equal for the same call, different when any
 * of them differs; an answer carries the binding of the call it answers.
 */
export async function confirmationBinding(input: MCPConfirmationBindingInput): Promise<string> {
  return bindingOf(
    input.runId ?? "",
    input.agent,
    input.tool.identity,
    await definitionDigest(input.tool),
    input.args,
  );
}

/** The binding from a definition digest already computed. */
export function bindingOf(
  runId: string,
  agent: string,
  identity: string,
  definition: string,
  args: unknown,
): Promise<string> {
  // Each part is JSON-quoted, so no choice of parts can make another's text.
  return sha256Hex(
    `agentforge-confirmation-v1\n${JSON.stringify(runId)}\n${JSON.stringify(agent)}\n${JSON.stringify(identity)}\n${definition}\n${canonicalJson(args)}`,
  );
}

/** Options of `argumentsPreview`. */
export interface MCPArgumentsPreviewOptions {
  /** Replaces secret values (the roster's) in the preview: a `SecretRedactor`'s `redact` fits. */
  redact?: (text: string) => string;
  /** Most characters (default `MAX_MCP_CONFIRMATION_PREVIEW_CHARS`). */
  maxChars?: number;
}

/**
 * The arguments of a call as a person may safely read them: indented JSON with keys in a stable order,
 * secrets redacted, every control character, terminal escape, bidirectional control and line separator
 * written as a visible `\uXXXX` escape (so nothing in it acts on a terminal or reorders what is shown),
 * cut to `maxChars` with a marker saying how much was cut.
 */
export function argumentsPreview(
  args: unknown,
  options: MCPArgumentsPreviewOptions = {},
): { text: string; truncated: boolean } {
  const max = options.maxChars ?? MAX_MCP_CONFIRMATION_PREVIEW_CHARS;
  let json: string;
  try {
    json = JSON.stringify(JSON.parse(canonicalJson(args)), null, 2) ?? "null";
  } catch {
    json = "[arguments that cannot be shown as JSON]";
  }
  const redacted = options.redact ? options.redact(json) : json;
  // JSON escapes C0 controls (ESC included) and lone surrogates itself; escapeJsonText escapes the rest a
  // terminal or a page acts on; cleanText then only bounds it (and would remove anything left).
  const escaped = escapeJsonText(redacted);
  return { text: cleanText(escaped, { maxChars: max }), truncated: escaped.length > max };
}
