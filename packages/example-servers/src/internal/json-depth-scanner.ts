// A streaming scan of raw JSON bytes that tracks how deeply arrays and objects nest, so a hostile body
// such as `[[[[…]]]]` is refused before `JSON.parse` builds millions of nested objects.
//
// It works on UTF-8 bytes: every byte that matters here (`"`, `\`, `[`, `]`, `{`, `}`) is ASCII, and
// no byte of a multi-byte UTF-8 sequence is below 0x80, so chunks may split characters anywhere.
// Up to the first syntax error its notion of "inside a string" matches the parser's, and the parser
// stops at that error, so the tree `JSON.parse` builds is never deeper than the depth seen here.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The deepest nesting seen so far. */
  deepest = 0;

  constructor(readonly maxDepth: number) {}

  /** Feed the next chunk; false as soon as the nesting goes deeper than `maxDepth` (stop reading then). */
  push(chunk: Uint8Array): boolean {
    let { depth, inString, escaped, deepest } = this;
    const max = this.maxDepth;
    let ok = true;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) {
        inString = true;
      } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        depth++;
        if (depth > deepest) deepest = depth;
        if (depth > max) {
          ok = false;
          break;
        }
      } else if ((byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) && depth > 0) {
        depth--;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    this.deepest = deepest;
    return ok;
  }
}

/** Whether a whole JSON text nests arrays/objects deeper than `maxDepth`. */
export function jsonNestsDeeperThan(text: string | Uint8Array, maxDepth: number): boolean {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  return !new JsonDepthScanner(maxDepth).push(bytes);
}
