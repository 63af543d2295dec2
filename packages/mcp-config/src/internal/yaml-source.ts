// Parsing text into a YAML document that remembers where every node came from.
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { MCPConfigError } from "../errors.js";

/** A parsed document plus what is needed to turn field paths into line/column. */
export interface SourceDocument {
  data: unknown;
  locate(path: readonly PropertyKey[], options?: { key?: boolean }): Position | undefined;
  /**
   * False for a config object written in code: `locate` then gives only an order (the order of the
   * object's keys, as a file would list them), never a position to show.
   */
  hasPositions?: boolean;
}

export interface Position {
  line: number;
  column: number;
}

/** Config files are a few kilobytes; anything past this is a mistake or an attack. */
export const DEFAULT_MAX_CONFIG_BYTES = 1024 * 1024;

export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else {
      const key = String(segment);
      if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)) out += out ? `.${key}` : key;
      else out += `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

// UTF-8 needs 1 to 3 bytes per UTF-16 code unit, so most texts are decided without encoding them.
function utf8Length(text: string, maxBytes: number): number {
  if (text.length > maxBytes) return text.length;
  if (text.length * 3 <= maxBytes) return text.length;
  return new TextEncoder().encode(text).byteLength;
}

export function readSource(text: string, source: string | undefined, maxBytes: number): SourceDocument {
  const bytes = utf8Length(text, maxBytes);
  if (bytes > maxBytes) {
    throw new MCPConfigError(
      `Config is ${bytes} bytes, over the limit of ${maxBytes} bytes; an MCP server roster is a few kilobytes`,
      { code: "CONFIG_TOO_LARGE", source },
    );
  }
  if (text.trim() === "") {
    throw new MCPConfigError("Config is empty; expected a top-level `servers:` list", {
      code: "CONFIG_SYNTAX",
      source,
      issues: [{ path: "", message: "the file is empty", line: 1, column: 1 }],
    });
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
    strict: true,
    keepSourceTokens: false,
  });
  const problems = [...doc.errors];
  if (problems.length > 0) {
    throw new MCPConfigError("Config is not well-formed YAML or JSON", {
      code: "CONFIG_SYNTAX",
      source,
      issues: problems.map((problem) => {
        const pos = lineCounter.linePos(problem.pos[0]);
        // The yaml library's messages may quote the offending text; keep only its first sentence.
        const message = problem.message.split("\n")[0] ?? problem.message;
        return { path: "", message, line: pos.line, column: pos.col };
      }),
    });
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (cause) {
    throw new MCPConfigError("Config uses too many YAML aliases", {
      code: "CONFIG_SYNTAX",
      source,
      cause,
    });
  }
  if (data === null || data === undefined) {
    throw new MCPConfigError("Config has no content; expected a top-level `servers:` list", {
      code: "CONFIG_SYNTAX",
      source,
      issues: [{ path: "", message: "the document is empty", line: 1, column: 1 }],
    });
  }

  const position = (node: Node | null | undefined): Position | undefined => {
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };

  return {
    data,
    locate(path, options = {}) {
      let node: unknown = doc.contents;
      let found = position(doc.contents as Node | null);
      for (let i = 0; i < path.length; i++) {
        const segment = path[i];
        const last = i === path.length - 1;
        if (isSeq(node) && typeof segment === "number") {
          node = node.items[segment];
        } else if (isMap(node)) {
          const pair = node.items.find(
            (item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment),
          );
          if (!pair) return found;
          if (last && options.key) return position(pair.key as Node) ?? found;
          node = pair.value;
          if (node === null) return position(pair.key as Node) ?? found;
        } else {
          return found;
        }
        found = position(node as Node) ?? found;
      }
      return found;
    },
  };
}
