// The stored answers a resumed run gets: only for its waiting calls, only with the same binding.
import type { MCPConfirmationRequest } from "@agentforge/agent-runtime";
import type { ToolLoopState } from "@agentforge/agent-runtime/langchain";
import { describe, expect, it } from "vitest";
import type { ConfirmationRecord } from "../run-store/confirmations.js";
import { answerOf, answersFor, newConfirmation } from "./run-confirmations.js";

function request(callId: string, binding: string): MCPConfirmationRequest {
  return {
    callId,
    runId: "run-1",
    agent: "documentation",
    identity: "github.delete_branch",
    serverName: "github",
    toolName: "delete_branch",
    title: "Delete a branch",
    annotations: { destructiveHint: true },
    fingerprint: "fp",
    binding,
    argumentsPreview: '{"branch":"main"}',
    previewTruncated: false,
    basis: "pattern",
    reason: "needs confirmation",
    requestedAt: "2026-12-04T10:00:00.000Z",
  } as MCPConfirmationRequest;
}

function record(callId: string, binding: string, status: ConfirmationRecord["status"]): ConfirmationRecord {
  return {
    ...newConfirmation("run-1", request(callId, binding)),
    requestedAt: "2026-12-04T10:00:00.000Z",
    expiresAt: "2026-12-05T10:00:00.000Z",
    status,
    scope: status === "pending" || status === "expired" ? null : "call",
    reason: status === "denied" ? "no" : null,
    answeredAt: status === "pending" ? null : "2026-12-04T10:01:00.000Z",
    answeredBy: status === "pending" ? null : status === "expired" ? "expiry" : "token:abc",
  };
}

const waiting = (...calls: Array<[string, string]>): ToolLoopState =>
  ({
    messages: [],
    round: 1,
    calls: [],
    finished: false,
    pending: {
      results: [],
      confirmations: calls.map(([callId, binding]) => ({
        toolCallId: `t-${callId}`,
        modelName: "github__delete_branch",
        request: request(callId, binding),
      })),
    },
  }) as unknown as ToolLoopState;

describe("answersFor", () => {
  it("gives the stored answer of each waiting call with the same id and binding", () => {
    const answers = answersFor(waiting(["c1", "b1"], ["c2", "b2"], ["c3", "b3"]), [
      record("c1", "b1", "allowed"),
      record("c2", "b2", "denied"),
      record("c3", "b3", "pending"),
    ]);
    expect(answers).toEqual([
      { callId: "c1", decision: "allow", scope: "call", answeredBy: "token:abc" },
      { callId: "c2", decision: "deny", scope: "call", answeredBy: "token:abc", reason: "no" },
    ]);
  });

  it("never gives an answer whose binding is another call's, nor one for a call that does not wait", () => {
    expect(answersFor(waiting(["c1", "b1"]), [record("c1", "other", "allowed")])).toEqual([]);
    expect(answersFor(waiting(["c1", "b1"]), [record("c9", "b1", "allowed")])).toEqual([]);
    expect(
      answersFor({ ...waiting(), pending: undefined } as ToolLoopState, [record("c1", "b1", "allowed")]),
    ).toEqual([]);
  });

  it("an expiry is a deny that says so", () => {
    expect(answerOf(record("c1", "b1", "expired"))).toEqual({
      callId: "c1",
      decision: "deny",
      scope: "call",
      answeredBy: "expiry",
      reason: "nobody confirmed the call before the confirmation expired",
    });
    expect(answerOf(record("c1", "b1", "pending"))).toBeUndefined();
  });
});
