// What a README says: its title, its first prose paragraph (whatever the heading style, comments or
// badges before it), and the commands it shows in code spans and fenced blocks.

/** A README's file name (`README`, `README.md`, `readme.rst`, ...). */
export const README_NAME = /^readme(\.[a-z]+)?$/i;
/** A markup document, read the way a README is: Markdown, reStructuredText, AsciiDoc. */
export const MARKUP_NAME = /\.(md|markdown|rst|adoc)$/i;

/** A command and where it came from (`README.md`, `package.json scripts`, …). */
export interface RunCommand {
  command: string;
  source: string;
  /** What it does, when the source says. */
  note?: string;
}

/** Words that start a command someone runs in a shell. */
const COMMAND_WORDS = new Set(
  (
    "npm npx pnpm pnpx yarn bun bunx node deno tsx ts-node python python3 py pip pip3 pipx uv uvx poetry pdm " +
    "pipenv hatch tox pytest cargo rustc go make just task docker docker-compose podman bash sh zsh java mvn " +
    "gradle ./gradlew ./mvnw composer php ruby bundle rake rails dotnet gcc cc clang cmake ninja flask " +
    "uvicorn gunicorn streamlit jupyter mix elixir swift kubectl helm terraform"
  ).split(" "),
);
const SHELL_FENCES = new Set([
  "",
  "sh",
  "bash",
  "shell",
  "console",
  "zsh",
  "shell-session",
  "terminal",
  "cmd",
]);

/** Whether a line looks like a command (its first word is a known tool, or a relative script path). */
export function looksLikeCommand(line: string): boolean {
  const first = line.trim().split(/\s+/)[0] ?? "";
  if (COMMAND_WORDS.has(first)) return true;
  return /^\.{1,2}\/[\w./-]+$/.test(first) || /^[\w./-]+\.(sh|py|js|mjs|ts|rb|pl)$/.test(first);
}

/** The README with HTML comments and front matter removed; reStructuredText is read as Markdown. */
function clean(markdown: string): string {
  const text = markdown.replace(/\r\n?/g, "\n").replace(/^---\n[\s\S]*?\n---\n/, "");
  return (looksLikeRst(text) ? rstAsMarkdown(text) : text).replace(/<!--[\s\S]*?(-->|$)/g, "");
}

