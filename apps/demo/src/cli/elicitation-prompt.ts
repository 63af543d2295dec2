// Asking the person at the terminal what an MCP server requests while a tool runs (elicitation): form mode
// field by field, each answer checked against the requested schema; URL mode shows the URL and asks to
// confirm. Only what the user types is sent: nothing is prefilled (not even a schema's `default`).
import { createInterface } from "node:readline/promises";
import type {
  MCPElicitationFieldSchema,
  MCPElicitationHandler,
  MCPElicitationRequest,
  MCPElicitationResult,
  MCPElicitationValue,
} from "@agentforge/mcp-client";
import { terminalSafe } from "../shared/terminal-safe.js";

/** Where the questions go and the answers come from (a terminal; streams in tests). */
export interface ElicitationPromptStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
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
        if (value === undefined) return { problem: `"${terminalSafe(part, 80)}" is not one of the choices` };
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

function fieldHint(field: MCPElicitationFieldSchema, required: boolean): string {
  const parts: string[] = [];
  const choices =
    field.type === "array" ? choicesOf(field.items as Record<string, unknown>) : choicesOf(field);
  if (choices?.length) {
    parts.push(
      `${field.type === "array" ? "choose any, comma-separated" : "choose one"}: ${choices
        .map((c, i) => `${i + 1}) ${terminalSafe(c.label, 80)}`)
        .join("  ")}`,
    );
  } else if (field.type === "boolean") parts.push("y/n");
  else
    parts.push(
      typeof field.format === "string" ? `${field.type}, ${terminalSafe(field.format, 40)}` : field.type,
    );
  parts.push(required ? "required" : "optional: Enter to leave out");
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
    const server = terminalSafe(request.serverName, 100);
    say("");
    say(`MCP server "${server}" asks: ${terminalSafe(request.message)}`);
    if (request.mode === "url") {
      say(`  URL: ${terminalSafe(request.url)}`);
      say("  Nothing is opened here: accepting tells the server you will open it yourself.");
      const answer = await question("Open this URL yourself? [y/N] ");
      if (answer === null) return { action: "cancel" };
      return /^(y|yes)$/i.test(answer) ? { action: "accept" } : { action: "decline" };
    }
    const { properties, required = [] } = request.requestedSchema;
    const names = Object.keys(properties);
    say(
      `  It asks for ${names.length} value${names.length === 1 ? "" : "s"}: ${names.map((n) => terminalSafe(n, 60)).join(", ")}`,
    );
    const go = await question("Answer? [y/N] ");
    if (go === null) return { action: "cancel" };
    if (!/^(y|yes)$/i.test(go)) return { action: "decline" };
    const content: Record<string, MCPElicitationValue> = {};
    for (const name of names) {
      const field = properties[name] as MCPElicitationFieldSchema;
      const isRequired = required.includes(name);
      const label = terminalSafe(typeof field.title === "string" ? field.title : name, 100);
      if (typeof field.description === "string") say(`  ${terminalSafe(field.description, 500)}`);
      let done = false;
      for (let attempt = 0; attempt < MAX_ATTEMPTS && !done; attempt++) {
        const answer = await question(`${label} (${fieldHint(field, isRequired)}): `);
        if (answer === null) return { action: "cancel" };
        if (answer === "") {
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
