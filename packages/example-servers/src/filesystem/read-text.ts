// Bounded text reads from an open file: the whole file, its first N lines or its last N lines, never
// reading more than the response can carry (tail reads backwards from the end; head stops at the Nth
// line), and refusing binary content instead of returning garbage.
import { readSync } from "node:fs";
import { jsonSize } from "./response-budget.js";

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/** The file is not text (NUL bytes or mostly control characters). */
export class NotTextError extends Error {
  override readonly name = "NotTextError";
}

/** What a bounded read returned. */
export interface TextRead {
  text: string;
  /** Lines in `text`. */
  lines: number;
  /** Bytes of the file `text` covers. */
  bytes: number;
  /** True when the budget cut the read short of what was asked. */
  truncated: boolean;
}

/** Which part of the file to read. */
export interface TextSelection {
  head?: number | undefined;
  tail?: number | undefined;
}

/** Heuristic used by editors and git: NUL bytes, or many control characters early on, mean binary. */
export function looksBinary(bytes: Uint8Array, checkPrefix = true): boolean {
  if (bytes.includes(0)) return true;
  if (!checkPrefix) return false;
  const sample = bytes.subarray(0, 8192);
  let control = 0;
  for (const byte of sample) {
    if (
      (byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 12 && byte !== 13 && byte !== 27 && byte !== 8) ||
      byte === 0x7f
    ) {
      control++;
    }
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

function countLines(text: string): number {
  if (text === "") return 0;
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n : n + 1;
}

/** Decode UTF-8, dropping an incomplete sequence at the end (a cut in the middle of a character). */
function decode(bytes: Uint8Array): string {
  return new TextDecoder("utf-8").decode(bytes, { stream: true });
}

/** Shorten text (at a line end when there is one) until its JSON size fits. */
function fit(text: string, budget: number, fromEnd: boolean): { text: string; cut: boolean } {
  let size = jsonSize(text);
  if (size <= budget) return { text, cut: false };
  let current = text;
  for (let attempt = 0; attempt < 8 && size > budget; attempt++) {
    const keep = Math.max(0, Math.floor((current.length * budget) / size) - 16);
    if (fromEnd) {
      const from = current.length - keep;
      const lineStart = current.indexOf("\n", from);
      current =
        lineStart !== -1 && lineStart + 1 < current.length
          ? current.slice(lineStart + 1)
          : current.slice(from);
    } else {
      const lineEnd = current.lastIndexOf("\n", keep);
      current = lineEnd > 0 ? current.slice(0, lineEnd + 1) : current.slice(0, keep);
    }
    size = jsonSize(current);
  }
  while (size > budget && current.length > 0) {
    current = fromEnd
      ? current.slice(Math.ceil(current.length / 10))
      : current.slice(0, Math.floor(current.length * 0.9));
    size = jsonSize(current);
  }
  return { text: current, cut: true };
}

function readForward(fd: number, maxLines: number, budget: number): TextRead {
  const chunks: Buffer[] = [];
  let total = 0;
  let newlines = 0;
  let position = 0;
  let complete = false;
  while (total <= budget) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK, budget + 1 - total));
    const read = readSync(fd, chunk, 0, chunk.length, position);
    if (read === 0) {
      complete = true;
      break;
    }
    let part = chunk.subarray(0, read);
    if (looksBinary(part, position === 0)) throw new NotTextError("binary");
    position += read;
    let cut = -1;
    for (let i = part.indexOf(NEWLINE); i !== -1; i = part.indexOf(NEWLINE, i + 1)) {
      if (++newlines === maxLines) {
        cut = i;
        break;
      }
    }
    if (cut !== -1) {
      part = part.subarray(0, cut);
      chunks.push(part);
      total += part.length;
      complete = true;
      break;
    }
    chunks.push(part);
    total += part.length;
  }
  let bytes: Buffer = Buffer.concat(chunks, total);
  let truncated = false;
  if (!complete) {
    // Over budget: stop after the last whole line that fits.
    truncated = true;
    const lastNewline = bytes.lastIndexOf(NEWLINE, budget - 1);
    bytes = bytes.subarray(0, lastNewline > 0 ? lastNewline + 1 : budget);
  }
  const fitted = fit(decode(bytes), budget, false);
  return {
    text: fitted.text,
    lines: countLines(fitted.text),
    bytes: fitted.cut ? Buffer.byteLength(fitted.text) : bytes.length,
    truncated: truncated || fitted.cut,
  };
}

function readBackward(fd: number, size: number, maxLines: number, budget: number): TextRead {
  const chunks: Buffer[] = [];
  let position = size;
  let total = 0;
  let newlines = 0;
  let start = -1;
  let truncated = false;
  while (position > 0 && start === -1) {
    const length = Math.min(CHUNK, position);
    position -= length;
    const chunk = Buffer.allocUnsafe(length);
    const read = readSync(fd, chunk, 0, length, position);
    const part = chunk.subarray(0, read);
    if (looksBinary(part, false)) throw new NotTextError("binary");
    chunks.unshift(part);
    total += part.length;
    for (let i = part.length - 1; i >= 0; i--) {
      if (part[i] !== NEWLINE || position + i === size - 1) continue; // a final newline ends the last line
      if (++newlines === maxLines) {
        start = position + i + 1;
        break;
      }
    }
    if (start === -1 && total > budget) {
      truncated = true;
      start = size - budget;
    }
  }
  const all = Buffer.concat(chunks, total);
  if (position === 0 && all.length > 0 && looksBinary(all.subarray(0, 8192)))
    throw new NotTextError("binary");
  let from = Math.max(0, start - position);
  if (truncated) {
    // Begin at a line start so no line is shown half.
    const nextLine = all.indexOf(NEWLINE, from);
    if (nextLine !== -1 && nextLine + 1 < all.length) from = nextLine + 1;
  }
  let bytes = all.subarray(from);
  // Skip a partial UTF-8 character at the cut.
  while (bytes.length > 0 && ((bytes[0] as number) & 0xc0) === 0x80) bytes = bytes.subarray(1);
  const fitted = fit(decode(bytes), budget, true);
  return {
    text: fitted.text,
    lines: countLines(fitted.text),
    bytes: fitted.cut ? Buffer.byteLength(fitted.text) : bytes.length,
    truncated: truncated || fitted.cut,
  };
}

/**
 * Read text from an open regular file of `size` bytes: the first `head` lines, the last `tail` lines,
 * or the whole file, within `budget` JSON-encoded bytes. Throws `NotTextError` for binary content.
 */
export function readText(fd: number, size: number, selection: TextSelection, budget: number): TextRead {
  if (selection.tail !== undefined && selection.tail > 0)
    return readBackward(fd, size, selection.tail, budget);
  const lines =
    selection.head !== undefined && selection.head > 0 ? selection.head : Number.POSITIVE_INFINITY;
  return readForward(fd, lines, budget);
}

/** Read a whole open file of `size` bytes (the caller checked the size against its limit). */
export function readAll(fd: number, size: number): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  let offset = 0;
  while (offset < size) {
    const read = readSync(fd, buffer, offset, size - offset, offset);
    if (read === 0) break;
    offset += read;
  }
  return buffer.subarray(0, offset);
}
