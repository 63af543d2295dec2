// The executor's confirmation step: for a call the policy grants only with a person's confirmation, find
// the answer (a run-wide confirmation, an answer given with the call, or the handler's), check it is for
// this exact call, report REQUESTED / RESOLVED, and throw when the call may not go ahead.
import { cleanText } from "@agentforge/mcp-config";
import type { MCPConfirmationBasis, MCPToolDescriptor } from "@agentforge/mcp-permissions";
import {
  argumentsPreview,
  bindingOf,
  definitionDigest,
  type MCPConfirmationAnnotations,
  type MCPConfirmationAnswer,
  type MCPConfirmationDecision,
  type MCPConfirmationRequest,
  type MCPConfirmationRun,
  type MCPConfirmHandler,
} from "../confirmation.js";
import { MCPConfirmationError, type MCPConfirmationErrorCode, MCPToolExecutionError } from "../errors.js";
import {
  MCP_TOOL_CALL_CONFIRMATION_REQUESTED,
  MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
  type MCPConfirmationSource,
  type MCPEventDispatcher,
} from "../events.js";

/** Who calls what (the executor's call context). */
export interface GateCall {
  identity: string;
  serverName: string;
  toolName: string;
  agent: string;
  callId: string;
}

/** The executor's settings for confirmations. */
export interface GateSettings {
  events: MCPEventDispatcher;
  handler: MCPConfirmHandler | undefined;
  timeoutMs: number;
  maxPerRun: number;
  /** Redacts the roster's secrets for `serverName`'s call (undefined: nothing to redact). */
  redact: ((text: string) => string) | undefined;
}

/** What the call brings. */
export interface GateInput {
  tool: MCPToolDescriptor;
  args: Record<string, unknown>;
  basis: MCPConfirmationBasis;
  reason: string;
  fingerprint: string;
  run: MCPConfirmationRun | undefined;
  answer: MCPConfirmationAnswer | undefined;
  handler: MCPConfirmHandler | undefined;
  defer: boolean;
  signal: AbortSignal | undefined;
}

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
const LABEL_LIMIT = 200;
const REASON_LIMIT = 300;

/** One line of untrusted text, bounded. */
function line(text: unknown, max: number): string {
  return cleanText(String(text), { lineBreaks: false, maxChars: max });
}

/** Only boolean hints: what a person is shown of a tool's annotations. */
function hintsOf(annotations: unknown): MCPConfirmationAnnotations {
  const out: MCPConfirmationAnnotations = {};
  if (typeof annotations !== "object" || annotations === null) return out;
  for (const hint of HINTS) {
    const value = (annotations as Record<string, unknown>)[hint];
    if (typeof value === "boolean") out[hint] = value;
  }
  return out;
}

function titleOf(tool: MCPToolDescriptor): string {
  const annotated = (tool.annotations as { title?: unknown } | undefined)?.title;
  const title =
    typeof tool.title === "string" && tool.title.trim() !== ""
      ? tool.title
      : typeof annotated === "string" && annotated.trim() !== ""
        ? annotated
        : tool.toolName;
  return line(title, LABEL_LIMIT);
}

/** Throws a TypeError when `run` is not a confirmation run (it may have been restored from storage). */
export function checkRun(run: unknown): MCPConfirmationRun | undefined {
  if (run === undefined) return undefined;
  const r = run as Partial<MCPConfirmationRun> | null;
  if (
    typeof r !== "object" ||
    r === null ||
    typeof r.runId !== "string" ||
    r.runId.length === 0 ||
    !Number.isInteger(r.requests) ||
    (r.requests as number) < 0 ||
    !Array.isArray(r.confirmedForRun) ||
    !Array.isArray(r.usedAnswers)
  ) {
    throw new TypeError(
      "MCPToolExecutor.execute: confirmationRun must be a confirmation run ({ runId, requests, confirmedForRun, usedAnswers }; see createConfirmationRun)",
    );
  }
  return r as MCPConfirmationRun;
}

/** The REQUESTED event (also for requests made elsewhere: the AI SDK's approval flow). */
export function reportRequested(
  events: MCPEventDispatcher,
  call: GateCall,
  runId: string | undefined,
  basis: MCPConfirmationBasis,
  fingerprint: string,
  asked: boolean,
): void {
  if (events.listenerCount(MCP_TOOL_CALL_CONFIRMATION_REQUESTED) === 0) return;
  events.emit(MCP_TOOL_CALL_CONFIRMATION_REQUESTED, {
    type: MCP_TOOL_CALL_CONFIRMATION_REQUESTED,
    identity: call.identity,
    serverName: call.serverName,
    toolName: call.toolName,
    agent: call.agent,
    callId: call.callId,
    timestamp: isoNow(),
    ...(runId !== undefined ? { runId } : {}),
    basis,
    fingerprint,
    asked,
  });
}

