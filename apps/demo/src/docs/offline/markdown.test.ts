import { describe, expect, it } from "vitest";
import { parseListingReply } from "./layout.js";
import { code, fenceFor, paragraphLine, shellPath, shellWord, visible } from "./markdown.js";

describe("text from the folder in the document", () => {
  it("code spans hold any backticks; control characters are shown, never written", () => {
    expect(code("a.js")).toBe("`a.js`");
    expect(code("a `tick`.js")).toBe("``a `tick`.js``");
    expect(code("`edge`")).toBe("`` `edge` ``");
    expect(code("run ``x``")).toBe("``` run ``x`` ```");
    expect(code("line\nbreak.txt")).toBe("`line\\nbreak.txt`");
    expect(visible("a\tb\u001b[31m\r")).toBe("a\\tb\\u001b[31m\\r");
  });

  it("a paragraph line from the folder cannot open a block", () => {
    expect(paragraphLine("Plain words.")).toBe("Plain words.");
    expect(paragraphLine("<!-- hides the rest")).toBe("\\<!-- hides the rest");
    expect(paragraphLine("~~~ a fence")).toBe("\\~~~ a fence");
    expect(paragraphLine("# a heading")).toBe("\\# a heading");
    expect(paragraphLine("1. a list")).toBe("1\\. a list");
    expect(paragraphLine("two\n\n# lines")).toBe("two # lines");
  });

  it("command words: plain, else single-quoted", () => {
    expect(shellWord("build:prod")).toBe("build:prod");
    expect(shellWord("@s/app")).toBe("@s/app");
    expect(shellWord("x; rm -rf ~")).toBe("'x; rm -rf ~'");
    expect(shellWord("-x")).toBe("'-x'");
  });

  it("a code block's fence is longer than any fence inside it", () => {
    expect(fenceFor(["a", "b"])).toBe("```");
    expect(fenceFor(["```", "x"])).toBe("````");
    expect(fenceFor(["  `````js"])).toBe("``````");
  });

  it("paths as one shell word: plain, ./ before a leading dash, quoted otherwise", () => {
    expect(shellPath("tools/run.sh")).toBe("tools/run.sh");
    expect(shellPath("-dash.sh")).toBe("./-dash.sh");
    expect(shellPath("dir with space/it's.sh")).toBe("'dir with space/it'\\''s.sh'");
    expect(shellPath("$(rm -rf ~).sh")).toBe("'$(rm -rf ~).sh'");
  });

  it("a listed name with a line break is one entry, not two", () => {
    const { entries } = parseListingReply("[FILE] line\nbreak.txt\n[DIR] src\n[FILE] [DIR] odd.txt");
    expect(entries).toEqual([
      { name: "line\nbreak.txt", type: "file" },
      { name: "src", type: "directory" },
      { name: "[DIR] odd.txt", type: "file" },
    ]);
  });
});
