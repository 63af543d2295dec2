// What the app writes to a terminal. Text from servers, authorization servers and models can carry
// escape sequences (screen clears, OSC 52 clipboard writes, fake prompts) and bidi overrides: all of it
// goes through mcp-config's one cleaner before it is written.
import { cleanText, escapeJsonText } from "@agentforge/mcp-config/core";

const MAX_TEXT = 2000;

/** Untrusted text made safe for a terminal: no escape sequences, controls or bidi overrides; bounded. */
export function terminalSafe(text: string, max = MAX_TEXT): string {
  return cleanText(text, { maxChars: max });
}

/** Cleaned text on stdout, with a final line break. */
export function writeOut(text: string): void {
  const clean = cleanText(text);
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