function isoNow(): string {
  return new Date().toISOString();
}

function waited(since: number): number {
  return Math.max(0, Math.round(performance.now() - since));
}

function resolved(
  settings: GateSettings,
  call: GateCall,
  run: MCPConfirmationRun | undefined,
  decision: "allow" | "deny",
  scope: "call" | "run",
  source: MCPConfirmationSource,
  waitedMs: number,
  answeredBy?: unknown,
): void {
  if (settings.events.listenerCount(MCP_TOOL_CALL_CONFIRMATION_RESOLVED) === 0) return;
  settings.events.emit(MCP_TOOL_CALL_CONFIRMATION_RESOLVED, {
    type: MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
    identity: call.identity,
    serverName: call.serverName,
    toolName: call.toolName,
    agent: call.agent,
    callId: call.callId,
    timestamp: isoNow(),
    ...(run ? { runId: run.runId } : {}),
    decision,
    scope,
    source,
    ...(typeof answeredBy === "string" && answeredBy !== "" ? { answeredBy: line(answeredBy, 100) } : {}),
    waitedMs,
  });
}

function refuse(
  call: GateCall,
  code: MCPConfirmationErrorCode,
  message: string,
  request?: MCPConfirmationRequest,
  cause?: unknown,
): MCPConfirmationError {
  return new MCPConfirmationError(message, {
    code,
    identity: call.identity,
    serverName: call.serverName,
    toolName: call.toolName,
    agent: call.agent,
    callId: call.callId,
    ...(request ? { request } : {}),
    ...(cause !== undefined ? { cause } : {}),
  });
}

/** A decision's shape checked: undefined when it is neither allow nor deny. */
function checkedDecision(value: unknown): MCPConfirmationDecision | undefined {
  const d = value as Partial<MCPConfirmationDecision> | null | undefined;
  if (typeof d !== "object" || d === null || (d.decision !== "allow" && d.decision !== "deny"))
    return undefined;
  return d as MCPConfirmationDecision;
}

function denyMessage(call: GateCall, reason: unknown): string {
  const why =
    typeof reason === "string" && reason.trim() !== "" ? ` Their reason: ${line(reason, REASON_LIMIT)}` : "";
  return `The call to "${call.identity}" was not confirmed: the person asked denied it, so it was not made.${why} Do not call it again with the same arguments unless asked to.`;
}

/** Resolves to the handler's answer, or rejects with the abort reason (timeout, cancellation). */
function ask(
  handler: MCPConfirmHandler,
  request: MCPConfirmationRequest,
  signal: AbortSignal,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const settle = (fn: () => void) => {
      signal.removeEventListener("abort", onAbort);
      fn();
    };
    try {
      Promise.resolve(handler(request, { signal })).then(
        (answer) => settle(() => resolve(answer)),
        (error: unknown) => settle(() => reject(error)),
      );
    } catch (error) {
      settle(() => reject(error));
    }
  });
}

/**
 * Settle the confirmation of one call. Resolves when the call may go ahead; otherwise throws
 * `MCPConfirmationError` (or `MCPToolExecutionError` TOOL_CANCELLED when the caller's signal ended the
 * wait). Updates `run` in place.
 */
