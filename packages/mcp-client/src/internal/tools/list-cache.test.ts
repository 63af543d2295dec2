import { describe, expect, it } from "vitest";
import { cacheHintOf, combineHints, ListCache, MAX_LIST_ENTRIES, MAX_LIST_TTL_MS } from "./list-cache.js";

function clock(start = 1000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("cacheHintOf", () => {
  it.each([
    [
      { ttlMs: 5000, cacheScope: "public" },
      { ttlMs: 5000, scope: "public" },
    ],
    [
      { ttlMs: 5000, cacheScope: "private" },
      { ttlMs: 5000, scope: "private" },
    ],
    [{ ttlMs: 5000 }, { ttlMs: 5000, scope: "private" }],
    [
      { ttlMs: 5000, cacheScope: "shared" },
      { ttlMs: 5000, scope: "private" },
    ],
    [
      { ttlMs: MAX_LIST_TTL_MS * 10, cacheScope: "public" },
      { ttlMs: MAX_LIST_TTL_MS, scope: "public" },
    ],
    [{ ttlMs: Number.POSITIVE_INFINITY }, undefined],
    [{ ttlMs: 0, cacheScope: "public" }, undefined],
    [{ ttlMs: -5 }, undefined],
    [{ ttlMs: Number.NaN }, undefined],
    [{ ttlMs: "5000" }, undefined],
    [{ cacheScope: "public" }, undefined],
    [null, undefined],
    ["text", undefined],
  ])("%j → %j", (result, hint) => {
    expect(cacheHintOf(result)).toEqual(hint);
  });

  it("several pages: the shortest ttl, private if any page is, nothing if any page has no hint", () => {
    expect(
      combineHints([
        { ttlMs: 9000, scope: "public" },
        { ttlMs: 4000, scope: "public" },
      ]),
    ).toEqual({ ttlMs: 4000, scope: "public" });
    expect(
      combineHints([
        { ttlMs: 9000, scope: "public" },
        { ttlMs: 9000, scope: "private" },
      ]),
    ).toEqual({ ttlMs: 9000, scope: "private" });
    expect(combineHints([{ ttlMs: 9000, scope: "public" }, undefined])).toBeUndefined();
    expect(combineHints([])).toBeUndefined();
  });
});

describe("ListCache", () => {
  const live = {};

  it("serves a value until its ttl ends (measured with the injected clock)", () => {
    const time = clock();
    const cache = new ListCache(time.now);
    cache.set(live, "tools/list", "", "cred-a", ["t"], { ttlMs: 100, scope: "private" });
    expect(cache.get(live, "tools/list", "", "cred-a")).toEqual(["t"]);
    time.advance(99);
    expect(cache.get(live, "tools/list", "", "cred-a")).toEqual(["t"]);
    time.advance(1);
    expect(cache.get(live, "tools/list", "", "cred-a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("keeps nothing without a hint (today's behaviour)", () => {
    const cache = new ListCache(clock().now);
    cache.set(live, "tools/list", "", "", ["t"], undefined);
    expect(cache.get(live, "tools/list", "", "")).toBeUndefined();
  });

  it("a private entry is seen only by the credential that fetched it; a public one by every credential", () => {
    const cache = new ListCache(clock().now);
    cache.set(live, "tools/list", "", "cred-a", ["a"], { ttlMs: 100, scope: "private" });
    expect(cache.get(live, "tools/list", "", "cred-b")).toBeUndefined();
    expect(cache.get(live, "tools/list", "", "")).toBeUndefined();
    cache.set(live, "tools/list", "", "cred-b", ["b"], { ttlMs: 100, scope: "private" });
    expect(cache.get(live, "tools/list", "", "cred-a")).toEqual(["a"]);
    expect(cache.get(live, "tools/list", "", "cred-b")).toEqual(["b"]);
    cache.set(live, "prompts/list", "{}", "cred-a", ["p"], { ttlMs: 100, scope: "public" });
    expect(cache.get(live, "prompts/list", "{}", "cred-c")).toEqual(["p"]);
  });

  it("keys by params (a page per cursor)", () => {
    const cache = new ListCache(clock().now);
    const hint = { ttlMs: 100, scope: "public" } as const;
    cache.set(live, "resources/list", '{"cursor":"2"}', "", ["page 2"], hint);
    expect(cache.get(live, "resources/list", "{}", "")).toBeUndefined();
    expect(cache.get(live, "resources/list", '{"cursor":"2"}', "")).toEqual(["page 2"]);
  });

  it("a list_changed forgets that method's entries only; invalidate() forgets everything", () => {
    const cache = new ListCache(clock().now);
    const hint = { ttlMs: 100, scope: "public" } as const;
    cache.set(live, "tools/list", "", "", ["t"], hint);
    cache.set(live, "resources/list", "{}", "", ["r"], hint);
    cache.set(live, "resources/templates/list", "{}", "", ["rt"], hint);
    cache.invalidate(["resources/list", "resources/templates/list"]);
    expect(cache.get(live, "tools/list", "", "")).toEqual(["t"]);
    expect(cache.get(live, "resources/list", "{}", "")).toBeUndefined();
    expect(cache.get(live, "resources/templates/list", "{}", "")).toBeUndefined();
    cache.invalidate();
    expect(cache.size).toBe(0);
  });

  it("another connection (a reconnect) finds it empty", () => {
    const cache = new ListCache(clock().now);
    cache.set(live, "tools/list", "", "", ["t"], { ttlMs: 100, scope: "public" });
    expect(cache.get({}, "tools/list", "", "")).toBeUndefined();
    expect(cache.get(live, "tools/list", "", "")).toBeUndefined();
  });

  it(`holds at most ${MAX_LIST_ENTRIES} entries, dropping the oldest`, () => {
    const cache = new ListCache(clock().now);
    const hint = { ttlMs: 100, scope: "public" } as const;
    for (let page = 0; page <= MAX_LIST_ENTRIES; page++) {
      cache.set(live, "resources/list", String(page), "", [page], hint);
    }
    expect(cache.size).toBe(MAX_LIST_ENTRIES);
    expect(cache.get(live, "resources/list", "0", "")).toBeUndefined();
    expect(cache.get(live, "resources/list", String(MAX_LIST_ENTRIES), "")).toEqual([MAX_LIST_ENTRIES]);
  });
});
