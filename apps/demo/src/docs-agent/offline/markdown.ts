// Text from the folder (file names, commands, manifest fields) placed in the Markdown document safely:
// a name may hold backticks, line breaks or control characters, and must neither break the document's
// structure nor smuggle lines into it.

/** Control characters shown as escapes (`\n`, `\t`, `\u001b`), so one name stays on one line. */
export function visible(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) =>
    c === "\n"
      ? "\\n"
      : c === "\t"
        ? "\\t"
        : c === "\r"
          ? "\\r"
          : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** `text` as one Markdown code span, whatever backticks it holds (CommonMark: a longer backtick fence). */
export function code(text: string): string {
  const shown = visible(text);
  const longest = Math.max(0, ...[...shown.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = shown.startsWith("`") || shown.endsWith("`") ? " " : "";
  return `${fence}${pad}${shown}${pad}${fence}`;
}

/**
 * Text from the folder as one paragraph line: whitespace collapsed, control characters shown, and a
 * leading character that would start a block (heading, quote, list, fence, HTML, table) escaped.
 */
export function paragraphLine(text: string): string {
  const line = visible(text.replace(/\s+/g, " ").trim());
  const numbered = /^(\d+)([.)])(\s|$)/.exec(line);
  if (numbered) {
    const [, digits = "", mark = ""] = numbered;
    return `${digits}\\${mark}${line.slice(digits.length + 1)}`;
  }
  // Only what would open a block is escaped: an escape before a code span's or an emphasis's opening
  // character (`` `yaml` is… ``, `*attrs* is…`) would break the span instead.
  return BLOCK_START.test(line) ? `\\${line}` : line;
}

/** The start of a line that opens a Markdown block: heading, quote, list, fence, HTML, table, rule. */
const BLOCK_START = /^(#{1,6}(\s|$)|>|[-+*](\s|$)|`{3,}|~{3,}|<[A-Za-z/!?]|\||=+$|[-*_](\s*[-*_]){2,}$)/;

/** A word of a generated command: kept when plain, single-quoted when a shell would interpret it. */
export function shellWord(word: string): string {
  return /^[\w./@%+=:,][\w./@%+=:,-]*$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** `lines` as a fenced code block (of `lang`) that none of them can close early. */
export function codeBlock(lines: readonly string[], lang = "text"): string[] {
  const fence = fenceFor(lines);
  return [`${fence}${lang}`, ...lines, fence];
}

/** A fence for a code block none of whose lines can close it early. */
export function fenceFor(lines: readonly string[]): string {
  const longest = Math.max(
    0,
    ...lines.flatMap((l) => [...l.matchAll(/^\s*(`{3,})/g)].map((m) => m[1]?.length ?? 0)),
  );
  return "`".repeat(Math.max(3, longest + 1));
}

/**
 * A relative path as one shell word: kept as it is when plain, `./`-prefixed when it starts with `-`
 * (else it reads as an option), single-quoted when it holds anything a shell would interpret.
 */
export function shellPath(path: string): string {
  return shellWord(path.startsWith("-") ? `./${path}` : path);
}
