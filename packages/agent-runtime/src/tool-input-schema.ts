// Tool input schemas come from MCP servers: untrusted. This file turns any of them into a bounded,
// acyclic object schema a model provider accepts, and checks arguments against it conservatively.
import { cleanModelText } from "./clean-model-text.js";

/** A JSON Schema as given to models: plain JSON, `type: "object"` at the top, no `$ref`, bounded. */
export type ModelToolInputSchema = Record<string, unknown> & { type: "object" };

/** Deepest nesting kept; deeper parts (and `$ref` chains) become `{}` (any value). */
const MAX_DEPTH = 12;
/** Schema nodes kept per tool; past it, parts become `{}`. */
const MAX_NODES = 2000;
const MAX_TEXT = 1024;
/** Past this many characters of JSON, only the top-level field names (and `required`) are kept. */
const MAX_SCHEMA_CHARS = 100_000;
const MAX_LIST = 256;

const STRING_KEYWORDS = ["title", "format", "pattern"] as const;
const NUMBER_KEYWORDS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
] as const;
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Set an own property, even one named `__proto__`, without touching any prototype. */
function put(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function own(source: Json, key: string): unknown {
  return Object.hasOwn(source, key) ? source[key] : undefined;
}

function boundedText(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT - 1)}…` : value;
}

/** A text a model reads (a description, a title): cleaned (`cleanModelText`), then bounded. */
function modelText(value: unknown): string | undefined {
  return typeof value === "string" ? boundedText(cleanModelText(value)) : undefined;
}

/** A JSON value of bounded size, or undefined (for enum/const/default, which a schema may make huge). */
function smallJson(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text !== undefined && text.length <= MAX_TEXT ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

class Normalizer {
  #nodes = 0;
  constructor(readonly root: unknown) {}

  #resolve(ref: string): unknown {
    if (ref === "#") return this.root;
    if (!ref.startsWith("#/")) return undefined;
    let node: unknown = this.root;
    for (const raw of ref.slice(2).split("/")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(node)) node = /^\d+$/.test(key) ? node[Number(key)] : undefined;
      else if (isObject(node)) node = own(node, key);
      else return undefined;
    }
    return node;
  }

  /** Any schema node → a plain, ref-free, bounded schema. `refs` are the `$ref`s being expanded. */
  walk(node: unknown, depth: number, refs: readonly string[]): Json {
    if (!isObject(node) || depth > MAX_DEPTH || ++this.#nodes > MAX_NODES) return {};
    const ref = own(node, "$ref");
    if (typeof ref === "string") {
      // A cycle, or an unresolvable or external reference: any value (the server still decides).
      const target = refs.includes(ref) ? undefined : this.#resolve(ref);
      const out = target === undefined ? {} : this.walk(target, depth + 1, [...refs, ref]);
      const description = modelText(own(node, "description"));
      if (description !== undefined && out.description === undefined) put(out, "description", description);
      return out;
    }
    const out: Json = {};
    const type = own(node, "type");
    if (typeof type === "string" && TYPES.has(type)) put(out, "type", type);
    else if (Array.isArray(type)) {
      const types = [...new Set(type.filter((t): t is string => typeof t === "string" && TYPES.has(t)))];
      if (types.length > 0) put(out, "type", types);
    }
    const description = modelText(own(node, "description"));
    if (description !== undefined) put(out, "description", description);
    for (const key of STRING_KEYWORDS) {
      const value = key === "title" ? modelText(own(node, key)) : boundedText(own(node, key));
      if (value !== undefined) put(out, key, value);
    }
    for (const key of NUMBER_KEYWORDS) {
      const value = own(node, key);
      if (typeof value === "number" && Number.isFinite(value)) put(out, key, value);
    }
    for (const key of ["uniqueItems", "nullable"]) {
      const value = own(node, key);
      if (typeof value === "boolean") put(out, key, value);
    }
    const enumValues = own(node, "enum");
    if (Array.isArray(enumValues) && enumValues.length > 0 && enumValues.length <= MAX_LIST) {
      const values = smallJson(enumValues);
      if (Array.isArray(values)) put(out, "enum", values);
    }
    for (const key of ["const", "default"]) {
      if (!Object.hasOwn(node, key)) continue;
      const value = smallJson(own(node, key));
      if (value !== undefined) put(out, key, value);
    }
    const properties = own(node, "properties");
    if (isObject(properties)) {
      const kept: Json = {};
      for (const name of Object.keys(properties).slice(0, MAX_LIST)) {
        put(kept, name, this.walk(properties[name], depth + 1, refs));
      }
      put(out, "properties", kept);
    }
    const required = own(node, "required");
    if (Array.isArray(required)) {
      const names = [...new Set(required.filter((r): r is string => typeof r === "string"))].slice(
        0,
        MAX_LIST,
      );
      if (names.length > 0) put(out, "required", names);
    }
    const additional = own(node, "additionalProperties");
    if (typeof additional === "boolean") put(out, "additionalProperties", additional);
    else if (isObject(additional)) put(out, "additionalProperties", this.walk(additional, depth + 1, refs));
    const items = own(node, "items");
    if (isObject(items)) put(out, "items", this.walk(items, depth + 1, refs));
    else if (Array.isArray(items) || typeof items === "boolean") put(out, "items", {});
    for (const key of ["anyOf", "oneOf", "allOf"]) {
      const branches = own(node, key);
      if (!Array.isArray(branches) || branches.length === 0) continue;
      put(
        out,
        key,
        branches.slice(0, 32).map((b) => this.walk(b, depth + 1, refs)),
      );
    }
    return out;
  }
}

/**
 * A tool's input schema as a model provider accepts it, whatever the server sent: always
 * `type: "object"` at the top (OpenAI and Anthropic require it), `$ref`s expanded with cycles and depth
 * bounded (a self-reference becomes `{}`), only well-formed keywords kept, sizes capped. `null`, `true`,
 * arrays, non-object types and garbage give `{ type: "object", properties: {} }`. Never throws.
 */
export function normalizeToolInputSchema(schema: unknown): ModelToolInputSchema {
  try {
    if (!isObject(schema)) return { type: "object", properties: {} };
    const walked = new Normalizer(schema).walk(schema, 0, ["#"]);
    const out: ModelToolInputSchema = { type: "object", properties: {} };
    if (typeof walked.description === "string") put(out, "description", walked.description);
    if (isObject(walked.properties)) put(out, "properties", walked.properties);
    if (Array.isArray(walked.required)) put(out, "required", walked.required);
    if (walked.additionalProperties !== undefined) {
      put(out, "additionalProperties", walked.additionalProperties);
    }
    if (JSON.stringify(out).length <= MAX_SCHEMA_CHARS) return out;
    // Too big for a model request: the field names, each of any type (the server still validates).
    const names: Json = {};
    for (const name of Object.keys(out.properties as Json)) put(names, name, {});
    const small: ModelToolInputSchema = { type: "object", properties: names };
    if (Array.isArray(out.required)) put(small, "required", out.required);
    return small;
  } catch {
    return { type: "object", properties: {} };
  }
}

/** One way the arguments break the schema: where (a field path) and what was expected — never the value. */
export interface ToolArgumentIssue {
  /** `(root)`, `path`, `options.tail`, `edits[2].oldText`. */
  path: string;
  message: string;
}

const MAX_ISSUES = 8;
const MAX_KEY = 64;

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "object":
      return isObject(value);
    default:
      return typeOf(value) === type;
  }
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

function keyText(key: string): string {
  return key.length > MAX_KEY ? `${key.slice(0, MAX_KEY - 1)}…` : key;
}

function join(path: string, key: string): string {
  const safe = keyText(key);
  const plain = /^[A-Za-z_$][\w$-]*$/.test(safe);
  if (path === "(root)") return plain ? safe : `[${JSON.stringify(safe)}]`;
  return plain ? `${path}.${safe}` : `${path}[${JSON.stringify(safe)}]`;
}

function check(schema: Json, value: unknown, path: string, issues: ToolArgumentIssue[]): void {
  if (issues.length >= MAX_ISSUES) return;
  const type = schema.type;
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? (type as string[]) : [];
  if (schema.nullable === true && value === null) return;
  if (types.length > 0 && !types.some((t) => hasType(value, t))) {
    issues.push({ path, message: `must be ${types.join(" or ")} (got ${typeOf(value)})` });
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((allowed) => equal(allowed, value))) {
    const allowed = schema.enum.slice(0, 20).map((v) => JSON.stringify(v));
    issues.push({
      path,
      message: `must be one of ${allowed.join(", ")}${schema.enum.length > 20 ? ", ..." : ""}`,
    });
    return;
  }
  if (Object.hasOwn(schema, "const") && !equal(schema.const, value)) {
    issues.push({ path, message: `must be ${JSON.stringify(schema.const)}` });
    return;
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) {
      issues.push({ path, message: `must be at least ${schema.minLength} characters long` });
    }
    if (typeof schema.maxLength === "number" && length > schema.maxLength) {
      issues.push({ path, message: `must be at most ${schema.maxLength} characters long` });
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) {
      issues.push({ path, message: `must be >= ${schema.minimum}` });
    }
    if (typeof schema.maximum === "number" && value > schema.maximum) {
      issues.push({ path, message: `must be <= ${schema.maximum}` });
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) {
      issues.push({ path, message: `must have at least ${schema.minItems} items` });
    }
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
      issues.push({ path, message: `must have at most ${schema.maxItems} items` });
    }
    if (isObject(schema.items)) {
      const items = schema.items;
      for (let i = 0; i < value.length && issues.length < MAX_ISSUES; i++) {
        check(items, value[i], `${path === "(root)" ? "" : path}[${i}]`, issues);
      }
    }
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const name of schema.required as string[]) {
        if (Object.hasOwn(value, name)) continue;
        // A required field with a `default` is filled in by the server (zod's JSON Schema output lists
        // defaulted fields as required: Playwright MCP's `scale`): leaving it out is fine.
        const sub = Object.hasOwn(properties, name) ? properties[name] : undefined;
        if (isObject(sub) && Object.hasOwn(sub, "default")) continue;
        issues.push({ path: join(path, name), message: "is required" });
      }
    }
    for (const key of Object.keys(value)) {
      const sub = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (isObject(sub)) check(sub, value[key], join(path, key), issues);
      else if (schema.additionalProperties === false) {
        issues.push({ path: join(path, key), message: "is not a known field of this tool" });
      } else if (isObject(schema.additionalProperties)) {
        check(schema.additionalProperties, value[key], join(path, key), issues);
      }
    }
  }
  if (Array.isArray(schema.allOf))
    for (const branch of schema.allOf) check(branch as Json, value, path, issues);
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    // Conservative: one branch that fits is enough (oneOf's "exactly one" is left to the server).
    const fits = branches.some((branch) => {
      const found: ToolArgumentIssue[] = [];
      check(branch as Json, value, path, found);
      return found.length === 0;
    });
    if (!fits) issues.push({ path, message: "does not match any of the shapes the schema allows" });
  }
}

/**
 * Check tool arguments against a schema from `normalizeToolInputSchema`: the issues found (at most 8),
 * each a field path and what was expected. Conservative — it reports only definite mismatches of type,
 * required, enum/const, lengths, bounds and unknown fields (when `additionalProperties: false`);
 * patterns and formats are left to the server, which remains the authority on arguments.
 */
export function checkToolArguments(schema: ModelToolInputSchema, args: unknown): ToolArgumentIssue[] {
  const issues: ToolArgumentIssue[] = [];
  if (!isObject(args)) {
    issues.push({ path: "(root)", message: `must be an object of named arguments (got ${typeOf(args)})` });
    return issues;
  }
  try {
    check(schema, args, "(root)", issues);
  } catch {
    // A pathological value (e.g. a getter that throws): leave it to the server.
  }
  return issues.length > MAX_ISSUES ? issues.slice(0, MAX_ISSUES) : issues;
}
