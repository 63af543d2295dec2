/** A listener of one event: receives its payload; what it returns is ignored (a rejection is reported). */
export type MCPEventListener<P> = (payload: P) => unknown;

/** Options of `MCPEventEmitter`. */
export interface MCPEventEmitterOptions<Events> {
  /**
   * Where a listener that throws (or returns a promise that rejects) is reported, with the event and
   * the payload the listener was given. Default: `reportListenerError` (a process warning). The
   * emitting code is never affected either way.
   */
  onListenerError?: (error: unknown, event: keyof Events & string, payload: Events[keyof Events]) => void;
}

interface Subscription<P> {
  readonly listener: MCPEventListener<P>;
  readonly once: boolean;
}

/**
 * A failure or warning nobody was set up to hear becomes a process warning (`process.emitWarning` with
 * `code`, shown on stderr by Node and catchable with `process.on("warning")`), or `console.warn` where
 * there is no `process` — never silence. `detail` is a stack or a longer explanation.
 */
export function emitProcessWarning(text: string, code: `AGENTFORGE_${string}`, detail?: string): void {
  const proc = (globalThis as { process?: { emitWarning?: (w: string, o: object) => void } }).process;
  if (typeof proc?.emitWarning === "function") {
    proc.emitWarning(text, { code, ...(detail ? { detail } : {}) });
  } else {
    console.warn(text, detail ?? "");
  }
}

/**
 * A listener failed and nobody was set up to hear it: it becomes a process warning (code
 * `AGENTFORGE_LISTENER_ERROR`, see `emitProcessWarning`) — never silence.
 */
export function reportListenerError(error: unknown, event: string): void {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  emitProcessWarning(
    `A listener of the "${event}" event failed (${reason}); the event was delivered to the other listeners.`,
    "AGENTFORGE_LISTENER_ERROR",
    error instanceof Error ? error.stack : undefined,
  );
}

/**
 * The one event mechanism of the @agentforge packages: `on(event, listener)` returns the function that
 * unsubscribes. A listener that throws, or returns a promise that rejects, never breaks the code that
 * emitted the event nor the other listeners: the failure goes to `onListenerError` (by default a
 * process warning, see `reportListenerError`). Listeners run in the order they subscribed; subscribing
 * the same function to the same event again replaces the earlier subscription. An emit walks the
 * listeners as they were when it started.
 */
export class MCPEventEmitter<Events extends { [K in keyof Events]: unknown }> {
  #subscriptions = new Map<keyof Events, readonly Subscription<never>[]>();
  readonly #onListenerError: (
    error: unknown,
    event: keyof Events & string,
    payload: Events[keyof Events],
  ) => void;

  constructor(options: MCPEventEmitterOptions<Events> = {}) {
    const handler = options.onListenerError;
    if (handler !== undefined && typeof handler !== "function") {
      throw new TypeError("MCPEventEmitter: onListenerError must be a function");
    }
    this.#onListenerError = handler ?? reportListenerError;
  }

  #list<E extends keyof Events>(event: E): readonly Subscription<Events[E]>[] {
    return (this.#subscriptions.get(event) as readonly Subscription<Events[E]>[] | undefined) ?? [];
  }

  #subscribe<E extends keyof Events>(
    event: E,
    listener: MCPEventListener<Events[E]>,
    once: boolean,
  ): () => void {
    if (typeof listener !== "function") {
      throw new TypeError(`the listener of the "${String(event)}" event must be a function`);
    }
    const next = this.#list(event).filter((s) => s.listener !== listener);
    next.push({ listener, once });
    this.#subscriptions.set(event, next as readonly Subscription<never>[]);
    return () => this.#remove(event, listener);
  }

  #remove<E extends keyof Events>(event: E, listener: MCPEventListener<Events[E]>): void {
    const list = this.#list(event);
    if (!list.some((s) => s.listener === listener)) return;
    const next = list.filter((s) => s.listener !== listener);
    if (next.length === 0) this.#subscriptions.delete(event);
    else this.#subscriptions.set(event, next as readonly Subscription<never>[]);
  }

  /** Subscribe; returns the function that unsubscribes. */
  on<E extends keyof Events>(event: E, listener: MCPEventListener<Events[E]>): () => void {
    return this.#subscribe(event, listener, false);
  }

  /** Subscribe for one event; returns the function that unsubscribes. */
  once<E extends keyof Events>(event: E, listener: MCPEventListener<Events[E]>): () => void {
    return this.#subscribe(event, listener, true);
  }

  /** Number of listeners of an event (emitters skip building payloads nobody hears). */
  listenerCount(event: keyof Events): number {
    return this.#subscriptions.get(event)?.length ?? 0;
  }

  /**
   * Deliver an event to every listener; never throws. For the object that owns the emitter: classes
   * that expose events keep their emitter private and offer only `on`.
   */
  emit<E extends keyof Events>(event: E, payload: Events[E]): void {
    const list = this.#subscriptions.get(event) as readonly Subscription<Events[E]>[] | undefined;
    if (list === undefined) return;
    for (const subscription of list) {
      if (subscription.once) this.#remove(event, subscription.listener);
      try {
        const result = subscription.listener(payload);
        if (result && typeof (result as Promise<unknown>).then === "function") {
          (result as Promise<unknown>).then(undefined, (error: unknown) =>
            this.#failed(error, event, payload),
          );
        }
      } catch (error) {
        this.#failed(error, event, payload);
      }
    }
  }

  #failed<E extends keyof Events>(error: unknown, event: E, payload: Events[E]): void {
    try {
      this.#onListenerError(error, event as keyof Events & string, payload);
    } catch (handlerError) {
      // The error handler itself failed: both failures still reach the process's warnings.
      reportListenerError(error, String(event));
      reportListenerError(handlerError, `${String(event)} (its listener-error handler)`);
    }
  }
}
