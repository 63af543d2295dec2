/**
 * Answers a server's `elicitation/create` with the manager's handler: plain data in, a checked answer
 * out. A handler that throws, rejects, answers nonsense or runs out of time answers `decline`.
 */
import type {
  MCPElicitationFieldSchema,
  MCPElicitationHandler,
  MCPElicitationRequest,
  MCPElicitationResult,
  MCPElicitationSchema,
  MCPElicitationValue,
} from "../../elicitation.js";

type Obj = Record<string, unknown>;

const isObject = (value: unknown): value is Obj =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The elicitation capability the manager declares when it has a handler. */
export const ELICITATION_CAPABILITY = { form: {}, url: {} } as const;

/** Plain data from the SDK-validated request params (returns undefined when unusable). */
export function toElicitationRequest(serverName: string, params: unknown): MCPElicitationRequest | undefined {
  if (!isObject(params)) return undefined;
  const message = typeof params.message === "string" ? params.message : "";
  if (params.mode === "url") {
    if (typeof params.url !== "string" || typeof params.elicitationId !== "string") return undefined;
    return { mode: "url", serverName, message, url: params.url, elicitationId: params.elicitationId };
  }
  const schema = params.requestedSchema;
  if (!isObject(schema) || !isObject(schema.properties)) return undefined;
  const properties: Record<string, MCPElicitationFieldSchema> = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    if (!isObject(field) || typeof field.type !== "string") return undefined;
    properties[name] = structuredClone(field) as MCPElicitationFieldSchema;
  }
  const requestedSchema: MCPElicitationSchema = { type: "object", properties };
  if (Array.isArray(schema.required)) {
    requestedSchema.required = schema.required.filter((key): key is string => typeof key === "string");
  }
  return { mode: "form", serverName, message, requestedSchema };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function formatProblem(format: unknown, value: string): string | undefined {
  switch (format) {
    case "email":
      return EMAIL.test(value) ? undefined : "is not an email address";
    case "uri":
      try {
        new URL(value);
        return undefined;
      } catch {
        return "is not a URI";
      }
    case "date":
      return DATE.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : "is not a date (YYYY-MM-DD)";
    case "date-time":
      return Number.isNaN(Date.parse(value)) ? "is not a date-time" : undefined;
    default:
      return undefined;
  }
}

/** The values a single- or multi-select field allows (`enum`, or `oneOf`/`anyOf` of `const`). */
function allowed(schema: Obj): Set<unknown> | undefined {
  if (Array.isArray(schema.enum)) return new Set(schema.enum);
  const options = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : null;
  if (!options) return undefined;
  return new Set(options.filter(isObject).map((option) => option.const));
}

function fieldProblem(field: MCPElicitationFieldSchema, value: unknown): string | undefined {
  switch (field.type) {
    case "string": {
      if (typeof value !== "string") return "is not a string";
      if (typeof field.minLength === "number" && value.length < field.minLength) return "is too short";
      if (typeof field.maxLength === "number" && value.length > field.maxLength) return "is too long";
      const options = allowed(field);
      if (options && !options.has(value)) return "is not one of the allowed values";
      return formatProblem(field.format, value);
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "is not a number";
      if (field.type === "integer" && !Number.isInteger(value)) return "is not an integer";
      if (typeof field.minimum === "number" && value < field.minimum) return "is below the minimum";
      if (typeof field.maximum === "number" && value > field.maximum) return "is above the maximum";
      return undefined;
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : "is not a boolean";
    case "array": {
      if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
        return "is not an array of strings";
      }
      if (typeof field.minItems === "number" && value.length < field.minItems) return "has too few items";
      if (typeof field.maxItems === "number" && value.length > field.maxItems) return "has too many items";
      const options = isObject(field.items) ? allowed(field.items) : undefined;
      if (options && !value.every((item) => options.has(item))) return "has a value that is not allowed";
      return undefined;
    }
    default:
      return `has an unsupported field type ${JSON.stringify(field.type)}`;
  }
}

