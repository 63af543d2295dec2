// The folder's layout from what the survey tools returned: list_directory lines and directory_tree JSON
// (whole or cut by a reply bound), merged into one inventory, then written as every file for small trees
// or a bounded summary, folders first. Dependency and build folders are named and counted, never walked.

import { code, codeBlock, visible } from "./markdown.js";
import { parsePartialJson } from "./partial-json.js";

/** Folders of installed dependencies and build output: excluded from trees, counted with one listing. */
export const DEPENDENCY_FOLDERS = [
  "node_modules",
  ".git",
  ".venv",
  "venv",
  "__pycache__",
  "target",
  "dist",
  "build",
  "coverage",
  ".turbo",
  ".next",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".agentforge",
] as const;

const DEPENDENCY_SET: ReadonlySet<string> = new Set(DEPENDENCY_FOLDERS);

/** Whether a folder name is a dependency or build folder. */
export function isDependencyFolder(name: string): boolean {
  return DEPENDENCY_SET.has(name);
}

/** Trees with at most this many entries are written out in full. */
export const FULL_LAYOUT_LIMIT = 300;
const SUMMARY_CHILDREN = 8;
const SUMMARY_FILES = 30;

/** One entry of a directory_tree reply; `partial` when the reply was cut inside its children. */
export interface TreeEntry {
  name: string;
  type: "file" | "directory";
  children?: TreeEntry[];
  partial?: boolean;
}

/** A directory_tree reply as read: the entries, and whether the reply was whole. */
export interface ParsedTree {
  entries: TreeEntry[];
  complete: boolean;
}

const EXECUTOR_CUT = /\.\.\. \[\d+ characters truncated\]\s*$/;

