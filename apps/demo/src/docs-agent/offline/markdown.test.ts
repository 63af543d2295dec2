import { describe, expect, it } from "vitest";
import { parseListingReply } from "./layout.js";
import { code, fenceFor, paragraphLine, shellPath, shellWord, visible } from "./markdown.js";

describe("text from the folder in the document", () => {
  // [helper, input, expected] — what each helper makes of text read from the folder.
  const helpers = { code, visible, paragraphLine, shellWord, shellPath };
  const cases: [keyof typeof helpers, string, string][] = [
    ["code", "a.js", "`a.js`"],
    ["code", "a `tick`.js", "``a `tick`.js``"],
    ["code", "`edge`", "`` `edge` ``"],
    ["code", "run ``x``", "``` run ``x`` ```"],
    ["code", "line\nbreak.txt", "`line\\nbreak.txt`"],
    ["visible", "a\tb\u001b[31m\r", "a\\tb\\u001b[31m\\r"],
    ["paragraphLine", "Plain words.", "Plain words."],
    ["paragraphLine", "<!-- hides the rest", "\\<!-- hides the rest"],
    ["paragraphLine", "~~~ a fence", "\\~~~ a fence"],
    ["paragraphLine", "# a heading", "\\# a heading"],
    ["paragraphLine", "1. a list", "1\\. a list"],
    ["paragraphLine", "two\n\n# lines", "two # lines"],
    // Only what opens a block is escaped: a code span or an emphasis at the start stays whole.
    ["paragraphLine", "`yaml` is a library", "`yaml` is a library"],
    ["paragraphLine", "*attrs* brings back the joy", "*attrs* brings back the joy"],
    ["paragraphLine", "- a list", "\\- a list"],
    ["paragraphLine", "* a list", "\\* a list"],
    ["paragraphLine", "<div>html</div>", "\\<div>html</div>"],
    ["paragraphLine", "```js fence", "\\```js fence"],
    ["paragraphLine", "#hashtag words", "#hashtag words"],
    ["paragraphLine", "2026 was a year", "2026 was a year"],
    ["shellWord", "build:prod", "build:prod"],
    ["shellWord", "@s/app", "@s/app"],
    ["shellWord", "x; rm -rf ~", "'x; rm -rf ~'"],
    ["shellWord", "-x", "'-x'"],
    ["shellPath", "tools/run.sh", "tools/run.sh"],
    ["shellPath", "-dash.sh", "./-dash.sh"],
    ["shellPath", "dir with space/it's.sh", "'dir with space/it'\\''s.sh'"],
    ["shellPath", "$(rm -rf ~).sh", "'$(rm -rf ~).sh'"],
  ];
  it.each(cases)("%s(%j) is %j", (name, input, expected) => {
    expect(helpers[name](input)).toBe(expected);
  });

  it("a code block's fence is longer than any fence inside it", () => {
    expect(fenceFor(["a", "b"])).toBe("```");
    expect(fenceFor(["```", "x"])).toBe("````");
    expect(fenceFor(["  `````js"])).toBe("``````");
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
