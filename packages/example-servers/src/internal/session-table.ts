// The HTTP session table: admission with a global and a per-client cap, eviction that only ever removes
// sessions that never got past `initialize`, and expiry of pending and idle sessions. No I/O and an
// injectable clock, so every rule is unit-tested without sleeping.

/** The limits a table enforces (all required here; `serveHttp` fills in the defaults). */
export interface SessionLimits {
  /** Most sessions in the table. */
  maxSessions: number;
  /** Most sessions per client key (see `clientKeyOf`); 0 for no per-client cap. Loopback has no key. */
  maxSessionsPerClient: number;
  /** A session that never got past `initialize` is dropped this long after it was opened. */
  pendingSessionMs: number;
  /** An established session is dropped after this long without an accepted request of its own. */
  sessionIdleMs: number;
}

export interface SessionEntry<T> {
  readonly id: string;
  /** The per-client key, `undefined` for loopback clients (no per-client cap). */
  readonly clientKey: string | undefined;
  readonly value: T;
  readonly createdAt: number;
  /** When the session last had a request accepted (not a rejected one, not another session's). */
  lastActive: number;
  /** Sent `notifications/initialized` or any other message after `initialize`. */
  established: boolean;
  /** Requests of this session being handled now; such a session is neither evicted nor expired. */
  inFlight: number;
}

export type DropReason = "evicted" | "expired";

export type AdmissionRefusal = { ok: false; scope: "server" | "client"; limit: number };

export class SessionTable<T> {
  private readonly entries = new Map<string, SessionEntry<T>>();
  private readonly perClient = new Map<string, number>();

  constructor(
    private readonly limits: SessionLimits,
    /** Called for each session the table drops by itself (not for `delete`), after removing it. */
    private readonly onDrop: (entry: SessionEntry<T>, reason: DropReason) => void,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get pendingCount(): number {
    let count = 0;
    for (const entry of this.entries.values()) if (!entry.established) count++;
    return count;
  }

  /** The live session with this id; an expired one is dropped on the spot and not returned. */
  get(id: string): SessionEntry<T> | undefined {
    const entry = this.entries.get(id);
    if (entry && this.expired(entry, this.now())) {
      this.drop(entry, "expired");
      return undefined;
    }
    return entry;
  }

  /** Whether this entry is still in the table. */
  has(entry: SessionEntry<T>): boolean {
    return this.entries.get(entry.id) === entry;
  }

  /** Whether a session for this client could be opened now (possibly by evicting); changes nothing. */
  canAdmit(clientKey: string | undefined): true | AdmissionRefusal {
    const plan = this.plan(clientKey);
    return Array.isArray(plan) ? true : plan;
  }

  /**
   * Open a session: make room first by dropping expired sessions and then, if still needed, the
   * least recently active sessions that never got past `initialize` (of this client when the
   * per-client cap is the one reached). Established sessions are never evicted: when only they fill
   * the table, the new session is refused.
   */
  open(id: string, clientKey: string | undefined, value: T): SessionEntry<T> | AdmissionRefusal {
    if (this.full(clientKey)) this.sweep();
    const plan = this.plan(clientKey);
    if (!Array.isArray(plan)) return plan;
    for (const victim of plan) this.drop(victim, "evicted");
    const now = this.now();
    const entry: SessionEntry<T> = {
      id,
      clientKey,
      value,
      createdAt: now,
      lastActive: now,
      established: false,
      inFlight: 0,
    };
    this.entries.set(id, entry);
    if (clientKey !== undefined) this.perClient.set(clientKey, (this.perClient.get(clientKey) ?? 0) + 1);
    return entry;
  }

  /** A request of this session starts being handled. */
  begin(entry: SessionEntry<T>): void {
    entry.inFlight++;
  }

  /**
   * A request of this session is done. Only an accepted request counts as activity; `real` (a message
   * other than `initialize`) establishes the session.
   */
  end(entry: SessionEntry<T>, accepted: boolean, real: boolean): void {
    entry.inFlight = Math.max(0, entry.inFlight - 1);
    if (!accepted) return;
    entry.lastActive = this.now();
    if (real) entry.established = true;
  }

  /**
   * An accepted request that neither blocks expiry while open nor establishes (a GET stream). It
   * counts as activity only for an established session.
   */
  touch(entry: SessionEntry<T>): void {
    if (this.has(entry) && entry.established) entry.lastActive = this.now();
  }

  /** Remove a session that was closed by its client or its transport (no `onDrop`). */
  delete(id: string): SessionEntry<T> | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    if (entry.clientKey !== undefined) {
      const count = (this.perClient.get(entry.clientKey) ?? 1) - 1;
      if (count > 0) this.perClient.set(entry.clientKey, count);
      else this.perClient.delete(entry.clientKey);
    }
    return entry;
  }

  /** Remove every session (no `onDrop`) and return them, for shutdown. */
  clear(): SessionEntry<T>[] {
    const all = [...this.entries.values()];
    this.entries.clear();
    this.perClient.clear();
    return all;
  }

  /** Drop every expired session; returns how many. */
  sweep(): number {
    const now = this.now();
    let dropped = 0;
    for (const entry of [...this.entries.values()]) {
      if (this.expired(entry, now)) {
        this.drop(entry, "expired");
        dropped++;
      }
    }
    return dropped;
  }

  private expired(entry: SessionEntry<T>, now: number): boolean {
    if (entry.inFlight > 0) return false;
    return entry.established
      ? now - entry.lastActive > this.limits.sessionIdleMs
      : now - entry.createdAt > this.limits.pendingSessionMs;
  }

  private clientFull(clientKey: string | undefined): boolean {
    const cap = this.limits.maxSessionsPerClient;
    return clientKey !== undefined && cap > 0 && (this.perClient.get(clientKey) ?? 0) >= cap;
  }

  private full(clientKey: string | undefined): boolean {
    return this.entries.size >= this.limits.maxSessions || this.clientFull(clientKey);
  }

  /** The sessions to evict so one more fits, or why it cannot. */
  private plan(clientKey: string | undefined): SessionEntry<T>[] | AdmissionRefusal {
    const victims: SessionEntry<T>[] = [];
    if (this.clientFull(clientKey)) {
      const victim = this.oldestPending((entry) => entry.clientKey === clientKey);
      if (!victim) return { ok: false, scope: "client", limit: this.limits.maxSessionsPerClient };
      victims.push(victim);
    }
    if (this.entries.size - victims.length >= this.limits.maxSessions) {
      const victim = this.oldestPending((entry) => !victims.includes(entry));
      if (!victim) return { ok: false, scope: "server", limit: this.limits.maxSessions };
      victims.push(victim);
    }
    return victims;
  }

  /** The evictable session that has been pending longest (pending sessions are never touched). */
  private oldestPending(match: (entry: SessionEntry<T>) => boolean): SessionEntry<T> | undefined {
    let oldest: SessionEntry<T> | undefined;
    for (const entry of this.entries.values()) {
      if (entry.established || entry.inFlight > 0 || !match(entry)) continue;
      if (!oldest || entry.lastActive < oldest.lastActive) oldest = entry;
    }
    return oldest;
  }

  private drop(entry: SessionEntry<T>, reason: DropReason): void {
    if (!this.delete(entry.id)) return;
    this.onDrop(entry, reason);
  }
}
