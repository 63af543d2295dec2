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

/**
 * A tool search was made (`executor.searchTools`, or `search_tools` in a tool loop), refused (the run's
 * searches are used up) or failed: one event per search. It holds the query's length and the tools found,
 * never the query itself (see `MCPToolSearchEvent`).
 */
export const MCP_TOOL_SEARCH = "MCP_TOOL_SEARCH";
/**
 * A tool loop left granted tools out of a model request: more than the provider accepts in one request
 * (`MAX_MODEL_TOOLS`). Emitted when the set left out changes, not on every request.
 */
export const MCP_TOOLS_LEFT_OUT = "MCP_TOOLS_LEFT_OUT";

/** How a call ended. */
export type MCPToolCallOutcome = "ok" | "tool_error" | "denied" | "timeout" | "cancelled" | "failed";

/**
 * One tool call, as reported to listeners: an audit record. It never holds arguments, results or
 * secret values — only who called what, how it ended and how long it took.
 */
export interface MCPToolCallEvent {
  /** The identity called, `<server>.<tool>`. */
  identity: string;
  /** The server part of the identity. */
  serverName: string;
  /** The tool's name as its server lists it (the part after the server's dot). */
  toolName: string;
  /** The agent that called. */
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
  identity: string;
  serverName: string;
  /** The tool's name as its server lists it. */
  toolName: string;
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
  /** The server asked. */
  serverName: string;
  agent: string;
  /** Unique per request. */
  callId: string;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** `MCP_RESOURCE_READ`: the URI read, without its query (`?...`) and fragment (`#...`). */
  uri?: string;
  /** `MCP_PROMPT_GET`: the prompt's name as its server lists it. */
  promptName?: string;
  outcome: MCPToolCallOutcome;
  durationMs: number;
  /** The error code when `outcome` is not `ok` (e.g. TOOL_DENIED, TOOL_TIMEOUT, CAPABILITY_NOT_SUPPORTED). */
  errorCode?: string;
  /** A one-line description of the failure; never content. */
  message?: string;
}

/** A definition change of a registered tool (see `MCPToolRegistry.onDefinitionChanged`). */
export interface MCPToolDefinitionChangedEvent {
  /** The tool whose definition changed, `<server>.<tool>`. */
  identity: string;
  serverName: string;
  /** The tool's name as its server lists it. */
  toolName: string;
  previousFingerprint: string;
  fingerprint: string;
  timestamp: string;
}

/** A server's tool list rejected or accepted again (see `MCPToolRegistry.rejection`). */
export interface MCPServerToolsEvent {
  serverName: string;
  timestamp: string;
  /** On REJECTED: the error code (TOOL_DUPLICATE). */
  errorCode?: string;
  /** On REJECTED: the contested identity, `<server>.<tool>`. */
  identity?: string;
  /** On REJECTED: why, in one line. */
  message?: string;
}

/**
 * One tool search, as reported to listeners: an audit record. The query is model-written text (it may
 * quote the user), so, like a tool call's arguments, it is never recorded: only its length, and which
 * tools were found — what the agent learned about.
 */
export interface MCPToolSearchEvent {
  agent: string;
  /** Unique per search. */
  searchId: string;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** Length of the query in characters (before it was cut to `MAX_MCP_TOOL_SEARCH_QUERY_CHARS`). */
  queryLength: number;
  /** Most tools asked for. */
  limit: number;
  /** How many tools were searched: the agent's granted, available ones (0 when refused). */
  candidates: number;
  /** The identities found (`<server>.<tool>`), best first; empty when refused or failed. */
  identities: string[];
  outcome: MCPToolCallOutcome;
  durationMs: number;
  /** On a refused or failed search: SEARCH_LIMIT_REACHED, SEARCH_FAILED, INVALID_ARGUMENTS. */
  errorCode?: string;
  /** A one-line description of the failure; never the query. */
  message?: string;
}