export async function settleConfirmation(
  settings: GateSettings,
  call: GateCall,
  input: GateInput,
): Promise<void> {
  const { run, answer } = input;
  const definition = await definitionDigest(input.tool);
  // A tool confirmed for the whole run, with this very definition: nothing to ask.
  if (
    run &&
    !answer &&
    run.confirmedForRun.some((entry) => entry?.identity === call.identity && entry.definition === definition)
  ) {
    resolved(settings, call, run, "allow", "run", "run", 0);
    return;
  }
  let binding: string;
  try {
    binding = await bindingOf(run?.runId ?? "", call.agent, call.identity, definition, input.args);
  } catch (error) {
    // Arguments that are not JSON data (nested too deeply, a cycle): nothing a person could be shown.
    resolved(settings, call, run, "deny", "call", "invalid-arguments", 0);
    throw refuse(
      call,
      "CONFIRMATION_DENIED",
      `The arguments for "${call.identity}" cannot be shown to a person (they are not plain JSON data, or nested too deeply), so the call was not made. Send plain JSON arguments.`,
      undefined,
      error,
    );
  }
  if (answer) {
    const since =
      typeof answer.requestedAt === "string" && !Number.isNaN(Date.parse(answer.requestedAt))
        ? performance.now() - Math.max(0, Date.now() - Date.parse(answer.requestedAt))
        : performance.now();
    if (typeof answer.binding !== "string" || answer.binding !== binding) {
      resolved(settings, call, run, "deny", "call", "binding-mismatch", waited(since), answer.answeredBy);
      throw refuse(
        call,
        "CONFIRMATION_DENIED",
        `The confirmation given for "${call.identity}" was for another call (other arguments, another definition of the tool, another run or agent), so this call was not made. Ask for a confirmation of this call.`,
      );
    }
    if (run && typeof answer.callId === "string") {
      if (run.usedAnswers.includes(answer.callId)) {
        resolved(settings, call, run, "deny", "call", "replayed", waited(since), answer.answeredBy);
        throw refuse(
          call,
          "CONFIRMATION_DENIED",
          `The confirmation given for "${call.identity}" was used already; each confirmation allows one call.`,
        );
      }
      run.usedAnswers.push(answer.callId);
    }
    return apply(settings, call, input, definition, answer, "answer", waited(since));
  }
  const started = performance.now();
  if (run && run.requests >= settings.maxPerRun) {
    resolved(settings, call, run, "deny", "call", "limit", 0);
    throw refuse(
      call,
      "CONFIRMATION_LIMIT_REACHED",
      `The call to "${call.identity}" needs a person's confirmation, but this run has made its ${settings.maxPerRun} confirmation requests; it was not made. Finish without it, or say what you would need.`,
    );
  }
  if (run) run.requests++;
  const preview = argumentsPreview(input.args, settings.redact ? { redact: settings.redact } : {});
  const request: MCPConfirmationRequest = {
    callId: call.callId,
    ...(run ? { runId: run.runId } : {}),
    agent: call.agent,
    identity: call.identity,
    serverName: call.serverName,
    toolName: call.toolName,
    title: titleOf(input.tool),
    annotations: hintsOf(input.tool.annotations),
    fingerprint: input.fingerprint,
    binding,
    argumentsPreview: preview.text,
    previewTruncated: preview.truncated,
    basis: input.basis,
    reason: line(input.reason, REASON_LIMIT),
    requestedAt: isoNow(),
  };
  const handler = input.handler;
  reportRequested(
    settings.events,
    call,
    run?.runId,
    input.basis,
    input.fingerprint,
    handler !== undefined && !input.defer,
  );
  if (!handler || input.defer) {
    // Deferred: the request stays open (no RESOLVED yet); the answer comes with a later call.
    if (!input.defer) resolved(settings, call, run, "deny", "call", "no-handler", 0);
    throw refuse(
      call,
      "CONFIRMATION_REQUIRED",
      input.defer
        ? `The call to "${call.identity}" waits for a person's confirmation; it was not made yet.`
        : `The call to "${call.identity}" needs a person's confirmation, and no one can be asked here (no confirm handler), so it was not made.`,
      request,
    );
  }
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
  let answered: unknown;
  try {
    answered = await ask(handler, request, signal);
  } catch (error) {
    if (input.signal?.aborted) {
      resolved(settings, call, run, "deny", "call", "cancelled", waited(started));
      throw new MCPToolExecutionError(
        `Call to "${call.identity}" was cancelled by the caller while it waited for confirmation`,
        {
          code: "TOOL_CANCELLED",
          identity: call.identity,
          serverName: call.serverName,
          toolName: call.toolName,
          cause: error,
        },
      );
    }
    const timedOut = timeout.aborted;
    resolved(settings, call, run, "deny", "call", timedOut ? "timeout" : "handler-failed", waited(started));
    throw refuse(
      call,
      "CONFIRMATION_DENIED",
      timedOut
        ? `The call to "${call.identity}" was not confirmed within ${Math.round(settings.timeoutMs / 1000)} s, so it was not made.`
        : `The call to "${call.identity}" could not be confirmed (the confirmation failed), so it was not made.`,
      request,
      error,
    );
  }
  const decision = checkedDecision(answered);
  if (!decision) {
    resolved(settings, call, run, "deny", "call", "invalid-answer", waited(started));
    throw refuse(
      call,
      "CONFIRMATION_DENIED",
      `The call to "${call.identity}" was not confirmed (the confirmation answered neither allow nor deny), so it was not made.`,
      request,
    );
  }
  return apply(settings, call, { ...input, run }, definition, decision, "handler", waited(started), request);
}

function apply(
  settings: GateSettings,
  call: GateCall,
  input: GateInput,
  definition: string,
  decision: MCPConfirmationDecision,
  source: "handler" | "answer",
  waitedMs: number,
  request?: MCPConfirmationRequest,
): void {
  const { run } = input;
  if (decision.decision !== "allow") {
    resolved(settings, call, run, "deny", "call", source, waitedMs, decision.answeredBy);
    throw refuse(call, "CONFIRMATION_DENIED", denyMessage(call, decision.reason), request);
  }
  const scope = decision.scope === "run" && run ? "run" : "call";
  if (
    scope === "run" &&
    run &&
    !run.confirmedForRun.some((entry) => entry?.identity === call.identity && entry.definition === definition)
  ) {
    run.confirmedForRun.push({ identity: call.identity, definition });
  }
  resolved(settings, call, run, "allow", scope, source, waitedMs, decision.answeredBy);
}
