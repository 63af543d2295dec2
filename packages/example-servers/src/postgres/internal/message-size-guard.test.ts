import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { type MessageTooLargeError, watchMessageSizes } from "./message-size-guard.js";

/** A backend message: type byte, int32 length (including itself), body. */
const message = (type: string, body: number) => {
  const buffer = Buffer.alloc(5 + body);
  buffer.write(type, 0, "latin1");
  buffer.writeUInt32BE(body + 4, 1);
  return buffer;
};

function watch(limit: number) {
  const stream = new PassThrough();
  const tripped: MessageTooLargeError[] = [];
  watchMessageSizes(stream, limit, (error) => tripped.push(error));
  return { stream, tripped };
}

describe("watchMessageSizes", () => {
  it("lets messages up to the limit through, however the bytes are chunked", () => {
    const { stream, tripped } = watch(100);
    const bytes = Buffer.concat([message("T", 20), message("D", 100), message("D", 0), message("C", 13)]);
    for (let i = 0; i < bytes.length; i += 3) stream.write(bytes.subarray(i, i + 3));
    stream.write(message("Z", 1));
    expect(tripped).toEqual([]);
  });

  it("trips on the header of an oversized message, before its body arrives", () => {
    const { stream, tripped } = watch(100);
    stream.write(message("D", 10));
    stream.write(message("D", 101).subarray(0, 5));
    expect(tripped).toHaveLength(1);
    expect(tripped[0]).toMatchObject({ bytes: 101, limit: 100 });
    expect(tripped[0]?.message).toBe(
      "one row of the result is 101 bytes, over the 100-byte limit of a reply",
    );
    stream.write(message("D", 500));
    expect(tripped).toHaveLength(1);
  });

  it("finds a header split across chunks", () => {
    const { stream, tripped } = watch(1000);
    const big = message("D", 5000);
    stream.write(Buffer.concat([message("D", 3), big.subarray(0, 2)]));
    stream.write(big.subarray(2, 5));
    expect(tripped).toHaveLength(1);
  });
});
