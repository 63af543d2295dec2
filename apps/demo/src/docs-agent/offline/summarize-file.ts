// One line about a file from its own content: its doc comment where it has one, and its top-level
// definitions (functions, classes, exported names) for JS/TS, Python, Go, Rust, shell, C/C++ and the
// class-based JVM/.NET languages (Java, Kotlin, Scala, C#, Swift).
import { describeManifest, parseManifest } from "./manifests.js";
import { code } from "./markdown.js";
import { MARKUP_NAME, README_NAME, readmePurpose, readmeTitle } from "./readme.js";

const MAX_NAMES = 6;
const MAX_LINE = 160;

type Language = "js" | "python" | "go" | "rust" | "shell" | "c" | "classes" | "other";

/** The language of a file, from its name (and shebang). */
export function languageOf(file: string, text = ""): Language {
  if (/\.(m|c)?(j|t)sx?$/.test(file)) return "js";
  if (/\.pyi?$/.test(file)) return "python";
  if (/\.go$/.test(file)) return "go";
  if (/\.rs$/.test(file)) return "rust";
  if (/\.(c|h|cc|cpp|cxx|hh|hpp|hxx)$/.test(file)) return "c";
  if (/\.(java|kt|kts|scala|cs|swift)$/.test(file)) return "classes";
  if (/\.(sh|bash|zsh)$/.test(file) || /^#!.*\b(ba|z)?sh\b/.test(text)) return "shell";
  if (/^#!.*\bpython/.test(text)) return "python";
  if (/^#!.*\bnode\b/.test(text)) return "js";
  return "other";
}

/** The names the patterns capture, in the order they appear in the text. */
function names(text: string, patterns: RegExp[]): string[] {
  const found: { at: number; name: string }[] = [];
  for (const pattern of patterns)
    for (const match of text.matchAll(pattern))
      for (const name of (match[1] ?? "").split(",")) {
        const clean = name
          .trim()
          .split(/\s+as\s+/)
          .at(-1)
          ?.trim();
        if (clean && /^[\w$]+$/.test(clean)) found.push({ at: match.index ?? 0, name: clean });
      }
  const out: string[] = [];
  for (const { name } of found.sort((a, b) => a.at - b.at)) if (!out.includes(name)) out.push(name);
  return out;
}

/** The top-level definitions of a source file: exported names first for JS/TS. */
export function topLevelDefinitions(file: string, text: string): { exported: boolean; names: string[] } {
  switch (languageOf(file, text)) {
    case "js": {
      const exported = names(text, [
        /^export\s+(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\*?\s+([\w$]+)/gm,
        /^export\s+(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+([\w$]+)/gm,
        /^export\s+(?:declare\s+)?(?:const|let|var|enum|interface|type|namespace)\s+([\w$]+)/gm,
        /^export\s+\{([^}]*)\}/gm,
        /^(?:module\.)?exports\.([\w$]+)\s*=/gm,
        /^module\.exports\s*=\s*\{([^}]*)\}/gm,
      ]);
      if (exported.length > 0) return { exported: true, names: exported };
      return {
        exported: false,
        names: names(text, [
          /^(?:async\s+)?function\*?\s+([\w$]+)/gm,
          /^class\s+([\w$]+)/gm,
          /^const\s+([\w$]+)\s*=\s*(?:async\s*)?(?:\([^)]*\)|[\w$]+)\s*=>/gm,
        ]),
      };
    }
    case "python": {
      // A module's `__all__` is its public interface; otherwise its top-level defs and classes.
      const all = /^__all__\s*(?::[^=\n]*)?=\s*[[(]([^\])]*)[\])]/m.exec(text)?.[1];
      const exported = all ? [...all.matchAll(/["'](\w+)["']/g)].map((m) => m[1] as string) : [];
      if (exported.length > 0) return { exported: true, names: exported };
      return { exported: false, names: names(text, [/^(?:async\s+)?def\s+(\w+)/gm, /^class\s+(\w+)/gm]) };
    }
    case "go":
      return {
        exported: false,
        names: names(text, [/^func\s+(?:\([^)]*\)\s*)?(\w+)/gm, /^type\s+(\w+)/gm]),
      };
    case "rust":
      return {
        exported: false,
        names: names(text, [
          /^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+(\w+)/gm,
          /^(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait|mod)\s+(\w+)/gm,
        ]),
      };
    case "c":
      // Functions defined or declared at the start of a line (not calls, not control statements), and
      // named structs, unions and enums.
      return {
        exported: false,
        names: names(text, [
          /^(?!(?:if|else|while|for|switch|return|do|case)\b)(?:[A-Za-z_][\w:<>,]*[ \t*&]+)+\**([A-Za-z_]\w*)\s*\([^;{)]*\)\s*(?:const\s*)?(?:\{|;|$)/gm,
          /^(?:typedef\s+)?(?:struct|union|enum|class)\s+([A-Za-z_]\w*)/gm,
        ]),
      };
    case "classes":
      return {
        exported: false,
        names: names(text, [
          /^(?:(?:public|protected|private|internal|open|sealed|data|final|abstract|static|partial|export)\s+)*(?:class|interface|enum|record|object|struct|trait|protocol)\s+(\w+)/gm,
          /^(?:(?:public|internal|private)\s+)?fun\s+(\w+)/gm,
        ]),
      };
    case "shell":
      return {
        exported: false,
        names: names(text, [/^(?:function\s+)?([\w-]+)\s*\(\)\s*\{?/gm, /^function\s+([\w-]+)/gm]),
      };
    default:
      return { exported: false, names: [] };
  }
}

/** Comment lines that speak to a tool, not to a reader (lint, type-check and editor directives, licences). */
const DIRECTIVE =
  /^(TODO|FIXME|XXX|HACK)\b|^(@|eslint|prettier|biome-ignore|jshint|istanbul|c8\s|noqa|type:|mypy:|pyright:|pylint:|flake8|ruff:|isort:|fmt:|shellcheck|vim?:|(-\*-\s*)?coding[:=]|-\*-|SPDX|Copyright|\(c\)|©|!\/|all rights reserved|licen[sc]ed\b|(MIT|ISC|BSD|Apache|GPL|MPL)\b.*licen[sc]e|licen[sc]e:|\+build\b|go:(build|generate|embed)\b|nolint\b)/i;

/** Text that is part of a licence notice (a paragraph holding it is a licence header, not a description). */
const LICENCE_TEXT =
  /\b(licen[cs]e[ds]?\b|copyright|all rights reserved|warrant(y|ies)|governed by|permission is hereby granted|in compliance with|liability)/i;

/** The comment's text split into paragraphs, decoration (banner borders, `*` margins) removed. */
function commentParagraphs(lines: readonly string[]): string[][] {
  const paragraphs: string[][] = [[]];
  for (const raw of lines) {
    const line = raw
      .trim()
      .replace(/^\*+(\s|$)|\s+\*+$/g, "")
      .trim();
    // A line of one repeated symbol (`*****`, `~~~~`, `----`) is a border or an underline; a Markdown
    // heading in a doc comment (`# Serde JSON`) is a title; a link definition (`[ci]: https://…`) and a
    // line break (`<br>`) say nothing.
    if (
      !line ||
      /^([^\p{L}\p{N}\s])\1{2,}$/u.test(line) ||
      /^<br\s*\/?>$/i.test(line) ||
      /^#{1,6}\s/.test(line) ||
      /^\[[^\]]+\]:\s*\S+$/.test(line)
    ) {
      if ((paragraphs.at(-1) as string[]).length > 0) paragraphs.push([]);
      continue;
    }
    (paragraphs.at(-1) as string[]).push(line);
  }
  return paragraphs.filter((p) => p.length > 0);
}

/** Whether a comment paragraph says something about the file to a reader (not a licence, badges or art). */
function describes(text: string): boolean {
  if (LICENCE_TEXT.test(text)) return false;
  const prose = text
    .replace(/!?\[([^\]]*)\](\([^)]*\)|\[[^\]]*\])?/g, "$1")
    .replace(/https?:\/\/\S+/g, "")
    .replace(/&[a-z]+;/gi, " ");
  const letters = prose.match(/\p{L}/gu)?.length ?? 0;
  // Badge rows and ASCII art: few letters for their length.
  return letters >= 6 && letters >= 0.5 * prose.replace(/\s/g, "").length;
}

