// The fast path of validation, free of zod: loading zod and building the schemas costs more than the
// rest of a CLI's start-up, and a valid roster does not need them. `checkConfigFile` accepts only data
// the zod schema (`configFileSchema`) accepts, and returns exactly what the schema would output
// (defaults applied, keys in schema order). Anything else — any problem, and anything it does not
// handle itself (oauth auth, a `__proto__` key) — gives `undefined`, and the caller runs the zod schema,
// which is the only source of error messages. So validation and messages stay the schema's own; the
// differential tests in check-config-file.test.ts hold the two together.
import {
  permissionPatternProblem,
  promptPatternProblem,
  resourcePatternProblem,
} from "../permission-pattern.js";
import {
  AGENT_NAME_PATTERN,
  ENV_VAR_NAME_PATTERN,
  HEADER_NAME_PATTERN,
  MAX_SERVER_NAME_LENGTH,
  SERVER_NAME_PATTERN,
} from "./names.js";
import { placeholderProblem } from "./placeholders.js";

/** Thrown inside the checker to give up; never escapes `checkConfigFile`. */
const GIVE_UP = Symbol("give up");

type Data = Record<string, unknown>;

function giveUp(): never {
  throw GIVE_UP;
}

// A mapping as YAML, JSON and `parseMCPConfigObject` make them; anything else (an array, an object
// with another prototype, whose inherited properties the schema would see) is left to the schema.
function mapping(value: unknown): Data {
  if (typeof value !== "object" || value === null || Array.isArray(value)) giveUp();
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null ? (value as Data) : giveUp();
}

function object(value: unknown, keys: readonly string[]): Data {
  const input = mapping(value);
  for (const key of Object.keys(input)) if (!keys.includes(key)) giveUp();
  return input;
}

function string(value: unknown): string {
  return typeof value === "string" ? value : giveUp();
}

function boolean(value: unknown, fallback?: boolean): boolean {
  if (value === undefined && fallback !== undefined) return fallback;
  return typeof value === "boolean" ? value : giveUp();
}

function seconds(value: unknown, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : giveUp();
}

function int(value: unknown, min: number): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= min ? value : giveUp();
}

function matching(value: unknown, pattern: RegExp): string {
  const text = string(value);
  return pattern.test(text) ? text : giveUp();
}

function placeholderString(value: unknown): string {
  const text = string(value);
  return text.length >= 1 && placeholderProblem(text) === undefined ? text : giveUp();
}

function list<T>(value: unknown, item: (value: unknown) => T, fallback?: T[]): T[] {
  if (value === undefined && fallback !== undefined) return fallback;
  return Array.isArray(value) ? value.map(item) : giveUp();
}

function record(
  value: unknown,
  keyPattern: RegExp,
  fallback: Record<string, string>,
): Record<string, string> {
  if (value === undefined) return fallback;
  const input = mapping(value);
  const out: Record<string, string> = {};
  for (const key of Object.keys(input)) {
    if (key === "__proto__" || !keyPattern.test(key)) giveUp();
    out[key] = matching(input[key], ENV_VAR_NAME_PATTERN);
  }
  return out;
}

// Optional fields are set only when present, as the schema outputs them.
function optional<T>(out: Data, key: string, value: unknown, check: (value: unknown) => T): void {
  if (value !== undefined) out[key] = check(value);
}

const COMMON_KEYS = [
  "name",
  "display_name",
  "description",
  "enabled",
  "connection_timeout",
  "tool_timeout",
  "reset_timeout_on_progress",
  "max_total_timeout",
  "max_concurrent_calls",
  "max_message_bytes",
  "protocol_version",
  "transport",
];
const STDIO_KEYS = [...COMMON_KEYS, "command", "args", "env", "cwd"];
const HTTP_KEYS = [...COMMON_KEYS, "url", "headers", "auth"];

function httpUrl(value: unknown): string {
  const url = placeholderString(value);
  if (url.includes("${")) return url; // checked once the placeholders are resolved
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return giveUp();
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") giveUp();
  if (parsed.username || parsed.password) giveUp();
  return url;
}

function auth(value: unknown): Data {
  if (value === undefined) return { type: "none" };
  const type = (value as Data | null)?.type;
  const envVar = (v: unknown) => matching(v, ENV_VAR_NAME_PATTERN);
  switch (type) {
    case "none":
      object(value, ["type"]);
      return { type };
    case "bearer": {
      const input = object(value, ["type", "credential_env_var"]);
      return { type, credential_env_var: envVar(input.credential_env_var) };
    }
    case "api_key":
    case "custom_header": {
      const input = object(value, ["type", "credential_env_var", "header_name"]);
      const out: Data = { type, credential_env_var: envVar(input.credential_env_var) };
      optional(out, "header_name", input.header_name, (v) => matching(v, HEADER_NAME_PATTERN));
      return out;
    }
    case "mtls": {
      const input = object(value, [
        "type",
        "cert_file_env_var",
        "key_file_env_var",
        "ca_file_env_var",
        "passphrase_env_var",
      ]);
      const out: Data = {
        type,
        cert_file_env_var: envVar(input.cert_file_env_var),
        key_file_env_var: envVar(input.key_file_env_var),
      };
      optional(out, "ca_file_env_var", input.ca_file_env_var, envVar);
      optional(out, "passphrase_env_var", input.passphrase_env_var, envVar);
      return out;
    }
    default:
      // oauth (grant rules, URL formats) and anything unknown: the schema decides.
      return giveUp();
  }
}

