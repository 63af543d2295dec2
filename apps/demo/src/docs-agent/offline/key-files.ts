// Which files to read, by how much they tell about a project: README and manifests first, then build
// files, scripts and entry points, then other sources — shallow before deep, never binaries or lockfiles.
import { LOCKFILE_NAMES } from "./lockfiles.js";
import { MANIFEST_FILES } from "./manifests.js";

const TEXT_SOURCE =
  /\.(m|c)?(j|t)sx?$|\.(py|go|rs|rb|php|java|kt|swift|c|h|cpp|cs|ex|exs|lua|pl|sh|bash|zsh)$/;
const ENTRY = /^(main|index|app|cli|server|__main__|lib|mod|run|start)\.[a-z]+$/;
const TEST = /(^|\/)(tests?|__tests__|spec)\/|\.(test|spec)\.[a-z]+$|(^|\/)test_[^/]+\.py$|_test\.(go|py)$/;
/** Prose documents: after the manifests and scripts, before other sources at the top level. */
const DOC = /\.(md|markdown|rst|adoc|txt)$/i;
/** Documents about everything but what the project is and how to run it. */
const NOT_ABOUT_THE_PROJECT =
  /^(changelog|changes|history|news|license|licence|copying|notice|authors|contributors|code_of_conduct|security|funding|support|codeowners|requirements[\w-]*)\b/i;
const MANIFESTS: ReadonlySet<string> = new Set(MANIFEST_FILES);
const LOCKFILES: ReadonlySet<string> = new Set(LOCKFILE_NAMES);

/** How much a file tells about the project (lower is more); `undefined` for files never read. */
export function keyFileRank(file: string): number | undefined {
  const parts = file.split("/");
  const base = parts.at(-1) ?? file;
  const depth = parts.length - 1;
  if (LOCKFILES.has(base)) return undefined;
  if (/^readme(\.(md|markdown|rst|txt))?$/i.test(base))
    return depth === 0 ? 0 : depth <= 2 ? 14 + depth : undefined;
  if (MANIFESTS.has(base)) return depth === 0 ? 1 : depth <= 2 ? 20 + depth : undefined;
  if (DOC.test(base)) {
    if (NOT_ABOUT_THE_PROJECT.test(base)) return undefined;
    return depth === 0 ? 12 : depth <= 2 ? 34 + depth : undefined;
  }
  if (/^(makefile|gnumakefile|justfile)$/i.test(base)) return depth === 0 ? 3 : 24 + depth;
  if (/^setup\.py$/.test(base) && depth === 0) return 4;
  if (/\.(sh|bash)$/.test(base)) return 8 + depth;
  if (base === "doc.go") return 9 + depth;
  if (!TEXT_SOURCE.test(base) || /\.(d\.ts|min\.js)$/.test(base)) {
    return /^(dockerfile|docker-compose\.ya?ml|compose\.ya?ml)$/i.test(base) && depth === 0 ? 40 : undefined;
  }
  const test = TEST.test(file) ? 30 : 0;
  if (ENTRY.test(base) || (depth >= 1 && parts[depth - 1] === "bin")) return 10 + 4 * depth + test;
  return 26 + 3 * depth + test;
}

/** Files picked from one top-level folder before the other folders get their turn. */
const PER_FOLDER = 4;

/** The files to read, best first, at most `limit`, spread over the top-level folders. */
export function pickKeyFiles(files: readonly string[], limit: number): string[] {
  const ranked = files
    .flatMap((file) => {
      const rank = keyFileRank(file);
      return rank === undefined ? [] : [{ file, rank }];
    })
    .sort((a, b) => a.rank - b.rank || a.file.localeCompare(b.file));
  const picked: string[] = [];
  const later: string[] = [];
  const perFolder = new Map<string, number>();
  for (const { file } of ranked) {
    const top = file.includes("/") ? (file.split("/")[0] as string) : "";
    const count = perFolder.get(top) ?? 0;
    if (top && count >= PER_FOLDER) later.push(file);
    else {
      picked.push(file);
      perFolder.set(top, count + 1);
    }
  }
  return [...picked, ...later].slice(0, limit);
}
