// What the app writes to a terminal. Text from servers, authorization servers and models can carry
// escape sequences (screen clears, OSC 52 clipboard writes, fake prompts) and bidi overrides: all of it
// goes through mcp-config's one cleaner before it is written.
import { cleanText, escapeJsonText } from "@agentforge/mcp-config/core";

const MAX_TEXT = 2000;

/** Untrusted text made safe for a terminal: no escape sequences, controls or bidi overrides; bounded. */
export function terminalSafe(text: string, max = MAX_TEXT): string {
  return cleanText(text, { maxChars: max });
}

/** Start of a colour mark (`painter` in cli/terminal-output.ts): private-use characters, never escapes. */
export const STYLE_START = "\uE000";
/** End of a colour mark's code. */
export const STYLE_END = "\uE001";
/** The reset mark. */
export const STYLE_RESET = "\uE002";
const STYLE_MARK = /\uE000(\d{1,2})\uE001|\uE002|[\uE000-\uE002]/g;

/**
 * Cleaned text on stdout, with a final line break. Colour marks become SGR colour codes (a number of
 * at most two digits each, so a server that wrote the marks itself can colour text, nothing more).
 */
export function writeOut(text: string): void {
  const clean = cleanText(text).replace(STYLE_MARK, (mark, code: string | undefined) =>
    code !== undefined ? `\x1b[${code}m` : mark === STYLE_RESET ? "\x1b[0m" : "",
  );
  process.stdout.write(clean.endsWith("\n") ? clean : `${clean}\n`);
}

/** Cleaned text on stderr, with a final line break. */
export function writeErr(text: string): void {
  const clean = cleanText(text);
  process.stderr.write(clean.endsWith("\n") ? clean : `${clean}\n`);
}

/** A value as JSON on stdout; what JSON leaves raw but a terminal acts on is escaped. */
export function writeJson(value: unknown, indent?: number): void {
  process.stdout.write(`${escapeJsonText(JSON.stringify(value, null, indent))}\n`);
}

/** JSON text made safe for a terminal (see `writeJson`). */
export function terminalJson(json: string): string {
  return escapeJsonText(json);
}