/**
 * Check form content against the requested schema: every required value present, no value that was not
 * asked for, each of the right type and within its limits. Returns the problems (empty when valid).
 */
export function elicitationContentProblems(schema: MCPElicitationSchema, content: unknown): string[] {
  if (!isObject(content)) return ["content is not an object"];
  const problems: string[] = [];
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(content, name)) problems.push(`"${name}" is required`);
  }
  for (const [name, value] of Object.entries(content)) {
    const field = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    if (!field) {
      problems.push(`"${name}" was not asked for`);
      continue;
    }
    const problem = fieldProblem(field, value);
    if (problem) problems.push(`"${name}" ${problem}`);
  }
  return problems;
}

/** What is sent back to the server, and why when it is a forced `decline`. */
export interface ElicitationOutcome {
  result: MCPElicitationResult;
  /** Why the handler's answer was replaced by `decline` (for the server's log), if it was. */
  declinedBecause?: string;
}

/**
 * Run the handler for one request: bounded by `timeoutMs` and by `cancelled` (the server's request
 * signal); every failure answers `decline`.
 */
export async function answerElicitation(
  handler: MCPElicitationHandler,
  request: MCPElicitationRequest,
  cancelled: AbortSignal,
  timeoutMs: number,
): Promise<ElicitationOutcome> {
  const abort = new AbortController();
  const onCancel = () => abort.abort(cancelled.reason);
  if (cancelled.aborted) onCancel();
  else cancelled.addEventListener("abort", onCancel, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const gone = new Promise<"cancelled">((resolve) => {
    if (abort.signal.aborted) resolve("cancelled");
    else abort.signal.addEventListener("abort", () => resolve("cancelled"), { once: true });
  });
  try {
    let answer: unknown;
    try {
      const running = Promise.resolve().then(() =>
        handler(request, { serverName: request.serverName, signal: abort.signal }),
      );
      running.catch(() => {}); // a late rejection after a timeout must not become unhandled
      answer = await Promise.race([running, late, gone]);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return decline(`the elicitation handler failed: ${reason}`);
    }
    if (answer === "timeout") {
      abort.abort(new Error("elicitation handler timed out"));
      return decline(`the elicitation handler did not answer within ${timeoutMs} ms`);
    }
    if (answer === "cancelled") return decline("the request was cancelled before the handler answered");
    return checkAnswer(request, answer);
  } finally {
    clearTimeout(timer);
    cancelled.removeEventListener("abort", onCancel);
  }
}

/**
 * SEP-1034: the values the handler left out are filled from the requested schema's `default`s (a form
 * prefilled with them, accepted as it is), before the answer is checked and sent. A value the handler
 * gave is never replaced; content that is not an object is left for the check to refuse.
 */
export function withDefaults(schema: MCPElicitationSchema, content: unknown): unknown {
  if (!isObject(content)) return content;
  const out: Record<string, unknown> = { ...content };
  for (const [name, field] of Object.entries(schema.properties)) {
    if (!Object.hasOwn(out, name) && isObject(field) && Object.hasOwn(field, "default")) {
      out[name] = field.default;
    }
  }
  return out;
}

function decline(because: string): ElicitationOutcome {
  return { result: { action: "decline" }, declinedBecause: because };
}

function checkAnswer(request: MCPElicitationRequest, answer: unknown): ElicitationOutcome {
  if (!isObject(answer)) return decline("the elicitation handler answered something that is not an object");
  const action = answer.action;
  if (action === "decline" || action === "cancel") return { result: { action } };
  if (action !== "accept") {
    return decline(`the elicitation handler answered action ${JSON.stringify(action) ?? "undefined"}`);
  }
  if (request.mode === "url") return { result: { action: "accept" } };
  const content = withDefaults(request.requestedSchema, answer.content ?? {});
  const problems = elicitationContentProblems(request.requestedSchema, content);
  if (problems.length) {
    return decline(`the answer does not match the requested schema: ${problems.slice(0, 5).join("; ")}`);
  }
  return {
    result: { action: "accept", content: structuredClone(content) as Record<string, MCPElicitationValue> },
  };
}
