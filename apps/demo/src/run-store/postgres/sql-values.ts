// Values PostgreSQL accepts. A model or a server can produce any JavaScript string, but jsonb refuses
// `\u0000` and the escape of a lone surrogate half (`\ud83d`), and text refuses NUL.

// An escape that JSON.stringify writes for NUL or for a lone surrogate (it writes paired surrogates as
// characters), preceded by an even number of backslashes (so not a backslash written as `\\`).
const REFUSED_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g;

/**
 * JSON text PostgreSQL's jsonb accepts, for any value: NUL and lone surrogate halves (in keys and
 * values) become U+FFFD, the way a UTF-8 encoder writes them; everything else is kept as it is.
 */
export function toJsonb(value: unknown): string {
  return JSON.stringify(value).replace(REFUSED_ESCAPE, "$1\\ufffd");
}

// A surrogate half without its other half.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text PostgreSQL accepts: NUL (refused in text columns) and lone surrogate halves become U+FFFD. */
export function toText(value: string | undefined): string | null {
  return value === undefined ? null : value.replaceAll("\0", "\uFFFD").replace(LONE_SURROGATE, "\uFFFD");
}
