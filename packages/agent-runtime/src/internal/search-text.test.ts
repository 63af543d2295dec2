import { describe, expect, it } from "vitest";
import { isStopWord, MAX_ANALYSED_CHARS, stem, words } from "./search-text.js";

describe("words", () => {
  it.each([
    ["list_directory", ["list", "directory"]],
    ["list-directory", ["list", "directory"]],
    ["listDirectory", ["list", "directory"]],
    ["ListDirectory", ["list", "directory"]],
    ["HTMLParser", ["html", "parser"]],
    ["get-sum", ["get", "sum"]],
    ["filesystem.read_text_file", ["filesystem", "read", "text", "file"]],
    ["perPage per_page", ["per", "page", "per", "page"]],
    ["What's inside notes.txt?", ["what", "s", "inside", "notes", "txt"]],
    ["Größe der Datei", ["größe", "der", "datei"]],
  ])("%s", (text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  it("reads at most MAX_ANALYSED_CHARS of a text", () => {
    const huge = `${"a ".repeat(MAX_ANALYSED_CHARS)}tail`;
    expect(words(huge)).not.toContain("tail");
    expect(words(huge).length).toBeLessThanOrEqual(MAX_ANALYSED_CHARS / 2);
  });

  it("drops control characters and escapes like any other separator", () => {
    expect(words("read\u001b[31m_file\u0000now")).toEqual(["read", "31m", "file", "now"]);
  });
});

describe("stem", () => {
  it.each([
    [["file", "files"], "fil"],
    [["create", "created", "creating", "creation", "creates"], "creat"],
    [["entry", "entries"], "entri"],
    [["match", "matches"], "match"],
    [["compress", "compression"], "compress"],
    [["navigate", "navigation"], "navigat"],
    [["message", "messages"], "messag"],
    [["directory", "directories"], "directori"],
    [["drop", "dropped", "dropping"], "drop"],
  ])("%j → %s", (forms, expected) => {
    for (const form of forms) expect(stem(form)).toBe(expected);
  });

  it("keeps short words, words with digits and words ending in -ss, -us, -is", () => {
    for (const word of ["git", "sql", "md5", "utf8", "class", "status", "analysis"]) {
      expect(stem(word)).toBe(word);
    }
  });
});

describe("isStopWord", () => {
  it("drops function words but keeps the words that point at a tool's concept", () => {
    expect(isStopWord("the")).toBe(true);
    expect(isStopWord("please")).toBe(true);
    for (const word of ["who", "when", "where", "list", "get", "show"]) expect(isStopWord(word)).toBe(false);
  });
});
