import { minimatch } from "minimatch";
import { describe, expect, it } from "vitest";
import { expandBraces, globMatcher } from "./glob-matcher.js";

const patterns = [
  "*.ts",
  "**/*.ts",
  "src/**/*.ts",
  "**",
  "a/**",
  "**/a",
  "a/**/b",
  "*",
  "?.md",
  "[ab]*.js",
  "[!a]*.js",
  "[^a]*",
  "{a,b}/*.txt",
  "**/*.{js,ts}",
  "file{1..3}.txt",
  "file{01..03}.txt",
  "x/{a,b/{c,d}}/y",
  "node_modules",
  ".git",
  "**/.git/**",
  "a\\*b",
  "*.[[:digit:]]",
  "[a-c]/*",
  "!*.ts",
  "**/*/*.md",
  "a/",
  "a//b",
  "**/node_modules/**",
  "*a*a*a*b",
  "é*",
  "日本*",
  "{a}",
  "a{,b}c",
  "[]a]",
  "[a-]x",
  "#c",
  "**/*",
  "{x..z}",
  "*.",
  "?",
  "??",
  "a/*/c",
  "[[:upper:]]*",
  "**/**/*.md",
];
const paths = [
  "a.ts",
  "b.js",
  "src/a.ts",
  "src/x/y/a.ts",
  "a",
  "a/b",
  "a/x/b",
  "a/b/c",
  ".git",
  ".git/config",
  "x/.git/HEAD",
  "readme.md",
  "r.md",
  "ab.js",
  "ca.js",
  "a/1.txt",
  "b/2.txt",
  "c/3.txt",
  "lib/x.js",
  "file2.txt",
  "file4.txt",
  "file02.txt",
  "x/a/y",
  "x/b/c/y",
  "x/b/e/y",
  "node_modules",
  "pkg/node_modules/x",
  "a*b",
  "axb",
  "f.1",
  "c/d",
  "éa",
  "日本語.txt",
  "ac",
  "abc",
  "]",
  "-x",
  "ax",
  `${"a".repeat(40)}b`,
  "a".repeat(60),
  "#c",
  "docs/x/readme.md",
  "docs/readme.md",
  "y",
  "z.",
  "Upper",
  "a/q/c",
];

describe("globMatcher", () => {
  it("agrees with minimatch { dot: true } on every pattern × path of the table", () => {
    const differences: string[] = [];
    for (const pattern of patterns) {
      const matcher = globMatcher(pattern);
      for (const path of paths) {
        const expected = minimatch(path, pattern, { dot: true });
        if (matcher.matches(path) !== expected)
          differences.push(`${pattern} vs ${path}: expected ${expected}`);
      }
    }
    expect(differences).toEqual([]);
  });

  it("`?` matches one character, also outside the BMP (minimatch counts UTF-16 units)", () => {
    expect(globMatcher("?").matches("😀")).toBe(true);
    expect(globMatcher("??").matches("😀")).toBe(false);
    expect(globMatcher("*.txt").matches("😀.txt")).toBe(true);
  });

  it("couldContain prunes directories that cannot hold a match", () => {
    expect(globMatcher("*.ts").couldContain("src")).toBe(false);
    expect(globMatcher("**/*.ts").couldContain("src/deep")).toBe(true);
    expect(globMatcher("src/*/x.ts").couldContain("src")).toBe(true);
    expect(globMatcher("src/*/x.ts").couldContain("src/a")).toBe(true);
    expect(globMatcher("src/*/x.ts").couldContain("src/a/b")).toBe(false);
    expect(globMatcher("src/*/x.ts").couldContain("lib")).toBe(false);
    expect(globMatcher("{src,lib}/**").couldContain("lib/a")).toBe(true);
    expect(globMatcher("!*.ts").couldContain("anything")).toBe(true);
  });

  it("answers patterns that make backtracking regexes explode (2^30 paths for a backtracking matcher)", () => {
    // No clock here: a backtracking matcher never returns on this input, and the test's timeout fails it.
    const matcher = globMatcher(`${"*a".repeat(30)}*b`);
    expect(matcher.matches("a".repeat(4000))).toBe(false);
    expect(matcher.matches(`${"a".repeat(4000)}b`)).toBe(true);
  });

  it("refuses patterns that are too long or expand too far", () => {
    expect(() => globMatcher("x".repeat(5000))).toThrow(/limit is 4096/);
    expect(() => globMatcher("{a,b}".repeat(11))).toThrow(/more than 1024 alternatives/);
    expect(() => globMatcher("{1..100000}")).toThrow(/more than 1024/);
  });

  it("expands braces like brace-expansion", () => {
    expect(expandBraces("a{b,c{d,e}}f")).toEqual(["abf", "acdf", "acef"]);
    expect(expandBraces("{3..1}")).toEqual(["3", "2", "1"]);
    expect(expandBraces("{a..c}x")).toEqual(["ax", "bx", "cx"]);
    expect(expandBraces("no{brace")).toEqual(["no{brace"]);
  });
});