/** The raw comment lines that document the file, by language; `[]` when there are none. */
function commentLines(file: string, text: string, body: string): string[] {
  const lang = languageOf(file, text);
  if (lang === "python") {
    const doc = /^\s*(?:#.*\n\s*)*(?:[rRuU]?)("""|''')([\s\S]*?)(\1|$)/.exec(body);
    if (doc?.[2]) return doc[2].split("\n");
  } else if (lang === "go") {
    // The package doc comment is the comment right above `package` (a licence header sits apart).
    const at = /^package\s+\w+/m.exec(body)?.index;
    if (at === undefined) {
      // A head read that stops inside a long package doc comment: the comment says it is one.
      const slashes = /(?:^|\n)((?:[ \t]*\/\/[ \t]*Package[ \t]+\w+\s.*\n?)(?:[ \t]*\/\/.*\n?)*)/.exec(body);
      if (slashes?.[1]) return slashes[1].split("\n").map((l) => l.trim().replace(/^\/\/\s?/, ""));
      const block = /(?:^|\n)\/\*\s*(Package[ \t]+\w+\s[\s\S]*?)(?:\*\/|$)/.exec(body);
      return block?.[1] ? block[1].split("\n") : [];
    }
    const before = body.slice(0, at);
    const slashes = /(?:^|\n)((?:[ \t]*\/\/.*\n)+)$/.exec(before);
    if (slashes?.[1]) return slashes[1].split("\n").map((l) => l.trim().replace(/^\/\/\s?/, ""));
    const block = /\/\*([\s\S]*?)\*\/[ \t]*\n$/.exec(before);
    return block?.[1] ? block[1].split("\n") : [];
  } else if (lang === "rust") {
    // The crate's or module's inner doc (`//!` or `/*! */`), after any licence comment and attributes.
    const inner = /^(?:[ \t]*(?:\/\/(?![!/]).*|#!\[.*\]|)\n)*((?:[ \t]*\/\/!.*\n?)+)/.exec(body);
    if (inner?.[1]) return inner[1].split("\n").map((l) => l.trim().replace(/^\/\/!\s?/, ""));
    const block = /^(?:[ \t]*(?:\/\/.*|)\n)*[ \t]*\/\*!([\s\S]*?)\*\//.exec(body);
    if (block?.[1]) return block[1].split("\n");
  } else if (lang === "classes") {
    // The doc comment of the first type declared (a licence banner usually opens the file).
    const javadoc =
      /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(?:@\w+(?:\([^)]*\))?\s*)*(?:(?:public|protected|private|abstract|final|static|sealed|open|data|internal|partial)\s+)*(?:class|interface|enum|record|object|struct|@interface)\s/.exec(
        body,
      );
    if (javadoc?.[1]) return javadoc[1].split("\n");
  }
  if (lang === "other") return [];
  const block = /^\s*\/\*[*!]?([\s\S]*?)\*\//.exec(body);
  const slashes = /^\s*((?:\/\/.*\n?)+)/.exec(body);
  const hashes = /^\s*((?:#.*\n?)+)/.exec(body);
  if (block?.[1] && lang !== "python" && lang !== "shell") return block[1].split("\n");
  if (slashes?.[1] && lang !== "python" && lang !== "shell")
    return slashes[1].split("\n").map((l) => l.trim().replace(/^\/\/[/!]?\s?/, ""));
  if (hashes?.[1] && (lang === "python" || lang === "shell"))
    return hashes[1].split("\n").map((l) => l.trim().replace(/^#+\s?/, ""));
  return [];
}

/**
 * The file's leading doc comment, as one sentence-ish line: the first paragraph that describes the file —
 * licence headers, banners, badge rows, tool directives and reStructuredText titles left out.
 */
export function docComment(file: string, text: string): string | undefined {
  const body = text.replace(/^\uFEFF/, "").replace(/^#!.*\n/, "");
  const paragraphs = commentParagraphs(commentLines(file, text, body))
    .map((lines) => lines.filter((l) => !DIRECTIVE.test(l)))
    .filter((lines) => lines.length > 0);
  for (const [index, lines] of paragraphs.entries()) {
    const joined = lines
      .join(" ")
      .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
      .replace(/\s+/g, " ")
      .trim();
    if (!describes(joined)) continue;
    // A lone word (a banner's module name) says nothing; text without spaces (Chinese) may still.
    const oneWord = !/\s/.test(joined) && !/\p{Script=Han}/u.test(joined);
    if (joined.length < 8 || oneWord) continue;
    // A title over an underline (`requests.api` / `~~~~`) when a paragraph follows: the paragraph says more.
    if (
      lines.length === 1 &&
      !/[.!?:]$/.test(joined) &&
      index + 1 < paragraphs.length &&
      wasUnderlined(file, text, joined)
    )
      continue;
    return joined;
  }
  return undefined;
}

/** Whether `line` stands over an underline (`===`, `~~~`, `---`) in the text. */
function wasUnderlined(_file: string, text: string, line: string): boolean {
  const at = text.indexOf(line);
  if (at === -1) return false;
  const next =
    text
      .slice(at + line.length)
      .split("\n")[1]
      ?.trim() ?? "";
  return /^([=~\-^*#])\1{2,}$/.test(next);
}

function clip(text: string): string {
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
}

/** A README's title and the first sentence of its first prose paragraph (either alone when that is all). */
function readmeLine(text: string): string {
  const title = readmeTitle(text);
  const purpose = readmePurpose(text);
  // A sentence ends at . ! or ? before a capital, a code span or a quote ("e.g. 3 m" does not end one).
  // (。！？ end a sentence wherever they stand.)
  const sentence = purpose?.match(/^.+?(?:[.!?](?=\s+[A-Z`"'(]|\s*$)|[。！？])/)?.[0] ?? purpose;
  if (title && sentence) return `${title}: ${sentence}`;
  return title ?? sentence ?? "README";
}

/**
 * One line about a file, from its content alone. `readLines`: the file was read up to that many lines;
 * when the text fills them, the file may go on, and its definitions are said to be from that part only.
 */
export function summarizeFile(file: string, text: string, readLines?: number): string {
  const base = file.split("/").at(-1) ?? file;
  const manifest = parseManifest(file, text);
  if (manifest) return clip(describeManifest(manifest));
  if (README_NAME.test(base) || MARKUP_NAME.test(base)) return clip(readmeLine(text));
  if (/^dockerfile$|\.dockerfile$/i.test(base)) return clip(dockerfileLine(text));
  if (/^(docker-)?compose\.ya?ml$/.test(base)) {
    const services = composeServices(text);
    return services.length > 0
      ? clip(`Compose services ${services.map((s) => code(s)).join(", ")}`)
      : "Compose file";
  }
  if (/^(makefile|gnumakefile|justfile)$/i.test(base)) {
    const targets = makeTargets(text);
    return targets.length > 0 ? clip(`targets ${targets.map((t) => code(t)).join(", ")}`) : "no targets";
  }
  const doc = docComment(file, text);
  const defs = topLevelDefinitions(file, text);
  const list = defs.names.slice(0, MAX_NAMES).map((n) => code(n));
  const cut = readLines !== undefined && text.split("\n").length >= readLines;
  const more =
    (defs.names.length > MAX_NAMES ? ` and ${defs.names.length - MAX_NAMES} more` : "") +
    (cut ? ` in its first ${readLines} lines` : "");
  const definitions =
    list.length > 0 ? `${defs.exported ? "exports" : "defines"} ${list.join(", ")}${more}` : "";
  if (doc && definitions)
    return clip(`${doc.replace(/\.$/, "")}. ${definitions[0]?.toUpperCase()}${definitions.slice(1)}`);
  if (doc) return clip(doc);
  if (definitions) return clip(definitions);
  const tests = [...text.matchAll(/^\s*(?:it|test|describe)\(\s*(["'`])(.+?)\1/gm)].map((m) => `“${m[2]}”`);
  if (tests.length > 0)
    return clip(
      `tests ${tests.slice(0, 3).join(", ")}${tests.length > 3 ? ` and ${tests.length - 3} more` : ""}`,
    );
  const heading = /^#\s+(.+)$/m.exec(text)?.[1];
  if (heading && languageOf(file, text) === "other") return clip(heading.trim());
  const first = text
    .replace(/^#!.*\n/, "")
    // A leading block comment (a banner) is not how the file starts, for a reader.
    .replace(/^\s*\/\*[\s\S]*?\*\/\s*/, "")
    .split("\n")
    .find((line) => {
      const t = line.trim();
      // Directives ('use strict', # mypy: ...) say nothing about the file.
      return (
        t.length > 0 &&
        !/^["']use \w+["'];?$/.test(t) &&
        !DIRECTIVE.test(t.replace(/^(#+|\/\/+|\/\*+)\s*/, ""))
      );
    });
  return first ? clip(`starts with ${code(first.trim().slice(0, 80))}`) : "empty";
}

/** A Dockerfile's base image(s) and what the container runs. */
function dockerfileLine(text: string): string {
  const images = [...text.matchAll(/^\s*FROM\s+(?:--\S+\s+)*(\S+)/gim)].map((m) => m[1] as string);
  const runs = [...text.matchAll(/^\s*(?:CMD|ENTRYPOINT)\s+(.+)$/gim)].at(-1)?.[1]?.trim();
  const from =
    images.length > 0 ? `image from ${images.map((i) => code(i)).join(", then ")}` : "a Dockerfile";
  return runs ? `${from}; runs ${code(runs)}` : from;
}

/** The service names of a Compose file: the keys indented under `services:`. */
export function composeServices(text: string): string[] {
  const block = /^services:[ \t]*\n((?:[ \t]+\S.*\n?|[ \t]*\n)*)/m.exec(text)?.[1] ?? "";
  const indent = /^([ \t]+)\S/m.exec(block)?.[1] ?? "  ";
  return [...block.matchAll(new RegExp(`^${indent}([\\w.-]+):`, "gm"))].map((m) => m[1] as string);
}

/** A Makefile's or justfile's targets (not special or pattern targets). */
export function makeTargets(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/^([A-Za-z0-9_][A-Za-z0-9_./-]*)\s*:(?![=:])/gm)) {
    const target = match[1] as string;
    if (!target.startsWith(".") && !target.includes("%") && !out.includes(target)) out.push(target);
  }
  return out;
}
