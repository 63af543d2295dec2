// The one cleaner for text that came from outside — an MCP server, an authorization server, a model —
// before it reaches a terminal, a page, a log line or a model. Every package uses this one.

// biome-ignore-start lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
// OSC, DCS, SOS, PM and APC strings (window titles, hyperlinks, clipboard writes via OSC 52): the
// introducer (ESC ] P X ^ _, or C1 0x9D 0x90 0x98 0x9E 0x9F) up to BEL or ST (ESC \ or 0x9C). An
// unterminated one loses only its introducer, so the text after it stays readable.
const STRINGS =
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)/g;
// CSI: ESC [ or C1 0x9B, parameter bytes, intermediate bytes, a final byte (colours, cursor moves,
// screen clears).
const CSI = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?/g;
// Any other escape: ESC, intermediate bytes, one final byte.
const OTHER_ESCAPES = /\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;
// What is left: C0 controls but tab and line feed, DEL, C1 controls.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// biome-ignore-end lint/suspicious/noControlCharactersInRegex: see above.
// Bidirectional controls (they reorder what is shown: "Trojan source", spoofed URLs and prompts).
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// Line and paragraph separators: line breaks to some renderers, invisible to others.
const SEPARATORS = /[\u2028\u2029]/g;
// A surrogate half without its other half (not text; refused by JSON stores and some terminals).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ANYTHING =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the quick test for all of the above.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]/;

/** Options of `cleanText`. */
export interface CleanTextOptions {
  /** Keep line breaks (default true); false turns each into a space, for one-line output. */
  lineBreaks?: boolean;
  /** Cut the cleaned text to this many characters, ending it with `… [N characters truncated]`. */
  maxChars?: number;
}

/**
 * Untrusted text made safe to show or hand on: terminal escape sequences (CSI, OSC, DCS/SOS/PM/APC,
 * other ESC sequences) removed, other C0/C1 control characters removed (`\t` and `\n` kept, `\r\n` and
 * `\u2028`/`\u2029` become `\n`), bidirectional controls removed, lone surrogate halves made U+FFFD;
 * optionally on one line and bounded. Text that needs none of it is returned as is.
 */
export function cleanText(text: string, options: CleanTextOptions = {}): string {
  let clean = ANYTHING.test(text)
    ? text
        .replace(STRINGS, "")
        .replace(CSI, "")
        .replace(OTHER_ESCAPES, "")
        .replace(/\r\n?/g, "\n")
        .replace(CONTROLS, "")
        .replace(BIDI, "")
        .replace(SEPARATORS, "\n")
        .replace(LONE_SURROGATE, "\uFFFD")
    : text;
  if (options.lineBreaks === false) clean = clean.replace(/\n/g, " ");
  const max = options.maxChars;
  if (max !== undefined && clean.length > max) {
    // A marker that says how much was cut, or a bare ellipsis when the bound is too small for one.
    const marker = (cut: number) => (max >= 60 ? `… [${cut} characters truncated]` : "…");
    let keep = Math.max(0, max - marker(clean.length).length);
    // Never split a surrogate pair.
    if (keep > 0 && /[\ud800-\udbff]/.test(clean[keep - 1] ?? "")) keep--;
    clean = `${clean.slice(0, keep)}${marker(clean.length - keep)}`;
  }
  return clean;
}

// Characters JSON.stringify leaves raw that a terminal or a page may still act on.
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * JSON text (from `JSON.stringify`) with the characters JSON leaves raw but a terminal or a page may act
 * on — DEL, C1 controls, bidirectional controls, line and paragraph separators — written as `\uXXXX`
 * escapes. The JSON still parses to the same value.
 */
export function escapeJsonText(json: string): string {
  return json.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
