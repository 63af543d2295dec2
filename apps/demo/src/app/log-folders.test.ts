import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pruneLogFolders } from "./log-folders.js";

// Process ids above Linux's largest pid_max (2^22) never name a running process.
const ENDED = Array.from({ length: 14 }, (_, i) => String(4_194_400 + i));

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function folder(name: string, modifiedSecondsAgo: number): void {
  mkdirSync(join(root, name));
  writeFileSync(join(root, name, "filesystem.stderr.log"), "line\n");
  const at = Date.now() / 1000 - modifiedSecondsAgo;
  utimesSync(join(root, name), at, at);
}

describe("pruneLogFolders", () => {
  it("keeps the most recent folders of ended processes, every live one, and anything not a pid", () => {
    root = mkdtempSync(join(tmpdir(), "agentforge-logs-"));
    ENDED.forEach((name, i) => {
      folder(name, 1000 - i * 10); // the later in the list, the more recent
    });
    folder(String(process.pid), 5000); // this process: oldest of all, still kept
    folder(String(process.ppid), 5000); // a live process
    mkdirSync(join(root, "notes"));

    const removed = pruneLogFolders(root, 10);
    expect(removed.sort()).toEqual(ENDED.slice(0, 4).sort());
    expect(readdirSync(root).sort()).toEqual(
      [...ENDED.slice(4), String(process.pid), String(process.ppid), "notes"].sort(),
    );
    expect(pruneLogFolders(root, 10)).toEqual([]);
  });

  it("does nothing for a missing folder", () => {
    root = mkdtempSync(join(tmpdir(), "agentforge-logs-"));
    expect(pruneLogFolders(join(root, "absent"))).toEqual([]);
  });
});
