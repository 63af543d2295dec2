import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { SERVER_OPTIONS } from "../internal/server-options.js";
import { VERSION } from "../internal/version.js";

/** Options of `createLocalToolsServer`. */
export interface LocalToolsServerOptions {
  /** Clock used by `current_time` (default `() => new Date()`), for deterministic embedding and tests. */
  now?: () => Date;
}

function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Offset of `timeZone` at `date` as `+HH:MM`. */
function offsetOf(date: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" }).formatToParts(
    date,
  );
  const name = parts.find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const match = /GMT([+-]\d{2}):?(\d{2})?/.exec(name);
  return match ? `${match[1]}:${match[2] ?? "00"}` : "+00:00";
}

/** Wall-clock time in `timeZone` as ISO 8601 with its offset, e.g. `2026-11-30T03:04:05.678+01:00`. */
function localIso(date: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    })
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  const ms = String(date.getUTCMilliseconds()).padStart(3, "0");
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${ms}${offsetOf(date, timeZone)}`;
}

const wordSegmenter = new Intl.Segmenter(undefined, { granularity: "word" });
const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;

/** Count words the way a reader would in any script: Latin, Cyrillic, CJK, Thai, Arabic... */
export function countWords(text: string): { words: number; characters: number; lines: number } {
  let words = 0;
  for (const segment of wordSegmenter.segment(text)) if (segment.isWordLike) words++;
  let characters = 0;
  for (const _ of graphemeSegmenter.segment(text)) characters++;
  const lines = text === "" ? 0 : text.split(/\r\n|\r|\n/).length;
  return { words, characters, lines };
}

/**
 * A small server of local utilities: `current_time`, `echo` and `word_count`. All read-only and
 * closed-world: they touch nothing outside the process.
 */
export function createLocalToolsServer(options: LocalToolsServerOptions = {}): McpServer {
  const now = options.now ?? (() => new Date());
  const server = new McpServer({ name: "agentforge-local-tools", version: VERSION }, SERVER_OPTIONS);

  server.registerTool(
    "current_time",
    {
      title: "Current time",
      description:
        "The current date and time, in UTC or in the IANA time zone given (e.g. Europe/Paris, America/New_York).",
      inputSchema: z.object({
        timezone: z.string().min(1).optional().describe("IANA time zone name; default UTC"),
      }),
      outputSchema: z.object({
        iso: z.string().describe("local time, ISO 8601 with offset"),
        utc: z.string().describe("the same instant in UTC, ISO 8601"),
        timezone: z.string(),
        unixMs: z.number().describe("milliseconds since the Unix epoch"),
      }),
      annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ timezone }) => {
      const zone = timezone ?? "UTC";
      if (!isValidTimeZone(zone)) {
        return {
          isError: true,
          content: [
            {
              type: "text",
              text: `Unknown time zone "${zone}": expected an IANA name such as "Europe/Paris" or "UTC".`,
            },
          ],
        };
      }
      const date = now();
      const result = {
        iso: localIso(date, zone),
        utc: date.toISOString(),
        timezone: zone,
        unixMs: date.getTime(),
      };
      return { content: [{ type: "text", text: `${result.iso} (${zone})` }], structuredContent: result };
    },
  );

  server.registerTool(
    "echo",
    {
      title: "Echo",
      description: "Returns the text it was given, unchanged. Useful to test a connection.",
      inputSchema: z.object({ text: z.string().describe("text to return") }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );

  server.registerTool(
    "word_count",
    {
      title: "Word count",
      description:
        "Counts words (Unicode-aware: words in any script, including CJK and Thai), user-perceived characters and lines.",
      inputSchema: z.object({ text: z.string().describe("text to count") }),
      outputSchema: z.object({
        words: z.number().int(),
        characters: z.number().int(),
        lines: z.number().int(),
      }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ text }) => {
      const counts = countWords(text);
      return {
        content: [
          {
            type: "text",
            text: `${plural(counts.words, "word")}, ${plural(counts.characters, "character")}, ${plural(counts.lines, "line")}`,
          },
        ],
        structuredContent: counts,
      };
    },
  );

  return server;
}
