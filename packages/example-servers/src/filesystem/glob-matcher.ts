// Glob matching for search_files and excludePatterns, compatible with minimatch's `{ dot: true }` mode for
// the syntax people use (`*`, `?`, `**`, `[...]`, `{a,b}`, `{1..3}`, `\` escapes, a leading `!`), without
// a dependency and without regular expressions that can backtrack catastrophically: segments are matched
// with the linear "last star" algorithm, paths with the same algorithm over segments (`**` as the star).
// Extglobs (`@(a|b)`, `+(x)`...) are not supported: their characters match literally.

/** A compiled glob: `matches(rel)` for a relative `/`-separated path, `couldContain(dir)` for pruning. */
export interface GlobMatcher {
  /** True if the relative path matches. */
  matches(relativePath: string): boolean;
  /** False only when nothing below the relative directory can match (the walk may skip it). */
  couldContain(relativeDirectory: string): boolean;
}

/** Longest accepted pattern, and most patterns one brace expression may expand to. */
export const MAX_PATTERN_LENGTH = 4096;
const MAX_EXPANSIONS = 1024;

type Token =
  | { kind: "char"; value: string }
  | { kind: "any" }
  | { kind: "star" }
  | { kind: "class"; negated: boolean; test: (c: string) => boolean };

type Segment = Token[] | "globstar";

const POSIX_CLASSES: Record<string, (c: string) => boolean> = {
  alnum: (c) => /^[\p{L}\p{Nl}\p{Nd}]$/u.test(c),
  alpha: (c) => /^[\p{L}\p{Nl}]$/u.test(c),
  ascii: (c) => c.charCodeAt(0) < 0x80,
  blank: (c) => /^[\p{Zs}\t]$/u.test(c),
  cntrl: (c) => /^\p{Cc}$/u.test(c),
  digit: (c) => /^\p{Nd}$/u.test(c),
  graph: (c) => /^[^\p{Z}\p{C}]$/u.test(c),
  lower: (c) => /^\p{Ll}$/u.test(c),
  print: (c) => /^[^\p{C}]$/u.test(c),
  punct: (c) => /^\p{P}$/u.test(c),
  space: (c) => /^[\p{Z}\t\r\n\v\f]$/u.test(c),
  upper: (c) => /^\p{Lu}$/u.test(c),
  word: (c) => /^[\p{L}\p{Nl}\p{Nd}\p{Pc}]$/u.test(c),
  xdigit: (c) => /^[A-Fa-f0-9]$/.test(c),
};

/** Parse `[...]` starting at `start` (the `[`); undefined when it is not a valid class. */
function parseClass(chars: string[], start: number): { token: Token; end: number } | undefined {
  let i = start + 1;
  let negated = false;
  if (chars[i] === "!" || chars[i] === "^") {
    negated = true;
    i++;
  }
  const tests: ((c: string) => boolean)[] = [];
  let first = true;
  while (i < chars.length) {
    const c = chars[i] as string;
    if (c === "]" && !first) {
      const test = (x: string) => tests.some((t) => t(x));
      return { token: { kind: "class", negated, test }, end: i };
    }
    first = false;
    if (c === "[" && chars[i + 1] === ":") {
      const close = chars.indexOf(":", i + 2);
      if (close > 0 && chars[close + 1] === "]") {
        const name = chars.slice(i + 2, close).join("");
        const posix = POSIX_CLASSES[name];
        if (posix) {
          tests.push(posix);
          i = close + 2;
          continue;
        }
      }
    }
    let low = c;
    if (c === "\\" && i + 1 < chars.length) {
      i++;
      low = chars[i] as string;
    }
    if (chars[i + 1] === "-" && i + 2 < chars.length && chars[i + 2] !== "]") {
      let high = chars[i + 2] as string;
      let skip = 2;
      if (high === "\\" && i + 3 < chars.length) {
        high = chars[i + 3] as string;
        skip = 3;
      }
      const lo = low.codePointAt(0) ?? 0;
      const hi = high.codePointAt(0) ?? 0;
      tests.push((x) => {
        const p = x.codePointAt(0) ?? -1;
        return p >= lo && p <= hi;
      });
      i += skip + 1;
      continue;
    }
    const literal = low;
    tests.push((x) => x === literal);
    i++;
  }
  return undefined;
}

