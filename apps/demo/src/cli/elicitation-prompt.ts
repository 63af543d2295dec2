// Asking the person at the terminal what an MCP server requests while a tool runs (elicitation): form mode
// field by field, each answer checked against the requested schema, a field's `default` (SEP-1034) shown
// and kept on Enter; URL mode shows the URL and its host in ASCII (punycode) and asks to confirm. Every
// text from the server is cleaned and put on one line: a message cannot forge a second prompt block.

import { createInterface } from "node:readline/promises";
import { domainToUnicode } from "node:url";
import type {
  MCPElicitationFieldSchema,
  MCPElicitationHandler,
  MCPElicitationRequest,
  MCPElicitationResult,
  MCPElicitationValue,
} from "@agentforge/mcp-client";
import { cleanText } from "@agentforge/mcp-config/core";

/** Where the questions go and the answers come from (a terminal; streams in tests). */
export interface ElicitationPromptStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/**
 * A server's text for one line of the prompt: escapes, controls and bidi controls removed (the one
 * cleaner), every line break and run of white space made one space, bounded.
 */
export function oneLine(text: unknown, max = 500): string {
  const clean = cleanText(String(text), { lineBreaks: false }).replace(/\s+/g, " ").trim();
  return cleanText(clean, { maxChars: max });
}

/**
 * The lines that show a URL-mode request's URL: the URL as the browser would open it (all ASCII: the
 * host in punycode, anything else percent-encoded) and, beside it, its host alone — said to be written
 * with non-ASCII letters when it is (a homoglyph of a known site), or the text cleaned and said not to be
 * a URL when it does not parse. Exported for tests.
 */
export function urlLines(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [`  URL: ${oneLine(url, 2000)}`, "  (this is not a valid URL: do not open it)"];
  }
  const host = parsed.hostname;
  const lines = [`  URL: ${oneLine(parsed.href, 2000)}`];
  const unicode = domainToUnicode(host);
  const notAscii = unicode !== host && unicode !== "";
  const scheme =
    parsed.protocol === "https:" || parsed.protocol === "http:"
      ? ""
      : ` (a ${oneLine(parsed.protocol, 20)} URL, not a web page)`;
  lines.push(
    `  Host: ${host === "" ? "(none)" : oneLine(host, 300)}${notAscii ? " (written with non-ASCII letters: check it is the site you expect)" : ""}${scheme}`,
  );
  return lines;
}

/** Tries per field before the whole request is cancelled. */
export const MAX_ATTEMPTS = 3;

interface Choice {
  value: string;
  label: string;
}

function choicesOf(field: Record<string, unknown> | undefined): Choice[] | undefined {
  if (!field) return undefined;
  if (Array.isArray(field.enum)) {
    const names = Array.isArray(field.enumNames) ? field.enumNames : [];
    return field.enum
      .filter((v): v is string => typeof v === "string")
      .map((value, i) => ({ value, label: typeof names[i] === "string" ? String(names[i]) : value }));
  }
  const options = Array.isArray(field.oneOf) ? field.oneOf : Array.isArray(field.anyOf) ? field.anyOf : null;
  if (!options) return undefined;
  return options.flatMap((option: unknown): Choice[] => {
    if (typeof option !== "object" || option === null) return [];
    const { const: value, title } = option as { const?: unknown; title?: unknown };
    return typeof value === "string" ? [{ value, label: typeof title === "string" ? title : value }] : [];
  });
}

function pick(choices: Choice[], answer: string): string | undefined {
  const index = /^\d+$/.test(answer) ? Number(answer) - 1 : -1;
  if (index >= 0 && index < choices.length) return choices[index]?.value;
  return choices.find((c) => c.value === answer)?.value;
}

const FORMATS: Record<string, (value: string) => boolean> = {
  email: (v) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v),
  uri: (v) => {
    try {
      new URL(v);
      return true;
    } catch {
      return false;
    }
  },
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  "date-time": (v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)),
};

const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/**
 * Parse one typed answer against its field schema: the value, or the problem to show (then asked again).
 * Exported for tests.
 */
