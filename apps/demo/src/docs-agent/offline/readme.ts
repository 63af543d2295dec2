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

/** Whether a line looks like a command (its first word is a known tool, or a relative script path). */
export function looksLikeCommand(line: string): boolean {
  // `GO111MODULE=on go get …`: the command is the first word after the environment assignments.
  const words = line.trim().split(/\s+/);
  const first = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=\S*$/.test(w)) ?? "";
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
    out.push(line);
  }
  // Inline markup, over line breaks: literals, links (`text <url>`_), substitutions and roles.
  return out
    .join("\n")
    .replace(/``([^`\n]+)``/g, "`$1`")
    .replace(/(^|[^`])`([^`<]+?)\s*<[^>\n]+>`__?/g, "$1$2")
    .replace(/\|[\w -]+\|_{0,2}/g, "")
    .replace(/:[\w-]+:`([^`]+)`/g, "`$1`")
    .replace(/`([^`\n]+)`_{1,2}/g, "$1");
}

interface Block {
  kind: "heading" | "paragraph" | "fence" | "other";
  text: string;
  /** Headings: the text as written (badges, entities and HTML included), for the title. */
  raw?: string;
  /** Fences: an indented code block (no info string, so only lines that look like commands count). */
  indented?: boolean;
  /** Fences: the info string's first word. */
  lang?: string;
  /** The heading the block sits under. */
  section?: string;
}

const BADGE =
  /^(?:\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)|!\[[^\]]*\]\([^)]*\)|\[!\[[^\]]*\]\[[^\]]*\]\]\[[^\]]*\]|\s)+$/;
const HTML_ONLY = /^(?:<[^>]+>\s*)+$/;

/** An HTML line that opens a block of HTML (CommonMark's HTML blocks: a tag at the start of the line). */
const HTML_START = /^<\/?[A-Za-z][\w-]*(\s|\/?>|$)/;

/** Split a README into headings, paragraphs and fenced (or indented) code blocks. */
export function readmeBlocks(markdown: string): Block[] {
  const lines = clean(markdown).split("\n");
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let section: string | undefined;
  /** Whether the last block was a list (an indented line after it continues an item, not code). */
  let inList = false;
  const flush = () => {
    if (paragraph.length > 0) {
      const text = paragraph.join("\n");
      blocks.push({ kind: "paragraph", text, section });
      inList = /^\s*([-*+]|\d+[.)])\s/.test(text);
    }
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
      inList = false;
      continue;
    }
    // An indented code block: four spaces (or a tab) after a blank line, outside a list.
    if (paragraph.length === 0 && !inList && /^( {4}|\t)\s*\S/.test(line)) {
      const body: string[] = [];
      for (; i < lines.length; i++) {
        const next = lines[i] as string;
        if (/^( {4}|\t)/.test(next) || (!next.trim() && /^( {4}|\t)\s*\S/.test(lines[i + 1] ?? "")))
          body.push(next.replace(/^( {4}|\t)/, ""));
        else break;
      }
      i--;
      blocks.push({ kind: "fence", text: body.join("\n"), lang: "", indented: true, section });
      continue;
    }
    const atx = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(trimmed);
    const html = /^<h[1-6][^>]*>(.*?)<\/h[1-6]>\s*$/i.exec(trimmed);
    const next = lines[i + 1]?.trim() ?? "";
    const setext = paragraph.length === 0 && trimmed && /^(=+|-+)$/.test(next) && !HTML_ONLY.test(trimmed);
    if (atx || html || setext) {
      flush();
      const raw = atx?.[1] ?? html?.[1] ?? trimmed;
      section = stripInline(raw.replace(/<[^>]+>/g, "")).trim();
      blocks.push({ kind: "heading", text: section, raw });
      inList = false;
      if (setext) i++;
      continue;
    }
    if (!trimmed) {
      flush();
      continue;
    }
    // A link reference definition (`[ci]: https://…`, badge targets) is never prose.
    if (/^\[[^\]]+\]:\s*\S/.test(trimmed)) {
      flush();
      continue;
    }
    // An HTML block (logos, sponsor tables, centred badges): everything up to the next blank line. A
    // single line that carries words (`<p>Fast tide tables.</p>`) is a paragraph.
    if (paragraph.length === 0 && HTML_START.test(trimmed)) {
      const block: string[] = [trimmed];
      while (i + 1 < lines.length && (lines[i + 1] as string).trim())
        block.push((lines[++i] as string).trim());
      const text = block
        .join(" ")
        .replace(/<[^>]*>/g, " ")
        .replace(/\s+/g, " ")
        .trim();
      const oneLine = block.length === 1 || (block.length === 2 && /^<\/[\w-]+>$/.test(block[1] as string));
      if (
        oneLine &&
        text &&
        !/^<(img|picture|source|a|br|hr)\b/i.test(trimmed) &&
        /[a-z]{3,}.*\s.*[a-z]{3,}/i.test(text)
      )
        blocks.push({ kind: "paragraph", text, section });
      inList = false;
      continue;
    }
    if (BADGE.test(trimmed) || HTML_ONLY.test(trimmed)) {
      flush();
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
    // Inline images are logos and badges (`[<img alt="ci" …>](…)`): a line of nothing else is skipped.
    const kept = line
      .replace(/<img\b[^>]*>/gi, "")
      .replace(/<\/?(p|div|span|br|b|i|em|strong|sup|sub|a)\b[^>]*>/gi, "");
    if (!kept.trim() || BADGE.test(kept.replace(/\[\s*\]\([^)]*\)/g, " "))) {
      if (kept.trim() !== trimmed) {
        flush();
        continue;
      }
    }
    paragraph.push(kept.trimEnd());
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

