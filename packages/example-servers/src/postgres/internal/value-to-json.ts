// Text output of a PostgreSQL value → a JSON fragment, losslessly and predictably (see the README's
// "How values are serialized"). Values arrive in text format, with the session's DateStyle = ISO,
// IntervalStyle = iso_8601, bytea_output = hex and extra_float_digits = 1.
import type { TypeInfo } from "./pg-types.js";

/** A parsed PostgreSQL array: nested arrays of element texts, null for NULL. */
export type PgArray = (string | null | PgArray)[];

/**
 * Parse PostgreSQL's array output (`{1,2,NULL}`, `{{"a b","c\"d"},{e,f}}`). Returns undefined for
 * forms this parser does not expand (explicit bounds such as `[0:1]={1,2}`), which are then kept as text.
 */
export function parsePgArray(text: string, delimiter = ","): PgArray | undefined {
  if (!text.startsWith("{")) return undefined;
  let i = 0;
  const parse = (): PgArray | undefined => {
    // text[i] === "{"
    i++;
    const items: PgArray = [];
    if (text[i] === "}") {
      i++;
      return items;
    }
    for (;;) {
      const c = text[i];
      if (c === "{") {
        const nested = parse();
        if (nested === undefined) return undefined;
        items.push(nested);
      } else if (c === '"') {
        i++;
        let value = "";
        for (;;) {
          const d = text[i];
          if (d === undefined) return undefined;
          if (d === "\\") {
            value += text[i + 1] ?? "";
            i += 2;
          } else if (d === '"') {
            i++;
            break;
          } else {
            value += d;
            i++;
          }
        }
        items.push(value);
      } else {
        let end = i;
        while (end < text.length && text[end] !== delimiter && text[end] !== "}") end++;
        const value = text.slice(i, end);
        items.push(value === "NULL" ? null : value);
        i = end;
      }
      const next = text[i];
      if (next === delimiter) {
        i++;
        continue;
      }
      if (next === "}") {
        i++;
        return items;
      }
      return undefined;
    }
  };
  const result = parse();
  return result !== undefined && i === text.length ? result : undefined;
}

const DATE_TIME = /^(\d{4,}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)$/;
const DATE_TIME_ZONE = /^(\d{4,}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2})(:\d{2}(?::\d{2})?)?$/;

/** `2024-05-01 12:00:00.5` → `2024-05-01T12:00:00.5`; anything else (BC, infinity) unchanged. */
function isoTimestamp(text: string): string {
  const match = DATE_TIME.exec(text);
  return match ? `${match[1]}T${match[2]}` : text;
}

/** `2024-05-01 12:00:00+02` → `2024-05-01T12:00:00+02:00`; anything else (BC, infinity) unchanged. */
function isoTimestampTz(text: string): string {
  const match = DATE_TIME_ZONE.exec(text);
  return match ? `${match[1]}T${match[2]}${match[3]}${match[4] ?? ":00"}` : text;
}

const FLOAT_WORDS = new Set(["NaN", "Infinity", "-Infinity"]);

function arrayToJson(items: PgArray, element: TypeInfo): string {
  let out = "[";
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ",";
    const item = items[i];
    if (item === null || item === undefined) out += "null";
    else if (Array.isArray(item)) out += arrayToJson(item, element);
    else out += valueToJson(item, element);
  }
  return `${out}]`;
}

/** One value's text output as a JSON fragment, following `type.kind`. */
export function valueToJson(text: string | null, type: TypeInfo): string {
  if (text === null) return "null";
  switch (type.kind) {
    case "bool":
      return text === "t" ? "true" : "false";
    case "int":
      return text;
    case "float":
      return FLOAT_WORDS.has(text) ? `"${text}"` : text;
    case "json":
      return text;
    case "timestamp":
      return JSON.stringify(isoTimestamp(text));
    case "timestamptz":
      return JSON.stringify(isoTimestampTz(text));
    case "array": {
      const items = type.element ? parsePgArray(text, type.delimiter) : undefined;
      return items && type.element ? arrayToJson(items, type.element) : JSON.stringify(text);
    }
    default:
      return JSON.stringify(text);
  }
}
