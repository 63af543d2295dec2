import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MCP_MODEL_IMAGE_TYPES, selectToolResultMedia } from "./tool-result-media.js";

const b64 = (bytes: number[], size = bytes.length) =>
  Buffer.concat([Buffer.from(bytes), Buffer.alloc(Math.max(0, size - bytes.length), 7)]).toString("base64");
const PNG = b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 30);
const JPEG = b64([0xff, 0xd8, 0xff, 0xe0], 30);
const GIF = b64([0x47, 0x49, 0x46, 0x38, 0x39, 0x61], 30);
const WEBP = b64([0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50], 30);
const WAV = b64([0x52, 0x49, 0x46, 0x46], 30);

describe("selectToolResultMedia", () => {
  it("passes png, jpeg, gif and webp images on, in order, with the media type normalized", () => {
    const media = selectToolResultMedia({
      content: [
        { type: "text", text: "t" },
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "image", data: JPEG, mimeType: "IMAGE/JPEG; q=1" },
        { type: "image", data: GIF, mimeType: "image/gif" },
        { type: "image", data: WEBP, mimeType: "image/webp" },
      ],
    });
    expect(media).toEqual([
      { type: "image", mimeType: "image/png", data: PNG },
      { type: "image", mimeType: "image/jpeg", data: JPEG },
      { type: "image", mimeType: "image/gif", data: GIF },
      { type: "image", mimeType: "image/webp", data: WEBP },
    ]);
    expect(MCP_MODEL_IMAGE_TYPES).toEqual(["image/png", "image/jpeg", "image/gif", "image/webp"]);
  });

  it("leaves out what a provider would refuse: other types, bad base64, bytes of another type, user-only parts", () => {
    const media = selectToolResultMedia({
      content: [
        { type: "image", data: PNG, mimeType: "image/svg+xml" },
        { type: "image", data: PNG, mimeType: "image/tiff" },
        { type: "image", data: "!!! not base64 !!!", mimeType: "image/png" },
        { type: "image", data: `${PNG}A`, mimeType: "image/png" }, // length not a multiple of 4
        { type: "image", data: "", mimeType: "image/png" },
        { type: "image", data: JPEG, mimeType: "image/png" }, // declared png, bytes are jpeg
        { type: "image", data: PNG, mimeType: "audio/png" },
        { type: "image", data: PNG, mimeType: "image/png", annotations: { audience: ["user"] } },
        { type: "image", data: 42, mimeType: "image/png" },
        { type: "audio", data: WAV, mimeType: "audio/wav" }, // audio only when asked for
        { type: "resource", resource: { uri: "x", blob: PNG, mimeType: "image/png" } },
        null,
      ] as never,
    });
    expect(media).toEqual([]);
  });

  it("passes audio on when its type is listed", () => {
    const media = selectToolResultMedia(
      { content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] },
      { mimeTypes: ["audio/wav"] },
    );
    expect(media).toEqual([{ type: "audio", mimeType: "audio/wav", data: WAV }]);
  });

  it("keeps to the byte budget: media that would exceed it is left out, later smaller media still fits", () => {
    const big = b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 300); // 400 base64 chars
    const content = [
      { type: "image", data: PNG, mimeType: "image/png" }, // 40 base64 characters
      { type: "image", data: big, mimeType: "image/png" }, // 400: 440 in all, fits in 480
      { type: "image", data: big, mimeType: "image/png" }, // 400 more would make 840: left out
      { type: "image", data: GIF, mimeType: "image/gif" }, // 40: exactly 480, fits
    ];
    const media = selectToolResultMedia({ content }, { maxBytes: 480 });
    expect(media.map((m) => m.data.length)).toEqual([40, 400, 40]);
    expect(selectToolResultMedia({ content }, { maxBytes: 39 })).toEqual([]);
  });

  it("never throws and never exceeds the budget, whatever the parts", () => {
    const part = fc.oneof(
      fc.anything(),
      fc.record({
        type: fc.constantFrom("image", "audio", "text"),
        mimeType: fc.oneof(fc.constantFrom(...MCP_MODEL_IMAGE_TYPES), fc.string()),
        data: fc.oneof(fc.constantFrom(PNG, JPEG, GIF, WEBP), fc.base64String(), fc.string()),
      }),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), fc.integer({ min: 0, max: 200 }), (content, maxBytes) => {
        const media = selectToolResultMedia({ content } as never, { maxBytes });
        expect(media.reduce((n, m) => n + m.data.length, 0)).toBeLessThanOrEqual(maxBytes);
        for (const m of media) expect(MCP_MODEL_IMAGE_TYPES).toContain(m.mimeType);
      }),
    );
    expect(selectToolResultMedia(undefined as never)).toEqual([]);
  });
});
