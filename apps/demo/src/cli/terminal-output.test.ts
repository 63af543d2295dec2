import { describe, expect, it } from "vitest";
import { formatTable, indentTail, painter, shortTime, wantsColor } from "./terminal-output.js";

describe("terminal output", () => {
  it("colours only a TTY, and never with a non-empty NO_COLOR", () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
    expect(wantsColor({ isTTY: false }, {})).toBe(false);
    expect(wantsColor({}, {})).toBe(false);
  });

  it("aligns columns on the visible text, colouring after padding", () => {
    const plain = formatTable(
      ["A", "BB"],
      [
        ["xyz", { text: "ok", style: "green" }],
        ["q", "long"],
      ],
      painter(false),
    );
    expect(plain).toBe("A    BB\nxyz  ok\nq    long");
    const colored = formatTable(["A", "B"], [[{ text: "x", style: "red" }, "y"]], painter(true));
    // Colour marks (turned into colour codes by writeOut, after the output is cleaned).
    const mark = (code: number, text: string) => `\uE000${code}\uE001${text}\uE002`;
    expect(colored).toBe(`${mark(1, "A")}  ${mark(1, "B")}\n${mark(31, "x")}  y`);
  });

  it("indents the last lines of a tail and formats times", () => {
    expect(indentTail("a\nb\nc", "  ", 2)).toBe("  … (1 earlier lines)\n  b\n  c");
    expect(shortTime("2026-11-30T02:45:10.123Z")).toBe("2026-11-30 02:45:10Z");
    expect(shortTime(null)).toBe("-");
  });
});