function parseSegment(text: string): Segment {
  if (text === "**") return "globstar";
  const chars = Array.from(text);
  const tokens: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (c === "\\" && i + 1 < chars.length) {
      tokens.push({ kind: "char", value: chars[++i] as string });
    } else if (c === "*") {
      if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
    } else if (c === "?") {
      tokens.push({ kind: "any" });
    } else if (c === "[") {
      const parsed = parseClass(chars, i);
      if (parsed) {
        tokens.push(parsed.token);
        i = parsed.end;
      } else tokens.push({ kind: "char", value: c });
    } else {
      tokens.push({ kind: "char", value: c });
    }
  }
  return tokens;
}

function tokenMatches(token: Token, c: string): boolean {
  switch (token.kind) {
    case "char":
      return token.value === c;
    case "any":
      return true;
    case "class":
      return token.test(c) !== token.negated;
    default:
      return false;
  }
}

/** Match one path segment against one pattern segment: linear "remember the last star" algorithm. */
function matchSegment(tokens: Token[], text: string): boolean {
  const chars = text.length === Array.from(text).length ? text : Array.from(text);
  let t = 0;
  let c = 0;
  let starT = -1;
  let starC = 0;
  while (c < chars.length) {
    const token = tokens[t];
    if (token && token.kind !== "star" && tokenMatches(token, chars[c] as string)) {
      t++;
      c++;
    } else if (token?.kind === "star") {
      starT = t++;
      starC = c;
    } else if (starT >= 0) {
      t = starT + 1;
      c = ++starC;
    } else return false;
  }
  while (tokens[t]?.kind === "star") t++;
  return t === tokens.length;
}

/** Match path segments against pattern segments; `**` spans zero or more whole segments. */
function matchSegments(pattern: Segment[], parts: string[]): boolean {
  let p = 0;
  let s = 0;
  let starP = -1;
  let starS = 0;
  while (s < parts.length) {
    const seg = pattern[p];
    if (seg !== undefined && seg !== "globstar" && matchSegment(seg, parts[s] as string)) {
      p++;
      s++;
    } else if (seg === "globstar") {
      starP = p++;
      starS = s;
    } else if (starP >= 0) {
      p = starP + 1;
      s = ++starS;
    } else return false;
  }
  while (pattern[p] === "globstar") p++;
  return p === pattern.length;
}

/** Whether a directory's segments can be a prefix of a matching path. */
function couldContainSegments(pattern: Segment[], parts: string[]): boolean {
  for (let i = 0; i < parts.length; i++) {
    const seg = pattern[i];
    if (seg === undefined) return false;
    if (seg === "globstar") return true;
    if (!matchSegment(seg, parts[i] as string)) return false;
  }
  return pattern.length > parts.length || pattern.includes("globstar");
}

/** Expand `{a,b}` and `{1..3}` / `{a..e}` like brace-expansion; unbalanced braces stay literal. */
export function expandBraces(pattern: string, limit = MAX_EXPANSIONS): string[] {
  let depth = 0;
  let open = -1;
  const commas: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") {
      if (depth === 0) {
        open = i;
        commas.length = 0;
      }
      depth++;
    } else if (c === "}" && depth > 0) {
      depth--;
      if (depth === 0) {
        const pre = pattern.slice(0, open);
        const body = pattern.slice(open + 1, i);
        const post = pattern.slice(i + 1);
        let alternatives: string[] | undefined;
        if (commas.length > 0) {
          alternatives = [];
          let from = open + 1;
          for (const comma of commas) {
            alternatives.push(pattern.slice(from, comma));
            from = comma + 1;
          }
          alternatives.push(pattern.slice(from, i));
        } else {
          alternatives = expandSequence(body);
        }
        if (!alternatives) {
          // `{x}` is literal; keep scanning after it.
          return expandBraces(post, limit).map((rest) => `${pre}{${body}}${rest}`);
        }
        const out: string[] = [];
        const tails = expandBraces(post, limit);
        for (const alternative of alternatives) {
          for (const head of expandBraces(alternative, limit)) {
            for (const tail of tails) {
              out.push(`${pre}${head}${tail}`);
              if (out.length > limit) {
                throw new RangeError(`the pattern expands to more than ${limit} alternatives`);
              }
            }
          }
        }
        return out;
      }
    } else if (c === "," && depth === 1) {
      commas.push(i);
    }
  }
  return [pattern];
}