/** Headings that name a section, never a project (a README whose first heading is one has no title). */
const GENERIC_HEADING =
  /^(features|highlights|info|information|intro(duction)?|overview|about|description|summary|synopsis|contents|table of contents|toc|install(ation|ing)?|setup|usage|getting started|quick ?start|documentation|docs|examples?|readme|sponsors?|licen[cs]e|status|motivation|why|background|news|changelog|notes?)$/i;

/** Sections whose paragraphs introduce the project. */
const INTRO_HEADING =
  /^(overview|about|description|intro(duction)?|summary|synopsis|abstract|what is\b.*|what\b.*\?|features|highlights)$/i;

/** Sections whose paragraphs are about anything but what the project is. */
const NOT_ABOUT_IT =
  /^(licen[cs]e|licen[cs]ing|contribut\w*|sponsors?|backers?|supporters?|support|security|changelog|change log|history|credits|authors?|maintainers?|acknowledge?ments?|thanks|donat\w*|funding|code of conduct|community|related|see also|alternatives)\b/i;

/** The decoded character of an HTML character reference (the common named ones and any numeric one). */
const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ensp: " ",
  emsp: " ",
  thinsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  middot: "·",
  bull: "•",
  copy: "©",
  reg: "®",
  trade: "™",
  rarr: "→",
  larr: "←",
};

/** HTML character references decoded (unknown names are dropped, never kept as `&name;`). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z][a-z0-9]{1,10});/gi, (_, name: string) => {
    if (name.startsWith("#")) {
      const point =
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return point > 31 && point <= 0x10ffff && !(point >= 0xd800 && point <= 0xdfff)
        ? String.fromCodePoint(point)
        : "";
    }
    return ENTITIES[name.toLowerCase()] ?? "";
  });
}

/**
 * A heading as a project's name: badges, images, HTML and entities removed, Markdown escapes undone, and
 * whatever follows a spacer (`&ensp;`, `&emsp;`, a badge) — decoration such as emoji art — left out.
 */
