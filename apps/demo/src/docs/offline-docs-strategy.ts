// The offline "model" of the Documentation agent: a real tool-calling strategy that surveys the folder
// (listing and tree), reads its key files several per round, and writes the overview only from what the
// tools returned. Deterministic, so it runs in tests and with no provider key — and resumable, since
// every decision is derived from the conversation alone. The parsing pieces live in ./offline/.
import type { ScriptContext, ScriptedReply, ScriptedToolCall } from "@agentforge/agent-runtime/testing";
import { pickKeyFiles } from "./offline/key-files.js";
import {
  DEPENDENCY_FOLDERS,
  Inventory,
  layoutLines,
  parseListingReply,
  parseTreeReply,
} from "./offline/layout.js";
import { type Manifest, parseManifest } from "./offline/manifests.js";
import { code, paragraphLine, visible } from "./offline/markdown.js";
import { MARKUP_NAME, README_NAME, readmePurpose, readmeTitle } from "./offline/readme.js";
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
        info.count === undefined && !path.includes("/") && !made.has(`list_directory|${path}`),
    );
    for (const [path] of uncounted.slice(0, budget.dependencyListsPerRound))
      calls.push({ name: listing, args: { path: abs(path) } });
  }
  if (readText) {
    const readSoFar = knowledge.reads.size;
    const limit = inventory.isWhole()
      ? budget.maxFilesRead
      : Math.min(budget.maxFilesRead, readSoFar + budget.earlyReads);
    const wanted = pickKeyFiles(inventory.files(), budget.maxFilesRead).filter(
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

/** How many lines of `file` are read: manifests and config files whole (undefined), the rest their head. */
function headLinesOf(file: string): number | undefined {
  const base = file.split("/").at(-1) ?? file;
  if (/\.(json|toml|mod|cfg|ya?ml)$/.test(base)) return undefined;
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

function compose(knowledge: Knowledge, options: OfflineDocsOptions): string {
  const { inventory, reads } = knowledge;
  const okReads = new Map([...reads].filter(([, r]) => r.ok).map(([file, r]) => [file, r.text]));
  const manifests = new Map<string, Manifest>();
  for (const [file, text] of okReads) {
    const manifest = parseManifest(file, text);
    if (manifest) manifests.set(file, manifest);
  }
  const readmeFile = [...okReads.keys()].find((f) => README_NAME.test(f));
  const readme = readmeFile ? okReads.get(readmeFile) : undefined;
  const rootManifest = [
    "package.json",
    "pyproject.toml",
    "Cargo.toml",
    "composer.json",
    "go.mod",
    "setup.cfg",
    "pom.xml",
    "CMakeLists.txt",
    "deno.json",
  ]
    .map((f) => manifests.get(f))
    .find((m) => m !== undefined);
  const files = inventory.files();
  const whole = inventory.isWhole();

  const title = (readme ? readmeTitle(readme) : undefined) ?? rootManifest?.name ?? options.fallbackName;
  let purpose = readme ? readmePurpose(readme) : undefined;
  if (!purpose) {
    // The root's manifest first, else the shallowest one that describes its project (named by its path).
    const described = [...manifests]
      .filter(([, m]) => m.description)
      .sort(([a], [b]) => a.split("/").length - b.split("/").length)[0];
    if (described) purpose = `${described[1].description} (from ${code(described[0])})`;
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
  if (!purpose && manifests.has("go.mod")) {
    const doc = [...okReads]
      .filter(([file]) => file.endsWith(".go"))
      .map(([file, text]) => docComment(file, text))
      .find((d) => d !== undefined);
    if (doc) purpose = `${doc} (from the package doc comment)`;
  }
  if (!purpose) {
    // Nothing else describes it: the doc comment of the first source file read (entry points come first).
    for (const [file, text] of okReads) {
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
  for (const [file, read] of reads) {
    out.push(
      read.ok
        ? `- ${code(file)} — ${visible(summarizeFile(file, read.text, headLinesOf(file)))}`
        : `- ${code(file)} — could not be read (${visible(read.text.split("\n")[0] ?? "")})`,
    );
  }
  out.push("");

  out.push("## How to run", "");
  const { managers, commands } = runCommands({ files, reads: okReads, manifests });
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
