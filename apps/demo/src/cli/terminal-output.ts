// Plain-text output for the terminal: aligned tables, and colours only on a TTY without NO_COLOR.

/** ANSI styles used by the CLI. */
export type Style = "bold" | "dim" | "green" | "red" | "yellow";

const CODES: Record<Style, number> = { bold: 1, dim: 2, green: 32, red: 31, yellow: 33 };

/** Whether to colour output written to `stream`: a TTY, and `NO_COLOR` unset or empty (no-color.org). */
export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

import { STYLE_END, STYLE_RESET, STYLE_START } from "../shared/terminal-safe.js";

/** A painter: `paint("red", text)` colours text when colours are on, returns it unchanged otherwise. */
export function painter(color: boolean): (style: Style, text: string) => string {
  // Marks, not escape sequences: the whole output is cleaned before it is written (nothing a server
  // sent may reach the terminal as an escape), and `writeOut` then turns these marks — and only
  // these — into colour codes.
  return (style, text) => (color ? `${STYLE_START}${CODES[style]}${STYLE_END}${text}${STYLE_RESET}` : text);
}

/** One table cell: its text and an optional style (applied after padding, so columns stay aligned). */
export type Cell = string | { text: string; style?: Style };

/** Rows under a header, columns padded to their widest cell. */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly Cell[])[],
  paint: (style: Style, text: string) => string,
): string {
  const text = (cell: Cell) => (typeof cell === "string" ? cell : cell.text);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => text(row[i] ?? "").length)));
  const line = (cells: readonly Cell[], headerRow: boolean) =>
    cells
      .map((cell, i) => {
        const raw = text(cell);
        const padded = i === cells.length - 1 ? raw : raw.padEnd(widths[i] ?? raw.length);
        const style = headerRow ? "bold" : typeof cell === "string" ? undefined : cell.style;
        return style ? paint(style, padded) : padded;
      })
      .join("  ")
      .replace(/\s+$/, "");
  return [line(header, true), ...rows.map((row) => line(row, false))].join("\n");
}

/** `text` indented, limited to its last `maxLines` lines. */
export function indentTail(text: string, indent: string, maxLines = 12): string {
  const lines = text.split("\n");
  const shown = lines.slice(-maxLines);
  const skipped = lines.length - shown.length;
  return [
    ...(skipped > 0 ? [`${indent}… (${skipped} earlier lines)`] : []),
    ...shown.map((l) => `${indent}${l}`),
  ].join("\n");
}

/** An ISO time as `YYYY-MM-DD HH:MM:SS` (UTC), or `-`. */
export function shortTime(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z` : "-";
}