export function cleanTitle(raw: string): string | undefined {
  const CUT = "\u0001";
  const text = raw
    .replace(/\[!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])?\](?:\([^)]*\)|\[[^\]]*\])?/g, CUT) // linked badges
    .replace(/!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])?/g, CUT) // images
    .replace(/<img\b[^>]*>/gi, CUT)
    .replace(/<[^>]*>/g, "")
    .replace(/&(ensp|emsp|emsp13|emsp14|nbsp|thinsp);|&#(8194|8195|160|x2002|x2003|xa0);/gi, CUT);
  const part = text
    .split(CUT)
    .map((p) => p.trim())
    .find((p) => /[\p{L}\p{N}]/u.test(p));
  if (!part) return undefined;
  const title = stripInline(decodeEntities(part))
    .replace(/\\([\\`*_{}[\]()#+\-.!|~<>$])/g, "$1")
    .replace(/\p{Extended_Pictographic}|\u{FE0F}|\u{200D}/gu, "")
    .replace(/^[^\p{L}\p{N}`(@.*_]+/u, "")
    .replace(/\s+/g, " ")
    .trim();
  // Trailing symbols go (`click_`, `Anyhow ¯\_(ツ)_/¯`), except what closes an emphasis (`*tides*`).
  let end = title.length;
  while (end > 0 && !/[\p{L}\p{N}`)!?+]/u.test(title[end - 1] as string)) {
    const char = title[end - 1] as string;
    if ((char === "*" || char === "_") && (title.slice(0, end - 1).split(char).length - 1) % 2 === 1) break;
    end--;
  }
  return title.slice(0, end).trim() || undefined;
}

/** The README's title: its first heading, when it opens the README and names the project (not a section). */
export function readmeTitle(markdown: string): string | undefined {
  for (const block of readmeBlocks(markdown)) {
    if (block.kind === "paragraph" && isProse(block.text)) return undefined;
    if (block.kind !== "heading" || !block.text) continue;
    if (GENERIC_HEADING.test(block.text.replace(/[:.!]+$/, ""))) return undefined;
    return cleanTitle(block.raw ?? block.text);
  }
  return undefined;
}

/** A paragraph that is a note, a licence line, a sponsor line or a row of links: never the description. */
function isAside(text: string): boolean {
  const plain = stripInline(text);
  if (
    /^(\*\*|__)?\s*(important|note|notice|warning|caution|tip|hint|disclaimer|deprecated|attention|heads[- ]up|update)\b/i.test(
      text,
    )
  )
    return true;
  if (/^[\u{26A0}\u{2139}\u{1F6A8}\u{1F4E2}\u{1F6A7}]/u.test(plain)) return true;
  if (/^(this (project|library|crate|package|software|code) is )?(dual[- ])?licen[sc]ed\b/i.test(plain))
    return true;
  if (
    /\b(sponsor(ed|s|ing)?|supported by the community|special thanks|backers|donat(e|ion)|patreon|open ?collective|buy me a coffee)\b/i.test(
      plain,
    )
  )
    return true;
  return (plain.match(/\s[|·•]\s/g)?.length ?? 0) >= 2;
}

/** Whether a paragraph says what something is: a sentence of some length, not a lead-in to a list or code. */
function isSentence(text: string): boolean {
  if (/^(\.\.\.|…)/.test(text)) return false;
  if ((text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0) >= 6) return true;
  const words = text.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length;
  if (/[:：]$/.test(text)) return false;
  return words >= 4 && (/[.!?。]$/.test(text) || words >= 8);
}

/** A paragraph on one line, its inline syntax removed, a dangling lead-in sentence left out. */
function paragraphText(text: string): string {
  const plain = stripInline(text);
  // "… This library:" introduces a list the paragraph does not hold: the dangling sentence is left out.
  const dangling = /^(.*[.!?])\s+[^.!?]*:$/.exec(plain) ?? /^(.*[。！？])[^。！？]*[:：]$/.exec(plain);
  return dangling?.[1] ?? plain;
}

/** What the README says the project is, and whether it says so in its opening. */
export interface ReadmeDescription {
  text: string;
  /**
   * Found in the README's opening (before any section other than the title and an introduction), so a
   * description of the project; otherwise only the first prose paragraph found further down.
   */
  opening: boolean;
}

/**
 * The README's description: the first paragraph of its opening that is a sentence (HTML blocks, badges,
 * notes, sponsor lines, link rows and lead-ins skipped); else the first prose paragraph outside the
 * sections about licences, sponsors and contributing.
 */
export function readmeDescription(markdown: string): ReadmeDescription | undefined {
  const blocks = readmeBlocks(markdown);
  let opening = true;
  let titleSeen = false;
  let fallback: string | undefined;
  for (const block of blocks) {
    if (block.kind === "heading") {
      const name = block.text.replace(/[:.!?]+$/, "");
      if (!titleSeen && !GENERIC_HEADING.test(name)) titleSeen = true;
      else if (!INTRO_HEADING.test(name)) opening = false;
      continue;
    }
    if (block.kind !== "paragraph" || !isProse(block.text) || isAside(block.text)) continue;
    if (block.section && NOT_ABOUT_IT.test(block.section)) continue;
    const text = paragraphText(block.text);
    if (opening && isSentence(text)) return { text, opening: true };
    fallback ??= text;
  }
  return fallback ? { text: fallback, opening: false } : undefined;
}

/** The README's description on one line (see `readmeDescription`). */
export function readmePurpose(markdown: string): string | undefined {
  return readmeDescription(markdown)?.text;
}

/** Fences of shell scripts: every line is a command (comments and output-looking lines aside). */
const SCRIPT_FENCES: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "shell",
  "zsh",
  "fish",
  "powershell",
  "ps1",
  "pwsh",
  "cmd",
  "bat",
  "batch",
]);
/** Fences of terminal sessions or plain text: prompted lines, else lines that look like commands. */
const SESSION_FENCES: ReadonlySet<string> = new Set([
  "",
  "console",
  "shell-session",
  "sh-session",
  "bash-session",
  "terminal",
  "text",
  "plaintext",
  "txt",
]);
/** A prompt before a command in a session: `$ `, `% `, `> ` (PowerShell, cmd), `PS> `. */
const PROMPT = /^(?:\$|%|>|PS>|PS [^>]*>)\s+/;
/** A line of program output in a script fence: `Error: …`, `Caused by:`, a line opening with a symbol. */
const OUTPUT_LINE = /^(?:[A-Z][\w -]{0,40}:(?:\s|$)|(?:error|warning|caused by|note|info)\b)|^[^\w./~"'-]/i;
/** Cargo tables a README's TOML block adds dependencies to. */
const DEPENDENCY_TABLE = /^\[((?:target\.[^\]]+\.)?(?:dev-|build-)?dependencies)\]$/;

/** A command line without its trailing comment (`py --list  # see versions` → `py --list`). */
function withoutComment(line: string): string {
  return line.replace(/\s+#\s.*$/, "").trim();
}

/** The commands of one fenced or indented block (none for code in a programming language). */
function blockCommands(block: Block): { command: string; note?: string }[] {
  const lang = block.indented ? "" : (block.lang ?? "");
  const lines = block.text.split("\n").map((l) => l.trim());
  if (lang === "toml") {
    // The lines a user pastes into Cargo.toml, under the table they go to.
    const out: { command: string; note: string }[] = [];
    let table = "";
    for (const line of lines) {
      const header = /^\[[^\]]+\]$/.exec(line);
      if (header) table = DEPENDENCY_TABLE.exec(line)?.[1] ?? "";
      else if (table && /^[\w-]+\s*=\s*\S/.test(line))
        out.push({ command: withoutComment(line), note: `a line for Cargo.toml's [${table}]` });
    }
    return out.slice(0, 4);
  }
  const script = SCRIPT_FENCES.has(lang);
  if (!script && !SESSION_FENCES.has(lang)) return [];
  const prompted = lines.some((l) => PROMPT.test(l));
  const out: { command: string }[] = [];
  for (const raw of lines) {
    let line = raw;
    if (prompted) {
      const prompt = PROMPT.exec(line);
      if (!prompt) continue; // output lines of a session
      line = line.slice(prompt[0].length);
    } else if (script ? OUTPUT_LINE.test(line) : !looksLikeCommand(line)) continue;
    line = withoutComment(line);
    if (!line || line.startsWith("#") || line.endsWith("\\")) continue;
    if (/^(cd|export|set|source|echo|rem|::)\b/i.test(line)) continue;
    out.push({ command: line });
  }
  return out;
}

/**
 * Commands the README shows: shell scripts, session prompts, indented blocks and plain blocks whose
 * lines look like commands, dependency lines of TOML blocks, and inline code spans that are commands —
 * never a line of program output.
 */
export function readmeCommands(markdown: string, file = "README.md"): RunCommand[] {
  const out: RunCommand[] = [];
  const blocks = readmeBlocks(markdown);
  const title = blocks.find((b) => b.kind === "heading")?.text;
  const source = (section?: string) => (section && section !== title ? `${file}, “${section}”` : file);
  for (const block of blocks) {
    if (block.kind === "fence") {
      for (const { command, note } of blockCommands(block) as { command: string; note?: string }[])
        out.push({ command, source: source(block.section), ...(note ? { note } : {}) });
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