function expandSequence(body: string): string[] | undefined {
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(body);
  if (numeric) {
    const from = Number(numeric[1]);
    const to = Number(numeric[2]);
    const step = Math.abs(Number(numeric[3] ?? 1)) || 1;
    const width = [numeric[1], numeric[2]].some((n) => /^-?0\d/.test(n ?? ""))
      ? (numeric[1]?.length ?? 0)
      : 0;
    if (Math.abs(to - from) / step > MAX_EXPANSIONS) {
      throw new RangeError(`the range {${body}} expands to more than ${MAX_EXPANSIONS} alternatives`);
    }
    const out: string[] = [];
    for (let n = from; from <= to ? n <= to : n >= to; n += from <= to ? step : -step) {
      out.push(width ? String(n).padStart(width, "0") : String(n));
    }
    return out;
  }
  const alpha = /^([A-Za-z])\.\.([A-Za-z])$/.exec(body);
  if (alpha) {
    const from = (alpha[1] as string).charCodeAt(0);
    const to = (alpha[2] as string).charCodeAt(0);
    const out: string[] = [];
    for (let n = from; from <= to ? n <= to : n >= to; n += from <= to ? 1 : -1) {
      out.push(String.fromCharCode(n));
    }
    return out;
  }
  return undefined;
}

/**
 * Compile a glob pattern. Throws `RangeError` for a pattern too long or expanding to too many
 * alternatives (the caller turns it into a tool error naming the argument).
 */
export function globMatcher(pattern: string): GlobMatcher {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new RangeError(
      `the pattern is ${pattern.length} characters long; the limit is ${MAX_PATTERN_LENGTH}`,
    );
  }
  let negated = false;
  let body = pattern;
  while (body.startsWith("!")) {
    negated = !negated;
    body = body.slice(1);
  }
  if (body.startsWith("#")) {
    // minimatch treats a pattern starting with # as a comment: it matches nothing.
    return { matches: () => negated, couldContain: () => negated };
  }
  const compiled = expandBraces(body).map((alternative) => {
    // `a//b` is `a/b` (a trailing slash stays significant, as in minimatch).
    const texts = alternative
      .split("/")
      .filter((text, i, all) => text !== "" || i === 0 || i === all.length - 1);
    const parsed = texts.map(parseSegment);
    // Collapse consecutive globstars: `a/**/**/b` is `a/**/b`.
    const segments = parsed.filter((seg, i) => !(seg === "globstar" && parsed[i - 1] === "globstar"));
    // A trailing `**` after other segments needs at least one segment: `a/**` matches `a/b`, not `a`.
    if (segments.length > 1 && segments.at(-1) === "globstar") {
      segments.splice(segments.length - 1, 0, [{ kind: "star" }]);
    }
    return segments;
  });
  const split = (rel: string) => (rel === "" ? [] : rel.split("/"));
  return {
    matches(relativePath) {
      const parts = split(relativePath);
      const hit = compiled.some((segments) => matchSegments(segments, parts));
      return hit !== negated;
    },
    couldContain(relativeDirectory) {
      if (negated) return true;
      const parts = split(relativeDirectory);
      return compiled.some((segments) => couldContainSegments(segments, parts));
    },
  };
}
