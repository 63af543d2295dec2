// Which files to read, by how much they tell about a project: README and manifests first, then build
// files, scripts and entry points, then other sources — shallow before deep, never binaries or lockfiles.
import { LOCKFILE_NAMES } from "./lockfiles.js";
import { MANIFEST_FILES } from "./manifests.js";

const TEXT_SOURCE =
  /\.(m|c)?(j|t)sx?$|\.(py|go|rs|rb|php|java|kt|swift|c|h|cpp|cs|ex|exs|lua|pl|sh|bash|zsh)$/;
const ENTRY = /^(main|index|app|cli|server|__main__|lib|mod|run|start)\.[a-z]+$/;
/**
 * Files that come after the project's own code: tests, fixtures, examples, benchmarks, type tests, and
 * the scripts of CI and dev containers (hidden folders).
 */
export const SECONDARY =
  /(^|\/)(tests?|__tests__|spec|specs|fixtures?|__fixtures__|testdata|test-data|examples?|benches|benchmarks?|test-d|e2e)\/|(^|\/)\.[^/]+\/|[._-](test|spec|bench|test-d)\.[a-z]+$|(^|\/)test_[^/]+\.py$|_test\.(go|py)$|(^|\/)conftest\.py$/;
/** Rank added to a secondary file: after every source of the project. */
const SECONDARY_RANK = 60;
/** Files of a Python distribution's metadata folder that say nothing a reader needs. */
const METADATA_NOISE =
  /^(top_level|dependency_links|requires|SOURCES|installed-files|not-zip-safe|namespace_packages)\.txt$|^(RECORD|WHEEL|INSTALLER|REQUESTED|direct_url\.json)$/;
/** Prose documents: after the manifests and scripts, before other sources at the top level. */
const DOC = /\.(md|markdown|rst|adoc|txt)$/i;
/** Documents about everything but what the project is and how to run it. */
const NOT_ABOUT_THE_PROJECT =
  /^(changelog|changes|history|news|license|licence|copying|notice|authors|contributors|code_of_conduct|security|funding|support|codeowners|requirements[\w-]*)\b/i;
const MANIFESTS: ReadonlySet<string> = new Set(MANIFEST_FILES);
const LOCKFILES: ReadonlySet<string> = new Set(LOCKFILE_NAMES);

/**
 * How much a file tells about the project (lower is more); `undefined` for files never read. `entries`:
 * the entry points the manifests name (found among the files), which come right after the manifests.
 */
