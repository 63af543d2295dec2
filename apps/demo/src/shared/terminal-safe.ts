// Text a server sent, made safe to print on a terminal.

const MAX_TEXT = 2000;

/** Untrusted server text made safe for a terminal: no escape sequences or control characters, bounded. */
export function terminalSafe(text: string, max = MAX_TEXT): string {
  let clean = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    // C0 and C1 control characters (escape sequences start with one) become spaces; newlines stay.
    clean += code === 10 || (code >= 32 && code !== 127 && (code < 128 || code > 159)) ? char : " ";
    if (clean.length > max) return `${clean.slice(0, max)}…`;
  }
  return clean;
}