/** reStructuredText's section adornment characters (a line of one of them, 3 or more). */
const RST_ADORNMENT = /^([=\-~^"'`#*+:._])\1{2,}$/;

/**
 * Whether a README is reStructuredText: a directive (`.. image::`), or — in a text with no Markdown
 * heading or code fence — an overlined title or a `::` literal block. (A Markdown fence around one line,
 * ```` ``` ```` / `npm i` / ```` ``` ````, looks like an overlined title: Markdown is never read as RST.)
 */
function looksLikeRst(text: string): boolean {
  if (/^\.\. [\w|:-][^\n]*::/m.test(text)) return true;
  if (/^#{1,6}\s/m.test(text) || /^\s*(`{3,}|~{3,})/m.test(text)) return false;
  return /^([=\-^"'#*+])\1{2,}\n[^\n]+\n\1{3,}$/m.test(text) || /::\n\n[ \t]+\S/.test(text);
}

/**
 * reStructuredText turned into the Markdown `readmeBlocks` reads: titles (overlined or underlined with
 * any adornment) become `#` headings, directives and comments are dropped except code blocks, literal
 * blocks (`::`) become fences, and inline literals and links keep their text.
 */
function rstAsMarkdown(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  const indented = (line: string | undefined) => line !== undefined && /^[ \t]+\S/.test(line);
  // The indented block that starts at `from` (blank lines inside it included): its end index.
  const blockEnd = (from: number) => {
    let end = from;
    while (end < lines.length && (indented(lines[end]) || (!lines[end]?.trim() && indented(lines[end + 1]))))
      end++;
    return end;
  };
  const fence = (body: string[], lang = "") => {
    const margin = Math.min(...body.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0));
    out.push(`\`\`\`${lang}`, ...body.map((l) => l.slice(margin)), "```");
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const trimmed = line.trim();
    const previousBlank = i === 0 || !lines[i - 1]?.trim();
    // Overlined title: adornment, text, the same adornment.
    if (
      previousBlank &&
      RST_ADORNMENT.test(trimmed) &&
      lines[i + 2]?.trim() === trimmed &&
      lines[i + 1]?.trim()
    ) {
      out.push(`# ${(lines[i + 1] as string).trim()}`, "");
      i += 2;
      continue;
    }
    // Underlined title: text, then an adornment at least as long.
    const under = lines[i + 1]?.trim() ?? "";
    if (
      previousBlank &&
      trimmed &&
      !/^\.\./.test(trimmed) &&
      RST_ADORNMENT.test(under) &&
      under.length >= trimmed.length
    ) {
      out.push(`# ${trimmed}`, "");
      i += 1;
      continue;
    }
    // Directives and comments: code blocks kept as fences, everything else (images, badges...) dropped.
    if (/^\.\.(\s|$)/.test(line)) {
      const code = /^\.\.\s+(?:code-block|code|sourcecode)::\s*(\S*)/.exec(line);
      let body = i + 1;
      while (body < lines.length && /^[ \t]+:[\w-]+:/.test(lines[body] as string)) body++; // options
      const end = blockEnd(body);
      if (code)
        fence(
          lines.slice(body, end).filter((l, k, all) => l.trim() || k < all.length - 1),
          code[1],
        );
      i = end - 1;
      continue;
    }
    // A literal block: the paragraph's `::` becomes `:` (or goes, alone), its indented block a fence.
    if (/::$/.test(trimmed)) {
      const rest = trimmed === "::" ? "" : line.replace(/::\s*$/, ":");
      if (rest) out.push(rest);
      let start = i + 1;
      while (start < lines.length && !lines[start]?.trim()) start++;
      if (indented(lines[start])) {
        const end = blockEnd(start);
        out.push("");
        fence(lines.slice(start, end));
        i = end - 1;
      }
      continue;
    }
    out.push(
      line
        .replace(/``([^`]+)``/g, "`$1`")
        .replace(/`([^`<]+?)\s*<[^>]+>`__?/g, "$1")
        .replace(/\|[\w -]+\|_{0,2}/g, "")
        .replace(/:[\w-]+:`([^`]+)`/g, "`$1`"),
    );
  }
  return out.join("\n");
}

interface Block {
  kind: "heading" | "paragraph" | "fence" | "other";
  text: string;
  /** Fences: the info string's first word. */
  lang?: string;
  /** The heading the block sits under. */
  section?: string;
}

const BADGE =
  /^(?:\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)|!\[[^\]]*\]\([^)]*\)|\[!\[[^\]]*\]\[[^\]]*\]\]\[[^\]]*\]|\s)+$/;
const HTML_ONLY = /^(?:<[^>]+>\s*)+$/;

/** Split a README into headings, paragraphs and fenced blocks. */
export function readmeBlocks(markdown: string): Block[] {
  const lines = clean(markdown).split("\n");
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let section: string | undefined;
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ kind: "paragraph", text: paragraph.join("\n"), section });
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const trimmed = line.trim();
    const fence = /^(`{3,}|~{3,})\s*([\w+-]*)/.exec(trimmed);
    if (fence) {
      flush();
      const body: string[] = [];
      const marker = fence[1] as string;
      for (i++; i < lines.length && !(lines[i] as string).trim().startsWith(marker); i++)
        body.push(lines[i] as string);
      blocks.push({ kind: "fence", text: body.join("\n"), lang: (fence[2] ?? "").toLowerCase(), section });
      continue;
    }
    const atx = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(trimmed);
    const html = /^<h[1-6][^>]*>(.*?)<\/h[1-6]>\s*$/i.exec(trimmed);
    const next = lines[i + 1]?.trim() ?? "";
    const setext = paragraph.length === 0 && trimmed && /^(=+|-+)$/.test(next) && !HTML_ONLY.test(trimmed);
    if (atx || html || setext) {
      flush();
      section = stripInline((atx?.[1] ?? html?.[1] ?? trimmed).replace(/<[^>]+>/g, "")).trim();
      blocks.push({ kind: "heading", text: section });
      if (setext) i++;
      continue;
    }
    if (!trimmed) {
      flush();
      continue;
    }
    if (BADGE.test(trimmed) || HTML_ONLY.test(trimmed) || /^\[[^\]]+\]:\s+\S+/.test(trimmed)) {
      flush();
      const text = trimmed.replace(/<[^>]+>/g, "").trim();
      // An HTML line that carries words (`<p>Fast tide tables.</p>`) is a paragraph.
      if (HTML_ONLY.test(trimmed) || !text) continue;
      if (/[a-z]{3,}.*\s.*[a-z]{3,}/i.test(text)) paragraph.push(text);
      continue;
    }
    // A collapsed section's label (`<summary>Table of Contents</summary>`) is not prose.
    if (/^<summary\b/i.test(trimmed) || /^<\/?details\b/i.test(trimmed)) {
      flush();
      continue;
    }
    if (/^(\*{3,}|-{3,}|_{3,})$/.test(trimmed)) {
      flush();
      continue;
    }
    paragraph.push(line.replace(/<\/?(p|div|span|br|b|i|em|strong)[^>]*>/gi, "").trimEnd());
  }
  flush();
  return blocks;
}

/** Markdown inline syntax removed (links keep their text, code keeps its backticks). */
function stripInline(text: string): string {
  return text
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/!\[[^\]]*\]\[[^\]]*\]/g, "")
    .replace(/\[\s*\](?:\([^)]*\)|\[[^\]]*\])/g, "") // a link left empty by its badge image
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/\s+/g, " ")
    .trim();
}

