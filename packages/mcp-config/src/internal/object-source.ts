// A config written in code, as a SourceDocument: the same validation path as a parsed file, without
// positions. The input is copied into plain data first, so nothing the caller holds (getters, a later
// mutation, a prototype) can change what was validated.
import { MCPConfigError, type MCPConfigIssue } from "../errors.js";
import { formatPath, type SourceDocument } from "./yaml-source.js";

/** Deeper than any roster; protects the copy (and the validation) from a runaway recursion. */
const MAX_DEPTH = 64;

function kind(value: unknown): string {
  if (typeof value === "object" && value !== null) {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor
      ?.name;
    return typeof name === "string" && name !== "" ? `a ${name}` : "an object with a prototype";
  }
  return `a ${typeof value}`;
}

function plainCopy(input: unknown, issues: MCPConfigIssue[]): unknown {
  const seen = new Set<object>();
  const fail = (path: PropertyKey[], message: string) => {
    issues.push({ path: formatPath(path), message });
    return undefined;
  };
  const copy = (value: unknown, path: PropertyKey[]): unknown => {
    // undefined only reaches here at the top or in a list: the schema then reports what it expected.
    if (value === null || value === undefined) return value;
    if (typeof value === "string" || typeof value === "boolean" || typeof value === "number") return value;
    if (typeof value !== "object") {
      return fail(
        path,
        `expected plain data (a string, number, boolean, null, list or mapping), got ${kind(value)}`,
      );
    }
    if (seen.has(value)) return fail(path, "holds a cycle (a value that contains itself); write plain data");
    if (path.length > MAX_DEPTH) return fail(path, `nested deeper than ${MAX_DEPTH} levels`);
    const proto = Object.getPrototypeOf(value);
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
      return fail(
        path,
        `expected plain data (a string, number, boolean, null, list or mapping), got ${kind(value)}`,
      );
    }
    seen.add(value);
    try {
      if (Array.isArray(value)) {
        const out: unknown[] = [];
        for (let i = 0; i < value.length; i++) out.push(copy(value[i], [...path, i]));
        return out;
      }
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const inner = (value as Record<string, unknown>)[key];
        if (inner === undefined) continue; // an absent optional field, as in TypeScript
        // defineProperty keeps a "__proto__" key an own key (as JSON.parse and YAML do): the schema then
        // reports it as unknown instead of it changing the copy's prototype.
        Object.defineProperty(out, key, {
          value: copy(inner, [...path, key]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    } finally {
      seen.delete(value);
    }
  };
  return copy(input, []);
}

/**
 * A SourceDocument over a config object written in code: a plain-data copy of it, and no positions.
 * Throws `MCPConfigError` (CONFIG_INVALID) when the input is not plain data.
 */
export function objectSource(input: unknown, source: string | undefined): SourceDocument {
  const issues: MCPConfigIssue[] = [];
  const data = plainCopy(input, issues);
  if (issues.length > 0) {
    throw new MCPConfigError(
      `Config is not plain data (${issues.length} problem${issues.length === 1 ? "" : "s"})`,
      { code: "CONFIG_INVALID", source, issues },
    );
  }
  return { data, locate: orderLocator(data), hasPositions: false };
}

/**
 * A `locate` that numbers the nodes of `data` in document order (a mapping shares its first key's
 * number, as a block mapping shares its first key's position; a key comes before its value), so issues
 * sort as they would for the same data written as YAML. The numbers are dropped before anyone sees them.
 */
function orderLocator(data: unknown): SourceDocument["locate"] {
  const order = new Map<string, number>();
  let next = 0;
  const id = (path: readonly PropertyKey[], key = false) =>
    `${key ? "k" : "v"}${JSON.stringify(path.map(String))}`;
  const walk = (node: unknown, path: PropertyKey[]) => {
    if (Array.isArray(node)) {
      order.set(id(path), next++);
      for (const [i, item] of node.entries()) walk(item, [...path, i]);
    } else if (typeof node === "object" && node !== null) {
      order.set(id(path), next);
      for (const [key, value] of Object.entries(node)) {
        order.set(id([...path, key], true), next++);
        walk(value, [...path, key]);
      }
      if (Object.keys(node).length === 0) next++;
    } else {
      order.set(id(path), next++);
    }
  };
  walk(data, []);
  return (path, options = {}) => {
    let found = order.get(id([]));
    for (let i = 1; i <= path.length; i++) {
      const prefix = path.slice(0, i);
      if (i === path.length && options.key)
        return { line: order.get(id(prefix, true)) ?? found ?? 0, column: 1 };
      const at = order.get(id(prefix));
      if (at === undefined) break;
      found = at;
    }
    return found === undefined ? undefined : { line: found, column: 1 };
  };
}