export function parseFieldAnswer(
  field: MCPElicitationFieldSchema,
  answer: string,
): { value: MCPElicitationValue } | { problem: string } {
  switch (field.type) {
    case "boolean": {
      if (/^(y|yes|true)$/i.test(answer)) return { value: true };
      if (/^(n|no|false)$/i.test(answer)) return { value: false };
      return { problem: "answer y or n" };
    }
    case "number":
    case "integer": {
      const value = Number(answer);
      if (answer === "" || !Number.isFinite(value)) return { problem: "expected a number" };
      if (field.type === "integer" && !Number.isInteger(value)) return { problem: "expected a whole number" };
      const min = num(field.minimum);
      const max = num(field.maximum);
      if (min !== undefined && value < min) return { problem: `expected at least ${min}` };
      if (max !== undefined && value > max) return { problem: `expected at most ${max}` };
      return { value };
    }
    case "array": {
      const choices = choicesOf(field.items as Record<string, unknown> | undefined) ?? [];
      const parts = answer
        .split(",")
        .map((p) => p.trim())
        .filter((p) => p !== "");
      const values: string[] = [];
      for (const part of parts) {
        const value = pick(choices, part);
        if (value === undefined) return { problem: `"${oneLine(part, 80)}" is not one of the choices` };
        if (!values.includes(value)) values.push(value);
      }
      const min = num(field.minItems);
      const max = num(field.maxItems);
      if (min !== undefined && values.length < min) return { problem: `choose at least ${min}` };
      if (max !== undefined && values.length > max) return { problem: `choose at most ${max}` };
      return { value: values };
    }
    default: {
      const choices = choicesOf(field);
      if (choices && choices.length > 0) {
        const value = pick(choices, answer);
        return value === undefined ? { problem: "choose one of the listed values" } : { value };
      }
      const min = num(field.minLength);
      const max = num(field.maxLength);
      if (min !== undefined && answer.length < min) return { problem: `expected at least ${min} characters` };
      if (max !== undefined && answer.length > max) return { problem: `expected at most ${max} characters` };
      const format = typeof field.format === "string" ? FORMATS[field.format] : undefined;
      if (format && !format(answer)) return { problem: `expected ${String(field.format)}` };
      return { value: answer };
    }
  }
}

/** What a field's answer text is for a value (the inverse of `parseFieldAnswer`). */
function answerText(field: MCPElicitationFieldSchema, value: unknown): string | undefined {
  if (field.type === "boolean") return typeof value === "boolean" ? (value ? "y" : "n") : undefined;
  if (field.type === "number" || field.type === "integer") {
    return typeof value === "number" && Number.isFinite(value) ? String(value) : undefined;
  }
  if (field.type === "array") {
    return Array.isArray(value) && value.every((v) => typeof v === "string") ? value.join(",") : undefined;
  }
  return typeof value === "string" ? value : undefined;
}

/**
 * A field's `default` (SEP-1034) when it is a valid answer to the field: the value Enter keeps, and how it
 * is shown. A default that breaks the field's own schema is ignored. Exported for tests.
 */
export function fieldDefault(
  field: MCPElicitationFieldSchema,
): { value: MCPElicitationValue; shown: string } | undefined {
  if (!Object.hasOwn(field, "default")) return undefined;
  const text = answerText(field, field.default);
  if (text === undefined || (text === "" && field.type !== "string")) return undefined;
  const parsed = parseFieldAnswer(field, text);
  if ("problem" in parsed) return undefined;
  const value = parsed.value;
  const choices =
    field.type === "array" ? choicesOf(field.items as Record<string, unknown>) : choicesOf(field);
  const label = (v: string) => choices?.find((c) => c.value === v)?.label ?? v;
  const shown =
    typeof value === "boolean"
      ? value
        ? "yes"
        : "no"
      : Array.isArray(value)
        ? value.map(label).join(", ")
        : typeof value === "string"
          ? label(value)
          : String(value);
  return { value, shown: oneLine(shown, 200) };
}

