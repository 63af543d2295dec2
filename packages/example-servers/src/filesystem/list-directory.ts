// list_directory and list_directory_with_sizes, in the reference server's text format, bounded. Sizes come
// from lstat (a symlink is never followed, so nothing about its target is revealed), read relative to
// the opened directory.
import { formatCount, formatLimit, formatSize, ResponseBudget } from "./response-budget.js";
import type { ResolvedPath, Sandbox } from "./sandbox.js";
import { sortedEntries } from "./walk-directory.js";

const NOTE_RESERVE = 512;
/** Entries whose sizes are read in one synchronous batch (a few milliseconds). */
const STAT_BATCH = 2048;
const collator = new Intl.Collator();
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function note(more: number, limit: number): string {
  return `\n\n[truncated: ${formatCount(more)} more entries not shown — this response is capped at ${formatLimit(limit)}; use search_files with a "pattern" to find specific entries]`;
}

/** The list_directory text: `[DIR] name` / `[FILE] name` per entry, in name order. */
export function listDirectory(sandbox: Sandbox, target: ResolvedPath, limit: number): string {
  const dir = sandbox.openDirectory(target);
  try {
    const entries = sortedEntries(sandbox, dir);
    const budget = new ResponseBudget(limit);
    const lines: string[] = [];
    for (const entry of entries) {
      const line = `${entry.isDirectory() ? "[DIR]" : "[FILE]"} ${entry.name}`;
      if (!budget.tryAdd(line, NOTE_RESERVE + 2)) break;
      budget.used += 2;
      lines.push(line);
    }
    const text = lines.join("\n");
    return lines.length < entries.length ? text + note(entries.length - lines.length, limit) : text;
  } finally {
    sandbox.close(dir.fd);
  }
}

interface SizedEntry {
  name: string;
  isDirectory: boolean;
  size: number;
}

/** The list_directory_with_sizes text: entries with sizes, sorted by name or size, then totals. */
export async function listDirectoryWithSizes(
  sandbox: Sandbox,
  target: ResolvedPath,
  sortBy: "name" | "size",
  limit: number,
): Promise<string> {
  const dir = sandbox.openDirectory(target);
  const entries: SizedEntry[] = [];
  try {
    const dirents = sandbox.readDirectory(dir);
    for (const dirent of dirents) {
      entries.push({ name: dirent.name, isDirectory: dirent.isDirectory(), size: 0 });
    }
    const files = entries.filter((entry) => !entry.isDirectory);
    // Sizes in synchronous batches, yielding to the event loop between them.
    for (let from = 0; from < files.length; from += STAT_BATCH) {
      if (from > 0) await yieldToEventLoop();
      const batch = files.slice(from, from + STAT_BATCH);
      const stats = sandbox.lstatChildren(
        dir,
        batch.map((entry) => entry.name),
      );
      batch.forEach((entry, i) => {
        entry.size = stats[i]?.size ?? 0;
      });
    }
  } finally {
    sandbox.close(dir.fd);
  }
  entries.sort(sortBy === "size" ? (a, b) => b.size - a.size : (a, b) => collator.compare(a.name, b.name));
  let files = 0;
  let directories = 0;
  let totalSize = 0;
  for (const entry of entries) {
    if (entry.isDirectory) directories++;
    else {
      files++;
      totalSize += entry.size;
    }
  }
  const summary = `\n\nTotal: ${files} files, ${directories} directories\nCombined size: ${formatSize(totalSize)}`;
  const budget = new ResponseBudget(limit);
  budget.tryAdd(summary);
  const lines: string[] = [];
  for (const entry of entries) {
    const line = `${entry.isDirectory ? "[DIR]" : "[FILE]"} ${entry.name.padEnd(30)} ${
      entry.isDirectory ? "" : formatSize(entry.size).padStart(10)
    }`;
    if (!budget.tryAdd(line, NOTE_RESERVE + 2)) break;
    budget.used += 2;
    lines.push(line);
  }
  const more = entries.length - lines.length;
  // The reference joins entries and summary lines with "\n": an empty directory starts with one newline.
  const body = lines.length > 0 ? lines.join("\n") + summary : summary.slice(1);
  return body + (more > 0 ? note(more, limit) : "");
}
