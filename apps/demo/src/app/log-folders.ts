// Each process that runs servers writes their stderr logs to `<state>/logs/mcp/<pid>/`, so two processes
// sharing a state folder never truncate each other's live logs. Without pruning, every `docs`, `mcp` or
// `serve` run would leave one folder behind for good. The folders of processes that are gone are kept
// for a while (they explain a crash) and then removed: the most recent few stay.
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

/** Folders of ended processes that are kept (the most recently written ones). */
export const KEPT_LOG_FOLDERS = 10;

/** Whether a process with this id is running (or exists but is not ours to signal). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Remove the log folders under `root` (one per process id) of processes that have ended, except the
 * `keep` most recently modified ones and the current process's. Never throws: a folder that cannot be
 * read or removed stays. Returns the names removed.
 */
export function pruneLogFolders(root: string, keep = KEPT_LOG_FOLDERS): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const ended: { name: string; modified: number }[] = [];
  for (const name of names) {
    if (!/^[1-9][0-9]{0,9}$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid || alive(pid)) continue;
    try {
      const stat = statSync(join(root, name));
      if (stat.isDirectory()) ended.push({ name, modified: stat.mtimeMs });
    } catch {
      // Gone meanwhile (another process pruned it).
    }
  }
  ended.sort((a, b) => b.modified - a.modified);
  const removed: string[] = [];
  for (const { name } of ended.slice(keep)) {
    try {
      rmSync(join(root, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Left for the next start.
    }
  }
  return removed;
}