/** Granted tools a tool loop left out of its model requests, and why. */
export interface MCPToolsLeftOutEvent {
  agent: string;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** The identities left out (`<server>.<tool>`). */
  identities: string[];
  /** The most tools a request may carry (`MAX_MODEL_TOOLS` or the loop's `maxTools`). */
  limit: number;
  /** Why, in one line. */
  reason: string;
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
  MCP_TOOL_SEARCH: [MCPToolSearchEvent];
  MCP_TOOLS_LEFT_OUT: [MCPToolsLeftOutEvent];
}

/** The name of a runtime event. */
export type MCPRuntimeEventName = keyof MCPRuntimeEvents;

type Listener<E extends MCPRuntimeEventName> = (...args: MCPRuntimeEvents[E]) => unknown;

interface Subscription<E extends MCPRuntimeEventName> {
  readonly listener: Listener<E>;
  readonly once: boolean;
}

type Subscriptions = { [E in MCPRuntimeEventName]?: readonly Subscription<E>[] };

/**
 * The typed event bus of the runtime. A listener that throws, or returns a promise that rejects, never
 * breaks the call that emitted the event: the error goes to `onListenerError` (default: ignored).
 * Listeners run in the order they subscribed; subscribing the same function to the same event again
 * replaces the earlier subscription.
 */
export class MCPEventDispatcher {
  // Copy-on-write lists: an emit walks the list as it was when the event started, so a listener that
  // subscribes or unsubscribes during delivery changes the next event only.
  #subscriptions: Subscriptions = {};
  readonly #onListenerError: (error: unknown, event: MCPRuntimeEventName) => void;

  constructor(options: { onListenerError?: (error: unknown, event: MCPRuntimeEventName) => void } = {}) {
    this.#onListenerError = options.onListenerError ?? (() => undefined);
  }

  #list<E extends MCPRuntimeEventName>(event: E): readonly Subscription<E>[] {
    return (this.#subscriptions[event] as readonly Subscription<E>[] | undefined) ?? [];
  }

  #subscribe<E extends MCPRuntimeEventName>(event: E, listener: Listener<E>, once: boolean): () => void {
    if (typeof listener !== "function") {
      throw new TypeError(`MCPEventDispatcher: the listener of ${String(event)} must be a function`);
    }
    const next = this.#list(event).filter((s) => s.listener !== listener);
    next.push({ listener, once });
    (this.#subscriptions as Record<E, readonly Subscription<E>[]>)[event] = next;
    return () => this.off(event, listener);
  }

  /** Subscribe; returns the function that unsubscribes. */
  on<E extends MCPRuntimeEventName>(event: E, listener: Listener<E>): () => void {
    return this.#subscribe(event, listener, false);
  }

  /** Subscribe for one event; returns the function that unsubscribes. */
  once<E extends MCPRuntimeEventName>(event: E, listener: Listener<E>): () => void {
    return this.#subscribe(event, listener, true);
  }

  /** Unsubscribe a listener given to `on` or `once`. */
  off<E extends MCPRuntimeEventName>(event: E, listener: Listener<E>): void {
    const list = this.#list(event);
    if (!list.some((s) => s.listener === listener)) return;
    const next = list.filter((s) => s.listener !== listener);
    if (next.length === 0) delete this.#subscriptions[event];
    else (this.#subscriptions as Record<E, readonly Subscription<E>[]>)[event] = next;
  }

  /** Deliver an event to every listener; never throws. */
  emit<E extends MCPRuntimeEventName>(event: E, ...payload: MCPRuntimeEvents[E]): void {
    const list = this.#subscriptions[event] as readonly Subscription<E>[] | undefined;
    if (list === undefined) return;
    for (const subscription of list) {
      if (subscription.once) this.off(event, subscription.listener);
      try {
        const result = subscription.listener(...payload);
        if (result && typeof (result as Promise<unknown>).catch === "function") {
          (result as Promise<unknown>).catch((error: unknown) => this.#onListenerError(error, event));
        }
      } catch (error) {
        this.#onListenerError(error, event);
      }
    }
  }

  /** Number of listeners of an event. */
  listenerCount(event: MCPRuntimeEventName): number {
    return this.#subscriptions[event]?.length ?? 0;
  }
}
