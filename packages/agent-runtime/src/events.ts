import { EventEmitter } from "eventemitter3";

/** Event names, as constants (also the keys of `MCPRuntimeEvents`). */
export const MCP_TOOL_CALL_STARTED = "MCP_TOOL_CALL_STARTED";
/** A call returned a non-error result. */
export const MCP_TOOL_CALL_COMPLETED = "MCP_TOOL_CALL_COMPLETED";
/** A call was denied, timed out, was cancelled, returned an error result, or failed. */
export const MCP_TOOL_CALL_FAILED = "MCP_TOOL_CALL_FAILED";
/**
 * A call in flight reported progress (the server's `notifications/progress`, coalesced: only increasing
 * values, at most one per `MCP_PROGRESS_INTERVAL_MS`). Numbers only, never the server's message text.
 */
export const MCP_TOOL_CALL_PROGRESS = "MCP_TOOL_CALL_PROGRESS";
/** A resource was read through the executor (or the read was denied or failed): one event per read. */
export const MCP_RESOURCE_READ = "MCP_RESOURCE_READ";
/** A prompt was got through the executor (or the request was denied or failed): one event per request. */
export const MCP_PROMPT_GET = "MCP_PROMPT_GET";
/** A registered tool came back from its server with a different definition. */
export const MCP_TOOL_DEFINITION_CHANGED = "MCP_TOOL_DEFINITION_CHANGED";

/** A server's tool list was rejected by the registry (e.g. a tool name listed twice): none of its tools are callable. */
export const MCP_SERVER_TOOLS_REJECTED = "MCP_SERVER_TOOLS_REJECTED";
/** A server whose tool list was rejected sent an acceptable one: its tools are callable again. */
export const MCP_SERVER_TOOLS_ACCEPTED = "MCP_SERVER_TOOLS_ACCEPTED";

/** How a call ended. */
export type MCPToolCallOutcome = "ok" | "tool_error" | "denied" | "timeout" | "cancelled" | "failed";

/**
 * One tool call, as reported to listeners: an audit record. It never holds arguments, results or
 * secret values — only who called what, how it ended and how long it took.
 */
export interface MCPToolCallEvent {
  /** The identity called, `<server>.<tool>`. */
  tool: string;
  server: string;
  agent: string;
  /** Unique per call; pairs STARTED with COMPLETED/FAILED. */
  callId: string;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** Set on COMPLETED and FAILED. */
  outcome?: MCPToolCallOutcome;
  /** Set on COMPLETED and FAILED. */
  durationMs?: number;
  /** The error code on FAILED (e.g. TOOL_DENIED, TOOL_TIMEOUT). */
  errorCode?: string;
  /** A one-line description of the failure on FAILED; never tool output or arguments. */
  message?: string;
}

/** Progress of a call in flight: who calls what, and numbers — never the server's progress message. */
export interface MCPToolProgressEvent {
  /** The identity called, `<server>.<tool>`. */
  tool: string;
  server: string;
  agent: string;
  /** The call's id, as on its STARTED and COMPLETED/FAILED events. */
  callId: string;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** Progress so far: a finite number, larger than the last one reported for this call. */
  progress: number;
  /** The total, when the server gave a finite positive one. */
  total?: number;
}

/**
 * One resource read or prompt request, as reported to listeners (`MCP_RESOURCE_READ`, `MCP_PROMPT_GET`):
 * an audit record — never the content, the prompt arguments, nor a URI's query or fragment.
 */
export interface MCPAccessEvent {
  server: string;
  agent: string;
  /** Unique per request. */
  callId: string;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** `MCP_RESOURCE_READ`: the URI read, without its query (`?...`) and fragment (`#...`). */
  uri?: string;
  /** `MCP_PROMPT_GET`: the prompt's name. */
  prompt?: string;
  outcome: MCPToolCallOutcome;
  durationMs: number;
  /** The error code when `outcome` is not `ok` (e.g. TOOL_DENIED, TOOL_TIMEOUT, CAPABILITY_NOT_SUPPORTED). */
  errorCode?: string;
  /** A one-line description of the failure; never content. */
  message?: string;
}

/** A definition change of a registered tool (see `MCPToolRegistry.onDefinitionChanged`). */
export interface MCPToolDefinitionChangedEvent {
  tool: string;
  server: string;
  previousFingerprint: string;
  fingerprint: string;
  timestamp: string;
}

/** A server's tool list rejected or accepted again (see `MCPToolRegistry.rejection`). */
export interface MCPServerToolsEvent {
  server: string;
  timestamp: string;
  /** On REJECTED: the error code (TOOL_DUPLICATE). */
  errorCode?: string;
  /** On REJECTED: the contested identity, `<server>.<tool>`. */
  tool?: string;
  /** On REJECTED: why, in one line. */
  message?: string;
}

