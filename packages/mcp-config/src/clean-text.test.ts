import { describe, expect, it } from "vitest";
import { cleanText, escapeJsonText } from "./clean-text.js";

describe("cleanText", () => {
  it.each([
    ["a screen clear and colours", "x\u001b[2J\u001b[31mred\u001b[0m", "xred"],
    ["an OSC 52 clipboard write", "a\u001b]52;c;ZWNobyBoaQ==\u0007b", "ab"],
    ["an OSC hyperlink with ST", "\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\", "click"],
    ["a C1 CSI", "a\u009b2Jb", "ab"],
    ["C0 and C1 controls", "a\u0000b\u0007c\u0085d\u007f", "abcd"],
    ["carriage returns (overwriting a line)", "ok\rFAKE\r\nnext", "ok\nFAKE\nnext"],
    ["bidi overrides", "evil\u202egnp.exe\u2066x\u2069", "evilgnp.exex"],
    ["line separators", "a\u2028b\u2029c", "a\nb\nc"],
    ["a lone surrogate", "a\ud83db", "a\uFFFDb"],
    ["an unterminated OSC (only its introducer goes)", "a\u001b]0;title", "a0;title"],
  ])("removes %s", (_label, input, output) => {
    expect(cleanText(input)).toBe(output);
  });

  it("keeps tabs, line feeds, emoji and other scripts, and returns clean text as it is", () => {
    const text = "a\tb\nc 😀 日本語 عربي";
    expect(cleanText(text)).toBe(text);
  });

  it("puts text on one line and bounds it, marker included, without splitting a pair", () => {
    expect(cleanText("a\nb", { lineBreaks: false })).toBe("a b");
    const long = cleanText("x".repeat(10_000), { maxChars: 100 });
    expect(long.length).toBeLessThanOrEqual(100);
    expect(long).toMatch(/… \[\d+ characters truncated\]$/);
    expect(cleanText("x".repeat(50), { maxChars: 10 })).toBe(`${"x".repeat(9)}…`);
    const pairs = cleanText("😀".repeat(100), { maxChars: 50 });
    expect(pairs).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});

describe("escapeJsonText", () => {
  it("escapes what JSON leaves raw but terminals act on; the value is unchanged", () => {
    const value = { t: "a\u009b2J\u202eb\u2028c\u007f" };
    const json = escapeJsonText(JSON.stringify(value));
    expect(json).not.toMatch(/[\u007f-\u009f\u202e\u2028]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});
