import { cleanText } from "@agentforge/mcp-config";

/**
 * `text` as a model may read it: the one cleaner of the packages (`cleanText` of
 * `@agentforge/mcp-config`) — terminal escape sequences (CSI, OSC, DCS/SOS/PM/APC, other ESC sequences)
 * and C0/C1 control characters removed (`\n` and `\t` kept; `\r\n`, a lone `\r`, U+2028 and U+2029
 * become `\n`), bidirectional controls removed, lone surrogate halves made U+FFFD. Text with none is
 * returned as is. Every text from a server that reaches a model passes here: results, error texts,
 * tool titles, descriptions and parameter descriptions, resources and prompts.
 */
export function cleanModelText(text: string): string {
  return cleanText(text);
}
