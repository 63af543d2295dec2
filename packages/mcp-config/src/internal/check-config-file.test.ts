// The fast checker against the zod schema it stands in for: whatever it accepts, the schema accepts,
// with the same output (keys in the same order); whatever the schema refuses, it gives up on.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { configFileSchema } from "../schema.js";
import { checkConfigFile } from "./check-config-file.js";

const fixturesDir = new URL("../__fixtures__/", import.meta.url);
const load = (name: string): unknown => parse(readFileSync(new URL(name, fixturesDir), "utf8"));

function agree(data: unknown): "fast" | "schema" | "invalid" {
  const fast = checkConfigFile(data);
  const schema = configFileSchema.safeParse(data);
  if (fast !== undefined) {
    expect(schema.success, `fast path accepted what the schema refuses: ${JSON.stringify(data)}`).toBe(true);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(schema.data));
    return "fast";
  }
  return schema.success ? "schema" : "invalid";
}

// A small deterministic generator (mulberry32), so a failure can be replayed.
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALUES: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -1,
  1,
  1.5,
  10,
  1023,
  1024,
  65,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 60,
  "",
  "x",
  "X",
  "a b",
  "a.b",
  "${X}",
  "${",
  "${1X}",
  "$${x}",
  "http://h/mcp",
  "ftp://h",
  "http://u:p@h",
  "https://h/${HOST}",
  "not a url",
  "stdio",
  "http",
  "none",
  "bearer",
  "api_key",
  "custom_header",
  "mtls",
  "oauth",
  "X-Team",
  "TOKEN",
  "x".repeat(65),
  "filesystem.*",
  "*",
  "*.*",
  "docs:file:///srv/*",
  "*:*",
  "docs:../x",
  "github.review_*",
  [],
  ["x"],
  ["filesystem.*"],
  [1],
  {},
  { A: "B" },
  { A: "b c" },
  { "1A": "B" },
  { type: "none" },
  { type: "bearer", credential_env_var: "T" },
  { allow: ["a.*"] },
  { allow: ["a.*"], extra: [] },
  "auto",
  "on",
  "off",
  "always",
  { mode: "auto" },
  { tools: 3, chars: 0 },
  { tools: -1 },
  { max_searches: 2, always_load: ["a.*"] },
];

function paths(value: unknown, at: PropertyKey[] = [], out: PropertyKey[][] = []): PropertyKey[][] {
  out.push(at);
  if (Array.isArray(value)) for (const [i, item] of value.entries()) paths(item, [...at, i], out);
  else if (typeof value === "object" && value !== null)
    for (const [key, inner] of Object.entries(value)) paths(inner, [...at, key], out);
  return out;
}

function mutate(data: unknown, next: () => number): unknown {
  const copy = structuredClone(data);
  const all = paths(copy).filter((p) => p.length > 0);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const rounds = 1 + Math.floor(next() * 3);
  for (let r = 0; r < rounds; r++) {
    const path = pick(all);
    let parent: unknown = copy;
    for (const segment of path.slice(0, -1)) parent = (parent as Record<PropertyKey, unknown>)?.[segment];
    if (typeof parent !== "object" || parent === null) continue;
    const key = path.at(-1) as PropertyKey;
    const action = next();
    const target = parent as Record<PropertyKey, unknown>;
    if (action < 0.15 && !Array.isArray(parent)) delete target[key];
    else if (action < 0.25 && !Array.isArray(parent))
      target[
        pick([
          "extra",
          "comand",
          "type",
          "allow",
          "resources",
          "prompts",
          "tool_search",
          "mode",
          "threshold",
          "max_searches",
          "__proto__",
        ])
      ] = pick(VALUES);
    else target[key] = structuredClone(pick(VALUES));
  }
  return copy;
}

describe("checkConfigFile", () => {
  const fixtures = readdirSync(fixturesDir).filter((name) => {
    try {
      load(name);
      return true;
    } catch {
      return false;
    }
  });

  it.each(fixtures)("%s: agrees with the schema", (name) => {
    agree(load(name));
  });

  it("takes the fast path for the usual rosters (everything but oauth entries)", () => {
    const roster = load("valid-roster.yaml") as { servers: { auth?: { type?: string } }[] };
    const withoutOAuth = { ...roster, servers: roster.servers.filter((s) => s.auth?.type !== "oauth") };
    expect(agree(withoutOAuth)).toBe("fast");
    expect(agree(roster)).toBe("schema");
    expect(agree(load("native.json"))).toBe("fast");
    expect(agree(load("resource-and-prompt-grants.yaml"))).toBe("fast");
    expect(agree(load("tool-search.yaml"))).toBe("fast");
    expect(agree({ servers: [] })).toBe("fast");
  });

  it("agrees with the schema on 5000 random mutations of valid rosters", () => {
    const roster = load("valid-roster.yaml") as { servers: { auth?: { type?: string } }[] };
    const bases = [
      { ...roster, servers: roster.servers.filter((s) => s.auth?.type !== "oauth") },
      load("resource-and-prompt-grants.yaml"),
      load("native.json"),
      load("tool-search.yaml"),
    ];
    const next = random(20261201);
    const counts = { fast: 0, schema: 0, invalid: 0 };
    for (let i = 0; i < 5000; i++) counts[agree(mutate(bases[i % bases.length], next))]++;
    // Both sides were exercised: many mutants stay valid (fast path), many break a rule.
    expect(counts.fast).toBeGreaterThan(300);
    expect(counts.invalid).toBeGreaterThan(1000);
  });
});
