/**
 * The list results a server said may be reused (`ttlMs`/`cacheScope`, MCP 2026-07-28 `CacheableResult`):
 * `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`, per request params.
 * A `"private"` entry (and one without a scope) is kept under the fingerprint of the credential that
 * fetched it, so another credential never sees it; a `"public"` entry may be served to any credential.
 * Without a positive `ttlMs` nothing is kept (every list asks the server, as before). The cache belongs
 * to one connection: a different connection (a reconnect) finds it empty.
 */

/** The longest freshness accepted from a server (24 h): a larger `ttlMs` is cut to this. */
export const MAX_LIST_TTL_MS = 24 * 60 * 60 * 1000;
/** Most entries kept (pages of resources and prompts have one each); the oldest goes first. */
export const MAX_LIST_ENTRIES = 256;

/** The list methods whose results may be cached. */
export const CACHEABLE_LIST_METHODS: ReadonlySet<string> = new Set([
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "prompts/list",
]);

/** What a result allows: fresh for `ttlMs`, shared across credentials or not. */
export interface CacheHint {
  ttlMs: number;
  scope: "public" | "private";
}

/**
 * The hint of one result, or `undefined` when it may not be reused: `ttlMs` absent, not a finite
 * number, or ≤ 0 ("immediately stale"). A `cacheScope` other than `"public"` counts as `"private"`.
 */
export function cacheHintOf(result: unknown): CacheHint | undefined {
  if (result === null || typeof result !== "object") return undefined;
  const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs <= 0) return undefined;
  return { ttlMs: Math.min(ttlMs, MAX_LIST_TTL_MS), scope: cacheScope === "public" ? "public" : "private" };
}

/** The hint of several pages read as one list: the shortest freshness, private if any page is. */
export function combineHints(hints: ReadonlyArray<CacheHint | undefined>): CacheHint | undefined {
  let combined: CacheHint | undefined;
  for (const hint of hints) {
    if (!hint) return undefined;
    combined = combined
      ? {
          ttlMs: Math.min(combined.ttlMs, hint.ttlMs),
          scope: combined.scope === "public" && hint.scope === "public" ? "public" : "private",
        }
      : hint;
  }
  return combined;
}

interface Entry {
  value: unknown;
  expiresAt: number;
}

/** The cached list results of one connection. */
export class ListCache {
  private readonly entries = new Map<string, Entry>();
  private owner: object | undefined;

  /** `now` is the clock freshness is measured with (injectable for tests). */
  constructor(private readonly now: () => number = Date.now) {}

  /**
   * A fresh value for `method` + `params` usable by `credential` on connection `owner`, or `undefined`.
   * A private entry of this credential comes first, then a public one.
   */
  get(owner: object, method: string, params: string, credential: string): unknown {
    this.adopt(owner);
    const now = this.now();
    for (const partition of [`private:${credential}`, "public"]) {
      const key = keyOf(method, params, partition);
      const entry = this.entries.get(key);
      if (!entry) continue;
      if (entry.expiresAt > now) return entry.value;
      this.entries.delete(key);
    }
    return undefined;
  }

  /** Keep `value` when `hint` allows it (nothing is kept without one). */
  set(
    owner: object,
    method: string,
    params: string,
    credential: string,
    value: unknown,
    hint: CacheHint | undefined,
  ): void {
    this.adopt(owner);
    if (!hint) return;
    const partition = hint.scope === "public" ? "public" : `private:${credential}`;
    const key = keyOf(method, params, partition);
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + hint.ttlMs });
    while (this.entries.size > MAX_LIST_ENTRIES) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** Forget every entry of these methods (a `list_changed`), or every entry. */
  invalidate(methods?: readonly string[]): void {
    if (!methods) {
      this.entries.clear();
      return;
    }
    for (const key of [...this.entries.keys()]) {
      if (methods.includes(key.slice(0, key.indexOf("\n")))) this.entries.delete(key);
    }
  }

  /** Number of entries held (fresh or not yet noticed stale). */
  get size(): number {
    return this.entries.size;
  }

  // Entries of another connection are never served: a new connection starts empty.
  private adopt(owner: object): void {
    if (this.owner === owner) return;
    this.owner = owner;
    this.entries.clear();
  }
}

function keyOf(method: string, params: string, partition: string): string {
  return `${method}\n${params}\n${partition}`;
}
