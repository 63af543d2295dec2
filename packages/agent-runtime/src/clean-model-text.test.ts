import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanModelText } from "./clean-model-text.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
const LEFTOVER = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const ESC = "\u001b";

describe("cleanModelText", () => {
  it("returns text without control characters unchanged (same string)", () => {
    const text = "plain text\twith tabs\nand lines, ümlauts, 😀 and 中文";
    expect(cleanModelText(text)).toBe(text);
  });

  it.each([
    ["SGR colours", `${ESC}[1;31mred${ESC}[0m text`, "red text"],
    ["cursor moves and clears", `a${ESC}[2J${ESC}[H${ESC}[10;20Hb${ESC}[?25l`, "ab"],
    ["C1 CSI", "x\u009b31my", "xy"],
    ["OSC title ended by BEL", `${ESC}]0;evil title\u0007after`, "after"],
    ["OSC 8 hyperlink ended by ST", `${ESC}]8;;https://evil.example${ESC}\\link${ESC}]8;;${ESC}\\`, "link"],
    ["OSC 52 clipboard write", `${ESC}]52;c;ZWNobyBoaQ==\u0007ok`, "ok"],
    ["DCS string", `${ESC}Pq#0;2;0;0;0${ESC}\\done`, "done"],
    ["APC / PM / SOS strings", `${ESC}_apc${ESC}\\${ESC}^pm${ESC}\\${ESC}Xsos${ESC}\\end`, "end"],
    ["C1 OSC ended by C1 ST", "a\u009d0;t\u009cb", "ab"],
    ["charset and keypad escapes", `${ESC}(B${ESC}=${ESC}>${ESC}7${ESC}8${ESC}c text`, " text"],
    ["an unterminated OSC loses only its introducer", `${ESC}]0;still visible`, "0;still visible"],
    ["carriage returns that overwrite a line", "safe\rEVIL", "safe\nEVIL"],
    ["bidi overrides and isolates", "invoice\u202egnp.exe\u202c \u2066x\u2069\u200f", "invoicegnp.exe x"],
    ["line and paragraph separators", "a\u2028b\u2029c", "a\nb\nc"],
    ["a lone surrogate half", "a\ud83d b \ude00c 😀", "a\ufffd b \ufffdc 😀"],
    ["CRLF becomes LF", "one\r\ntwo", "one\ntwo"],
    ["NUL, BEL, backspace, DEL, form feed", "a\u0000b\u0007c\bd\u007fe\ff", "abcdef"],
    ["a lone ESC at the end", `x${ESC}`, "x"],
  ])("removes %s", (_name, input, expected) => {
    expect(cleanModelText(input)).toBe(expected);
  });

  it("never leaves a control character other than \\n and \\t, for any input", () => {
    const hostile = fc.oneof(
      fc.string({ unit: "binary", maxLength: 80 }),
      fc
        .array(
          fc.oneof(
            fc.constantFrom(
              ESC,
              "[",
              "]",
              "P",
              "\\",
              "\u0007",
              "\u009b",
              "\u009c",
              "\u009d",
              "\r",
              "\n",
              "\t",
            ),
            fc.string({ unit: "grapheme-ascii", maxLength: 4 }),
          ),
          { maxLength: 40 },
        )
        .map((parts) => parts.join("")),
    );
    fc.assert(
      fc.property(hostile, (text) => {
        const out = cleanModelText(text);
        expect(LEFTOVER.test(out)).toBe(false);
        expect(out.length).toBeLessThanOrEqual(text.length);
        expect(cleanModelText(out)).toBe(out); // idempotent
      }),
      { numRuns: 500 },
    );
  });

  it("keeps every printable character of text that holds no escape", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), (text) => {
        fc.pre(!text.includes(ESC) && !/[\u0090-\u009f\u2028\u2029]/.test(text));
        expect(cleanModelText(text)).toBe(
          text
            .replace(/\r\n?/g, "\n")
            .replace(LEFTOVER_G, "")
            .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, ""),
        );
      }),
    );
  });
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: see above.
const LEFTOVER_G = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
