import { cleanText } from "@agentforge/mcp-config";

/**
 * An error's message as one cleaned line of at most 500 characters, for a warning or a log line: the
 * message may carry a server's text (escape sequences, line breaks, any length).
 */
export function errorLine(error: unknown): string {
  return cleanText(error instanceof Error ? error.message : String(error), { maxChars: 500 });
}
