import { describe, expect, it } from "vitest";
import { type DecodedLine, EDGE_BYTES, LineDecoder } from "./line-decoder.js";

function decode(decoder: LineDecoder, chunks: (string | Buffer)[]): DecodedLine[] {
  const out: DecodedLine[] = [];
  for (const chunk of chunks)
    decoder.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk), (l) => out.push(l));
  return out;
}

describe("LineDecoder", () => {
  it("splits lines inside one chunk and across chunks", () => {
    const lines = decode(new LineDecoder(1024), ['{"a":1}\n{"b"', ':2}\n{"c":3}\n']);
    expect(lines).toEqual([
      { kind: "line", text: '{"a":1}' },
      { kind: "line", text: '{"b":2}' },
      { kind: "line", text: '{"c":3}' },
    ]);
  });

  it("handles one byte at a time, CRLF and blank lines", () => {
    const text = "first\r\n\n  \nsecond\n";
    const lines = decode(
      new LineDecoder(1024),
      [...text].map((c) => c),
    );
    expect(lines).toEqual([
      { kind: "line", text: "first" },
      { kind: "line", text: "second" },
    ]);
  });

  it("handles CRLF and blank lines inside one chunk, around a line split across chunks", () => {
    const lines = decode(new LineDecoder(1024), ['first\r\n\n  \n{"spl', 'it":1}\r\n\r\nsecond\nthird']);
    expect(lines).toEqual([
      { kind: "line", text: "first" },
      { kind: "line", text: '{"split":1}' },
      { kind: "line", text: "second" },
    ]);
  });

  it("keeps multi-byte characters split across chunks intact", () => {
    const bytes = Buffer.from("héllo ✓\n");
    const lines = decode(new LineDecoder(1024), [
      bytes.subarray(0, 2),
      bytes.subarray(2, 9),
      bytes.subarray(9),
    ]);
    expect(lines).toEqual([{ kind: "line", text: "héllo ✓" }]);
  });

  it("holds an unfinished line until its newline arrives", () => {
    const decoder = new LineDecoder(1024);
    expect(decode(decoder, ['{"partial":'])).toEqual([]);
    expect(decoder.pendingBytes).toBe(11);
    expect(decode(decoder, ["true}\n"])).toEqual([{ kind: "line", text: '{"partial":true}' }]);
    expect(decoder.pendingBytes).toBe(0);
  });

  it("reports an over-limit line with its edges and stays in sync", () => {
    const decoder = new LineDecoder(2048);
    const body = `{"result":{"text":"${"x".repeat(10_000)}"},"jsonrpc":"2.0","id":7}`;
    const chunks: string[] = [];
    for (let i = 0; i < body.length; i += 700) chunks.push(body.slice(i, i + 700));
    const lines = decode(decoder, [...chunks, '\n{"next":true}\n']);
    expect(lines).toHaveLength(2);
    const [oversize, next] = lines;
    expect(oversize).toMatchObject({ kind: "oversize", bytes: body.length });
    if (oversize?.kind !== "oversize") throw new Error("expected oversize");
    expect(oversize.head).toBe(body.slice(0, EDGE_BYTES));
    expect(oversize.tail).toBe(body.slice(-EDGE_BYTES));
    expect(next).toEqual({ kind: "line", text: '{"next":true}' });
  });

  it("detects an over-limit line that arrives in one chunk", () => {
    const lines = decode(new LineDecoder(1024), [`${"y".repeat(5000)}\nok\n`]);
    expect(lines.map((l) => l.kind)).toEqual(["oversize", "line"]);
  });

  it("accepts a line of exactly the limit", () => {
    const lines = decode(new LineDecoder(1024), [`${"z".repeat(1024)}\n`]);
    expect(lines).toEqual([{ kind: "line", text: "z".repeat(1024) }]);
  });
});
