/** Small helpers of the connection modules: deadlines, quiet closing, guarded callbacks. */
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

// The caller's progress callback runs inside the SDK's message handling: a throw there must not break
// the connection or escape into the host. It is ignored (the call goes on).
export function guardedProgress(
  onprogress: NonNullable<MCPCallToolOptions["onprogress"]>,
): typeof onprogress {
  return (progress) => {
    try {
      const result = onprogress(progress) as unknown;
      if (result && typeof (result as PromiseLike<unknown>).then === "function") {
        (result as PromiseLike<unknown>).then(undefined, () => {});
      }
    } catch {
      // ignored: see above
    }
  };
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
