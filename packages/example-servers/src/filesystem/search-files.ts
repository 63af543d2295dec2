// search_files: glob match of paths relative to the search root (the reference server's semantics,
// `{ dot: true }`), pruning directories that cannot contain a match and skipping excludePatterns before
// descending; full paths of the matches, one per line, capped with a note.
import { MAX_COUNTED_ENTRIES, moreEntries } from "./directory-tree.js";
import { globMatcher } from "./glob-matcher.js";
import { formatLimit, ResponseBudget } from "./response-budget.js";
import type { ResolvedPath, Sandbox } from "./sandbox.js";
import { walkDirectory } from "./walk-directory.js";

const NOTE_RESERVE = 512;

/** The search_files text for an allowed directory, within `limit` JSON-encoded bytes. */
export async function searchFiles(
  sandbox: Sandbox,
  target: ResolvedPath,
  pattern: string,
  excludePatterns: readonly string[],
  limit: number,
  signal?: AbortSignal,
): Promise<string> {
  const matcher = globMatcher(pattern);
  const excludes = excludePatterns.map((p) => globMatcher(p));
  const dir = sandbox.openDirectory(target);
  const budget = new ResponseBudget(limit);
  const lines: string[] = [];
  const base = target.real.endsWith("/") ? target.real : `${target.real}/`;
  let truncated = false;
  let more = 0;
  try {
    const outcome = await walkDirectory(
      sandbox,
      dir,
      {
        exclude: (entry) => excludes.some((m) => m.matches(entry.relativePath)),
        enter(entry) {
          if (matcher.matches(entry.relativePath)) {
            if (truncated) {
              if (++more >= MAX_COUNTED_ENTRIES) return "stop";
            } else {
              const line = base + entry.relativePath;
              if (budget.tryAdd(line, NOTE_RESERVE + 2)) {
                budget.used += 2;
                lines.push(line);
              } else {
                truncated = true;
                more = 1;
              }
            }
          }
          if (entry.kind === "directory" && !matcher.couldContain(entry.relativePath)) return "skip";
          return undefined;
        },
      },
      signal ? { signal } : {},
    );
    if (outcome === "aborted") throw new Error("search_files was cancelled");
    if (lines.length === 0 && !truncated) return "No matches found";
    let text = lines.join("\n");
    if (truncated) {
      text += `\n\n[truncated: ${moreEntries(more, outcome === "stopped", "matches")} not shown — this response is capped at ${formatLimit(limit)}; narrow the request with a more specific "pattern", a deeper "path" or "excludePatterns"]`;
    }
    return text;
  } finally {
    sandbox.close(dir.fd);
  }
}
