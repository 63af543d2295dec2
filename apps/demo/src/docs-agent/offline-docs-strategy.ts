// The offline "model" of the Documentation agent: a real tool-calling strategy that surveys the folder
// (listing and tree), reads its key files several per round, and writes the overview only from what the
// tools returned. Deterministic, so it runs in tests and with no provider key — and resumable, since
// every decision is derived from the conversation alone. The parsing pieces live in ./offline/.
import type { ScriptContext, ScriptedReply, ScriptedToolCall } from "@agentforge/agent-runtime/testing";
import { keyFileRank, pickKeyFiles, resolveEntries, SECONDARY } from "./offline/key-files.js";
import {
  DEPENDENCY_FOLDERS,
  Inventory,
  layoutLines,
  parseListingReply,
  parseTreeReply,
} from "./offline/layout.js";
import { MANIFEST_FILES, type Manifest, parseManifest } from "./offline/manifests.js";
import { code, paragraphLine, visible } from "./offline/markdown.js";
import {
  cleanTitle,
  MARKUP_NAME,
  README_NAME,
  readmeDescription,
  readmePurpose,
  readmeTitle,
} from "./offline/readme.js";
import { runCommands } from "./offline/run-commands.js";
import { docComment, summarizeFile } from "./offline/summarize-file.js";
import { type ToolOutcome, toolOutcomes } from "./offline/tool-outcomes.js";

/** The fixed budget of one run: tool calls, characters of replies, calls per round, files read. */
export const OFFLINE_BUDGET = {
  maxCalls: 30,
  maxReplyChars: 240_000,
  /** Worst case of one reply (the executor's 8,000-character bound and its marker). */
  replyReserve: 8_100,
  /** Ten at most: more concurrent calls on one signal make Node warn about abort listeners. */
  callsPerRound: 10,
  maxFilesRead: 14,
  /** Reads made while the layout is still incomplete (the rest wait for the folders' own trees). */
  earlyReads: 6,
  /** Folders (other than the root) walked or listed when the root's tree did not hold them. */
  maxFolderCalls: 10,
  folderCallsPerRound: 5,
  dependencyListsPerRound: 2,
  headLines: 60,
  readmeHeadLines: 120,
} as const;

const MANIFEST_NAMES: ReadonlySet<string> = new Set(MANIFEST_FILES);

/** Patterns given to directory_tree: dependency and build folders are counted, never walked. */
export const TREE_EXCLUDES: readonly string[] = DEPENDENCY_FOLDERS;

/** Options of `createOfflineDocsStrategy`. */
export interface OfflineDocsOptions {
  /** The folder being documented, as the filesystem server sees it (its real path). */
  root: string;
  /** Name shown in the title when the files give none. */
  fallbackName: string;
}

function find(tools: readonly { name: string }[], suffix: string): string | undefined {
  return tools.find((t) => t.name.endsWith(`__${suffix}`))?.name;
}

/**
 * With tool search on (a large roster), the file tools are not given from the start: they are searched
 * for first, one search per capability, all in the first turn (a turn of searches uses no tool round).
 */
export const FILE_TOOL_SEARCHES: readonly string[] = [
  "list the files in a folder",
  "directory tree of a folder",
  "read a text file",
];
const SEARCH_TOOL = "search_tools";

/** What the conversation so far says about the folder. */
interface Knowledge {
  inventory: Inventory;
  /** Relative path → the read's outcome, in reading order. */
  reads: Map<string, { ok: boolean; text: string }>;
  /** `tool|path` of every call made. */
  made: Set<string>;
  calls: number;
  replyChars: number;
  outcomes: ToolOutcome[];
}

function learn(outcomes: ToolOutcome[], root: string): Knowledge {
  const base = root.replace(/\/+$/, "");
  const relative = (path: unknown) => {
    const text = String(path ?? "");
    if (text === base || text === `${base}/` || text === "." || text === "") return "";
    return text.startsWith(`${base}/`) ? text.slice(base.length + 1).replace(/\/+$/, "") : text;
  };
  const knowledge: Knowledge = {
    inventory: new Inventory(),
    reads: new Map(),
    made: new Set(),
    calls: outcomes.length,
    replyChars: 0,
    outcomes,
  };
  for (const outcome of outcomes) {
    knowledge.replyChars += outcome.text.length;
    const path = relative(outcome.args.path);
    const kind = outcome.tool.split("__").at(-1) ?? outcome.tool;
    knowledge.made.add(`${kind}|${path}`);
    if (!outcome.ok) {
      if (kind === "read_text_file") knowledge.reads.set(path, { ok: false, text: outcome.text });
      continue;
    }
    if (kind === "list_directory") knowledge.inventory.addListing(path, parseListingReply(outcome.text));
    else if (kind === "directory_tree") {
      const tree = parseTreeReply(outcome.text);
      if (tree) knowledge.inventory.addTree(path, tree);
    } else if (kind === "read_text_file") knowledge.reads.set(path, { ok: true, text: outcome.text });
  }
  return knowledge;
}

