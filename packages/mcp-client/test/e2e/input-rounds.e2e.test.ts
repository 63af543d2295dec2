// input_required rounds (2026-07-28): each round is told to the call's onInputRound with its number and
// modes only, and a requestState over MAX_REQUEST_STATE_BYTES stops the call with
// REQUEST_STATE_TOO_LARGE — the state neither sent back nor quoted. A real v2 SDK server (stdio).
import { modernStdioTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import type { MCPElicitationHandler } from "../../src/elicitation.js";
import { MCPRequestError } from "../../src/errors.js";
import { MAX_REQUEST_STATE_BYTES } from "../../src/internal/calls/input-rounds.js";
import type { MCPInputRound } from "../../src/types.js";
import { cleanup, manager, rejectionOf, textOf } from "./helpers.js";

afterEach(cleanup);

// ask_twice asks for `v` twice; ask_big_state asks "Go on?" with a boolean `ok`.
const accept: MCPElicitationHandler = async (request) => {
  const content: Record<string, string | boolean> = request.message === "Go on?" ? { ok: true } : { v: "x" };
  return { action: "accept", content };
};

describe("input_required rounds", { timeout: 120_000 }, () => {
  it("each round is told once, in order, with its modes only", async () => {
    const m = manager([modernStdioTestServer("modern")], { elicitation: accept });
    const rounds: MCPInputRound[] = [];
    const result = await m.callTool("modern", "ask_twice", {}, { onInputRound: (r) => rounds.push(r) });
    expect(textOf(result)).toBe("x then x");
    expect(rounds).toEqual([
      { round: 1, modes: ["elicitation.form"] },
      { round: 2, modes: ["elicitation.form"] },
    ]);
    // A listener that throws does not break the call.
    const again = await m.callTool(
      "modern",
      "ask_twice",
      {},
      {
        onInputRound: () => {
          throw new Error("listener bug");
        },
      },
    );
    expect(textOf(again)).toBe("x then x");
  });

  it("a requestState at the limit is echoed; one byte over stops the call with REQUEST_STATE_TOO_LARGE", async () => {
    const m = manager([modernStdioTestServer("modern")], { elicitation: accept });
    const at = await m.callTool("modern", "ask_big_state", { bytes: MAX_REQUEST_STATE_BYTES });
    expect(textOf(at)).toBe(`state of ${MAX_REQUEST_STATE_BYTES} bytes came back`);
    const rounds: MCPInputRound[] = [];
    const error = await rejectionOf(
      m.callTool(
        "modern",
        "ask_big_state",
        { bytes: MAX_REQUEST_STATE_BYTES + 1 },
        {
          onInputRound: (r) => rounds.push(r),
        },
      ),
    );
    expect(MCPRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "REQUEST_STATE_TOO_LARGE",
      serverName: "modern",
      toolName: "ask_big_state",
      limitBytes: MAX_REQUEST_STATE_BYTES,
    });
    expect((error as Error).message).not.toContain("sss");
    expect(rounds).toEqual([]);
    // The connection stays usable.
    expect(textOf(await m.callTool("modern", "echo", { text: "still here" }))).toBe("still here");
  });
});
