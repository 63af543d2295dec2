// Confirmations inside one docs run. Every call of the run goes through the executor with the run's
// confirmation state (`confirmationRun`: its id is part of every binding, `scope: "run"` answers and
// used answers are kept in it, saved with the run). Two ways to get an answer:
// - ask: a handler (the terminal prompt of `agentforge docs`) answers at once;
// - pause (`agentforge serve`): the call is deferred — the executor fails it with CONFIRMATION_REQUIRED
//   and the request —, the request is stored with the run, and the run stops `awaiting_confirmation`.
//   When it is resumed, a call whose binding has a stored answer goes with that answer (the executor checks
//   the binding again and uses each answer once); any other call needing confirmation pauses again.
import {
  confirmationBinding,
  type MCPConfirmationAnswer,
  MCPConfirmationError,
  type MCPConfirmationRequest,
  type MCPConfirmationRun,
  type MCPConfirmHandler,
  type MCPExecuteOptions,
  type MCPToolExecutor,
} from "@agentforge/agent-runtime";
import {
  type ConfirmationRecord,
  decisionOf,
  MAX_CONFIRMATIONS_PER_RUN,
  MAX_PENDING_PER_RUN,
  type NewConfirmation,
} from "../run-store/confirmations.js";
import type { RunRepository } from "../run-store/run-repository.js";

/** How a run gets its confirmations. */
export type RunConfirmationMode =
  /** Ask this handler (a person at the terminal) and wait for the answer. */
  | { kind: "ask"; confirm: MCPConfirmHandler }
  /** Store the request and stop the run until a person answers (REST, the /mcp page) or it expires. */
  | { kind: "pause"; ttlMs: number };

/** The stored request of a deferred call (what the person is shown, what binds the answer). */
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

/** The answer a stored record gives to the executor (an expiry is a deny). */
export function answerOf(record: ConfirmationRecord): MCPConfirmationAnswer {
  const decision = decisionOf(record) ?? "deny";
  const reason =
    record.status === "expired"
      ? "nobody confirmed the call before the confirmation expired"
      : (record.reason ?? undefined);
  return {
    decision,
    scope: record.scope ?? "call",
    binding: record.binding,
    callId: record.callId,
    requestedAt: record.requestedAt,
    ...(record.answeredBy ? { answeredBy: record.answeredBy } : {}),
    ...(reason ? { reason } : {}),
  };
}

/** What the pause mode needs from the run. */
export interface PauseHooks {
  repository: RunRepository;
  runId: string;
  ttlMs: number;
  /** The stored answers of the run (read at its start: the run is not running while they are given). */
  answers: ConfirmationRecord[];
  /** A request was stored: tell the run's stream (never the arguments). */
  onRequested: (record: ConfirmationRecord) => void;
  /** Stop the run: it waits for a person now. */
  pause: () => void;
}

/**
 * The run's executor, seen by the tool loop: every `execute` carries the run's confirmation state, and,
 * depending on the mode, the handler to ask or (pause) a stored answer / a deferral. Everything else is
 * the executor itself.
 */
export function confirmingExecutor(
  executor: MCPToolExecutor,
  confirmationRun: MCPConfirmationRun,
  mode: RunConfirmationMode | undefined,
  hooks?: PauseHooks,
): MCPToolExecutor {
  const execute = async (
    agent: string,
    identity: string,
    args: Record<string, unknown> = {},
    options: MCPExecuteOptions = {},
  ) => {
    const withRun: MCPExecuteOptions = { ...options, confirmationRun };
    if (mode?.kind === "ask")
      return executor.execute(agent, identity, args, { ...withRun, confirm: mode.confirm });
    if (mode?.kind !== "pause" || !hooks) return executor.execute(agent, identity, args, withRun);
    const answer = await storedAnswer(executor, confirmationRun, hooks.answers, agent, identity, args);
    try {
      return await executor.execute(agent, identity, args, {
        ...withRun,
        ...(answer ? { confirmation: answer } : { deferConfirmation: true }),
      });
    } catch (error) {
      if (MCPConfirmationError.isInstance(error) && error.code === "CONFIRMATION_REQUIRED" && error.request) {
        await defer(hooks, error.request);
      }
      throw error;
    }
  };
  return new Proxy(executor, {
    get(target, property) {
      if (property === "execute") return execute;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The stored answer for this exact call that the run has not used yet, if any. */
async function storedAnswer(
  executor: MCPToolExecutor,
  run: MCPConfirmationRun,
  answers: ConfirmationRecord[],
  agent: string,
  identity: string,
  args: Record<string, unknown>,
): Promise<MCPConfirmationAnswer | undefined> {
  const candidates = answers.filter(
    (record) =>
      record.status !== "pending" && record.identity === identity && !run.usedAnswers.includes(record.callId),
  );
  if (candidates.length === 0) return undefined;
  const tool = executor.registry.get(identity);
  if (!tool) return undefined;
  const binding = await confirmationBinding({ runId: run.runId, agent, tool, args });
  const match = candidates.find((record) => record.binding === binding);
  return match ? answerOf(match) : undefined;
}

/** Store a deferred call's request (bounded per run) and stop the run. */
async function defer(hooks: PauseHooks, request: MCPConfirmationRequest): Promise<void> {
  const stored = await hooks.repository.confirmations(hooks.runId);
  const pending = stored.filter((record) => record.status === "pending").length;
  // A model that loops on sensitive calls gets refusals, not a growing queue for a person.
  if (pending >= MAX_PENDING_PER_RUN || stored.length >= MAX_CONFIRMATIONS_PER_RUN) return;
  const record = await hooks.repository.requestConfirmation(
    newConfirmation(hooks.runId, request),
    hooks.ttlMs,
  );
  hooks.onRequested(record);
  hooks.pause();
}
