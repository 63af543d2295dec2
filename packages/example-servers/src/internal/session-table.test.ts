import { describe, expect, it } from "vitest";
import { type DropReason, type SessionLimits, SessionTable } from "./session-table.js";

function setup(limits: Partial<SessionLimits> = {}) {
  let clock = 1_000;
  const dropped: [string, DropReason][] = [];
  const table = new SessionTable<string>(
    { maxSessions: 4, maxSessionsPerClient: 2, pendingSessionMs: 100, sessionIdleMs: 1_000, ...limits },
    (entry, reason) => dropped.push([entry.id, reason]),
    () => clock,
  );
  const open = (id: string, key?: string) => {
    const entry = table.open(id, key, id);
    if (!("id" in entry)) throw new Error(`refused: ${JSON.stringify(entry)}`);
    return entry;
  };
  /** Open a session and complete the handshake (initialize, then notifications/initialized). */
  const establish = (id: string, key?: string) => {
    const entry = open(id, key);
    table.begin(entry);
    table.end(entry, true, true);
    return entry;
  };
  const advance = (ms: number) => {
    clock += ms;
  };
  return { table, dropped, open, establish, advance };
}

describe("SessionTable", () => {
  it("a flood of pending sessions evicts the oldest pending ones, never an established session", () => {
    const { table, dropped, open, establish, advance } = setup();
    establish("real");
    for (let i = 0; i < 50; i++) {
      advance(1);
      open(`flood-${i}`);
    }
    expect(table.size).toBe(4);
    expect(table.get("real")?.established).toBe(true);
    expect(dropped).toHaveLength(47);
    expect(dropped.every(([id, reason]) => id.startsWith("flood-") && reason === "evicted")).toBe(true);
    // least recently active first: the survivors are the newest
    expect(["flood-47", "flood-48", "flood-49"].every((id) => table.get(id))).toBe(true);
  });

  it("refuses a new session when established sessions fill the table", () => {
    const { table, establish } = setup();
    for (const id of ["a", "b", "c", "d"]) establish(id);
    expect(table.canAdmit(undefined)).toEqual({ ok: false, scope: "server", limit: 4 });
    expect(table.open("e", undefined, "e")).toEqual({ ok: false, scope: "server", limit: 4 });
    expect(table.size).toBe(4);
  });

  it("never evicts a session with a request in flight", () => {
    const { table, open, establish } = setup({ maxSessions: 2 });
    establish("real");
    const busy = open("busy");
    table.begin(busy);
    expect(table.canAdmit(undefined)).toMatchObject({ ok: false, scope: "server" });
    table.end(busy, true, false);
    expect(table.canAdmit(undefined)).toBe(true);
  });

  it("caps sessions per client key, evicting that client's pending sessions first", () => {
    const { table, dropped, open, establish } = setup({ maxSessions: 10 });
    establish("a1", "192.0.2.1");
    open("a2", "192.0.2.1");
    open("b1", "192.0.2.2");
    open("a3", "192.0.2.1"); // evicts a2 (a's only pending), not b1
    expect(dropped).toEqual([["a2", "evicted"]]);
    establish("b2", "192.0.2.2");
    table.begin(table.get("a3") ?? expect.fail());
    table.end(table.get("a3") ?? expect.fail(), true, true);
    expect(table.open("a4", "192.0.2.1", "a4")).toEqual({ ok: false, scope: "client", limit: 2 });
    // loopback (no key) is not capped per client
    for (const id of ["l1", "l2", "l3"]) open(id);
    expect(table.size).toBe(7);
  });

  it("a client at its cap does not evict another client's sessions to make room globally", () => {
    const { table, dropped, open } = setup({ maxSessions: 3, maxSessionsPerClient: 2 });
    open("a1", "192.0.2.1");
    open("a2", "192.0.2.1");
    open("l1");
    open("a3", "192.0.2.1"); // one eviction (a1) satisfies both caps
    expect(dropped).toEqual([["a1", "evicted"]]);
    expect(table.size).toBe(3);
  });

  it("expires a session that never got past initialize after pendingSessionMs", () => {
    const { table, dropped, open, establish, advance } = setup();
    open("bare");
    establish("real");
    advance(100);
    expect(table.sweep()).toBe(0);
    advance(1);
    expect(table.sweep()).toBe(1);
    expect(dropped).toEqual([["bare", "expired"]]);
    expect(table.get("real")).toBeDefined();
  });

  it("expires an established session idle for sessionIdleMs; rejected requests and other sessions do not extend it", () => {
    const { table, dropped, establish, advance } = setup();
    const idle = establish("idle");
    const busy = establish("busy");
    for (let i = 0; i < 10; i++) {
      advance(200);
      table.begin(busy);
      table.end(busy, true, true);
      table.begin(idle);
      table.end(idle, false, true); // rejected: not activity
    }
    expect(table.get("idle")).toBeUndefined(); // expired on lookup, 2000 ms after its last accepted request
    expect(dropped).toEqual([["idle", "expired"]]);
    expect(table.get("busy")).toBeDefined();
  });

  it("does not expire a session while one of its requests runs, and counts the end as activity", () => {
    const { table, establish, advance } = setup();
    const entry = establish("long-call");
    table.begin(entry);
    advance(5_000);
    expect(table.sweep()).toBe(0);
    table.end(entry, true, true);
    advance(999);
    expect(table.get("long-call")).toBeDefined();
  });

  it("touch (a GET stream) keeps an established session alive but not a pending one", () => {
    const { table, open, establish, advance } = setup();
    const pending = open("pending");
    const established = establish("established");
    advance(90);
    table.touch(pending);
    table.touch(established);
    advance(20);
    expect(table.get("pending")).toBeUndefined();
    advance(900);
    expect(table.get("established")).toBeDefined();
    expect(established.established).toBe(true);
  });

  it("delete and clear keep the per-client counts right", () => {
    const { table, open } = setup({ maxSessionsPerClient: 1 });
    open("x", "192.0.2.9");
    table.delete("x");
    open("y", "192.0.2.9");
    expect(table.clear().map((e) => e.id)).toEqual(["y"]);
    open("z", "192.0.2.9");
    expect(table.size).toBe(1);
    expect(table.pendingCount).toBe(1);
  });
});
