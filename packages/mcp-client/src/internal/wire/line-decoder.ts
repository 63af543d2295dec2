/** One complete line, or the summary of a line that was longer than the limit and was discarded. */
export type DecodedLine =
  | { kind: "line"; text: string }
  | { kind: "oversize"; bytes: number; head: string; tail: string };

/** Bytes kept from each end of an over-limit line, enough to find its JSON-RPC id. */
export const EDGE_BYTES = 1024;

const EMPTY = Buffer.alloc(0);

/**
 * Splits a byte stream into newline-delimited lines in linear time: each chunk is scanned once and a
 * line's pieces are joined once, when its newline arrives (the SDK's ReadBuffer re-copies the whole
 * buffer on every chunk, which is quadratic in the size of a reply). A line longer than `maxLineBytes`
 * is not buffered: only its first and last EDGE_BYTES are kept, and it is reported as `oversize` once
 * its newline arrives, so the stream stays in sync and the next line is read normally.
 */
export class LineDecoder {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;
  private head: Buffer = EMPTY;
  private tail: Buffer = EMPTY;

  constructor(readonly maxLineBytes: number) {}

  /** Bytes of the current, unfinished line. */
  get pendingBytes(): number {
    return this.size;
  }

  /** Feed one chunk; `emit` is called for every line it completes, in order. */
  push(chunk: Buffer, emit: (line: DecodedLine) => void): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) {
        this.take(start === 0 ? chunk : chunk.subarray(start));
        return;
      }
      if (this.size === 0 && newline - start <= this.maxLineBytes) {
        // The common case, a whole line inside one chunk: decoded in place, nothing buffered or copied.
        this.emitText(chunk.toString("utf8", start, newline), emit);
      } else {
        if (newline > start) this.take(chunk.subarray(start, newline));
        this.finish(emit);
      }
      start = newline + 1;
    }
  }

  private take(piece: Buffer): void {
    this.size += piece.length;
    if (this.discarding) {
      this.keepTail(piece);
      return;
    }
    if (this.size <= this.maxLineBytes) {
      this.parts.push(piece);
      return;
    }
    // Over the limit: keep the edges, drop the body.
    this.discarding = true;
    const pieces = [...this.parts, piece];
    let head = Buffer.alloc(0);
    for (const part of pieces) {
      if (head.length >= EDGE_BYTES) break;
      head = Buffer.concat([head, part.subarray(0, EDGE_BYTES - head.length)]);
    }
    this.head = head;
    this.tail = EMPTY;
    for (const part of pieces) this.keepTail(part);
    this.parts = [];
  }

  private keepTail(piece: Buffer): void {
    this.tail =
      piece.length >= EDGE_BYTES
        ? Buffer.from(piece.subarray(piece.length - EDGE_BYTES))
        : Buffer.concat([this.tail, piece]).subarray(-EDGE_BYTES);
  }

  private finish(emit: (line: DecodedLine) => void): void {
    if (this.discarding) {
      const line: DecodedLine = {
        kind: "oversize",
        bytes: this.size,
        head: this.head.toString("utf8"),
        tail: this.tail.toString("utf8"),
      };
      this.reset();
      emit(line);
      return;
    }
    const parts = this.parts;
    const size = this.size;
    if (size === 0) return;
    const first = parts[0];
    const text =
      parts.length === 1 && first ? first.toString("utf8") : Buffer.concat(parts, size).toString("utf8");
    this.reset();
    this.emitText(text, emit);
  }

  private emitText(line: string, emit: (line: DecodedLine) => void): void {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (!/\S/.test(text)) return; // blank line (no trim(): a line can be megabytes long)
    emit({ kind: "line", text });
  }

  private reset(): void {
    if (this.parts.length > 0) this.parts = [];
    this.size = 0;
    if (this.discarding) {
      this.discarding = false;
      this.head = EMPTY;
      this.tail = EMPTY;
    }
  }
}