/** Whether a paragraph is prose (not a list, table, quote or a line of links). */
function isProse(text: string): boolean {
  const first = text.trim();
  if (/^([-*+]|\d+[.)])\s/.test(first) || first.startsWith("|") || first.startsWith(">")) return false;
  const plain = stripInline(first);
  // Chinese and Japanese put no spaces between words: six such characters make a sentence.
  if ((plain.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0) >= 6)
    return true;
  const words = plain.split(/\s+/).filter((w) => /\p{L}/u.test(w));
  return words.length >= 3;
}

/** The README's title: its first heading. */
export function readmeTitle(markdown: string): string | undefined {
  return readmeBlocks(markdown).find((b) => b.kind === "heading" && b.text)?.text;
}

/** The README's first prose paragraph, on one line. */
export function readmePurpose(markdown: string): string | undefined {
  const paragraph = readmeBlocks(markdown).find((b) => b.kind === "paragraph" && isProse(b.text));
  if (!paragraph) return undefined;
  const text = stripInline(paragraph.text);
  // "… This library:" introduces a list the paragraph does not hold: the dangling sentence is left out.
  const dangling = /^(.*[.!?])\s+[^.!?]*:$/.exec(text) ?? /^(.*[。！？])[^。！？]*[:：]$/.exec(text);
  return dangling?.[1] ?? text;
}

/** Commands the README shows: shell fences (each command line) and inline code spans that are commands. */
export function readmeCommands(markdown: string, file = "README.md"): RunCommand[] {
  const out: RunCommand[] = [];
  const blocks = readmeBlocks(markdown);
  const title = blocks.find((b) => b.kind === "heading")?.text;
  const source = (section?: string) => (section && section !== title ? `${file}, “${section}”` : file);
  for (const block of blocks) {
    if (block.kind === "fence") {
      if (!SHELL_FENCES.has(block.lang ?? "")) continue;
      const prompted = block.text.split("\n").some((l) => /^\s*[$>]\s/.test(l));
      for (const raw of block.text.split("\n")) {
        let line = raw.trim();
        if (prompted) {
          if (!/^[$>]\s/.test(line)) continue; // output lines of a console session
          line = line.slice(2).trim();
        }
        if (!line || line.startsWith("#") || line.endsWith("\\")) continue;
        if (block.lang === "" && !looksLikeCommand(line)) continue;
        if (/^(cd|export|set|source|echo)\b/.test(line)) continue;
        out.push({ command: line, source: source(block.section) });
      }
    } else if (block.kind === "paragraph") {
      for (const match of block.text.matchAll(/`([^`\n]+)`/g)) {
        const span = (match[1] ?? "").trim().replace(/^\$\s+/, "");
        const plausible = span.includes(" ") || /^(\.\/|(make|just|pytest|tox)$)/.test(span);
        if (plausible && looksLikeCommand(span)) out.push({ command: span, source: source(block.section) });
      }
    }
  }
  return out;
}
