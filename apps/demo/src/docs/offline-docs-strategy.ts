// The offline "model" of the Documentation agent: a real tool-calling strategy (list, tree, read key files)
// that writes the overview only from what the tools returned. Deterministic, so it runs in tests and with
// no provider key — and resumable, since every decision is derived from the conversation alone.
import type { ScriptContext, ScriptedReply, ScriptedToolCall } from "@agentforge/agent-runtime/testing";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";

const EXCLUDE = [
  ".git",
  "node_modules",
  "dist",
  "build",
  "coverage",
  ".agentforge",
  ".turbo",
  ".venv",
  "__pycache__",
  "target",
];
const KEY_FILE_PRIORITY: [RegExp, number][] = [
  [/^readme(\.[a-z]+)?$/i, 0],
  [/^package\.json$/, 1],
  [/^(pyproject\.toml|setup\.py|cargo\.toml|go\.mod|pom\.xml|build\.gradle|gemfile|composer\.json)$/i, 1],
  [/^(makefile|justfile|taskfile\.ya?ml)$/i, 2],
  [/^(dockerfile|docker-compose\.ya?ml|compose\.ya?ml)$/i, 3],
  [/^(requirements\.txt|tsconfig\.json|\.env\.example)$/i, 4],
  [/^(index|main|app|cli|server)\.(ts|js|mjs|cjs|py|go|rs|rb|java)$/i, 5],
];
const MAX_KEY_FILES = 8;
const HEAD_LINES = 60;

/** One entry of the filesystem server's directory_tree JSON. */
interface TreeEntry {
  name: string;
  type: "file" | "directory";
  children?: TreeEntry[];
}

interface ToolOutcome {
  tool: string;
  args: Record<string, unknown>;
  text: string;
  ok: boolean;
}

/** Pair every tool result with the call that produced it. */
function outcomes(messages: readonly BaseMessage[]): ToolOutcome[] {
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  const out: ToolOutcome[] = [];
  for (const message of messages) {
    if (message instanceof AIMessage)
      for (const call of message.tool_calls ?? []) if (call.id) calls.set(call.id, call);
    if (message instanceof ToolMessage) {
      const call = calls.get(message.tool_call_id);
      out.push({
        tool: call?.name ?? String(message.name),
        args: call?.args ?? {},
        text: typeof message.content === "string" ? message.content : JSON.stringify(message.content),
        ok: message.status !== "error",
      });
    }
  }
  return out;
}

