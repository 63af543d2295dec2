import { describe, expect, it } from "vitest";
import { encodePipeline, toPgParam } from "./pipeline-query.js";

describe("toPgParam", () => {
  it.each([
    [null, null],
    [undefined, null],
    ["text", "text"],
    [42, "42"],
    [1.5, "1.5"],
    [true, "true"],
    [{ a: [1, "x"] }, '{"a":[1,"x"]}'],
    [[1, 2, null], '{"1","2",NULL}'],
    [['a"b', "c\\d", "e,f"], '{"a\\"b","c\\\\d","e,f"}'],
    [
      [
        [1, 2],
        [3, 4],
      ],
      '{{"1","2"},{"3","4"}}',
    ],
    [[], "{}"],
  ])("%j → %j", (value, text) => {
    expect(toPgParam(value)).toBe(text);
  });
});

describe("encodePipeline", () => {
  /** Split a frontend byte stream into [type, body] messages. */
  const messages = (bytes: Buffer) => {
    const out: [string, Buffer][] = [];
    for (let at = 0; at < bytes.length; ) {
      const length = bytes.readInt32BE(at + 1);
      out.push([String.fromCharCode(bytes[at] ?? 0), bytes.subarray(at + 5, at + 1 + length)]);
      at += 1 + length;
    }
    return out;
  };

  it("encodes before / query / after / Sync as extended-protocol messages in one buffer", () => {
    const bytes = encodePipeline({
      before: ["BEGIN"],
      query: { text: "SELECT $1::text, $2", values: ["é", null], portal: "p", rows: 11 },
      after: ["ROLLBACK"],
    });
    const list = messages(bytes);
    expect(list.map(([type]) => type).join("")).toBe("PBEPBDEPBES");
    const [parse, bind] = [list[3]?.[1], list[4]?.[1]];
    expect(parse?.toString("utf8")).toBe("\0SELECT $1::text, $2\0\0\0");
    // portal "p", unnamed statement, 0 format codes, 2 parameters: "é" (2 bytes) and NULL, 0 result codes.
    expect([...(bind ?? [])]).toEqual([
      0x70, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0xc3, 0xa9, 0xff, 0xff, 0xff, 0xff, 0, 0,
    ]);
    expect([...(list[6]?.[1] ?? [])]).toEqual([0x70, 0, 0, 0, 0, 11]); // Execute portal "p", 11 rows
    expect(list.at(-1)).toEqual(["S", Buffer.alloc(0)]);
  });

  it("encodes the fixed statements once", () => {
    const before = ["BEGIN"];
    const a = encodePipeline({ before, after: [] });
    const b = encodePipeline({ before, after: [] });
    expect(a.equals(b)).toBe(true);
  });
});
