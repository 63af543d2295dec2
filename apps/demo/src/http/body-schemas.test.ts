import { describe, expect, it } from "vitest";
import { ApiError } from "./api-error.js";
import { parseBody, resumeRunSchema, startRunSchema } from "./body-schemas.js";

function issues(text: string, schema = startRunSchema) {
  try {
    parseBody(schema, text);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, ...error.toJSON().error };
    throw error;
  }
  throw new Error("expected an error");
}

describe("request bodies", () => {
  it("accepts a valid start body, and an empty resume body", () => {
    expect(parseBody(startRunSchema, '{"folder":"proj","pauseAfter":1,"model":"offline"}')).toEqual({
      folder: "proj",
      pauseAfter: 1,
      model: "offline",
    });
    expect(parseBody(resumeRunSchema, "")).toEqual({});
  });

  it("reports every problem with its field path", () => {
    expect(issues('{"pauseAfter":1.5,"maxRounds":99,"model":"x","bogus":1}')).toMatchObject({
      status: 400,
      code: "INVALID_BODY",
      issues: expect.arrayContaining([
        { path: "folder", message: "required" },
        { path: "pauseAfter", message: "expected an integer" },
        { path: "maxRounds", message: "expected an integer from 1 to 50" },
        { path: "model", message: "expected one of offline, openai, anthropic, ollama" },
        { path: "bogus", message: "unknown field" },
      ]),
    });
    expect(issues('{"folder":""}')).toMatchObject({
      issues: [{ path: "folder", message: "expected a non-empty folder path" }],
    });
  });

  it("an unparsable body is INVALID_JSON; a non-object is reported at (body)", () => {
    expect(issues("{")).toMatchObject({ status: 400, code: "INVALID_JSON" });
    expect(issues("[1]")).toMatchObject({ code: "INVALID_BODY", issues: [{ path: "(body)" }] });
  });
});