function server(value: unknown): Data {
  const transport = (value as Data | null)?.transport;
  if (transport !== "stdio" && transport !== "http") giveUp();
  const input = object(value, transport === "stdio" ? STDIO_KEYS : HTTP_KEYS);
  const name = string(input.name);
  if (name.length > MAX_SERVER_NAME_LENGTH || !SERVER_NAME_PATTERN.test(name)) giveUp();
  const out: Data = { name };
  optional(out, "display_name", input.display_name, (v) => (string(v).length >= 1 ? v : giveUp()));
  optional(out, "description", input.description, string);
  out.enabled = boolean(input.enabled, false);
  out.connection_timeout = seconds(input.connection_timeout, 10);
  out.tool_timeout = seconds(input.tool_timeout, 30);
  out.reset_timeout_on_progress = boolean(input.reset_timeout_on_progress, false);
  optional(out, "max_total_timeout", input.max_total_timeout, (v) => seconds(v));
  optional(out, "max_concurrent_calls", input.max_concurrent_calls, (v) => int(v, 1));
  optional(out, "max_message_bytes", input.max_message_bytes, (v) => int(v, 1024));
  optional(out, "protocol_version", input.protocol_version, (v) =>
    v === "auto" || v === "2025-11-25" || v === "2026-07-28" ? v : giveUp(),
  );
  out.transport = transport;
  if (transport === "stdio") {
    out.command = placeholderString(input.command);
    out.args = list(input.args, placeholderString, []);
    out.env = record(input.env, ENV_VAR_NAME_PATTERN, {});
    optional(out, "cwd", input.cwd, placeholderString);
  } else {
    out.url = httpUrl(input.url);
    out.headers = record(input.headers, HEADER_NAME_PATTERN, {});
    out.auth = auth(input.auth);
  }
  return out;
}

function patterns(problemOf: (pattern: string) => string | undefined) {
  return (value: unknown): string => {
    const pattern = string(value);
    return problemOf(pattern) === undefined ? pattern : giveUp();
  };
}

const toolPattern = patterns(permissionPatternProblem);

function patternLists(value: unknown, item: (value: unknown) => string): string[] | Data {
  if (Array.isArray(value)) return value.map(item);
  const input = object(value, ["allow", "deny", "confirm"]);
  const out: Data = { allow: list(input.allow, item, []), deny: list(input.deny, item, []) };
  optional(out, "confirm", input.confirm, (v) => list(v, item));
  return out;
}

function toolSearch(value: unknown): Data {
  const input = object(value, ["mode", "threshold", "always_load", "max_searches"]);
  const out: Data = {};
  optional(out, "mode", input.mode, (v) => (v === "auto" || v === "on" || v === "off" ? v : giveUp()));
  optional(out, "threshold", input.threshold, (v) => {
    const threshold = object(v, ["tools", "chars"]);
    const checked: Data = {};
    optional(checked, "tools", threshold.tools, (n) => int(n, 0));
    optional(checked, "chars", threshold.chars, (n) => int(n, 0));
    return checked;
  });
  optional(out, "always_load", input.always_load, (v) => list(v, toolPattern));
  optional(out, "max_searches", input.max_searches, (v) => int(v, 1));
  return out;
}

function agentGrant(value: unknown): string[] | Data {
  if (Array.isArray(value)) return value.map(toolPattern);
  const input = object(value, [
    "allow",
    "deny",
    "confirm",
    "confirm_destructive",
    "resources",
    "prompts",
    "tool_search",
  ]);
  const out: Data = { allow: list(input.allow, toolPattern, []), deny: list(input.deny, toolPattern, []) };
  optional(out, "confirm", input.confirm, (v) => list(v, toolPattern));
  optional(out, "confirm_destructive", input.confirm_destructive, (v) =>
    typeof v === "boolean" ? v : giveUp(),
  );
  optional(out, "resources", input.resources, (v) => patternLists(v, patterns(resourcePatternProblem)));
  optional(out, "prompts", input.prompts, (v) => patternLists(v, patterns(promptPatternProblem)));
  optional(out, "tool_search", input.tool_search, toolSearch);
  return out;
}

/** The schema's output for `data` (a whole file: `$schema?`, `servers`, `permissions?`), or undefined. */
export function checkConfigFile(data: unknown): Data | undefined {
  try {
    const input = object(data, ["$schema", "servers", "permissions"]);
    const out: Data = {};
    optional(out, "$schema", input.$schema, string);
    out.servers = list(input.servers, server);
    if (input.permissions !== undefined) {
      const section = mapping(input.permissions);
      const permissions: Data = {};
      for (const agent of Object.keys(section)) {
        if (agent === "__proto__" || !AGENT_NAME_PATTERN.test(agent)) giveUp();
        permissions[agent] = agentGrant(section[agent]);
      }
      out.permissions = permissions;
    }
    return out;
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error;
  }
}