/** Read a directory_tree reply, cut (by the server's note or the executor's bound) or whole. */
export function parseTreeReply(text: string): ParsedTree | undefined {
  const cutByExecutor = EXECUTOR_CUT.test(text);
  const parsed = parsePartialJson(text.replace(EXECUTOR_CUT, ""));
  if (!Array.isArray(parsed.value)) return undefined;
  const convert = (items: unknown[]): TreeEntry[] =>
    items.flatMap((item): TreeEntry[] => {
      if (typeof item !== "object" || item === null) return [];
      const { name, type, children } = item as Record<string, unknown>;
      if (typeof name !== "string" || (type !== "file" && type !== "directory")) return [];
      if (type === "file") return [{ name, type }];
      const list = Array.isArray(children) ? children : [];
      const cut = !Array.isArray(children) || parsed.incomplete.has(list) || parsed.incomplete.has(item);
      return [{ name, type, children: convert(list), ...(cut ? { partial: true } : {}) }];
    });
  const noted = /^\[truncated/i.test(parsed.rest);
  const entries = convert(parsed.value);
  // The server stops its walk at its budget and closes the folders it was in: those (the last folder at
  // each level) look whole but may have lost entries.
  if (noted) {
    let level = entries;
    for (let last = level.at(-1); last?.type === "directory"; last = level.at(-1)) {
      last.partial = true;
      level = last.children ?? [];
    }
  }
  return { entries, complete: parsed.complete && !noted && !cutByExecutor };
}

/** A list_directory reply: its entries, and whether it was whole. */
export interface ParsedListing {
  entries: { name: string; type: "file" | "directory" }[];
  complete: boolean;
  /** Characters cut off by the reply bound (0 when whole), for an estimate of the whole count. */
  cutChars: number;
  /** Entries the server said it left out (its own note). */
  notShown: number;
}

/** Read `[DIR] name` / `[FILE] name` lines. */
export function parseListingReply(text: string): ParsedListing {
  const cut = /\.\.\. \[(\d+) characters truncated\]\s*$/.exec(text);
  const body = text.replace(EXECUTOR_CUT, "");
  const lines = body.split("\n");
  // The last line of a cut reply may be a cut name: drop it.
  if (cut) lines.pop();
  const entries: ParsedListing["entries"] = [];
  let last: ParsedListing["entries"][number] | undefined;
  for (const line of lines) {
    const match = /^\[(DIR|FILE)\] (.+)$/.exec(line);
    if (match?.[2]) {
      last = { name: match[2], type: match[1] === "DIR" ? "directory" : "file" };
      entries.push(last);
    } else if (last && line !== "" && !line.startsWith("[")) {
      // A name with a line break in it: the listing's text format split it over two lines.
      last.name += `\n${line}`;
    } else last = undefined;
  }
  const note = /\[truncated: ([\d,]+) more entries/.exec(body);
  const notShown = note?.[1] ? Number(note[1].replace(/,/g, "")) : 0;
  return { entries, complete: !cut && notShown === 0, cutChars: cut ? Number(cut[1]) : 0, notShown };
}

/** A count rounded to two significant digits (an estimate should not look exact). */
export function roughly(count: number): number {
  const step = 10 ** Math.max(0, Math.floor(Math.log10(Math.max(1, count))) - 1);
  return Math.round(count / step) * step;
}

/** Everything known about the folder, by relative path. */
export class Inventory {
  /** Relative path → kind, for every entry seen (dependency folders' contents excluded). */
  readonly entries = new Map<string, "file" | "directory">();
  /** Folders whose whole content (at every depth) was in one tree reply. */
  readonly complete = new Set<string>();
  /** Folders whose direct children are all known (a whole listing). */
  readonly listed = new Set<string>();
  /** Dependency and build folders seen, with their entry count when listed. */
  readonly dependencies = new Map<string, { count?: number; estimated?: boolean }>();
  /** Whether any survey call succeeded. */
  surveyed = false;
  /**
   * Build folders walked as the project's own code (a published package whose code is all in `dist/`):
   * listed and counted like any other folder.
   */
  readonly walked = new Set<string>();

  /** Whether a path lies inside a dependency or build folder that is not walked. */
  #hidden(path: string): boolean {
    const segments = path.split("/");
    for (let i = 0; i < segments.length - 1; i++)
      if (isDependencyFolder(segments[i] as string) && !this.walked.has(segments.slice(0, i + 1).join("/")))
        return true;
    return false;
  }

  #add(path: string, type: "file" | "directory"): void {
    const name = path.split("/").at(-1) ?? path;
    if (this.#hidden(path)) return;
    if (type === "directory" && isDependencyFolder(name) && !this.walked.has(path)) {
      if (!this.dependencies.has(path)) this.dependencies.set(path, {});
      return;
    }
    this.entries.set(path, type);
  }

  /** Merge a directory_tree reply for the folder at `base` ("" for the root). */
  addTree(base: string, tree: ParsedTree): void {
    this.surveyed = true;
    // A tree asked for a build folder: it is walked as the project's code from now on.
    if (base && isDependencyFolder(base.split("/").at(-1) ?? base) && !this.#hidden(base)) {
      this.walked.add(base);
      this.dependencies.delete(base);
      this.entries.set(base, "directory");
      // Its folders were whole without it: now they are only as whole as it is.
      const parts = base.split("/");
      for (let i = 0; i < parts.length; i++) this.complete.delete(parts.slice(0, i).join("/"));
    }
    const walk = (entries: readonly TreeEntry[], prefix: string) => {
      for (const entry of entries) {
        const path = `${prefix}${entry.name}`;
        this.#add(path, entry.type);
        if (entry.type === "directory" && !isDependencyFolder(entry.name)) {
          walk(entry.children ?? [], `${path}/`);
          if (!entry.partial) this.complete.add(path);
        }
      }
    };
    walk(tree.entries, base ? `${base}/` : "");
    if (tree.complete) this.complete.add(base);
  }

  /** Merge a list_directory reply for the folder at `base`. */
  addListing(base: string, listing: ParsedListing): void {
    this.surveyed = true;
    const name = base.split("/").at(-1) ?? base;
    if (base && isDependencyFolder(name) && !this.walked.has(base)) {
      const shown = listing.entries.length;
      if (listing.complete) this.dependencies.set(base, { count: shown });
      else if (listing.notShown > 0) this.dependencies.set(base, { count: shown + listing.notShown });
      else {
        // Cut by the reply bound: scale the entries shown by the share of characters kept.
        const kept = listing.entries.reduce((sum, e) => sum + e.name.length + (e.type === "file" ? 8 : 7), 0);
        const estimate = kept > 0 ? roughly((shown * (kept + listing.cutChars)) / kept) : shown;
        this.dependencies.set(base, { count: Math.max(estimate, shown), estimated: true });
      }
      return;
    }
    for (const entry of listing.entries) this.#add(base ? `${base}/${entry.name}` : entry.name, entry.type);
    if (listing.complete) this.listed.add(base);
  }

  /** Whether everything under a folder is known: one whole tree, or a whole listing of known folders. */
  isKnown(folder: string): boolean {
    if (this.complete.has(folder)) return true;
    if (!this.listed.has(folder)) return false;
    return this.children(folder).every(
      (child) => child.type === "file" || this.dependencies.has(child.path) || this.isKnown(child.path),
    );
  }

  /** Relative paths of the files seen, outside dependency folders, sorted. */
  files(): string[] {
    return [...this.entries]
      .filter(([, type]) => type === "file")
      .map(([path]) => path)
      .sort();
  }

  /** Folders (not dependency folders) whose content is not wholly known, shallowest first. */
  incompleteFolders(): string[] {
    const folders = [...this.entries].filter(([path, type]) => type === "directory" && !this.isKnown(path));
    return folders
      .map(([path]) => path)
      .sort((a, b) => a.split("/").length - b.split("/").length || a.localeCompare(b));
  }

  /** Whether every non-dependency entry of the folder is known. */
  isWhole(): boolean {
    return this.isKnown("");
  }

  /** Direct children of a folder ("" for the root). */
  children(folder: string): { name: string; path: string; type: "file" | "directory" }[] {
    const prefix = folder ? `${folder}/` : "";
    const out: { name: string; path: string; type: "file" | "directory" }[] = [];
    for (const [path, type] of this.entries) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      if (rest && !rest.includes("/")) out.push({ name: rest, path, type });
    }
    for (const path of this.dependencies.keys()) {
      const rest = path.startsWith(prefix) ? path.slice(prefix.length) : "";
      if (rest && !rest.includes("/")) out.push({ name: rest, path, type: "directory" });
    }
    return out.sort((a, b) =>
      a.type === b.type ? a.name.localeCompare(b.name) : a.type === "directory" ? -1 : 1,
    );
  }

  /** Files seen under a folder (at any depth). */
  filesUnder(folder: string): number {
    const prefix = `${folder}/`;
    let count = 0;
    for (const [path, type] of this.entries) if (type === "file" && path.startsWith(prefix)) count++;
    return count;
  }
}

