import { EventEmitter } from "eventemitter3";

interface Registered {
  fn: (...args: unknown[]) => unknown;
  context: unknown;
  once: boolean;
}

/**
 * Emit `name` on `emitter`, calling every listener on its own: a listener that throws, or returns a
 * promise that rejects, is reported to `onError` and never stops the other listeners nor reaches the
 * caller (so it can never become an uncaught exception or an unhandled rejection in the host).
 * Mirrors eventemitter3's `emit` (once-listeners are removed before they run).
 */
export function safeEmit<E extends EventEmitter.ValidEventTypes>(
  typed: EventEmitter<E>,
  name: EventEmitter.EventNames<E> & string,
  payload: unknown,
  onError: (error: unknown) => void,
): void {
  const emitter = typed as unknown as EventEmitter;
  const report = (error: unknown) => {
    try {
      onError(error);
    } catch {
      // The error reporter itself failed: nothing else can be done without throwing into the host.
    }
  };
  const events = (emitter as unknown as { _events?: Record<string, Registered | Registered[]> })._events;
  const key = EventEmitter.prefixed ? `${EventEmitter.prefixed}${name}` : name;
  const slot = events?.[key];
  if (!slot) return;
  const listeners = Array.isArray(slot) ? [...slot] : [slot];
  for (const listener of listeners) {
    if (typeof listener?.fn !== "function") continue;
    if (listener.once) emitter.removeListener(name, listener.fn, undefined, true);
    try {
      const result = listener.fn.call(listener.context, payload);
      if (result && typeof (result as PromiseLike<unknown>).then === "function") {
        (result as PromiseLike<unknown>).then(undefined, report);
      }
    } catch (error) {
      report(error);
    }
  }
}