/** Every event the runtime emits, and its payload. */
export interface MCPRuntimeEvents {
  MCP_TOOL_CALL_STARTED: [MCPToolCallEvent];
  MCP_TOOL_CALL_COMPLETED: [MCPToolCallEvent];
  MCP_TOOL_CALL_FAILED: [MCPToolCallEvent];
  MCP_TOOL_CALL_PROGRESS: [MCPToolProgressEvent];
  MCP_RESOURCE_READ: [MCPAccessEvent];
  MCP_PROMPT_GET: [MCPAccessEvent];
  MCP_TOOL_DEFINITION_CHANGED: [MCPToolDefinitionChangedEvent];
  MCP_SERVER_TOOLS_REJECTED: [MCPServerToolsEvent];
  MCP_SERVER_TOOLS_ACCEPTED: [MCPServerToolsEvent];
}

/** The name of a runtime event. */
export type MCPRuntimeEventName = keyof MCPRuntimeEvents;

type Listener<E extends MCPRuntimeEventName> = (...args: MCPRuntimeEvents[E]) => unknown;

/**
 * The typed event bus of the runtime (eventemitter3 underneath). A listener that throws, or returns a
 * promise that rejects, never breaks the call that emitted the event: the error goes to
 * `onListenerError` (default: ignored).
 */
export class MCPEventDispatcher {
  readonly #emitter = new EventEmitter<MCPRuntimeEvents>();
  readonly #wrapped = new Map<
    Listener<MCPRuntimeEventName>,
    Map<MCPRuntimeEventName, Listener<MCPRuntimeEventName>>
  >();
  readonly #onListenerError: (error: unknown, event: MCPRuntimeEventName) => void;

  constructor(options: { onListenerError?: (error: unknown, event: MCPRuntimeEventName) => void } = {}) {
    this.#onListenerError = options.onListenerError ?? (() => undefined);
  }

  #guard<E extends MCPRuntimeEventName>(event: E, listener: Listener<E>, once: boolean): Listener<E> {
    const guarded = ((...args: MCPRuntimeEvents[E]) => {
      if (once) this.off(event, listener);
      try {
        const result = listener(...args);
        if (result && typeof (result as Promise<unknown>).catch === "function") {
          (result as Promise<unknown>).catch((error: unknown) => this.#onListenerError(error, event));
        }
      } catch (error) {
        this.#onListenerError(error, event);
      }
    }) as Listener<E>;
    let byEvent = this.#wrapped.get(listener as Listener<MCPRuntimeEventName>);
    if (!byEvent) {
      byEvent = new Map();
      this.#wrapped.set(listener as Listener<MCPRuntimeEventName>, byEvent);
    }
    byEvent.set(event, guarded as Listener<MCPRuntimeEventName>);
    return guarded;
  }

  /** Subscribe; returns the function that unsubscribes. */
  on<E extends MCPRuntimeEventName>(event: E, listener: Listener<E>): () => void {
    this.off(event, listener);
    // biome-ignore lint/suspicious/noExplicitAny: eventemitter3's listener type is generic over the event map.
    this.#emitter.on(event, this.#guard(event, listener, false) as any);
    return () => this.off(event, listener);
  }

  /** Subscribe for one event. */
  once<E extends MCPRuntimeEventName>(event: E, listener: Listener<E>): () => void {
    this.off(event, listener);
    // biome-ignore lint/suspicious/noExplicitAny: see `on`.
    this.#emitter.on(event, this.#guard(event, listener, true) as any);
    return () => this.off(event, listener);
  }

  /** Unsubscribe a listener given to `on` or `once`. */
  off<E extends MCPRuntimeEventName>(event: E, listener: Listener<E>): void {
    const byEvent = this.#wrapped.get(listener as Listener<MCPRuntimeEventName>);
    const guarded = byEvent?.get(event);
    if (!guarded || !byEvent) return;
    // biome-ignore lint/suspicious/noExplicitAny: see `on`.
    this.#emitter.off(event, guarded as any);
    byEvent.delete(event);
    if (byEvent.size === 0) this.#wrapped.delete(listener as Listener<MCPRuntimeEventName>);
  }

  /** Deliver an event to every listener; never throws. */
  emit<E extends MCPRuntimeEventName>(event: E, ...payload: MCPRuntimeEvents[E]): void {
    // biome-ignore lint/suspicious/noExplicitAny: see `on`.
    (this.#emitter.emit as (event: E, ...args: any[]) => boolean)(event, ...payload);
  }

  /** Number of listeners of an event. */
  listenerCount(event: MCPRuntimeEventName): number {
    return this.#emitter.listenerCount(event);
  }
}
