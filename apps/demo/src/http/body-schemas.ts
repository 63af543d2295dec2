// Request bodies of the REST API, validated with zod; problems are reported with their field paths.
import { z } from "zod";
import { PROVIDERS } from "../docs-agent/select-model.js";
import { ApiError, type BodyIssue } from "./api-error.js";

const model = z.enum(PROVIDERS, { error: `expected one of ${PROVIDERS.join(", ")}` });
const maxRounds = z
  .int({ error: "expected an integer" })
  .min(1, { error: "expected an integer from 1 to 50" })
  .max(50, { error: "expected an integer from 1 to 50" });
const pauseAfter = z
  .int({ error: "expected an integer" })
  .min(1, { error: "expected an integer of at least 1" });

/** `POST /api/v1/runs`. */
export const startRunSchema = z.strictObject({
  folder: z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? "required"
          : "expected a folder path (relative to the allowed base, or absolute inside it)",
    })
    .min(1, { error: "expected a non-empty folder path" }),
  model: model.optional(),
  maxRounds: maxRounds.optional(),
  pauseAfter: pauseAfter.optional(),
});
/** A valid `POST /api/v1/runs` body. */
export type StartRunBody = z.infer<typeof startRunSchema>;

/** `POST /api/v1/runs/{id}/resume` (every field optional; an empty body is fine). */
export const resumeRunSchema = z.strictObject({
  model: model.optional(),
  maxRounds: maxRounds.optional(),
  pauseAfter: pauseAfter.optional(),
});
/** A valid resume body. */
export type ResumeRunBody = z.infer<typeof resumeRunSchema>;

/** `POST /api/v1/runs/{id}/confirmations/{callId}`: the answer (scope defaults to this call only). */
export const answerConfirmationSchema = z.strictObject({
  decision: z.enum(["allow", "deny"], {
    error: (issue) => (issue.input === undefined ? "required" : 'expected "allow" or "deny"'),
  }),
  scope: z.enum(["call", "run"], { error: 'expected "call" or "run"' }).optional(),
  reason: z
    .string({ error: "expected a string" })
    .max(500, { error: "expected at most 500 characters" })
    .optional(),
});
/** A valid confirmation answer. */
export type AnswerConfirmationBody = z.infer<typeof answerConfirmationSchema>;

/** `POST /api/v1/mcp/servers/{name}/resources/read`. */
export const readResourceSchema = z.strictObject({
  uri: z
    .string({ error: (issue) => (issue.input === undefined ? "required" : "expected a resource URI string") })
    .min(1, { error: "expected a non-empty resource URI" })
    .max(8192, { error: "expected a URI of at most 8192 characters" }),
});
/** A valid resource read body. */
export type ReadResourceBody = z.infer<typeof readResourceSchema>;

/** `POST /api/v1/mcp/servers/{name}/prompts/get`: prompt arguments are strings (MCP). */
export const getPromptSchema = z.strictObject({
  name: z
    .string({ error: (issue) => (issue.input === undefined ? "required" : "expected a prompt name string") })
    .min(1, { error: "expected a non-empty prompt name" })
    .max(1000, { error: "expected a name of at most 1000 characters" }),
  arguments: z
    .record(z.string(), z.string({ error: "expected a string (prompt arguments are strings)" }))
    .refine((value) => Object.keys(value).length <= 100, { error: "expected at most 100 arguments" })
    .optional(),
});
/** A valid prompt body. */
export type GetPromptBody = z.infer<typeof getPromptSchema>;

/** zod issues as `{path, message}`, unknown keys reported at their own path. */
export function bodyIssues(error: z.ZodError): BodyIssue[] {
  return error.issues.flatMap((issue): BodyIssue[] => {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ path: base ? `${base}.${key}` : key, message: "unknown field" }));
    }
    return [{ path: base || "(body)", message: issue.message }];
  });
}

/** Parse a JSON body text (empty → `{}`) against a schema; 400 INVALID_JSON / INVALID_BODY otherwise. */
export function parseBody<T>(schema: z.ZodType<T>, text: string): T {
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch {
      throw new ApiError(400, "INVALID_JSON", "the request body is not valid JSON");
    }
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = bodyIssues(result.error);
    throw new ApiError(
      400,
      "INVALID_BODY",
      `invalid request body: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      { issues },
    );
  }
  return result.data;
}
