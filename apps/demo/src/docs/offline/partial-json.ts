// A JSON reader for replies that may have been cut: it keeps every value that was complete, and marks the
// arrays and objects that were still open when the text ended (a bounded tool reply stops mid-way).

/** Arrays and objects whose closing bracket never came. */
export type IncompleteSet = WeakSet<object>;

/** What `parsePartialJson` returns. */
export interface PartialJson {
  /** The value as far as it was readable (`undefined` when not even its start was). */
  value: unknown;
  /** Containers cut off before their end. */
  incomplete: IncompleteSet;
  /** True when the whole value was read. */
  complete: boolean;
  /** The text after the value (e.g. a "[truncated: …]" note), trimmed. */
  rest: string;
}

class EndOfInput extends Error {}
class Malformed extends Error {}

/** Parse a JSON text that may stop anywhere; never throws. */
export function parsePartialJson(text: string): PartialJson {
  const incomplete: IncompleteSet = new WeakSet();
  let at = 0;
  const space = () => {
    while (at < text.length && /\s/.test(text[at] as string)) at++;
  };
  const need = () => {
    space();
    if (at >= text.length) throw new EndOfInput();
  };
  const string = (): string => {
    let out = "";
    at++; // the opening quote
    while (at < text.length) {
      const char = text[at] as string;
      if (char === '"') {
        at++;
        return out;
      }
      if (char === "\\") {
        const next = text[at + 1];
        if (next === undefined) break;
        if (next === "u") {
          const hex = text.slice(at + 2, at + 6);
          if (hex.length < 4) break;
          out += String.fromCharCode(Number.parseInt(hex, 16));
          at += 6;
          continue;
        }
        out += ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" } as Record<string, string>)[next] ?? next;
        at += 2;
        continue;
      }
      out += char;
      at++;
    }
    throw new EndOfInput();
  };
  const literal = (): unknown => {
    const match = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at));
    if (!match) throw new Malformed();
    at += match[0].length;
    if (at >= text.length && /\d$/.test(match[0])) throw new EndOfInput(); // a number may go on
    return JSON.parse(match[0]);
  };
  const value = (): unknown => {
    need();
    const char = text[at];
    if (char === "{") return object();
    if (char === "[") return array();
    if (char === '"') return string();
    return literal();
  };
  const array = (): unknown[] => {
    const out: unknown[] = [];
    at++;
    try {
      need();
      if (text[at] === "]") {
        at++;
        return out;
      }
      for (;;) {
        try {
          out.push(value());
        } catch (error) {
          const partial = (error as { partial?: unknown }).partial;
          if (error instanceof EndOfInput && partial !== undefined) out.push(partial);
          throw error;
        }
        need();
        if (text[at] === ",") {
          at++;
          continue;
        }
        if (text[at] === "]") {
          at++;
          return out;
        }
        throw new Malformed();
      }
    } catch (error) {
      if (!(error instanceof EndOfInput)) throw error;
      incomplete.add(out);
      throw Object.assign(new EndOfInput(), { partial: out });
    }
  };
  const object = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    at++;
    try {
      need();
      if (text[at] === "}") {
        at++;
        return out;
      }
      for (;;) {
        need();
        if (text[at] !== '"') throw new Malformed();
        const key = string();
        need();
        if (text[at] !== ":") throw new Malformed();
        at++;
        try {
          out[key] = value();
        } catch (error) {
          // A container cut inside this field is kept, so a cut directory keeps its read children.
          const partial = (error as { partial?: unknown }).partial;
          if (error instanceof EndOfInput && partial !== undefined) out[key] = partial;
          throw error;
        }
        need();
        if (text[at] === ",") {
          at++;
          continue;
        }
        if (text[at] === "}") {
          at++;
          return out;
        }
        throw new Malformed();
      }
    } catch (error) {
      if (!(error instanceof EndOfInput)) throw error;
      incomplete.add(out);
      throw Object.assign(new EndOfInput(), { partial: out });
    }
  };
  try {
    const result = value();
    space();
    return { value: result, incomplete, complete: true, rest: text.slice(at).trim() };
  } catch (error) {
    if (error instanceof EndOfInput) {
      return { value: (error as { partial?: unknown }).partial, incomplete, complete: false, rest: "" };
    }
    return { value: undefined, incomplete, complete: false, rest: text.slice(at).trim() };
  }
}
