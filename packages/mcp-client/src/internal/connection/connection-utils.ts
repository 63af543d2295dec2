/** Small helpers of the connection modules: deadlines, quiet closing, guarded callbacks. */
import { emitProcessWarning } from "@agentforge/mcp-config";
import type { Client } from "@modelcontextprotocol/client";
import {
  SdkError,
  SdkErrorCode,
  type ServerCapabilities,
  type Transport,
} from "@modelcontextprotocol/client";
import type { MCPCallToolOptions } from "../../types.js";
import type { BuiltTransport } from "../transport/build-transport.js";

export const ignoreProgress = (): void => {};

/**
 * A caller's callback of one call (`onprogress`, `onInputRound`), guarded: it runs inside the SDK's
 * message handling, so a throw (or a rejected promise) must not break the connection or escape into the
 * host. The call goes on, and the failure becomes a process warning (`AGENTFORGE_LISTENER_ERROR`, as an
 * event listener's) naming the callback, the tool and the server — never silence.
 */
export function guardedCallback<T>(
  callback: (value: T) => unknown,
  what: string,
  serverName: string,
  toolName: string,
): (value: T) => void {
  const report = (error: unknown) => {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    emitProcessWarning(
      `The ${what} callback of a call to tool "${toolName}" of MCP server "${serverName}" failed (${reason}); the call went on.`,
      "AGENTFORGE_LISTENER_ERROR",
      error instanceof Error ? error.stack : undefined,
    );
  };
  return (value) => {
    try {
      const result = callback(value);
      if (result && typeof (result as PromiseLike<unknown>).then === "function") {
        (result as PromiseLike<unknown>).then(undefined, report);
      }
    } catch (error) {
      report(error);
    }
  };
}

/** The caller's `onprogress`, guarded (see `guardedCallback`). */
export function guardedProgress(
  onprogress: NonNullable<MCPCallToolOptions["onprogress"]>,
  serverName: string,
  toolName: string,
): typeof onprogress {
  return guardedCallback(onprogress, "onprogress", serverName, toolName);
}

export function timeoutError(ms: number): SdkError {
  return new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: ms });
}

/** Race `promise` against a timer; on timeout run `onTimeout` and reject with an SDK-style timeout. */
export function withDeadline<T>(promise: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(timeoutError(ms));
    }, ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Whether the server runs `tools/call` as tasks (capability `tasks.requests.tools.call`). */
export function runsToolTasks(client: Client): boolean {
  const tasks = client.getServerCapabilities()?.tasks as ServerCapabilities["tasks"];
  return tasks?.requests?.tools?.call !== undefined;
}

export async function closeQuietly(client: Client, built: BuiltTransport): Promise<void> {
  await client.close().catch(() => {});
  await built.transport.close().catch(() => {});
  await built.dispose().catch(() => {});
}

export async function terminateSession(built: BuiltTransport): Promise<void> {
  if (built.kind !== "streamable-http") return;
  const transport = built.transport;
  if (!transport.sessionId) return;
  await withDeadline(transport.terminateSession(), 1000, () => {}).catch(() => {});
}

/**
 * 2026-07-28 results carry `resultType`; one without it is read as `complete` (absent means complete),
 * as earlier revisions' results are, instead of failing the request. Installed on a connected modern
 * connection, in front of the client's own message handler (the transport's public `onmessage`).
 */
export function completeByDefault(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    if ("result" in message && message.result !== null && typeof message.result === "object") {
      const result = message.result as Record<string, unknown>;
      if (result.resultType === undefined && !Array.isArray(result)) {
        deliver({ ...message, result: { ...result, resultType: "complete" } }, extra);
        return;
      }
    }
    deliver(message, extra);
  };
}
