/**
 * `tools/call` on a stdio connection without the SDK's generic request machinery. The SDK's `Protocol`
 * walks every incoming message through four zod schemas to tell its kind, parses every result once
 * more against the caller's schema, and builds a closure, a timeout record and a promise chain per
 * request; on a busy connection that is most of the client's CPU per call. Here a call is one pending
 * entry, one timer and one promise, and its reply is routed by id before the SDK sees it.
 *
 * What is checked stays the same, and fails the same way (the same `McpError`s, so the manager's error
 * mapping is shared): the message was already checked by `MCPStdioTransport` (a valid JSON-RPC message
 * whose result is an object), the tool's output schema is checked with the SDK client's own cached
 * validator, a timeout or an abort sends `notifications/cancelled`, a closed connection fails every
 * pending call with `ConnectionClosed`, and an over-limit reply fails its own call (`REPLY_TOO_LARGE`).
 *
 * Only the plain case takes this path: a call that asks for progress (or restarts its timeout on
 * progress) and a task-required tool go through the SDK, which owns those protocols. Ids are strings
 * (`c1`, `c2`, ...), so they never collide with the SDK's numeric ids on the same connection; a reply
 * that arrives after its call ended (timed out, cancelled) is not ours any more and reaches the SDK,
 * which ignores an unknown id as it does for its own late replies.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolRequest,
  ErrorCode,
  type JSONRPCMessage,
  McpError,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { timeoutError } from "./connection-utils.js";

/** The SDK client's private per-tool caches, filled by `ToolCache` (see `cacheToolMetadata`). */
interface ToolMetadata {
  getToolOutputValidator(
    toolName: string,
  ): ((value: unknown) => { valid: boolean; errorMessage?: string }) | undefined;
  isToolTaskRequired(toolName: string): boolean;
}

interface PendingCall {
  readonly id: string;
  readonly toolName: string;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly timer: NodeJS.Timeout;
  onAbort: (() => void) | undefined;
}

/** The direct `tools/call` path of one stdio connection (one per SDK client and transport). */
export class DirectToolCalls {
  private readonly pending = new Map<string, PendingCall>();
  private nextId = 1;
  private closed = false;

  private constructor(
    private readonly transport: Transport,
    private readonly metadata: ToolMetadata,
  ) {
    // Installed after `client.connect()`, in front of the handlers the SDK set on the transport.
    const sdkMessage = transport.onmessage;
    const sdkClose = transport.onclose;
    transport.onmessage = (message, extra) => {
      if (this.pending.size > 0 && !("method" in message) && typeof message.id === "string") {
        const call = this.pending.get(message.id);
        if (call) {
          this.settle(call, message);
          return;
        }
      }
      sdkMessage?.(message, extra);
    };
    transport.onclose = () => {
      this.failAll();
      sdkClose?.();
    };
  }

  /**
   * The direct path for a connected `client` over `transport`, or `undefined` when the SDK client lacks
   * the caches this path reads (a different SDK version): then every call goes through the SDK.
   */
  static attach(client: Client, transport: Transport): DirectToolCalls | undefined {
    const metadata = client as unknown as Partial<ToolMetadata>;
    if (
      typeof metadata.getToolOutputValidator !== "function" ||
      typeof metadata.isToolTaskRequired !== "function" ||
      client.transport !== transport
    ) {
      return undefined;
    }
    return new DirectToolCalls(transport, client as unknown as ToolMetadata);
  }

  /** Whether a call of `toolName` may take this path (not a task-required tool). */
  takes(toolName: string): boolean {
    return !this.closed && !this.metadata.isToolTaskRequired(toolName);
  }

  /**
   * Send `tools/call` and resolve with its result (an object), checked against the tool's output schema.
   * Rejects like the SDK's `Client.callTool`: `McpError` RequestTimeout after `timeoutMs` or when `signal`
   * aborts (both send `notifications/cancelled`), the server's JSON-RPC error as an `McpError`,
   * ConnectionClosed when the connection ends, or the transport's send error.
   */
  call(
    params: CallToolRequest["params"],
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new McpError(ErrorCode.ConnectionClosed, "Connection closed"));
        return;
      }
      const id = `c${this.nextId++}`;
      const call: PendingCall = {
        id,
        toolName: params.name,
        resolve,
        reject,
        signal,
        timer: setTimeout(this.onTimeout, timeoutMs, id, timeoutMs),
        onAbort: undefined,
      };
      this.pending.set(id, call);
      if (signal) {
        const onAbort = () => this.cancel(call, signal.reason);
        call.onAbort = onAbort;
        signal.addEventListener("abort", onAbort, { once: true });
      }
      this.transport.send({ jsonrpc: "2.0", id, method: "tools/call", params }).catch((error: unknown) => {
        if (this.forget(call)) reject(error);
      });
    });
  }

  // One function for every call's timer, its arguments passed by setTimeout: no closure per call.
  private readonly onTimeout = (id: string, timeoutMs: number): void => {
    const call = this.pending.get(id);
    if (call) this.cancel(call, timeoutError(timeoutMs));
  };

  /** Whether the call was still pending (and is no more). */
  private forget(call: PendingCall): boolean {
    if (!this.pending.delete(call.id)) return false;
    clearTimeout(call.timer);
    if (call.onAbort) call.signal?.removeEventListener("abort", call.onAbort);
    return true;
  }

  // As the SDK cancels a request: forget it, tell the server, fail with an McpError.
  private cancel(call: PendingCall, reason: unknown): void {
    if (!this.forget(call)) return;
    this.transport
      .send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: call.id, reason: String(reason) },
      })
      .catch(() => {
        // The connection is going away; its close fails what is left.
      });
    call.reject(reason instanceof McpError ? reason : new McpError(ErrorCode.RequestTimeout, String(reason)));
  }

  private settle(call: PendingCall, message: JSONRPCMessage): void {
    this.forget(call);
    if ("error" in message) {
      const { code, message: text, data } = message.error;
      call.reject(McpError.fromError(code, text, data));
      return;
    }
    try {
      call.resolve(this.checked(call.toolName, (message as { result?: unknown }).result));
    } catch (error) {
      call.reject(error);
    }
  }

  // What the SDK checks of a tools/call result: that it is a result (an object: `MCPStdioTransport` lets
  // nothing else through, so the schema runs only for another transport), then the tool's output schema
  // with the SDK client's own cached validator — with the SDK's errors.
  private checked(toolName: string, value: unknown): unknown {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      const parsed = ResultSchema.safeParse(value);
      if (!parsed.success) throw parsed.error;
    }
    const result = value as Record<string, unknown>;
    const validate = this.metadata.getToolOutputValidator(toolName);
    if (!validate) return result;
    const structured = result.structuredContent;
    if (!structured && !result.isError) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Tool ${toolName} has an output schema but did not return structured content`,
      );
    }
    if (!structured) return result;
    let verdict: { valid: boolean; errorMessage?: string };
    try {
      verdict = validate(structured);
    } catch (error) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Failed to validate structured content: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!verdict.valid) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Structured content does not match the tool's output schema: ${verdict.errorMessage}`,
      );
    }
    return result;
  }

  // The connection ended: every pending call fails as the SDK fails its own requests.
  private failAll(): void {
    this.closed = true;
    const calls = [...this.pending.values()];
    const error = new McpError(ErrorCode.ConnectionClosed, "Connection closed");
    for (const call of calls) if (this.forget(call)) call.reject(error);
  }
}