/**
 * The next round's calls, within the budget: first the folders the root's tree did not hold (a tree of
 * each, then a listing of those still cut), then dependency folders to count, then key-file reads — a
 * few while the layout is still incomplete (better candidates may turn up), the rest once it is known.
 */
function nextCalls(knowledge: Knowledge, tools: ScriptContext["tools"], root: string): ScriptedToolCall[] {
  const abs = (relative: string) => (relative ? `${root.replace(/\/+$/, "")}/${relative}` : root);
  const readText = find(tools, "read_text_file");
  const tree = find(tools, "directory_tree");
  const listing = find(tools, "list_directory");
  const budget = OFFLINE_BUDGET;
  const room = Math.min(
    budget.callsPerRound,
    budget.maxCalls - knowledge.calls,
    Math.floor((budget.maxReplyChars - knowledge.replyChars) / budget.replyReserve),
  );
  if (room <= 0) return [];
  const calls: ScriptedToolCall[] = [];
  const { inventory, made } = knowledge;
  const folderCallsMade = [...made].filter((m) => /^(directory_tree|list_directory)\|./.test(m)).length;
  let folderRoom = Math.min(budget.folderCallsPerRound, budget.maxFolderCalls - folderCallsMade);
  // A published package whose code is all in its build folder (package.json, `dist/`, no sources):
  // that folder is walked like the rest, not only counted.
  const walk = codeFolders(inventory).filter((f) => !made.has(`directory_tree|${f}`));
  if (tree)
    for (const folder of walk) {
      if (folderRoom <= 0) break;
      calls.push({ name: tree, args: { path: abs(folder), excludePatterns: [...TREE_EXCLUDES] } });
      folderRoom--;
    }
  for (const folder of inventory.incompleteFolders()) {
    if (folderRoom <= 0 || folder.split("/").length > 2) break;
    if (tree && !made.has(`directory_tree|${folder}`)) {
      calls.push({ name: tree, args: { path: abs(folder), excludePatterns: [...TREE_EXCLUDES] } });
      folderRoom--;
    } else if (listing && !made.has(`list_directory|${folder}`)) {
      calls.push({ name: listing, args: { path: abs(folder) } });
      folderRoom--;
    }
  }
  if (listing) {
    const uncounted = [...inventory.dependencies].filter(
      ([path, info]) =>
        info.count === undefined &&
        !path.includes("/") &&
        !made.has(`list_directory|${path}`) &&
        !walk.includes(path),
    );
    for (const [path] of uncounted.slice(0, budget.dependencyListsPerRound))
      calls.push({ name: listing, args: { path: abs(path) } });
  }
  if (readText) {
    const readSoFar = knowledge.reads.size;
    const limit = inventory.isWhole()
      ? budget.maxFilesRead
      : Math.min(budget.maxFilesRead, readSoFar + budget.earlyReads);
    const files = inventory.files();
    const entries = entryPoints(manifestsOf(knowledge), files);
    const wanted = pickKeyFiles(files, budget.maxFilesRead, entries).filter(
      (file) => !made.has(`read_text_file|${file}`),
    );
    for (const file of wanted.slice(0, Math.max(0, limit - readSoFar))) {
      const head = headLinesOf(file);
      calls.push({
        name: readText,
        args: head === undefined ? { path: abs(file) } : { path: abs(file), head },
      });
    }
  }
  return calls.slice(0, room);
}

/** Build folders holding a published package's code: the root has a package.json and no source folder. */
function codeFolders(inventory: Inventory): string[] {
  const root = inventory.children("");
  if (!root.some((c) => c.type === "file" && c.name === "package.json")) return [];
  if (root.some((c) => c.type === "directory" && /^(src|source|lib)$/.test(c.name))) return [];
  return root
    .filter(
      (c) => c.type === "directory" && /^(dist|build)$/.test(c.name) && inventory.dependencies.has(c.path),
    )
    .map((c) => c.path);
}

/** Every manifest read so far, by relative path. */
function manifestsOf(knowledge: Knowledge): Map<string, Manifest> {
  const manifests = new Map<string, Manifest>();
  for (const [file, read] of knowledge.reads) {
    if (!read.ok) continue;
    const manifest = parseManifest(file, read.text);
    if (manifest) manifests.set(file, manifest);
  }
  return manifests;
}

