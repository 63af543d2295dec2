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

/** A resource URI in the one spelling decisions are made on, or why it has none. */
export type CanonicalResourceUri =
  | { uri: string; problem?: undefined }
  | { uri?: undefined; problem: string };

const HEX = /^[0-9A-Fa-f]{2}$/;
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** Percent-encoding in one spelling: unreserved bytes decoded, hex upper case, raw non-ASCII encoded. */
function canonicalEscapes(text: string): { text: string; problem?: undefined } | { problem: string } {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "%") {
      const hex = text.slice(i + 1, i + 3);
      if (!HEX.test(hex)) return { problem: "contains a '%' that does not start a percent-encoded byte" };
      const byte = Number.parseInt(hex, 16);
      if (byte < 0x20 || byte === 0x7f || byte === 0x25 || byte === 0x2f || byte === 0x5c) {
        return { problem: "contains a percent-encoded '/', '\\', '%' or control character" };
      }
      const char = String.fromCharCode(byte);
      out += byte < 0x80 && UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
      i += 2;
    } else if (c.charCodeAt(0) > 0x7e) {
      // An IRI character: the same resource as its UTF-8 percent-encoding (RFC 3987 §3.1).
      const point = text.codePointAt(i) as number;
      const char = String.fromCodePoint(point);
      out += encodeURIComponent(char);
      i += char.length - 1;
    } else {
      out += c;
    }
  }
  return { text: out };
}

/**
 * `uri` in the one spelling every decision is made on and every request is sent with: what servers
 * treat as the same resource is spelled the same way (RFC 3986 §6.2.2 and RFC 8089):
 * - the scheme and the host are lower case; an empty port is dropped;
 * - the fragment is dropped (it is never part of what a server retrieves);
 * - percent-encoded letters, digits and `-._~` are decoded, other escapes have upper-case hex, and
 *   non-ASCII characters are percent-encoded as UTF-8;
 * - `.` path segments are removed; `file://localhost/p` and `file:/p` are `file:///p`.
 *
 * Refused instead (`problem`), because a server could read them as another resource: a `..` segment,
 * an empty path segment (`//` inside the path), a backslash, a percent-encoded `/`, `\`, `%` or control
 * character, a `%` not followed by two hex digits, a control character or whitespace, no scheme, or more
 * than `MAX_RESOURCE_URI_LENGTH` characters. With `allowStar` (the URI part of a pattern) `*` is kept as
 * it is, and a pattern may start with `*`.
 */
export function canonicalResourceUri(
  uri: string,
  options: { allowStar?: boolean } = {},
): CanonicalResourceUri {
  const fail = (problem: string): CanonicalResourceUri => ({ problem });
  if (typeof uri !== "string") return fail("is not a string");
  if (uri.length === 0) return fail("is empty");
  if (uri.length > MAX_RESOURCE_URI_LENGTH) {
    return fail(`is ${uri.length} characters long, over the limit of ${MAX_RESOURCE_URI_LENGTH}`);
  }
  if (CONTROL.test(uri)) return fail("contains a control character");
  if (WHITESPACE.test(uri)) return fail("contains whitespace");
  if (uri.includes("\\")) return fail("contains a backslash (not a URI character)");
  const scheme = URI_SCHEME.exec(uri)?.[0];
  if (!scheme) {
    if (options.allowStar && uri.startsWith("*")) return { uri };
    return fail(
      options.allowStar
        ? 'must start with a URI scheme (e.g. "file:///srv/docs/*") or with "*"'
        : "has no URI scheme",
    );
  }
  let rest = uri.slice(scheme.length);
  const hash = rest.indexOf("#");
  if (hash !== -1) rest = rest.slice(0, hash);
  const escaped = canonicalEscapes(rest);
  if (escaped.problem !== undefined) return fail(escaped.problem);
  rest = escaped.text;
  const query = rest.indexOf("?");
  let hierarchy = query === -1 ? rest : rest.slice(0, query);
  const tail = query === -1 ? "" : rest.slice(query);
  const lowerScheme = scheme.toLowerCase();
  let authority: string | undefined;
  if (hierarchy.startsWith("//")) {
    const slash = hierarchy.indexOf("/", 2);
    authority = slash === -1 ? hierarchy.slice(2) : hierarchy.slice(2, slash);
    hierarchy = slash === -1 ? "" : hierarchy.slice(slash);
    const at = authority.lastIndexOf("@");
    const userinfo = at === -1 ? "" : authority.slice(0, at + 1);
    let host = (at === -1 ? authority : authority.slice(at + 1)).toLowerCase();
    if (host.endsWith(":")) host = host.slice(0, -1);
    authority = userinfo + host;
    if (host === ".." || host === ".") return fail('contains a ".." segment');
    if (lowerScheme === "file:" && authority === "localhost") authority = "";
  } else if (lowerScheme === "file:" && hierarchy.startsWith("/")) {
    authority = "";
  }
  const segments = hierarchy.split("/");
  const kept: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    if (segment === "..") return fail('contains a ".." segment');
    if (segment === ".") {
      // "a/./b" is "a/b"; a trailing "." leaves the folder's slash ("a/." is "a/").
      if (i === segments.length - 1) kept.push("");
      continue;
    }
    if (segment === "" && i > 0 && i < segments.length - 1) {
      return fail("contains an empty path segment ('//' inside the path)");
    }
    kept.push(segment);
  }
  const path = kept.join("/");
  return { uri: `${lowerScheme}${authority === undefined ? "" : `//${authority}`}${path}${tail}` };
}

/**
 * Why `uri` (a resource URI as an agent sends it, or with `allowStar` the URI part of a pattern) is
 * refused, or undefined: the `problem` of `canonicalResourceUri` (a `..` or empty segment, a backslash,
 * an ambiguous or malformed escape, a control character or whitespace, no scheme, too long).
 */
export function resourceUriProblem(uri: string, options: { allowStar?: boolean } = {}): string | undefined {
  return canonicalResourceUri(uri, options).problem;
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
