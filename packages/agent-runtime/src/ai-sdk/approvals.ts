// Confirmation through the AI SDK's own approval flow: `needsApproval` says which calls need a person,
// the binding of each call the SDK asked approval for is kept (by tool call id), and when the SDK runs an
// approved call, the executor gets the approval as an answer bound to that binding — so an approval for
// other arguments (messages edited between the request and the answer) is refused.
import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import {
  bindingOf,
  definitionDigest,
  type MCPConfirmationAnswer,
  type MCPConfirmationRun,
} from "../confirmation.js";
import { reportRequested } from "../internal/confirmation-gate.js";
import type { MCPToolExecutor } from "../mcp-tool-executor.js";

/**
 * Where `toAISDKTools` keeps the binding of each call the AI SDK asked approval for, by tool call id
 * (default: in memory, the last 1000). Give a store backed by your database when the approval may be
 * answered in another process (after a restart, on another instance).
 */
export interface MCPApprovalBindingStore {
  get(toolCallId: string): string | undefined | Promise<string | undefined>;
  set(toolCallId: string, binding: string): void | Promise<void>;
}

const MEMORY_LIMIT = 1000;

/** An in-memory `MCPApprovalBindingStore` keeping the last `limit` bindings. */
export function memoryApprovalBindingStore(limit = MEMORY_LIMIT): MCPApprovalBindingStore {
  const map = new Map<string, string>();
  return {
    get: (id) => map.get(id),
    set: (id, binding) => {
      map.delete(id);
      map.set(id, binding);
      if (map.size > limit) map.delete(map.keys().next().value as string);
    },
  };
}

const CALL_ID = /^[A-Za-z0-9_-]{1,100}$/;

function parts(message: unknown): unknown[] {
  const content = (message as { content?: unknown } | null)?.content;
  return Array.isArray(content) ? content : [];
}

/** The approval the messages hold for `toolCallId`: its request was made and answered (or undefined). */
export function approvalOf(
  messages: readonly unknown[] | undefined,
  toolCallId: string,
): { approved: boolean; reason?: string } | undefined {
  if (!Array.isArray(messages)) return undefined;
  const requests = new Set<string>();
  for (const message of messages) {
    for (const part of parts(message)) {
      const p = part as { type?: unknown; toolCallId?: unknown; approvalId?: unknown };
      if (
        p?.type === "tool-approval-request" &&
        p.toolCallId === toolCallId &&
        typeof p.approvalId === "string"
      )
        requests.add(p.approvalId);
    }
  }
  if (requests.size === 0) return undefined;
  let found: { approved: boolean; reason?: string } | undefined;
  for (const message of messages) {
    for (const part of parts(message)) {
      const p = part as { type?: unknown; approvalId?: unknown; approved?: unknown; reason?: unknown };
      if (p?.type !== "tool-approval-response" || typeof p.approvalId !== "string") continue;
      if (!requests.has(p.approvalId)) continue;
      found = {
        approved: p.approved === true,
        ...(typeof p.reason === "string" ? { reason: p.reason } : {}),
      };
    }
  }
  return found;
}

/** What the approval hooks of one `toAISDKTools` record share. */
export interface ApprovalContext {
  executor: MCPToolExecutor;
  agent: string;
  run: MCPConfirmationRun;
  store: MCPApprovalBindingStore;
}

function argsOf(input: unknown): Record<string, unknown> {
  return typeof input === "object" && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

/**
 * The AI SDK's `needsApproval` for one tool: true when the policy grants the call only with confirmation
 * (and the run has not confirmed the tool for the whole run). The first time for a tool call, its
 * binding is kept and an `MCP_TOOL_CALL_CONFIRMATION_REQUESTED` event is reported; a run past its bound
 * of requests, or arguments that are not plain JSON data, get false, and the executor then refuses the
 * call (CONFIRMATION_LIMIT_REACHED, CONFIRMATION_DENIED).
 */
export async function needsApproval(
  context: ApprovalContext,
  descriptor: MCPToolDescriptor,
  input: unknown,
  toolCallId: string,
  messages: readonly unknown[] | undefined,
): Promise<boolean> {
  const { executor, agent, run, store } = context;
  const identity = descriptor.identity;
  const tool = executor.registry.get(identity) ?? descriptor;
  const decision = executor.policy.decide(agent, identity, tool);
  if (!decision.allowed || !decision.confirmation) return false;
  const definition = await definitionDigest(tool);
  if (run.confirmedForRun.some((e) => e?.identity === identity && e.definition === definition)) return false;
  if ((await store.get(toolCallId)) !== undefined) return true;
  // Asked again for a call whose approval request is already in the messages (the SDK checks approved
  // calls once more before running them): it still needs approval. No binding is made up here: without
  // the one kept when the request was made, the executor refuses the call.
  if (approvalOf(messages, toolCallId) !== undefined || hasRequest(messages, toolCallId)) return true;
  if (run.requests >= executor.maxConfirmationsPerRun) return false;
  let binding: string;
  try {
    binding = await bindingOf(run.runId, agent, identity, definition, argsOf(input));
  } catch {
    // Arguments no person could be shown (not plain JSON data): no approval is asked; the executor
    // refuses the call with an error the model gets (CONFIRMATION_DENIED).
    return false;
  }
  run.requests++;
  await store.set(toolCallId, binding);
  reportRequested(
    executor.events,
    {
      identity,
      serverName: tool.serverName,
      toolName: tool.toolName,
      agent,
      callId: CALL_ID.test(toolCallId) ? toolCallId : "",
    },
    run.runId,
    decision.confirmation,
    executor.registry.fingerprint(identity) ?? "",
    false,
  );
  return true;
}

function hasRequest(messages: readonly unknown[] | undefined, toolCallId: string): boolean {
  if (!Array.isArray(messages)) return false;
  return messages.some((message) =>
    parts(message).some(
      (part) =>
        (part as { type?: unknown })?.type === "tool-approval-request" &&
        (part as { toolCallId?: unknown }).toolCallId === toolCallId,
    ),
  );
}

/**
 * The answer to give the executor when the AI SDK runs a call it got an approval for: an allow bound to
 * the binding kept when approval was asked (none kept: a binding no call has, so the call is refused).
 * Undefined when the messages hold no approval for the call.
 */
export async function approvedAnswer(
  context: ApprovalContext,
  toolCallId: string,
  messages: readonly unknown[] | undefined,
): Promise<MCPConfirmationAnswer | undefined> {
  const approval = approvalOf(messages, toolCallId);
  if (!approval?.approved) return undefined;
  const binding = (await context.store.get(toolCallId)) ?? "unknown";
  return {
    decision: "allow",
    binding,
    answeredBy: "ai-sdk-approval",
    ...(CALL_ID.test(toolCallId) ? { callId: toolCallId } : {}),
    ...(approval.reason !== undefined ? { reason: approval.reason } : {}),
  };
}