/**
 * The entry points the manifests name that are among the files, the root's manifests first: each entry
 * is relative to the manifest's folder (the parent of a `*.egg-info`/`*.dist-info` folder).
 */
function entryPoints(manifests: ReadonlyMap<string, Manifest>, files: readonly string[]): string[] {
  const ordered = [...manifests].sort(([a], [b]) => a.split("/").length - b.split("/").length);
  const candidates = ordered.flatMap(([file, manifest]) => {
    let dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : "";
    if (/\.(egg|dist)-info$/.test(dir)) dir = dir.includes("/") ? dir.slice(0, dir.lastIndexOf("/")) : "";
    return manifest.entries.map((e) => (e.startsWith("**/") || !dir ? e : `${dir}/${e}`));
  });
  return resolveEntries(candidates, files);
}

/** How many lines of `file` are read: manifests and config files whole (undefined), the rest their head. */
function headLinesOf(file: string): number | undefined {
  const base = file.split("/").at(-1) ?? file;
  if (/\.(json|toml|mod|cfg|ya?ml)$/.test(base) || MANIFEST_NAMES.has(base)) return undefined;
  return /^readme/i.test(base) ? OFFLINE_BUDGET.readmeHeadLines : OFFLINE_BUDGET.headLines;
}

/** The step function for `ScriptedChatModel`: decides each reply from the conversation so far. */
export function createOfflineDocsStrategy(options: OfflineDocsOptions) {
  const { root } = options;
  return (context: ScriptContext): ScriptedReply => {
    // Searches are not about the folder: they are left out of what the conversation says about it.
    const all = toolOutcomes(context.messages);
    const outcomes = all.filter((o) => o.tool !== SEARCH_TOOL);
    const knowledge = learn(outcomes, root);
    const tools = context.tools;
    // Without tools (the budget is spent, or nothing was granted), write with what we have.
    if (tools.length === 0) return compose(knowledge, options);
    const thinking = find(tools, "sequentialthinking");
    const tree = find(tools, "directory_tree");
    const listing = find(tools, "list_directory");
    const searched = all.length > outcomes.length;
    if (
      !tree &&
      !listing &&
      !find(tools, "read_text_file") &&
      !searched &&
      tools.some((t) => t.name === SEARCH_TOOL)
    ) {
      return {
        content: "Looking for the file tools first.",
        toolCalls: FILE_TOOL_SEARCHES.map((query) => ({ name: SEARCH_TOOL, args: { query, limit: 3 } })),
      };
    }
    if (outcomes.length === 0) {
      const calls: ScriptedToolCall[] = [];
      if (listing) calls.push({ name: listing, args: { path: root } });
      if (tree) calls.push({ name: tree, args: { path: root, excludePatterns: [...TREE_EXCLUDES] } });
      if (thinking && calls.length > 0) {
        calls.push({
          name: thinking,
          args: {
            thought: `Plan for ${options.fallbackName}: survey the layout, read the key files, then write purpose, layout, key files and how to run.`,
            thoughtNumber: 1,
            totalThoughts: 1,
            nextThoughtNeeded: false,
          },
        });
      }
      if (calls.length > 0) return { content: "Surveying the folder first.", toolCalls: calls };
      return compose(knowledge, options);
    }
    const calls = nextCalls(knowledge, tools, root);
    if (calls.length > 0) return { content: "Reading the key files.", toolCalls: calls };
    return compose(knowledge, options);
  };
}

/** The root's manifest that names the project, in this order of preference. */
const ROOT_MANIFESTS = [
  "package.json",
  "pyproject.toml",
  "Cargo.toml",
  "composer.json",
  "go.mod",
  "setup.cfg",
  "PKG-INFO",
  "pom.xml",
  "build.xml",
  "CMakeLists.txt",
  "deno.json",
];

/** Lowercase letters and digits only: `Serde JSON` and `serde_json` compare equal. */
const squash = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

/** The project's name as a title: a Go module's path ends with its name (a `/vN` suffix aside). */
function nameOf(manifest: Manifest): string | undefined {
  return manifest.name ? cleanTitle(manifest.name) : undefined;
}

/**
 * Whether a README heading is the project's name as its manifest gives it: the same name (`Serde JSON`,
 * `serde_json`), with a language suffix (`Commander.js`), or a short heading holding it (`gorilla/mux`)
 * — not a tagline (`derive(Error)`), a sentence or the repository's name (`python-tabulate`).
 */
