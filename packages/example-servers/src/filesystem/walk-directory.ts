// A streaming depth-first walk: one directory's entries in memory per level, never the whole tree.
// Symlinks are reported as entries but never followed, so no loop and no escape; bind-mount cycles are
// cut by remembering the (dev, ino) of the directories on the current path. The walk runs synchronous
// file-system calls in slices of a few milliseconds and yields to the event loop between them, so other
// requests keep being served, and it stops when the caller's signal aborts.
import type { Dirent } from "node:fs";
import type { DirectoryHandle, Sandbox } from "./sandbox.js";

/** What kind of entry the walk met (a symlink is never followed). */
export type EntryKind = "directory" | "file" | "symlink" | "other";

/** One entry met by the walk. */
export interface WalkEntry {
  name: string;
  /** Path relative to the walk's start, `/`-separated. */
  relativePath: string;
  /** 0 for the start's direct children. */
  depth: number;
  kind: EntryKind;
}

/** Callbacks of `walkDirectory`. */
export interface WalkVisitor {
  /** Skip an entry and everything below it (checked before anything else). */
  exclude?(entry: WalkEntry): boolean;
  /**
   * Called for each entry not excluded, directories before their contents. Return `"skip"` to not
   * descend into a directory, `"stop"` to end the walk.
   */
  enter(entry: WalkEntry): undefined | "skip" | "stop";
  /** Called after a directory's contents, for every directory `enter` accepted (descended into or not). */
  leave?(entry: WalkEntry): void;
}

/** Options of `walkDirectory`. */
export interface WalkOptions {
  signal?: AbortSignal;
  /** Deepest level descended into (default 256). */
  maxDepth?: number;
  /** How long one synchronous slice may run before yielding (default 8 ms). */
  sliceMs?: number;
}

interface Frame {
  dir: DirectoryHandle;
  entries: Dirent[];
  index: number;
  entry: WalkEntry | undefined;
  prefix: string;
  depth: number;
}

const kindOf = (dirent: Dirent): EntryKind =>
  dirent.isSymbolicLink()
    ? "symlink"
    : dirent.isDirectory()
      ? "directory"
      : dirent.isFile()
        ? "file"
        : "other";

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Sorted entries of an open directory (empty when it cannot be read any more). */
export function sortedEntries(sandbox: Sandbox, dir: DirectoryHandle): Dirent[] {
  try {
    return sandbox.readDirectory(dir).sort(byName);
  } catch {
    return [];
  }
}

/**
 * Walk the tree below an open directory (which stays open: the caller closes it). Entries come in
 * name order, depth first. Resolves to `"done"`, `"stopped"` (the visitor said stop) or `"aborted"`.
 */
export async function walkDirectory(
  sandbox: Sandbox,
  start: DirectoryHandle,
  visitor: WalkVisitor,
  options: WalkOptions = {},
): Promise<"done" | "stopped" | "aborted"> {
  const maxDepth = options.maxDepth ?? 256;
  const sliceMs = options.sliceMs ?? 8;
  const stack: Frame[] = [
    { dir: start, entries: sortedEntries(sandbox, start), index: 0, entry: undefined, prefix: "", depth: 0 },
  ];
  const ancestors = new Set<string>([start.key]);
  let sliceStart = performance.now();
  let steps = 0;
  try {
    while (stack.length > 0) {
      if (++steps % 256 === 0 && performance.now() - sliceStart > sliceMs) {
        await yieldToEventLoop();
        if (options.signal?.aborted) return "aborted";
        sliceStart = performance.now();
      }
      const frame = stack[stack.length - 1] as Frame;
      const dirent = frame.entries[frame.index++];
      if (dirent === undefined) {
        stack.pop();
        if (frame.dir !== start) {
          ancestors.delete(frame.dir.key);
          sandbox.close(frame.dir.fd);
        }
        if (frame.entry) visitor.leave?.(frame.entry);
        continue;
      }
      const entry: WalkEntry = {
        name: dirent.name,
        relativePath: frame.prefix + dirent.name,
        depth: frame.depth,
        kind: kindOf(dirent),
      };
      if (visitor.exclude?.(entry)) continue;
      const verdict = visitor.enter(entry);
      if (verdict === "stop") return "stopped";
      if (entry.kind !== "directory") continue;
      if (verdict === "skip" || frame.depth + 1 > maxDepth) {
        visitor.leave?.(entry);
        continue;
      }
      const child = sandbox.openChildDirectory(frame.dir, dirent.name);
      if (!child || ancestors.has(child.key)) {
        if (child) sandbox.close(child.fd);
        visitor.leave?.(entry);
        continue;
      }
      ancestors.add(child.key);
      stack.push({
        dir: child,
        entries: sortedEntries(sandbox, child),
        index: 0,
        entry,
        prefix: `${entry.relativePath}/`,
        depth: frame.depth + 1,
      });
    }
    return "done";
  } finally {
    for (const frame of stack) if (frame.dir !== start) sandbox.close(frame.dir.fd);
  }
}