/** `1 file`, `2,000 files`, `3 entries`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? word : many}`;
}

/** How a dependency folder is described: `node_modules/ (about 2,000 entries)`. */
export function describeDependency(path: string, info: { count?: number; estimated?: boolean }): string {
  if (info.count === undefined) return code(`${path}/`);
  const entries = plural(info.count, "entry", "entries");
  return `${code(`${path}/`)} (${info.estimated ? "about " : ""}${entries})`;
}

/** `12 files`, `at least 40 files`, or `not listed` for a folder seen only by name. */
function fileCount(inventory: Inventory, folder: string): string {
  const under = inventory.filesUnder(folder);
  if (inventory.isKnown(folder)) return plural(under, "file");
  return under > 0 ? `at least ${plural(under, "file")}` : "not listed";
}

/** The Layout section's lines: every file for small whole trees, else a bounded summary, folders first. */
export function layoutLines(inventory: Inventory): string[] {
  const out: string[] = [];
  const files = inventory.files();
  const folders = [...inventory.entries.values()].filter((t) => t === "directory").length;
  const whole = inventory.isWhole();
  const dependencyNote = () => {
    if (inventory.dependencies.size === 0) return;
    const names = [...inventory.dependencies].map(([path, info]) => describeDependency(path, info));
    out.push("", `Dependency and build folders, named but not walked: ${names.join(", ")}.`);
  };
  if (files.length === 0 && folders === 0) {
    out.push(
      inventory.dependencies.size > 0
        ? "Nothing but dependency and build folders."
        : inventory.surveyed
          ? "The folder is empty."
          : "The folder could not be listed.",
    );
    dependencyNote();
    return out;
  }
  const where = folders === 0 ? ", all at the top level" : ` in ${plural(folders, "folder")}`;
  const count = `${whole ? "" : "at least "}${plural(files.length, "file")}${where}`;
  if (whole && inventory.entries.size <= FULL_LAYOUT_LIMIT) {
    out.push(`${count[0]?.toUpperCase()}${count.slice(1)}:`, "");
    const tree: string[] = [];
    const walk = (folder: string, depth: number) => {
      for (const child of inventory.children(folder)) {
        const pad = "  ".repeat(depth);
        const name = visible(child.name);
        if (child.type === "file") tree.push(`${pad}${name}`);
        else if (inventory.dependencies.has(child.path)) tree.push(`${pad}${name}/  (not walked)`);
        else {
          tree.push(`${pad}${name}/`);
          walk(child.path, depth + 1);
        }
      }
    };
    walk("", 0);
    out.push(...codeBlock(tree));
    dependencyNote();
    return out;
  }
  out.push(
    `${count[0]?.toUpperCase()}${count.slice(1)}${whole ? "" : " seen (the tree is larger than the replies could hold)"}; top level, folders first:`,
    "",
  );
  const summary: string[] = [];
  const top = inventory.children("");
  let shownFiles = 0;
  for (const child of top) {
    if (child.type === "directory") {
      if (inventory.dependencies.has(child.path)) {
        summary.push(`${visible(child.name)}/  (not walked)`);
        continue;
      }
      summary.push(`${visible(child.name)}/  (${fileCount(inventory, child.path)})`);
      const inner = inventory.children(child.path);
      for (const item of inner.slice(0, SUMMARY_CHILDREN)) {
        const more =
          item.type !== "directory"
            ? ""
            : inventory.dependencies.has(item.path)
              ? "  (not walked)"
              : `  (${fileCount(inventory, item.path)})`;
        summary.push(`  ${visible(item.name)}${item.type === "directory" ? "/" : ""}${more}`);
      }
      if (inner.length > SUMMARY_CHILDREN) summary.push(`  … ${inner.length - SUMMARY_CHILDREN} more`);
    } else if (shownFiles < SUMMARY_FILES) {
      summary.push(visible(child.name));
      shownFiles++;
    }
  }
  const topFiles = top.filter((c) => c.type === "file").length;
  if (topFiles > shownFiles) summary.push(`… ${topFiles - shownFiles} more files`);
  out.push(...codeBlock(summary));
  dependencyNote();
  return out;
}
