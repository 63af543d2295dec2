// Turning zod issues into MCPConfigIssues a person can act on: precise path, position, no zod jargon,
// and never a value from the file or the environment.
import type { z } from "zod";
import type { MCPConfigIssue } from "../errors.js";
import { formatPath, type SourceDocument } from "./yaml-source.js";

type ZodIssue = z.core.$ZodIssue;

/** Keys each kind of object accepts, for "did you mean" and transport hints. */
export interface KnownKeys {
  at(path: readonly PropertyKey[], data: unknown): readonly string[] | undefined;
}

const STDIO_ONLY = new Set(["command", "args", "env", "cwd"]);
const HTTP_ONLY = new Set(["url", "headers", "auth"]);

const DISCRIMINATOR_HINTS: Record<string, string> = {
  transport: 'expected transport "stdio" (a local command) or "http" (a URL)',
  type: "expected auth type none, bearer, api_key, custom_header, oauth or mtls",
};

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let node = data;
  for (const segment of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NaN";
    if (!Number.isFinite(value)) return "an infinite number";
    return Number.isInteger(value) ? "an integer" : "a number";
  }
  return `a ${typeof value}`;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0;
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = current;
    }
  }
  return row[b.length] ?? 0;
}

function unknownKeyMessage(key: string, known: readonly string[] | undefined, transport: unknown) {
  if (transport === "stdio" && HTTP_ONLY.has(key)) {
    return `"${key}" is only valid for http servers (this one has transport: stdio)`;
  }
  if (transport === "http" && STDIO_ONLY.has(key)) {
    return `"${key}" is only valid for stdio servers (this one has transport: http)`;
  }
  let message = `unknown key "${key}"`;
  if (known && known.length > 0) {
    const close = known
      .map((candidate) => ({ candidate, d: editDistance(key.toLowerCase(), candidate) }))
      .filter((c) => c.d <= 2)
      .sort((x, y) => x.d - y.d)[0];
    message += close ? ` (did you mean "${close.candidate}"?)` : `; allowed keys: ${known.join(", ")}`;
  }
  return message;
}

const EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
  record: "a mapping",
};

function typeMessage(
  issue: Extract<ZodIssue, { code: "invalid_type" }>,
  actual: unknown,
  path: readonly PropertyKey[],
) {
  const field = String(path.at(-1) ?? "");
  if (actual === undefined) {
    if (field === "command") return "a stdio server needs `command` (the program to launch)";
    if (field === "url") return "an http server needs `url`";
    if (field === "servers") return "expected a top-level `servers:` list";
    return `required: expected ${EXPECTED[issue.expected] ?? issue.expected}`;
  }
  const expected = EXPECTED[issue.expected] ?? issue.expected;
  return `expected ${expected}, got ${kindOf(actual)}`;
}

interface Context {
  data: unknown;
  knownKeys: KnownKeys | undefined;
}

interface Flat {
  path: PropertyKey[];
  message: string;
  key?: boolean;
}

function flatten(issue: ZodIssue, ctx: Context, prefix: readonly PropertyKey[]): Flat[] {
  const { data } = ctx;
  const path = [...prefix, ...issue.path];
  switch (issue.code) {
    case "invalid_type":
      return [{ path, message: typeMessage(issue, valueAt(data, path), path) }];
    case "unrecognized_keys": {
      const transport = (valueAt(data, path) as { transport?: unknown } | undefined)?.transport;
      return issue.keys.map((key) => ({
        path: [...path, key],
        key: true,
        message: unknownKeyMessage(key, ctx.knownKeys?.at(path, data), transport),
      }));
    }
    case "invalid_union": {
      if (issue.discriminator) {
        const target = path.at(-1) === issue.discriminator ? path : [...path, issue.discriminator];
        const present = valueAt(data, target) !== undefined;
        const hint = DISCRIMINATOR_HINTS[issue.discriminator] ?? `invalid ${issue.discriminator}`;
        return [{ path: target, message: present ? hint : `missing; ${hint}` }];
      }
      // Plain unions: follow the branch whose root type matched, so the message is about the fields.
      const branch = issue.errors.find(
        (errors) => !errors.some((e) => e.code === "invalid_type" && e.path.length === 0),
      );
      if (branch) return branch.flatMap((inner) => flatten(inner, ctx, path));
      return [
        {
          path,
          message: `expected a list of patterns, or a mapping with allow/deny/confirm lists; got ${kindOf(valueAt(data, path))}`,
        },
      ];
    }
    case "invalid_value":
      return [{ path, message: `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}` }];
    case "too_small":
      return [
        {
          path,
          message: issue.message.startsWith("Too small")
            ? `too small: expected at least ${String(issue.minimum)}`
            : issue.message,
        },
      ];
    case "too_big":
      return [
        {
          path,
          message: issue.message.startsWith("Too big")
            ? `too big: expected at most ${String(issue.maximum)}`
            : issue.message,
        },
      ];
    case "invalid_key":
      return issue.issues.flatMap((inner) =>
        flatten(inner as ZodIssue, ctx, path).map((i) => ({ ...i, key: true })),
      );
    case "invalid_element":
      return issue.issues.flatMap((inner) => flatten(inner as ZodIssue, ctx, path));
    default:
      return [{ path, message: issue.message }];
  }
}

/** Convert zod issues into positioned, readable issues, sorted in file order. */
export function formatIssues(
  issues: readonly ZodIssue[],
  source: SourceDocument,
  options: { knownKeys?: KnownKeys; data?: unknown; mapPath?: (path: PropertyKey[]) => PropertyKey[] } = {},
): MCPConfigIssue[] {
  const ctx: Context = { data: options.data ?? source.data, knownKeys: options.knownKeys };
  const mapPath = options.mapPath ?? ((p: PropertyKey[]) => p);
  const out = issues
    .flatMap((issue) => flatten(issue, ctx, []))
    .map((item) => {
      const path = mapPath(item.path);
      const pos = source.locate(path, { key: item.key ?? false });
      return { path: formatPath(path), message: item.message, line: pos?.line, column: pos?.column };
    });
  return sortIssues(out);
}

/** Sort issues by position (issues without one last), dropping exact duplicates. */
export function sortIssues(issues: MCPConfigIssue[]): MCPConfigIssue[] {
  const seen = new Set<string>();
  return issues
    .filter((issue) => {
      const key = `${issue.path}\u0000${issue.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || (a.column ?? 0) - (b.column ?? 0));
}
