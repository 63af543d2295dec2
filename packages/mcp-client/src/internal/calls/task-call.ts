/**
 * A task-based `tools/call` (MCP tasks, SEP-1686): create the task, poll `tasks/get` at the server's
 * pace, fetch `tasks/result`, and cancel the task (`tasks/cancel`) when the caller gives up. Deadlines
 * are the caller's: `signal` fires on cancellation and timeouts, with the reason the error mapping reads.
 */

import { cleanText, emitProcessWarning } from "@agentforge/mcp-config";
import {
  type CallToolRequest,
  type Client,
  type Progress,
  ProtocolError,
  ProtocolErrorCode,
  type RequestOptions,
} from "@modelcontextprotocol/client";
import {
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ResultSchema,
} from "@modelcontextprotocol/core";
import { errorLine } from "../shared/error-line.js";

/** Bounds of the wait between two `tasks/get` (the server suggests `pollInterval`). */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 5000;
const DEFAULT_POLL_MS = 500;
/** How long a best-effort `tasks/cancel` may take after the caller gave up. */
const CANCEL_TIMEOUT_MS = 2000;
/** The longest timer Node accepts. */
const MAX_TIMER_MS = 2_147_483_647;

/** Options of `callToolAsTask`. */
export interface TaskCallOptions {
  /** The server's name (for the warning when a task cannot be cancelled). */
  serverName: string;
  params: CallToolRequest["params"];
  /** Fires on cancellation and on every deadline (its reason is what the call rejects with). */
  signal: AbortSignal;
  onprogress?: (progress: Progress) => void;
  /** Wraps the creating request (step-up logins). */
  send: <T>(run: () => Promise<T>) => Promise<T>;
  /** Called with the task id once the server created it. */
  onCreated?: (taskId: string) => void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const pollDelay = (suggested: unknown): number =>
  typeof suggested === "number" && Number.isFinite(suggested)
    ? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, suggested))
    : DEFAULT_POLL_MS;

/** The SDK keeps a task's progress handler until the task ends; end it with the call (internal API). */
interface TaskProgressCleanup {
  _cleanupTaskProgressHandler?(taskId: string): void;
}

/** Run a task-required tool to its end; resolves with the raw `tasks/result` (a tool result). */
export async function callToolAsTask(client: Client, options: TaskCallOptions): Promise<unknown> {
  const { signal } = options;
  // The server may create the task before the caller gives up and answer after: the creating request
  // outlives the caller's signal by a short grace, so a late answer's task is cancelled, not left running.
  const creation = new AbortController();
  let grace: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    grace = setTimeout(() => creation.abort(signal.reason), CANCEL_TIMEOUT_MS);
  };
  if (signal.aborted) throw signal.reason;
  signal.addEventListener("abort", onAbort, { once: true });
  const request: RequestOptions = { signal: creation.signal, timeout: MAX_TIMER_MS };
  if (options.onprogress) request.onprogress = options.onprogress;
  const creating = options.send(() =>
    client.request(
      { method: "tools/call", params: { ...options.params, task: {} } },
      CreateTaskResultSchema,
      request,
    ),
  );
  let created: Awaited<typeof creating>;
  try {
    created = await untilAborted(creating, signal);
  } catch (error) {
    if (signal.aborted) {
      void creating.then(
        (late) => cancelTask(client, options.serverName, late.task.taskId),
        () => undefined,
      );
    }
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
    void creating.finally(() => clearTimeout(grace)).catch(() => undefined);
  }
  const taskId = created.task.taskId;
  options.onCreated?.(taskId);
  const polling: RequestOptions = { signal, timeout: MAX_TIMER_MS };
  try {
    let task: { status: string; statusMessage?: string | undefined; pollInterval?: number | undefined } =
      created.task;
    for (;;) {
      // input_required: tasks/result delivers the server's queued requests (elicitation) and then blocks
      // until the task ends; completed/failed: it returns the stored tool result.
      if (task.status === "completed" || task.status === "failed" || task.status === "input_required") {
        return await client.request({ method: "tasks/result", params: { taskId } }, ResultSchema, polling);
      }
      if (task.status === "cancelled") {
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `the server cancelled task ${taskId}${task.statusMessage ? ` (${task.statusMessage})` : ""}`,
        );
      }
      await sleep(pollDelay(task.pollInterval), signal);
      task = await client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema, polling);
    }
  } catch (error) {
    if (signal.aborted) await cancelTask(client, options.serverName, taskId);
    throw error;
  } finally {
    (client as unknown as TaskProgressCleanup)._cleanupTaskProgressHandler?.(taskId);
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it fires. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Ask the server to cancel a task; bounded, never throws (the caller is already failing with its own
 * error). A cancel the server refuses or never answers leaves the task running there: that is said as a
 * process warning (`AGENTFORGE_TASK_CANCEL_FAILED`, the server's text cleaned), not dropped.
 */
export async function cancelTask(client: Client, serverName: string, taskId: string): Promise<void> {
  try {
    await client.request({ method: "tasks/cancel", params: { taskId } }, CancelTaskResultSchema, {
      timeout: CANCEL_TIMEOUT_MS,
    });
  } catch (error) {
    const reason = errorLine(error);
    emitProcessWarning(
      `MCP server "${serverName}" did not cancel task ${cleanText(taskId, { maxChars: 200 })} (${reason}); it may still be running there.`,
      "AGENTFORGE_TASK_CANCEL_FAILED",
    );
  }
}
