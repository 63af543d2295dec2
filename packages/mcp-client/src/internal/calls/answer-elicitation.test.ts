import { describe, expect, it } from "vitest";
import type { MCPElicitationSchema } from "../../elicitation.js";
import { answerElicitation, elicitationContentProblems, toElicitationRequest } from "./answer-elicitation.js";

const schema: MCPElicitationSchema = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 2, maxLength: 20 },
    email: { type: "string", format: "email" },
    homepage: { type: "string", format: "uri" },
    birthdate: { type: "string", format: "date" },
    age: { type: "integer", minimum: 0, maximum: 150 },
    ratio: { type: "number" },
    agree: { type: "boolean" },
    color: { type: "string", enum: ["red", "green"] },
    hero: { type: "string", oneOf: [{ const: "hero-1" }, { const: "hero-2" }] },
    tools: { type: "array", minItems: 1, maxItems: 2, items: { type: "string", enum: ["saw", "drill"] } },
    fish: { type: "array", items: { anyOf: [{ const: "fish-1" }, { const: "fish-2" }] } },
  },
  required: ["name"],
};

describe("elicitationContentProblems", () => {
  it("accepts content that fits every field", () => {
    expect(
      elicitationContentProblems(schema, {
        name: "Ada",
        email: "ada@example.org",
        homepage: "https://example.org",
        birthdate: "1815-12-10",
        age: 36,
        ratio: 0.5,
        agree: true,
        color: "red",
        hero: "hero-2",
        tools: ["saw"],
        fish: ["fish-1", "fish-2"],
      }),
    ).toEqual([]);
  });

  it("names every field that does not fit", () => {
    expect(
      elicitationContentProblems(schema, {
        email: "not-an-email",
        homepage: "no scheme",
        birthdate: "10/12/1815",
        age: 1.5,
        ratio: "half",
        agree: "yes",
        color: "blue",
        hero: "hero-9",
        tools: ["saw", "drill", "saw"],
        fish: ["fish-3"],
        extra: "x",
      }),
    ).toEqual([
      '"name" is required',
      '"email" is not an email address',
      '"homepage" is not a URI',
      '"birthdate" is not a date (YYYY-MM-DD)',
      '"age" is not an integer',
      '"ratio" is not a number',
      '"agree" is not a boolean',
      '"color" is not one of the allowed values',
      '"hero" is not one of the allowed values',
      '"tools" has too many items',
      '"fish" has a value that is not allowed',
      '"extra" was not asked for',
    ]);
    expect(elicitationContentProblems(schema, { name: "A" })).toEqual(['"name" is too short']);
    expect(elicitationContentProblems(schema, null)).toEqual(["content is not an object"]);
    // "__proto__" as an own key is a value that was not asked for, not a prototype.
    expect(elicitationContentProblems(schema, JSON.parse('{"name":"Ada","__proto__":"x"}'))).toEqual([
      '"__proto__" was not asked for',
    ]);
  });
});

describe("toElicitationRequest", () => {
  it("copies form and URL requests into plain data", () => {
    const params = {
      message: "hi",
      requestedSchema: { type: "object", properties: { a: { type: "string" } } },
    };
    const form = toElicitationRequest("s", params);
    expect(form).toEqual({
      mode: "form",
      serverName: "s",
      message: "hi",
      requestedSchema: params.requestedSchema,
    });
    expect(form?.mode === "form" && form.requestedSchema.properties.a).not.toBe(
      params.requestedSchema.properties.a,
    );
    expect(
      toElicitationRequest("s", {
        mode: "url",
        message: "go",
        url: "https://x.invalid",
        elicitationId: "e1",
      }),
    ).toEqual({ mode: "url", serverName: "s", message: "go", url: "https://x.invalid", elicitationId: "e1" });
    expect(toElicitationRequest("s", { mode: "url", message: "go" })).toBeUndefined();
    expect(
      toElicitationRequest("s", { message: "x", requestedSchema: { properties: { a: 1 } } }),
    ).toBeUndefined();
  });
});

describe("answerElicitation", () => {
  const request = toElicitationRequest("s", {
    message: "m",
    requestedSchema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
  });
  if (!request) throw new Error("unreachable");
  const never = new AbortController().signal;

  it("passes valid answers through and declines everything else", async () => {
    expect(
      await answerElicitation(async () => ({ action: "accept", content: { a: "x" } }), request, never, 1000),
    ).toEqual({
      result: { action: "accept", content: { a: "x" } },
    });
    expect(
      (await answerElicitation(async () => ({ action: "cancel" }), request, never, 1000)).result,
    ).toEqual({
      action: "cancel",
    });
    const missing = await answerElicitation(
      async () => ({ action: "accept", content: {} }),
      request,
      never,
      1000,
    );
    expect(missing).toMatchObject({
      result: { action: "decline" },
      declinedBecause: expect.stringContaining('"a" is required'),
    });
    const sync = await answerElicitation(
      (() => {
        throw new Error("sync throw");
      }) as never,
      request,
      never,
      1000,
    );
    expect(sync.declinedBecause).toContain("sync throw");
  });

  it("fills the values the handler left out from the schema's defaults (SEP-1034), never replacing a given one", async () => {
    const withDefaultsRequest = toElicitationRequest("s", {
      message: "m",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", default: "Ada" },
          count: { type: "integer", default: 3 },
          agree: { type: "boolean", default: true },
          color: { type: "string", enum: ["red", "green"], default: "green" },
          tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["a"] },
          free: { type: "string" },
        },
        required: ["name", "count"],
      },
    });
    if (!withDefaultsRequest) throw new Error("unreachable");
    const nothingTyped = await answerElicitation(
      async () => ({ action: "accept", content: {} }),
      withDefaultsRequest,
      never,
      1000,
    );
    expect(nothingTyped.result).toEqual({
      action: "accept",
      content: { name: "Ada", count: 3, agree: true, color: "green", tags: ["a"] },
    });
    const noContent = await answerElicitation(
      async () => ({ action: "accept" }),
      withDefaultsRequest,
      never,
      1000,
    );
    expect(noContent.result).toMatchObject({ action: "accept", content: { name: "Ada", count: 3 } });
    const given = await answerElicitation(
      async () => ({ action: "accept", content: { name: "Grace", agree: false } }),
      withDefaultsRequest,
      never,
      1000,
    );
    expect(given.result).toEqual({
      action: "accept",
      content: { name: "Grace", count: 3, agree: false, color: "green", tags: ["a"] },
    });
  });

  it("declines when the request is cancelled, and aborts the handler's signal", async () => {
    const cancel = new AbortController();
    let seen: AbortSignal | undefined;
    const running = answerElicitation(
      (_request, context) => {
        seen = context.signal;
        return new Promise(() => {});
      },
      request,
      cancel.signal,
      60_000,
    );
    cancel.abort();
    expect(await running).toMatchObject({ result: { action: "decline" } });
    expect(seen?.aborted).toBe(true);
  });
});
