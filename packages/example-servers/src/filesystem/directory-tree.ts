// directory_tree: the reference server's JSON (`JSON.stringify(tree, null, 2)` of {name, type, children}),
// written while the walk streams, so the tree is never held in memory and the output stops at the budget
// with valid JSON followed by a note saying how many entries were left out and how to narrow the request.
import { globMatcher } from "./glob-matcher.js";
import { formatCount, formatLimit, jsonSize, ResponseBudget } from "./response-budget.js";
import type { ResolvedPath, Sandbox } from "./sandbox.js";
import { walkDirectory } from "./walk-directory.js";

/** After the output is full, entries are still counted for the note, up to this many. */
export const MAX_COUNTED_ENTRIES = 1_000_000;
const NOTE_RESERVE = 512;

/** `excludePatterns` as the reference server reads them for directory_tree. */
export function treeExcluder(patterns: readonly string[]): (relativePath: string) => boolean {
  const matchers = patterns.flatMap((pattern) =>
    pattern.includes("*")
      ? [globMatcher(pattern)]
      : [globMatcher(pattern), globMatcher(`**/${pattern}`), globMatcher(`**/${pattern}/**`)],
  );
  return (relativePath) => matchers.some((m) => m.matches(relativePath));
}

interface OpenDirectory {
  hasChildren: boolean;
  indent: number;
  reserve: number;
}

/** How many entries were left out, as words. */
export function moreEntries(count: number, capped: boolean, noun = "entries"): string {
  return capped ? `more than ${formatCount(count)} more ${noun}` : `${formatCount(count)} more ${noun}`;
}

/** The directory_tree text for an allowed directory, within `limit` JSON-encoded bytes. */
export async function directoryTree(
  sandbox: Sandbox,
  target: ResolvedPath,
  excludePatterns: readonly string[],
  limit: number,
  signal?: AbortSignal,
): Promise<string> {
  const excluded = treeExcluder(excludePatterns);
  const dir = sandbox.openDirectory(target);
  const budget = new ResponseBudget(limit);
  const parts: string[] = ["["];
  budget.tryAdd("[");
  const open: OpenDirectory[] = [];
  let topHasChildren = false;
  let reserve = 3 + NOTE_RESERVE;
  let truncated = false;
  let more = 0;

  const closeAll = () => {
    for (let i = open.length - 1; i >= 0; i--) {
      const frame = open[i] as OpenDirectory;
      const field = " ".repeat(frame.indent + 2);
      parts.push(`${frame.hasChildren ? `\n${field}]` : "]"}\n${" ".repeat(frame.indent)}}`);
    }
    open.length = 0;
  };

  try {
    const outcome = await walkDirectory(
      sandbox,
      dir,
      {
        exclude: (entry) => excluded(entry.relativePath),
        enter(entry) {
          if (truncated) return ++more >= MAX_COUNTED_ENTRIES ? "stop" : undefined;
          const indent = 2 + 4 * entry.depth;
          const pad = " ".repeat(indent);
          const field = " ".repeat(indent + 2);
          const parent = open.at(-1);
          const first = parent ? !parent.hasChildren : !topHasChildren;
          const isDirectory = entry.kind === "directory";
          const chunk = `${first ? "\n" : ",\n"}${pad}{\n${field}"name": ${JSON.stringify(entry.name)},\n${field}"type": "${
            isDirectory ? "directory" : "file"
          }"${isDirectory ? `,\n${field}"children": [` : `\n${pad}}`}`;
          const ownReserve = isDirectory ? 2 * indent + 10 : 0;
          if (!budget.tryAdd(chunk, reserve + ownReserve)) {
            truncated = true;
            more = 1;
            closeAll();
            return undefined;
          }
          parts.push(chunk);
          if (parent) parent.hasChildren = true;
          else topHasChildren = true;
          if (isDirectory) {
            open.push({ hasChildren: false, indent, reserve: ownReserve });
            reserve += ownReserve;
          }
          return undefined;
        },
        leave() {
          if (truncated) return;
          const frame = open.pop() as OpenDirectory;
          reserve -= frame.reserve;
          const closer = `${frame.hasChildren ? `\n${" ".repeat(frame.indent + 2)}]` : "]"}\n${" ".repeat(frame.indent)}}`;
          budget.used += jsonSize(closer);
          parts.push(closer);
        },
      },
      signal ? { signal } : {},
    );
    if (outcome === "aborted") throw new Error("directory_tree was cancelled");
    parts.push(topHasChildren ? "\n]" : "]");
    if (truncated) {
      parts.push(
        `\n\n[truncated: ${moreEntries(more, outcome === "stopped")} not shown — this response is capped at ${formatLimit(limit)}; narrow the request with a deeper "path" or with "excludePatterns" (e.g. ["node_modules", ".git", "**/*.min.js"])]`,
      );
    }
    return parts.join("");
  } finally {
    sandbox.close(dir.fd);
  }
}
