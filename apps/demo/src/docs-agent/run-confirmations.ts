// Confirmations inside one docs run. Two ways to get an answer:
// - ask: a handler (the terminal prompt of `agentforge docs`) answers at once (the toolkit's `confirm`);
// - pause (`agentforge serve`): the tool loop asks no one and stops `awaiting_confirmation` with the
//   waiting calls in its state; their requests are stored with the run, a person answers them (REST, the
//   /mcp page) or they expire, and the resumed loop gets the stored answers — each only for the waiting
//   call it was given for: the same call id and the same binding (the executor checks the binding
//   against the call again before it is made).
import type { MCPConfirmationRequest, MCPConfirmHandler } from "@agentforge/agent-runtime";
import type { ToolLoopConfirmationAnswer, ToolLoopState } from "@agentforge/agent-runtime/langchain";
import { type ConfirmationRecord, decisionOf, type NewConfirmation } from "../run-store/confirmations.js";

/** How a run gets its confirmations. */
export type RunConfirmationMode =
  /** Ask this handler (a person at the terminal) and wait for the answer. */
  | { kind: "ask"; confirm: MCPConfirmHandler }
  /** Store the requests and stop the run until a person answers (REST, the /mcp page) or they expire. */
  | { kind: "pause"; ttlMs: number };

/** The stored form of a waiting call's request (what the person is shown, what binds the answer). */
export function newConfirmation(runId: string, request: MCPConfirmationRequest): NewConfirmation {
  return {
    runId,
    callId: request.callId,
    agent: request.agent,
    identity: request.identity,
    serverName: request.serverName,
    toolName: request.toolName,
    title: request.title,
    annotations: { ...request.annotations },
    fingerprint: request.fingerprint,
    binding: request.binding,
    argumentsPreview: request.argumentsPreview,
  };
}

/** The answer a closed record gives (an expiry is a deny); undefined while it is pending. */
export function answerOf(record: ConfirmationRecord): ToolLoopConfirmationAnswer | undefined {
  const decision = decisionOf(record);
  if (!decision) return undefined;
  const reason =
    record.status === "expired"
      ? "nobody confirmed the call before the confirmation expired"
      : (record.reason ?? undefined);
  return {
    callId: record.callId,
    decision,
    scope: record.scope ?? "call",
    ...(record.answeredBy ? { answeredBy: record.answeredBy } : {}),
    ...(reason ? { reason } : {}),
  };
}

/**
 * The answers for the calls a saved loop state waits for: a stored, closed record with the waiting call's
 * id and binding. A record whose binding is not the waiting call's (edited, copied from elsewhere) is
 * not an answer.
 */
export function answersFor(
  state: ToolLoopState,
  records: ConfirmationRecord[],
): ToolLoopConfirmationAnswer[] {
  const answers: ToolLoopConfirmationAnswer[] = [];
  for (const entry of state.pending?.confirmations ?? []) {
    if (entry.answer) continue;
    const record = records.find(
      (r) => r.callId === entry.request.callId && r.binding === entry.request.binding,
    );
    const answer = record ? answerOf(record) : undefined;
    if (answer) answers.push(answer);
  }
  return answers;
}
