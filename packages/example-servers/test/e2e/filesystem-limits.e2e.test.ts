// Bounded replies: trees, searches, listings and reads stop at the response limit with valid output and
// a note that counts what was left out.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, textOf } from "./helpers.js";

let root: string;
let small: Client;
let standard: Client;
let totalEntries = 0;
let txtFiles = 0;
const LIMIT = 8192;
const LINES = 100_000;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "af-fs-limits-")));
  for (let a = 0; a < 10; a++) {
    for (let b = 0; b < 10; b++) {
      const dir = join(root, `dir-${a}`, `sub-${b}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 120; f++) {
        writeFileSync(join(dir, `file-${f}.${f % 4 === 0 ? "txt" : "js"}`), `content ${a} ${b} ${f}\n`);
        if (f % 4 === 0) txtFiles++;
      }
    }
  }
  totalEntries = 10 + 100 + 10 * 10 * 120;
  mkdirSync(join(root, "wide"));
  for (let i = 0; i < 1000; i++)
    writeFileSync(join(root, "wide", `entry-${String(i).padStart(4, "0")}.txt`), "x");
  totalEntries += 1 + 1000;
  txtFiles += 1000;
  writeFileSync(
    join(root, "huge.txt"),
    `${Array.from({ length: LINES }, (_, i) => `line ${i + 1}`).join("\n")}\n`,
  );
  totalEntries += 1;
  txtFiles += 1;
  small = await connectStdio("filesystem", ["--max-reply", String(LIMIT), root]);
  standard = await connectStdio("filesystem", [root]);
}, 60_000);
afterAll(async () => {
  await small?.close();
  await standard?.close();
  rmSync(root, { recursive: true, force: true });
});

type Node = { name: string; type: string; children?: Node[] };
const countNodes = (nodes: Node[]): number => nodes.reduce((n, e) => n + 1 + countNodes(e.children ?? []), 0);
const noteCount = (text: string, noun: string) => {
  const match = new RegExp(
    `\\[truncated: ([\\d,]+) more ${noun} not shown — this response is capped at`,
  ).exec(text);
  expect(match, text.slice(-300)).not.toBeNull();
  return Number(match?.[1]?.replaceAll(",", ""));
};
const messageBytes = (result: unknown) => Buffer.byteLength(JSON.stringify(result));

describe("filesystem response limits", () => {
  it("directory_tree stops at the limit with valid JSON and an exact count of what was left out", async () => {
    const result = await small.callTool({ name: "directory_tree", arguments: { path: "." } });
    const text = textOf(result);
    const [json, note] = text.split("\n\n[truncated");
    const shown = countNodes(JSON.parse(json as string) as Node[]);
    expect(shown).toBeGreaterThan(10);
    expect(noteCount(text, "entries") + shown).toBe(totalEntries);
    expect(note).toContain('narrow the request with a deeper "path" or with "excludePatterns"');
    expect(Buffer.byteLength(JSON.stringify(text))).toBeLessThanOrEqual(LIMIT);
    expect(result.structuredContent).toEqual({ content: text });
  });

  it("directory_tree excludes early: a narrowed request fits", async () => {
    const text = textOf(
      await small.callTool({
        name: "directory_tree",
        arguments: { path: ".", excludePatterns: ["dir-*", "wide"] },
      }),
    );
    expect(JSON.parse(text)).toEqual([{ name: "huge.txt", type: "file" }]);
  });

  it("search_files counts the matches it could not show", async () => {
    const text = textOf(
      await small.callTool({ name: "search_files", arguments: { path: ".", pattern: "**/*.txt" } }),
    );
    const shown = text.split("\n\n[truncated")[0]?.split("\n") ?? [];
    expect(shown.every((line) => line.startsWith(`${root}/`) && line.endsWith(".txt"))).toBe(true);
    expect(noteCount(text, "matches") + shown.length).toBe(txtFiles);
    expect(Buffer.byteLength(JSON.stringify(text))).toBeLessThanOrEqual(LIMIT);
    const narrow = textOf(
      await small.callTool({
        name: "search_files",
        arguments: { path: ".", pattern: "dir-3/sub-3/file-1?.txt" },
      }),
    );
    expect(narrow.split("\n")).toEqual([12, 16].map((n) => join(root, `dir-3/sub-3/file-${n}.txt`)));
  });

  it("list_directory and list_directory_with_sizes cap the entries, keep the totals", async () => {
    const list = textOf(await small.callTool({ name: "list_directory", arguments: { path: "wide" } }));
    const lines = list.split("\n\n[truncated")[0]?.split("\n") ?? [];
    expect(lines[0]).toBe("[FILE] entry-0000.txt");
    expect(noteCount(list, "entries") + lines.length).toBe(1000);
    const sized = textOf(
      await small.callTool({
        name: "list_directory_with_sizes",
        arguments: { path: "wide", sortBy: "name" },
      }),
    );
    expect(sized).toContain("\n\nTotal: 1000 files, 0 directories\nCombined size: 1000 B");
    expect(Buffer.byteLength(JSON.stringify(sized))).toBeLessThanOrEqual(LIMIT);
    noteCount(sized, "entries");
  });

  it("reads of a large file are cut at a line end with a note; head and tail read only what they need", async () => {
    const whole = textOf(await small.callTool({ name: "read_text_file", arguments: { path: "huge.txt" } }));
    expect(whole.startsWith("line 1\nline 2\n")).toBe(true);
    expect(whole).toMatch(
      /\nline \d+\n\n\[truncated: showing the first [\d,]+ lines, [\d.]+ KB of [\d.]+ MB; read the end with "tail", or a part with "head" \(this response is capped at 8 KiB\)\]$/,
    );
    expect(Buffer.byteLength(JSON.stringify(whole))).toBeLessThanOrEqual(LIMIT);
    const head = textOf(
      await small.callTool({ name: "read_text_file", arguments: { path: "huge.txt", head: 1e9 } }),
    );
    expect(head).toContain('ask for fewer "head" lines');
    const tail = textOf(
      await small.callTool({ name: "read_text_file", arguments: { path: "huge.txt", tail: 1e9 } }),
    );
    expect(tail).toMatch(/^line \d+\n/);
    expect(tail).toContain(`line ${LINES}\n\n[truncated: showing the last`);
    expect(
      textOf(await small.callTool({ name: "read_text_file", arguments: { path: "huge.txt", tail: 3 } })),
    ).toBe(`line ${LINES - 2}\nline ${LINES - 1}\nline ${LINES}\n`);
  });

  it("read_multiple_files stops adding files at the limit and says how many it left out", async () => {
    const paths = Array.from({ length: 300 }, (_, i) => `wide/entry-${String(i).padStart(4, "0")}.txt`);
    const text = textOf(await small.callTool({ name: "read_multiple_files", arguments: { paths } }));
    const shown = (text.match(/^wide\/entry-\d+\.txt:\nx\n$/gm) ?? []).length;
    expect(shown).toBeGreaterThan(10);
    expect(text).toContain(
      `[truncated: ${300 - shown} more files not shown — this response is capped at 8 KiB; read them in smaller batches]`,
    );
    expect(Buffer.byteLength(JSON.stringify(text))).toBeLessThanOrEqual(LIMIT);
  });

  it("refuses patterns that would make a walk expensive, naming the argument", async () => {
    const long = await small.callTool({
      name: "search_files",
      arguments: { path: ".", pattern: "x".repeat(5000) },
    });
    expect(textOf(long)).toBe(
      'Invalid "pattern" or "excludePatterns": the pattern is 5000 characters long; the limit is 4096',
    );
    const braces = await small.callTool({
      name: "directory_tree",
      arguments: { path: ".", excludePatterns: ["{a,b}".repeat(12)] },
    });
    expect(textOf(braces)).toContain("expands to more than 1024 alternatives");
    const many = await small.callTool({
      name: "search_files",
      arguments: {
        path: ".",
        pattern: "*",
        excludePatterns: Array.from({ length: 1001 }, (_, i) => `p${i}`),
      },
    });
    expect(textOf(many)).toBe('"excludePatterns" has 1001 patterns; at most 1000 are accepted');
  });

  it("with the default limit every reply stays far under the SDK's 10 MiB message limit", async () => {
    for (const [name, args] of [
      ["directory_tree", { path: "." }],
      ["search_files", { path: ".", pattern: "**" }],
      ["read_text_file", { path: "huge.txt" }],
    ] as const) {
      const result = await standard.callTool({ name, arguments: args });
      expect(result.isError).toBeFalsy();
      expect(messageBytes(result)).toBeLessThan(2.5 * 1024 * 1024);
    }
    const tree = textOf(await standard.callTool({ name: "directory_tree", arguments: { path: "." } }));
    expect(tree).toContain("[truncated:");
    const half = textOf(
      await standard.callTool({ name: "read_text_file", arguments: { path: "huge.txt", head: LINES / 2 } }),
    );
    expect(half).toBe(Array.from({ length: LINES / 2 }, (_, i) => `line ${i + 1}`).join("\n"));
  });
});