function parseTree(text: string): TreeEntry[] | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as TreeEntry[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Flatten a tree into relative paths of files. */
function filesOf(entries: readonly TreeEntry[], prefix = ""): string[] {
  return entries.flatMap((entry) =>
    entry.type === "directory"
      ? filesOf(entry.children ?? [], `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

/** `[FILE] a` / `[DIR] b` lines of list_directory, as relative paths. */
function filesFromListing(text: string): string[] {
  return text
    .split("\n")
    .map((line) => /^\[FILE\]\s+(.+)$/.exec(line.trim())?.[1])
    .filter((name): name is string => Boolean(name));
}

function keyFiles(files: readonly string[]): string[] {
  const ranked = files
    .map((file) => {
      const base = file.split("/").at(-1) ?? file;
      const depth = file.split("/").length - 1;
      const rank = KEY_FILE_PRIORITY.find(([pattern]) => pattern.test(base))?.[1];
      return { file, score: rank === undefined ? Number.POSITIVE_INFINITY : rank * 10 + depth * 3 };
    })
    .filter((f) => Number.isFinite(f.score) && f.file.split("/").length <= 2)
    .sort((a, b) => a.score - b.score || a.file.localeCompare(b.file));
  return ranked.slice(0, MAX_KEY_FILES).map((f) => f.file);
}

function find(tools: readonly { name: string }[], suffix: string): string | undefined {
  return tools.find((t) => t.name.endsWith(`__${suffix}`))?.name;
}

/** Options of `createOfflineDocsStrategy`. */
export interface OfflineDocsOptions {
  /** The folder being documented, as the filesystem server sees it (its real path). */
  root: string;
  /** Name shown in the title when the files give none. */
  fallbackName: string;
}

/** The step function for `ScriptedChatModel`: decides each reply from the conversation so far. */
export function createOfflineDocsStrategy(options: OfflineDocsOptions) {
  const { root } = options;
  const abs = (relative: string) => `${root.replace(/\/$/, "")}/${relative}`;
  return (context: ScriptContext): ScriptedReply => {
    const done = outcomes(context.messages);
    const tools = context.tools;
    const thinking = find(tools, "sequentialthinking");
    const readText = find(tools, "read_text_file");
    const tree = find(tools, "directory_tree");
    const listing = find(tools, "list_directory");
    // Without tools (the budget is spent, or nothing was granted), write with what we have.
    if (tools.length === 0) return compose(done, options);
    const calls: ScriptedToolCall[] = [];
    if (done.length === 0) {
      if (listing) calls.push({ name: listing, args: { path: root } });
      if (tree) calls.push({ name: tree, args: { path: root, excludePatterns: EXCLUDE } });
      if (thinking) {
        calls.push({
          name: thinking,
          args: {
            thought: `Plan for ${options.fallbackName}: survey the layout, read the key files, then write purpose, layout, key files and how to run.`,
            thoughtNumber: 1,
            totalThoughts: 2,
            nextThoughtNeeded: true,
          },
        });
      }
      if (calls.length > 0) return { content: "Surveying the folder first.", toolCalls: calls };
      return compose(done, options);
    }
    const alreadyRead = done.some((o) => o.tool === readText);
    if (!alreadyRead && readText) {
      const files = surveyedFiles(done, tree, listing);
      for (const file of keyFiles(files))
        calls.push({ name: readText, args: { path: abs(file), head: HEAD_LINES } });
      if (thinking && calls.length > 0) {
        calls.push({
          name: thinking,
          args: {
            thought: `Key files to read: ${calls.map((c) => String(c.args.path).slice(root.length + 1)).join(", ")}.`,
            thoughtNumber: 2,
            totalThoughts: 2,
            nextThoughtNeeded: false,
          },
        });
      }
      if (calls.length > 0) return { content: "Reading the key files.", toolCalls: calls };
    }
    return compose(done, options);
  };
}

function surveyedFiles(
  done: readonly ToolOutcome[],
  tree: string | undefined,
  listing: string | undefined,
): string[] {
  const treeText = done.find((o) => o.tool === tree && o.ok)?.text;
  const parsed = treeText ? parseTree(treeText) : undefined;
  if (parsed) return filesOf(parsed);
  const listText = done.find((o) => o.tool === listing && o.ok)?.text;
  return listText ? filesFromListing(listText) : [];
}

function firstParagraph(markdown: string): string | undefined {
  const paragraphs = markdown
    .replace(/```[\s\S]*?```/g, "")
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p && !p.startsWith("#") && !p.startsWith("![") && !p.startsWith("[!["));
  return paragraphs[0]?.replace(/\s+/g, " ");
}

function readmeSection(markdown: string, names: RegExp): string | undefined {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => /^#{1,4}\s/.test(line) && names.test(line));
  if (start === -1) return undefined;
  const level = /^(#+)/.exec(lines[start] ?? "")?.[1]?.length ?? 2;
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const heading = /^(#+)\s/.exec(line);
    if (heading?.[1] && heading[1].length <= level) break;
    body.push(line);
  }
  const text = body.join("\n").trim();
  return text || undefined;
}

function describeFile(file: string, content: string): string {
  let text = content;
  const base = file.split("/").at(-1) ?? file;
  if (base === "package.json") {
    try {
      const pkg = JSON.parse(text) as { name?: string; version?: string; description?: string };
      return [`npm package \`${pkg.name ?? "?"}\`${pkg.version ? ` ${pkg.version}` : ""}`, pkg.description]
        .filter(Boolean)
        .join(": ");
    } catch {
      return "npm manifest";
    }
  }
  text = text.replace(/^#!.*\n/, ""); // a shebang is not a description
  const heading = /^#\s+(.+)$/m.exec(text)?.[1];
  if (heading) return heading.trim();
  const comment = /^\s*(?:\/\/|#|\/\*+|\*|"""|''')\s*(.{8,})$/m.exec(text)?.[1];
  if (comment) return comment.replace(/\*\/\s*$/, "").trim();
  const first = text.split("\n").find((line) => line.trim().length > 0);
  return first ? `starts with \`${first.trim().slice(0, 80)}\`` : "empty";
}

function layoutLines(entries: readonly TreeEntry[]): string[] {
  const lines: string[] = [];
  const sorted = [...entries].sort((a, b) =>
    a.type === b.type ? a.name.localeCompare(b.name) : a.type === "directory" ? -1 : 1,
  );
  for (const entry of sorted) {
    if (entry.type === "directory") {
      const files = filesOf(entry.children ?? []).length;
      lines.push(`${entry.name}/  (${files} file${files === 1 ? "" : "s"})`);
      const children = [...(entry.children ?? [])].sort((a, b) => a.name.localeCompare(b.name));
      for (const child of children.slice(0, 8))
        lines.push(`  ${child.name}${child.type === "directory" ? "/" : ""}`);
      if (children.length > 8) lines.push(`  … ${children.length - 8} more`);
    } else {
      lines.push(entry.name);
    }
  }
  return lines;
}

function compose(done: readonly ToolOutcome[], options: OfflineDocsOptions): string {
  const treeOutcome = done.find((o) => o.tool.endsWith("__directory_tree") && o.ok);
  const tree = treeOutcome ? parseTree(treeOutcome.text) : undefined;
  const listingText = done.find((o) => o.tool.endsWith("__list_directory") && o.ok)?.text;
  const files = tree ? filesOf(tree) : listingText ? filesFromListing(listingText) : [];
  const reads = done
    .filter((o) => o.tool.endsWith("__read_text_file"))
    .map((o) => ({
      file: String(o.args.path ?? "").slice(options.root.replace(/\/$/, "").length + 1),
      text: o.text,
      ok: o.ok,
    }));
  const okReads = reads.filter((r) => r.ok);
  const readme = okReads.find((r) => /^readme(\.[a-z]+)?$/i.test(r.file));
  const pkgRead = okReads.find((r) => r.file === "package.json");
  let pkg: { name?: string; description?: string; scripts?: Record<string, string> } | undefined;
  try {
    pkg = pkgRead ? JSON.parse(pkgRead.text) : undefined;
  } catch {
    pkg = undefined;
  }
  const title =
    pkg?.name ?? (readme ? /^#\s+(.+)$/m.exec(readme.text)?.[1]?.trim() : undefined) ?? options.fallbackName;
  const purpose =
    (readme ? firstParagraph(readme.text) : undefined) ??
    pkg?.description ??
    `A folder of ${files.length} file${files.length === 1 ? "" : "s"}; no README or manifest describes it.`;

  const out: string[] = [`# ${title}`, "", "## Purpose", "", purpose, ""];
  out.push("## Layout", "");
  if (tree && tree.length > 0) out.push("```text", ...layoutLines(tree), "```", "");
  else if (files.length > 0) out.push(...files.slice(0, 30).map((f) => `- \`${f}\``), "");
  else out.push("The folder could not be listed.", "");

  out.push("## Key files", "");
  if (reads.length === 0) out.push("No file was read.");
  for (const read of reads) {
    out.push(
      read.ok
        ? `- \`${read.file}\` — ${describeFile(read.file, read.text)}`
        : `- \`${read.file}\` — could not be read (${read.text.split("\n")[0]})`,
    );
  }
  out.push("");

  out.push("## How to run", "");
  const how: string[] = [];
  const scripts = Object.entries(pkg?.scripts ?? {});
  if (scripts.length > 0) {
    how.push("Install the dependencies with `npm install`, then:", "");
    for (const [name, command] of scripts) how.push(`- \`npm run ${name}\` — runs \`${command}\``);
  }
  const makefile = okReads.find((r) => /^makefile$/i.test(r.file));
  if (makefile) {
    const targets = [...makefile.text.matchAll(/^([A-Za-z0-9_.-]+):(?!=)/gm)]
      .map((m) => m[1])
      .filter((t) => t && !t.startsWith("."));
    if (targets.length > 0) how.push(`- Make targets: ${targets.map((t) => `\`make ${t}\``).join(", ")}`);
  }
  const usage = readme
    ? readmeSection(readme.text, /usage|getting started|quick ?start|run|install/i)
    : undefined;
  if (usage) how.push("", "From the README:", "", usage);
  out.push(...(how.length > 0 ? how : ["Nothing in the files read says how to run it."]), "");

  const byExtension = new Map<string, number>();
  for (const file of files) {
    const ext = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase() ?? "(none)";
    byExtension.set(ext, (byExtension.get(ext) ?? 0) + 1);
  }
  const kinds = [...byExtension.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  out.push("## At a glance", "");
  out.push(
    `- ${files.length} file${files.length === 1 ? "" : "s"}${kinds.length > 0 ? `: ${kinds.map(([ext, n]) => `${n} × ${ext}`).join(", ")}` : ""}`,
  );
  const toolNames = [...new Set(done.map((o) => o.tool.replace("__", ".")))];
  out.push(
    `- Written offline from ${done.length} MCP tool call${done.length === 1 ? "" : "s"}: ${toolNames.join(", ")}`,
  );
  return `${out.join("\n").trimEnd()}\n`;
}
