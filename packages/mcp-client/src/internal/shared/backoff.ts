/** Bounded exponential backoff between failed connection attempts. */
export interface BackoffOptions {
  /** Delay after the first failure (ms). */
  initialDelayMs: number;
  /** Upper bound of the delay (ms). */
  maxDelayMs: number;
}

/** Default backoff: 250 ms, doubling, at most 30 s. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 250, maxDelayMs: 30_000 };

/** The delay before the next attempt after `failures` consecutive failures (0 failures: no delay). */
export function backoffDelay(failures: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  if (failures <= 0) return 0;
  const exponent = Math.min(failures - 1, 30);
  return Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** exponent);
}
