import { describe, expect, it } from "vitest";
import { MCPRequestError } from "../../errors.js";
import { checkRequestState, MAX_REQUEST_STATE_BYTES, roundModes } from "./input-rounds.js";

describe("roundModes", () => {
  it("names each embedded request by method and mode only, sorted", () => {
    expect(
      roundModes({
        b: { method: "elicitation/create", params: { mode: "url", url: "https://x.invalid", message: "m" } },
        a: { method: "elicitation/create", params: { message: "no mode means form" } },
        c: { method: "sampling/createMessage", params: { messages: [] } },
        d: { method: "roots/list" },
        e: { method: "elicitation/create", params: { mode: "telepathy" } },
        f: { method: "made/up" },
        g: null,
      }),
    ).toEqual(["elicitation.form", "elicitation.url", "other", "other", "other", "roots", "sampling"]);
  });

  it("a round without requests (state only) or with a malformed map has no modes", () => {
    expect(roundModes({})).toEqual([]);
    expect(roundModes(undefined)).toEqual([]);
    expect(roundModes("x")).toEqual([]);
  });
});

describe("checkRequestState", () => {
  const request = { serverName: "s", method: "tools/call", toolName: "t" };

  it("lets a state up to the limit through, counting UTF-8 bytes", () => {
    expect(() => checkRequestState("a".repeat(MAX_REQUEST_STATE_BYTES), request)).not.toThrow();
    expect(() => checkRequestState(undefined, request)).not.toThrow();
    // 2 bytes per "é": half the limit in characters is the limit in bytes.
    expect(() => checkRequestState("é".repeat(MAX_REQUEST_STATE_BYTES / 2), request)).not.toThrow();
    expect(() => checkRequestState(`${"é".repeat(MAX_REQUEST_STATE_BYTES / 2)}a`, request)).toThrow();
  });

  it("refuses a larger one with a typed error that never quotes the state", () => {
    let thrown: unknown;
    try {
      checkRequestState(`SECRET${"a".repeat(MAX_REQUEST_STATE_BYTES)}`, request);
    } catch (error) {
      thrown = error;
    }
    expect(MCPRequestError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: "REQUEST_STATE_TOO_LARGE", toolName: "t", limitBytes: 262144 });
    expect((thrown as Error).message).not.toContain("SECRET");
    expect((thrown as Error).message).toContain(`${MAX_REQUEST_STATE_BYTES + 6} bytes`);
  });
});
