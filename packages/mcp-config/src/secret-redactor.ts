/**
 * The one secret redactor of the project: replaces known secret values in text, in every form a value
 * takes when it is embedded in a JSON string or a URL, also across the chunks of a stream.
 */

/** What replaces a secret value. */
export const REDACTED_MARKER = "[REDACTED]";

/**
 * Values shorter than this are not treated as secrets: replacing `1` or `true` everywhere would garble
 * every message while protecting nothing.
 */
export const MIN_SECRET_LENGTH = 6;

/** A redactor over a stream of text chunks (see `SecretRedactor.stream`). */
export interface SecretRedactorStream {
  /**
   * Feed one chunk; returns the redacted text that is safe to write now. The last characters (fewer
   * than the longest secret form) are held back until the next chunk or `flush()`, so a value split
   * across two chunks is still replaced.
   */
  push(chunk: string): string;
  /** Everything held back, redacted; the stream is empty afterwards. */
  flush(): string;
  /**
   * A redacted view of what is held back, without consuming it, minus any trailing part that could
   * be the beginning of a secret (for "last lines" displays of a stream that is still running).
   */
  peek(): string;
}

function jsonEscaped(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/**
 * Every form of `value` the redactor looks for: the raw value, its JSON-escaped form (once and twice,
 * for JSON inside a JSON string), and its URL-encoded forms (`encodeURIComponent`, `encodeURI` and
 * form encoding with `+` for spaces). Percent escapes match in either hex case.
 */
export function secretForms(value: string): string[] {
  const once = jsonEscaped(value);
  const forms = new Set<string>([
    value,
    once,
    jsonEscaped(once),
    encodeURIComponent(value),
    encodeURI(value),
    new URLSearchParams({ v: value }).toString().slice(2),
  ]);
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

function pattern(form: string): string {
  // Escape regex syntax, then let every percent escape match in either hex case.
  return form
    .replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
    .replace(/%([0-9A-F])([0-9A-F])/g, (_match, a: string, b: string) => {
      const either = (c: string) => (/[A-F]/.test(c) ? `[${c}${c.toLowerCase()}]` : c);
      return `%${either(a)}${either(b)}`;
    });
}

/**
 * Replaces known secret values (and their escaped and encoded forms, see `secretForms`) with
 * `[REDACTED]`. At one position the longest form wins, so a secret containing another is replaced
 * whole. Values can be added later (e.g. OAuth tokens once they are issued).
 */
export class SecretRedactor {
  private readonly values = new Set<string>();
  private forms: string[] = [];
  private matcher: RegExp | undefined;
  private longest = 0;

  constructor(values: Iterable<string | null | undefined> = []) {
    for (const value of values) this.add(value);
  }

  /** Add one secret value; ignored when empty, not a string or shorter than `MIN_SECRET_LENGTH`. */
  add(value: string | null | undefined): void {
    if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH || this.values.has(value)) return;
    this.values.add(value);
    const forms = new Set(this.forms);
    for (const form of secretForms(value)) forms.add(form);
    this.forms = [...forms].sort((a, b) => b.length - a.length);
    this.longest = this.forms[0]?.length ?? 0;
    this.matcher = new RegExp(this.forms.map(pattern).join("|"), "g");
  }

  /** Whether there is nothing to redact. */
  get empty(): boolean {
    return this.values.size === 0;
  }

  /** Number of secret values known. */
  get size(): number {
    return this.values.size;
  }

  /** `text` with every form of every secret value replaced by `[REDACTED]`. */
  redact(text: string): string {
    const matcher = this.matcher;
    if (!matcher || typeof text !== "string" || text.length < MIN_SECRET_LENGTH) return text;
    matcher.lastIndex = 0;
    return text.replace(matcher, REDACTED_MARKER);
  }

  /** Whether `text` contains a form of a secret value. */
  leaks(text: string): boolean {
    const matcher = this.matcher;
    if (!matcher || typeof text !== "string") return false;
    matcher.lastIndex = 0;
    const found = matcher.test(text);
    matcher.lastIndex = 0;
    return found;
  }

  /**
   * A streaming redactor: `push(chunk)` returns what is safe to write, holding back fewer characters
   * than the longest secret form so a value cut across chunk boundaries is still caught; `flush()` at
   * the end. Values added to this redactor later apply to the stream from the next push.
   */
  stream(): SecretRedactorStream {
    let held = "";
    return {
      push: (chunk: string) => {
        const text = held + chunk;
        const matcher = this.matcher;
        if (!matcher) {
          held = "";
          return text;
        }
        // Any match that starts before `cut` ends inside `text`: matches are at most `longest` long.
        const cut = text.length - (this.longest - 1);
        if (cut <= 0) {
          held = text;
          return "";
        }
        let out = "";
        let position = 0;
        matcher.lastIndex = 0;
        for (let match = matcher.exec(text); match !== null; match = matcher.exec(text)) {
          if (match.index >= cut) break;
          out += text.slice(position, match.index) + REDACTED_MARKER;
          position = match.index + match[0].length;
        }
        matcher.lastIndex = 0;
        const end = Math.max(cut, position);
        out += text.slice(position, end);
        held = text.slice(end);
        return out;
      },
      flush: () => {
        const out = this.redact(held);
        held = "";
        return out;
      },
      peek: () => {
        const shown = this.redact(held);
        // Drop a trailing piece that may be the start of a secret whose rest has not arrived yet.
        for (let length = Math.min(shown.length, this.longest - 1); length > 0; length--) {
          const suffix = shown.slice(-length);
          if (this.forms.some((form) => form.startsWith(suffix))) return shown.slice(0, -length);
        }
        return shown;
      },
    };
  }
}

/** A `SecretRedactor` for these values (empty, undefined and short ones are ignored). */
export function createSecretRedactor(values: Iterable<string | null | undefined> = []): SecretRedactor {
  return new SecretRedactor(values);
}