export function keyFileRank(file: string, entries: readonly string[] = []): number | undefined {
  const parts = file.split("/");
  const base = parts.at(-1) ?? file;
  const depth = parts.length - 1;
  const entry = entries.indexOf(file);
  if (entry !== -1) return 2 + Math.min(entry, 20) / 100;
  const secondary = SECONDARY.test(file) ? SECONDARY_RANK : 0;
  if (LOCKFILES.has(base)) return undefined;
  if (/^readme(\.(md|markdown|rst|txt))?$/i.test(base))
    return depth === 0 ? 0 : depth <= 2 ? 14 + depth + secondary : undefined;
  // A distribution's metadata (site-packages' `name.egg-info/`, `name.dist-info/`) is its manifest.
  const inMetadata = depth === 1 && /\.(egg|dist)-info$/.test(parts[0] ?? "");
  if (inMetadata) {
    if (base === "PKG-INFO" || base === "METADATA") return 1;
    if (base === "entry_points.txt") return 5;
    if (METADATA_NOISE.test(base)) return undefined;
  }
  if (MANIFESTS.has(base) && base !== "entry_points.txt")
    return depth === 0 ? 1 : depth <= 2 ? 20 + depth + secondary : undefined;
  // A JAR manifest names the main class.
  if (/^(MANIFEST\.MF|Manifest\.\w+)$/.test(base) && depth <= 3) return 6 + depth;
  if (DOC.test(base)) {
    // Another language's copy of the README (`README.ja.md`) says what the README says.
    if (NOT_ABOUT_THE_PROJECT.test(base) || /^readme\.[a-z]{2}([-_][a-z]{2,4})?\.(md|rst)$/i.test(base))
      return undefined;
    return depth === 0 ? 12 : depth <= 2 ? 34 + depth + secondary : undefined;
  }
  if (/^(makefile|gnumakefile|justfile)$/i.test(base)) return depth === 0 ? 3 : 24 + depth + secondary;
  if (/^setup\.py$/.test(base) && depth === 0) return 4;
  if (/\.(sh|bash)$/.test(base)) return 8 + depth + secondary;
  // A Go package's doc.go holds its documentation: before the package's other files.
  if (base === "doc.go") return (depth === 0 ? 6 : 9 + depth) + secondary;
  if (!TEXT_SOURCE.test(base) || /\.(d\.ts|min\.js)$/.test(base)) {
    return /^(dockerfile|docker-compose\.ya?ml|compose\.ya?ml)$/i.test(base) && depth === 0 ? 40 : undefined;
  }
  // The conventional entry points of a language: a crate's lib.rs/main.rs, a Go package's files at the
  // root, a Python package's __init__.py.
  if (/^src\/(lib|main)\.rs$/.test(file)) return 5;
  if (depth === 0 && base.endsWith(".go") && !secondary) return 7;
  if (base === "__init__.py" && depth <= 2 && !secondary) return 9 + depth;
  if (ENTRY.test(base) || (depth >= 1 && parts[depth - 1] === "bin")) return 10 + 4 * depth + secondary;
  return 26 + 3 * depth + secondary;
}

/** The manifests' entry points that are among the files: exact paths, or `**\/suffix` patterns. */
export function resolveEntries(candidates: readonly string[], files: readonly string[]): string[] {
  const present = new Set(files);
  const out: string[] = [];
  for (const candidate of candidates) {
    const path = candidate.replace(/^\.\//, "").replace(/\/{2,}/g, "/");
    const found = path.startsWith("**/")
      ? files.find((f) => f === path.slice(3) || f.endsWith(`/${path.slice(3)}`))
      : present.has(path)
        ? path
        : undefined;
    if (found && !out.includes(found)) out.push(found);
  }
  return out;
}

/** Files picked from one top-level folder before the other folders get their turn. */
const PER_FOLDER = 4;
/** Files picked from one folder below the top level before its sibling folders get their turn. */
const PER_SUBFOLDER = 2;

/**
 * The files to read, best first, at most `limit`, spread over the top-level folders and the folders
 * inside them (the entry points the manifests name are never held back by that spread).
 */
export function pickKeyFiles(
  files: readonly string[],
  limit: number,
  entries: readonly string[] = [],
): string[] {
  const ranked = files
    .flatMap((file) => {
      const rank = keyFileRank(file, entries);
      return rank === undefined ? [] : [{ file, rank }];
    })
    .sort((a, b) => a.rank - b.rank || a.file.localeCompare(b.file));
  const picked: string[] = [];
  const later: string[] = [];
  const perFolder = new Map<string, number>();
  for (const { file } of ranked) {
    const parts = file.split("/");
    const top = parts.length > 1 ? (parts[0] as string) : "";
    const parent = parts.length > 2 ? parts.slice(0, -1).join("/") : "";
    const full =
      (top && (perFolder.get(top) ?? 0) >= PER_FOLDER) ||
      (parent && (perFolder.get(parent) ?? 0) >= PER_SUBFOLDER);
    if (full && !entries.includes(file)) later.push(file);
    else {
      picked.push(file);
      perFolder.set(top, (perFolder.get(top) ?? 0) + 1);
      if (parent) perFolder.set(parent, (perFolder.get(parent) ?? 0) + 1);
    }
  }
  return [...picked, ...later].slice(0, limit);
}
