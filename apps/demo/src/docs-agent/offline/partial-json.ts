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
  // After an item: `,` means another follows (false), `close` ends the container (true).
  const closes = (close: string): boolean => {
    need();
    if (text[at] === ",") {
      at++;
      return false;
    }
    if (text[at] === close) {
      at++;
      return true;
    }
    throw new Malformed();
  };
  // A value cut by the end of the input: a container cut inside it is kept (so a cut directory keeps
  // its read children), and the cut travels up.
  const item = (store: (partial: unknown) => void): unknown => {
    try {
      return value();
    } catch (error) {
      const partial = (error as { partial?: unknown }).partial;
      if (error instanceof EndOfInput && partial !== undefined) store(partial);
      throw error;
    }
  };
  const container = <T extends object>(out: T, close: string, readItem: () => void): T => {
    at++;
    try {
      need();
      if (text[at] === close) {
        at++;
        return out;
      }
      do readItem();
      while (!closes(close));
      return out;
    } catch (error) {
      if (!(error instanceof EndOfInput)) throw error;
      incomplete.add(out);
      throw Object.assign(new EndOfInput(), { partial: out });
    }
  };
  const array = (): unknown[] => {
    const out: unknown[] = [];
    return container(out, "]", () => {
      out.push(item((partial) => out.push(partial)));
    });
  };
  const object = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    // Own data properties, as JSON.parse makes them: a key "__proto__" in a server's reply is a key,
    // never the object's prototype.
    const set = (key: string, v: unknown) =>
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    return container(out, "}", () => {
      need();
      if (text[at] !== '"') throw new Malformed();
      const key = string();
      need();
      if (text[at] !== ":") throw new Malformed();
      at++;
      set(
        key,
        item((partial) => set(key, partial)),
      );
    });
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
