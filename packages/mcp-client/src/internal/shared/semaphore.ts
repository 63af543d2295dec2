/** Why waiting for a slot ended without one. */
export type SlotWaitFailure = "timeout" | "aborted";

/** A FIFO counting semaphore: at most `limit` holders; waiters give up on timeout or abort. */
export class Semaphore {
  private active = 0;
  private readonly waiters: { grant: () => void }[] = [];

  constructor(readonly limit: number) {}

  /** Holders right now. */
  get inUse(): number {
    return this.active;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Wait for a slot. Resolves with a release function (call it exactly once); rejects with
   * `"timeout"` after `timeoutMs`, or `"aborted"` when `signal` fires.
   */
  acquire(timeoutMs: number, signal?: AbortSignal): Promise<() => void> {
    if (this.active < this.limit && this.waiters.length === 0) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          cleanup();
          this.active++;
          resolve(this.releaser());
        },
      };
      const give = (reason: SlotWaitFailure) => {
        cleanup();
        const index = this.waiters.indexOf(waiter);
        if (index !== -1) this.waiters.splice(index, 1);
        reject(reason);
      };
      const timer = setTimeout(() => give("timeout"), timeoutMs);
      const onAbort = () => give("aborted");
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiters.shift()?.grant();
    };
  }
}