function namesIt(heading: string, manifestName: string): boolean {
  // A Go module path ends with the package's name (a `/vN` suffix aside).
  const name = squash(
    manifestName
      .split("/")
      .filter((p) => !/^v\d+$/.test(p))
      .at(-1) ?? manifestName,
  );
  const said = squash(heading);
  if (!name) return false;
  if (said === name || said === `${name}js` || said === `${name}rs` || said === `${name}py`) return true;
  const words = heading.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  return words <= 3 && said.includes(name) && !/^(python|py|node|go|golang|rust|js)[-_. ]/i.test(heading);
}

/** Whether a manifest's description says something the README's sentence does not (by their words). */
function addsToDescription(description: string, readme: string): boolean {
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);
  const own = words(description);
  if (own.size < 3) return false; // `derive(Error)`: a tag, not a sentence
  const shared = [...own].filter((w) => words(readme).has(w)).length;
  return shared / own.size < 0.6;
}

function compose(knowledge: Knowledge, options: OfflineDocsOptions): string {
  const { inventory, reads } = knowledge;
  const okReads = new Map([...reads].filter(([, r]) => r.ok).map(([file, r]) => [file, r.text]));
  const manifests = manifestsOf(knowledge);
  const readmeFile = [...okReads.keys()].find((f) => README_NAME.test(f));
  // A Python distribution carries its README as its metadata's description.
  const metadata = [...manifests].find(
    ([file, m]) => m.readme && /^([^/]+\.(egg|dist)-info\/)?(PKG-INFO|METADATA)$/.test(file),
  );
  const readme = readmeFile ? okReads.get(readmeFile) : metadata?.[1].readme;
  const rootManifest =
    ROOT_MANIFESTS.map((f) => manifests.get(f)).find((m) => m !== undefined) ?? metadata?.[1];
  const files = inventory.files();
  const whole = inventory.isWhole();
  // The files read, most telling first (the manifests' entry points right after them), failed reads last.
  const entries = entryPoints(manifests, [...new Set([...files, ...okReads.keys()])]);
  const rank = (file: string) => keyFileRank(file, entries) ?? 1000;
  const byRank = [...reads].sort(([a, ra], [b, rb]) => Number(!ra.ok) - Number(!rb.ok) || rank(a) - rank(b));
  const ordered = byRank.filter(([, r]) => r.ok).map(([file, r]) => [file, r.text] as const);

  // The title: the README's opening heading when it names the project (the manifest's name, when there
  // is one, must be in it), else the manifest's name, else the folder's.
  const manifestName = rootManifest ? nameOf(rootManifest) : undefined;
  const heading = readme ? readmeTitle(readme) : undefined;
  const headingNames =
    heading !== undefined && (manifestName === undefined || namesIt(heading, manifestName));
  const title = (headingNames ? heading : undefined) ?? manifestName ?? heading ?? options.fallbackName;

  // The purpose: what the README's opening says (after the manifest's description when that adds to
  // it), else the manifest's description (a tagline or a note opening the README is not one), else
  // the first prose paragraph further down the README.
  const described = readme ? readmeDescription(readme) : undefined;
  const manifestFile = rootManifest
    ? ([...manifests].find(([, m]) => m === rootManifest)?.[0] ?? rootManifest.file)
    : undefined;
  const manifestDescription = rootManifest?.description;
  let purpose: string | undefined;
  if (described?.opening) {
    purpose =
      manifestDescription && addsToDescription(manifestDescription, described.text)
        ? `${manifestDescription.replace(/[.\s]*$/, "")}. ${described.text}`
        : described.text;
  } else if (manifestDescription) purpose = `${manifestDescription} (from ${code(manifestFile ?? "")})`;
  else if (described) purpose = described.text;
  if (!purpose) {
    // The root's manifest first, else the shallowest one that describes its project (named by its path).
    const other = [...manifests]
      .filter(([, m]) => m.description)
      .sort(([a], [b]) => a.split("/").length - b.split("/").length)[0];
    if (other) purpose = `${other[1].description} (from ${code(other[0])})`;
  }
  if (!purpose) {
    // No README that says it: the first top-level document with a purpose, named as such. The documents
    // that say what the project is come before the ones about working on it.
    const rank = (file: string) =>
      /^(index|overview|about|intro(duction)?|design|architecture|docs?)\./i.test(file)
        ? 0
        : /^(contributing|conventions|style|development|hacking)\b/i.test(file)
          ? 2
          : 1;
    const docs = [...okReads]
      .filter(([file]) => !file.includes("/") && MARKUP_NAME.test(file) && file !== readmeFile)
      .sort(([a], [b]) => rank(a) - rank(b));
    for (const [file, text] of docs) {
      const said = readmePurpose(text);
      if (!said) continue;
      purpose = `${said} (from ${code(file)}; ${readme ? "the README does not say" : "there is no README"})`;
      break;
    }
  }
  if (!purpose) {
    // A Go package says what it is in its package doc comment (doc.go by convention).
    const doc = ordered
      .filter(([file]) => file.endsWith(".go") && !file.includes("/") && !SECONDARY.test(file))
      .sort(([a], [b]) => Number(b === "doc.go") - Number(a === "doc.go"))
      .map(([file, text]) => docComment(file, text))
      .find((d) => d !== undefined);
    if (doc) purpose = `${doc} (from the package doc comment)`;
  }
  if (!purpose) {
    // Nothing else describes it: the doc comment of the first source file read (entry points come first).
    for (const [file, text] of ordered) {
      if (/\.(md|markdown|rst|adoc|txt|json|toml|ya?ml|cfg|xml)$/i.test(file)) continue;
      const doc = docComment(file, text);
      if (doc) {
        purpose = `${doc} (from the doc comment of ${code(file)})`;
        break;
      }
    }
  }
  if (!purpose) {
    const names = [...inventory.dependencies.keys()].map((p) => code(`${p}/`));
    purpose =
      files.length > 0
        ? `A folder of ${whole ? "" : "at least "}${files.length} file${files.length === 1 ? "" : "s"}${kindsNote(files)}; no README or manifest among the files read describes it.`
        : names.length > 0
          ? `A folder holding only dependency and build folders (${names.join(", ")}); nothing in it describes a project.`
          : inventory.surveyed
            ? "An empty folder."
            : "The folder could not be listed, so nothing describes it.";
  }

  // One line each: nothing read from the folder may start a heading or a list of its own.
  const out: string[] = [`# ${visible(title)}`, "", "## Purpose", "", paragraphLine(purpose), ""];
  out.push("## Layout", "", ...layoutLines(inventory), "");

  out.push("## Key files", "");
  if (reads.size === 0) out.push("No file was read.");
  for (const [file, read] of byRank) {
    out.push(
      read.ok
        ? `- ${code(file)} — ${visible(summarizeFile(file, read.text, headLinesOf(file)))}`
        : `- ${code(file)} — could not be read (${visible(read.text.split("\n")[0] ?? "")})`,
    );
  }
  out.push("");

  out.push("## How to run", "");
  const { managers, commands } = runCommands({
    files,
    reads: okReads,
    manifests,
    ...(metadata?.[1].readme ? { readme: { file: metadata[0], text: metadata[1].readme } } : {}),
  });
  if (managers.length > 0)
    out.push(
      `Package manager: ${managers.map((m) => `${m.name} (from ${code(m.evidence)})`).join(", ")}.`,
      "",
    );
  if (commands.length === 0) out.push("Nothing in the files read says how to run it.");
  for (const command of commands.slice(0, 30))
    out.push(
      `- ${code(command.command)}${command.note ? ` — ${visible(command.note)}` : ""} (${visible(command.source)})`,
    );
  if (commands.length > 30) out.push(`- … ${commands.length - 30} more`);
  out.push("");

  out.push("## At a glance", "");
  out.push(
    files.length > 0
      ? `- ${whole ? "" : "at least "}${files.length} file${files.length === 1 ? "" : "s"}${extensionCounts(files)}`
      : "- No files outside dependency and build folders",
  );
  const toolNames = [...new Set(knowledge.outcomes.map((o) => o.tool.replace("__", ".")))];
  out.push(
    `- Written offline from ${knowledge.calls} MCP tool call${knowledge.calls === 1 ? "" : "s"}: ${toolNames.join(", ")}`,
  );
  return `${out.join("\n").trimEnd()}\n`;
}

function byExtension(files: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const file of files) {
    const ext = /\.([A-Za-z0-9]+)$/.exec(file.split("/").at(-1) ?? "")?.[1]?.toLowerCase() ?? "(none)";
    counts.set(ext, (counts.get(ext) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function extensionCounts(files: readonly string[]): string {
  const kinds = byExtension(files);
  return kinds.length > 0 ? `: ${kinds.map(([ext, n]) => `${n} × ${ext}`).join(", ")}` : "";
}

function kindsNote(files: readonly string[]): string {
  const top = byExtension(files)
    .filter(([ext]) => ext !== "(none)")
    .slice(0, 3);
  return top.length > 0 ? ` (mostly ${top.map(([ext]) => `.${ext}`).join(", ")})` : "";
}
