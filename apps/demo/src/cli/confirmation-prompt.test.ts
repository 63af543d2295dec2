// The terminal confirmation prompt, driven through real streams (the pseudo-terminal run is in
// test/e2e/confirmation-terminal.e2e.test.ts).
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  confirmationLines,
  describeAnnotations,
  type TerminalConfirmationRequest,
  terminalConfirmation,
} from "./confirmation-prompt.js";

function streams() {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = "";
  output.on("data", (chunk) => {
    written += String(chunk);
  });
  return { input, output, written: () => written };
}

/** Type `line` once the question is on the screen. */
function answerWith(io: ReturnType<typeof streams>, line: string | null): void {
  io.output.on("data", (chunk) => {
    if (!/N = no\] $/.test(String(chunk))) return;
    setImmediate(() => (line === null ? io.input.end() : io.input.write(`${line}\n`)));
  });
}

const request: TerminalConfirmationRequest = {
  agent: "documentation",
  identity: "probe.delete_branch",
  title: "Delete\u001b[2J a branch",
  annotations: { destructiveHint: true, openWorldHint: true },
  argumentsPreview: '{"branch":"main\u001b]52;c;cHduZWQ=\u0007","force":true}',
};

const signal = () => new AbortController().signal;

describe("terminalConfirmation", () => {
  it.each([
    ["y", { decision: "allow", scope: "call" }],
    ["YES", { decision: "allow", scope: "call" }],
    ["a", { decision: "allow", scope: "run" }],
    ["", { decision: "deny", scope: "call" }],
    ["n", { decision: "deny", scope: "call" }],
    ["sure", { decision: "deny", scope: "call" }],
  ])("answer %j → %j (default no)", async (typed, expected) => {
    const io = streams();
    answerWith(io, typed);
    expect(await terminalConfirmation(io)(request, { signal: signal() })).toEqual(expected);
  });

  it("denies at the end of input and when the executor gives up (aborted)", async () => {
    const io = streams();
    answerWith(io, null);
    expect(await terminalConfirmation(io)(request, { signal: signal() })).toMatchObject({
      decision: "deny",
      reason: "end of input",
    });
    const io2 = streams();
    const controller = new AbortController();
    io2.output.on("data", (chunk) => {
      if (/N = no\] $/.test(String(chunk))) setImmediate(() => controller.abort(new Error("timeout")));
    });
    expect(await terminalConfirmation(io2)(request, { signal: controller.signal })).toMatchObject({
      decision: "deny",
      reason: "no answer in time",
    });
  });

  it("shows identity, title, annotations and the preview with no escape sequence", async () => {
    const io = streams();
    answerWith(io, "n");
    await terminalConfirmation(io)(request, { signal: signal() });
    const text = io.written();
    expect(text).toContain('Confirm a tool call of agent "documentation"');
    expect(text).toContain("probe.delete_branch");
    expect(text).toContain("destructive, reaches outside systems");
    expect(text).toContain('"force":true');
    for (const control of ["\u001b", "\u0007", "\u009b"]) expect(text).not.toContain(control);
  });

  it("asks one question at a time", async () => {
    const io = streams();
    let asked = 0;
    io.output.on("data", (chunk) => {
      if (!/N = no\] $/.test(String(chunk))) return;
      asked++;
      const answer = asked === 1 ? "y" : "n";
      setImmediate(() => io.input.write(`${answer}\n`));
    });
    const ask = terminalConfirmation(io);
    const [first, second] = await Promise.all([
      ask(request, { signal: signal() }),
      ask({ ...request, identity: "probe.other" }, { signal: signal() }),
    ]);
    expect(first.decision).toBe("allow");
    expect(second.decision).toBe("deny");
    expect(io.written().indexOf("probe.other")).toBeGreaterThan(io.written().indexOf("probe.delete_branch"));
  });

  it("names what the server left unsaid", () => {
    expect(describeAnnotations(undefined)).toBe("none stated");
    expect(describeAnnotations({})).toBe("none stated");
    expect(describeAnnotations({ readOnlyHint: false })).toBe("not read-only");
    expect(confirmationLines({ ...request, title: undefined })[2]).toBe("  tool:        probe.delete_branch");
  });
});