function fieldHint(field: MCPElicitationFieldSchema, required: boolean): string {
  const parts: string[] = [];
  const choices =
    field.type === "array" ? choicesOf(field.items as Record<string, unknown>) : choicesOf(field);
  if (choices?.length) {
    parts.push(
      `${field.type === "array" ? "choose any, comma-separated" : "choose one"}: ${choices
        .map((c, i) => `${i + 1}) ${oneLine(c.label, 80)}`)
        .join("  ")}`,
    );
  } else if (field.type === "boolean") parts.push("y/n");
  else
    parts.push(typeof field.format === "string" ? `${field.type}, ${oneLine(field.format, 40)}` : field.type);
  const preset = fieldDefault(field);
  if (preset) parts.push(`default ${JSON.stringify(preset.shown)}: Enter keeps it`);
  else parts.push(required ? "required" : "optional: Enter to leave out");
  return parts.join("; ");
}

/**
 * An elicitation handler that asks at a terminal. One request at a time (a second waits for the first);
 * the end of input or the server's cancellation cancels the request.
 */
export function terminalElicitation(streams: ElicitationPromptStreams): MCPElicitationHandler {
  let queue: Promise<unknown> = Promise.resolve();
  return (request, context) => {
    const next = queue.then(() => ask(streams, request, context.signal));
    queue = next.catch(() => undefined);
    return next;
  };
}

async function ask(
  { input, output }: ElicitationPromptStreams,
  request: MCPElicitationRequest,
  signal: AbortSignal,
): Promise<MCPElicitationResult> {
  const rl = createInterface({ input, output, terminal: false });
  let closed = false;
  const ended = new Promise<null>((resolve) =>
    rl.once("close", () => {
      closed = true;
      resolve(null);
    }),
  );
  const say = (text: string) => output.write(`${text}\n`);
  const question = async (text: string): Promise<string | null> => {
    if (closed || signal.aborted) return null;
    try {
      const answer = await Promise.race([rl.question(text, { signal }), ended]);
      return answer === null ? null : answer.trim();
    } catch {
      return null; // aborted
    }
  };
  try {
    const server = oneLine(request.serverName, 100);
    say("");
    say(`MCP server "${server}" asks: ${oneLine(request.message, 2000)}`);
    if (request.mode === "url") {
      for (const line of urlLines(request.url)) say(line);
      say("  Nothing is opened here: accepting tells the server you will open it yourself.");
      const answer = await question("Open this URL yourself? [y/N] ");
      if (answer === null) return { action: "cancel" };
      return /^(y|yes)$/i.test(answer) ? { action: "accept" } : { action: "decline" };
    }
    const { properties, required = [] } = request.requestedSchema;
    const names = Object.keys(properties);
    say(
      `  It asks for ${names.length} value${names.length === 1 ? "" : "s"}: ${names.map((n) => oneLine(n, 60)).join(", ")}`,
    );
    const go = await question("Answer? [y/N] ");
    if (go === null) return { action: "cancel" };
    if (!/^(y|yes)$/i.test(go)) return { action: "decline" };
    const content: Record<string, MCPElicitationValue> = {};
    for (const name of names) {
      const field = properties[name] as MCPElicitationFieldSchema;
      const isRequired = required.includes(name);
      const label = oneLine(typeof field.title === "string" ? field.title : name, 100);
      if (typeof field.description === "string") say(`  ${oneLine(field.description, 500)}`);
      let done = false;
      for (let attempt = 0; attempt < MAX_ATTEMPTS && !done; attempt++) {
        const answer = await question(`${label} (${fieldHint(field, isRequired)}): `);
        if (answer === null) return { action: "cancel" };
        if (answer === "") {
          const preset = fieldDefault(field);
          if (preset) {
            content[name] = preset.value;
            done = true;
            break;
          }
          if (!isRequired) {
            done = true;
            break;
          }
          say("  a value is required");
          continue;
        }
        const parsed = parseFieldAnswer(field, answer);
        if ("problem" in parsed) {
          say(`  ${parsed.problem}`);
          continue;
        }
        content[name] = parsed.value;
        done = true;
      }
      if (!done) {
        say(`  no valid value for ${label} after ${MAX_ATTEMPTS} tries: request cancelled`);
        return { action: "cancel" };
      }
    }
    return { action: "accept", content };
  } finally {
    rl.close();
  }
}
