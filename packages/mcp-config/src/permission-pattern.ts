import { SERVER_NAME_PATTERN_SOURCE } from "./internal/names.js";

const SERVER = new RegExp(SERVER_NAME_PATTERN_SOURCE);
const NAME_PART = /^[A-Za-z0-9_.\-/*]+$/;

/** Resource URIs (and the URI part of resource patterns) longer than this are refused. */
export const MAX_RESOURCE_URI_LENGTH = 8192;

// A URI scheme (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":").
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
// C0 and C1 control characters, DEL, and the Unicode line/paragraph separators.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters refused.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// Whitespace has no place in a raw URI.
const WHITESPACE = /\s/;
// A ".." path segment: between "/", "\" or ":" (or the start) and "/", "\", "?", "#" (or the end).
const DOT_DOT_SEGMENT = /(^|[/\\:])\.\.([/\\?#]|$)/;
// Percent-encoded ".", "/", "\", "%" (double encoding) and control characters: forms whose meaning
// changes when a server decodes them, so the raw string would not say what is read.
const AMBIGUOUS_ESCAPE = /%(2e|2f|5c|25|[01][0-9a-f]|7f)/i;

// A pattern quoted for a message: JSON-escaped, every control character too (visible and harmless
// in a log), and cut after 200 characters.
function quoted(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function namedPatternProblem(pattern: string, kind: "tool" | "prompt"): string | undefined {
  const example = kind === "tool" ? "filesystem.*" : "github.*";
  if (pattern === "*" || pattern === "*.*") {
    return `"${pattern}" would grant every ${kind} of every server; list each server instead (e.g. "${example}")`;
  }
  const dot = pattern.indexOf(".");
  if (dot === -1) {
    return `expected "<server>.<${kind}>", "<server>.*" or "<server>.<prefix>*", got "${pattern}"`;
  }
  const server = pattern.slice(0, dot);
  const name = pattern.slice(dot + 1);
  if (server.includes("*")) {
    return `"*" is only allowed in the ${kind} part; name the server explicitly in "${pattern}"`;
  }
  if (!SERVER.test(server)) {
    return `"${server}" in "${pattern}" is not a server name (lowercase letters, digits, '-' and '_')`;
  }
  if (name.length === 0)
    return `the ${kind} part of "${pattern}" is empty; use "${server}.*" for every ${kind}`;
  if (!NAME_PART.test(name)) {
    return `the ${kind} part of "${pattern}" may only contain letters, digits, '_', '-', '.', '/' and '*'`;
  }
  return undefined;
}

/**
 * Why `pattern` is not a valid permission pattern, or undefined when it is valid.
 *
 * Valid: an exact identity (`filesystem.read_text_file`), a whole server (`filesystem.*`), or `*`
 * inside the tool part (`github.get_*`). `*` never stands for a server: `*` and `*.*` are refused, so
 * granting everything has to be spelled out server by server.
 */
export function permissionPatternProblem(pattern: string): string | undefined {
  return namedPatternProblem(pattern, "tool");
}

/**
 * Why `pattern` is not a valid prompt pattern (the `prompts:` list of a grant), or undefined when it
 * is valid. Same syntax as tool patterns: `github.review_code`, `github.*`, `github.review_*`.
 */
export function promptPatternProblem(pattern: string): string | undefined {
  return namedPatternProblem(pattern, "prompt");
}

/**
 * Why `uri` (a resource URI as an agent sends it, or with `allowStar` the URI part of a pattern) is
 * refused, or undefined. Resource decisions are made on the raw string, never on a decoded or
 * normalized form, so every form whose meaning could change when a server decodes or resolves it is
 * refused instead: control characters and whitespace, `..` segments, percent-encoded `.`, `/`, `\`,
 * `%` or control characters, and anything over `MAX_RESOURCE_URI_LENGTH` characters.
 */
export function resourceUriProblem(uri: string, options: { allowStar?: boolean } = {}): string | undefined {
  if (uri.length === 0) return "is empty";
  if (uri.length > MAX_RESOURCE_URI_LENGTH) {
    return `is ${uri.length} characters long, over the limit of ${MAX_RESOURCE_URI_LENGTH}`;
  }
  if (CONTROL.test(uri)) return "contains a control character";
  if (WHITESPACE.test(uri)) return "contains whitespace";
  if (!URI_SCHEME.test(uri) && !(options.allowStar && uri.startsWith("*"))) {
    return options.allowStar
      ? 'must start with a URI scheme (e.g. "file:///srv/docs/*") or with "*"'
      : "has no URI scheme";
  }
  if (DOT_DOT_SEGMENT.test(uri)) return 'contains a ".." segment';
  if (AMBIGUOUS_ESCAPE.test(uri)) {
    return "contains a percent-encoded '.', '/', '\\', '%' or control character";
  }
  return undefined;
}

/**
 * Why `pattern` is not a valid resource pattern (the `resources:` list of a grant), or undefined when
 * it is valid. A resource pattern is `<server>:<uri-pattern>`, where `*` in the URI part matches any
 * run of characters (`docs:file:///srv/docs/*`, `memory:memory://*`, `docs:*`). The server is always
 * named: `*`, `*:*` or `*:file:///...` would grant every server and are refused.
 */
export function resourcePatternProblem(pattern: string): string | undefined {
  const colon = pattern.indexOf(":");
  const server = colon === -1 ? pattern : pattern.slice(0, colon);
  if (server.includes("*")) {
    return `${quoted(pattern)} would grant resources of every server; name the server: "<server>:<uri-pattern>" (e.g. "docs:file:///srv/docs/*")`;
  }
  if (colon === -1) {
    return `expected "<server>:<uri-pattern>" (e.g. "docs:file:///srv/docs/*" or "docs:*"), got ${quoted(pattern)}`;
  }
  if (!SERVER.test(server)) {
    return `${quoted(server)} in ${quoted(pattern)} is not a server name (lowercase letters, digits, '-' and '_')`;
  }
  const uri = pattern.slice(colon + 1);
  if (uri.length === 0) {
    return `the URI part of ${quoted(pattern)} is empty; use "${server}:*" for every resource of ${server}`;
  }
  const problem = resourceUriProblem(uri, { allowStar: true });
  return problem ? `the URI part of ${quoted(pattern)} ${problem}` : undefined;
}
