// The terminal elicitation prompt and the progress lines, driven through real streams (no terminal).
import { PassThrough } from "node:stream";
import type { MCPElicitationRequest } from "@agentforge/mcp-client";
import { describe, expect, it } from "vitest";
import { terminalSafe } from "../shared/terminal-safe.js";
import { parseFieldAnswer, terminalElicitation } from "./elicitation-prompt.js";
import { createProgress } from "./progress.js";

function streams() {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = "";
  output.on("data", (chunk) => {
    written += String(chunk);
  });
  return { input, output, written: () => written };
}

/** Answer each question as it is asked (the prompt writes a question, then waits for one line). */
function answerLines(io: ReturnType<typeof streams>, lines: string[]): void {
  let asked = 0;
  io.output.on("data", (chunk) => {
    const text = String(chunk);
    if (/(\] |: )$/.test(text) && asked < lines.length) {
      const line = lines[asked++] as string;
      setImmediate(() => io.input.write(`${line}\n`));
    }
  });
}

const form: MCPElicitationRequest = {
  mode: "form",
  serverName: "booking",
  message: "Book a table\u001b[2J please",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Your name", minLength: 2 },
      guests: { type: "integer", minimum: 1, maximum: 8 },
      terrace: { type: "boolean" },
      time: { type: "string", enum: ["18:00", "20:00"] },
      note: { type: "string" },
    },
    required: ["name", "guests", "time"],
  },
};

const context = () => ({ serverName: "booking", signal: new AbortController().signal });

describe("terminalElicitation", () => {
  it("asks field by field, re-asks invalid answers, leaves optional ones out, never prefills", async () => {
    const io = streams();
    answerLines(io, ["y", "Al", "twelve", "9", "3", "", "2", ""]);
    const ask = terminalElicitation(io);
    const answer = await ask(form, context());
    expect(answer).toEqual({ action: "accept", content: { name: "Al", guests: 3, time: "20:00" } });
    const text = io.written();
    expect(text).toContain('MCP server "booking" asks: Book a table');
    expect(text).not.toContain("\u001b");
    expect(text).toContain("expected a number");
    expect(text).toContain("expected at most 8");
    expect(text).toContain("1) 18:00  2) 20:00");
  });

  it("declines when the user says no, cancels at the end of input", async () => {
    const no = streams();
    answerLines(no, ["n"]);
    expect(await terminalElicitation(no)(form, context())).toEqual({ action: "decline" });

    const eof = streams();
    const pending = terminalElicitation(eof)(form, context());
    eof.input.end();
    expect(await pending).toEqual({ action: "cancel" });
  });

  it("cancels after three invalid answers to a required field", async () => {
    const io = streams();
    answerLines(io, ["y", "A", "B", "C"]);
    expect(await terminalElicitation(io)(form, context())).toEqual({ action: "cancel" });
    expect(io.written()).toContain("after 3 tries");
  });

  it("URL mode shows the URL and asks to confirm; nothing is opened", async () => {
    const io = streams();
    answerLines(io, ["yes"]);
    const answer = await terminalElicitation(io)(
      {
        mode: "url",
        serverName: "pay",
        message: "Confirm the payment",
        url: "https://pay.example/confirm?id=1",
        elicitationId: "e1",
      },
      context(),
    );
    expect(answer).toEqual({ action: "accept" });
    expect(io.written()).toContain("URL: https://pay.example/confirm?id=1");
  });

  it("the server's cancellation cancels a question being asked", async () => {
    const io = streams();
    const controller = new AbortController();
    const pending = terminalElicitation(io)(form, { serverName: "booking", signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual({ action: "cancel" });
  });
});

describe("parseFieldAnswer", () => {
  it("checks types, formats, choices and limits", () => {
    expect(parseFieldAnswer({ type: "boolean" }, "yes")).toEqual({ value: true });
    expect(parseFieldAnswer({ type: "number" }, "1.5")).toEqual({ value: 1.5 });
    expect(parseFieldAnswer({ type: "integer" }, "1.5")).toEqual({ problem: "expected a whole number" });
    expect(parseFieldAnswer({ type: "string", format: "email" }, "nope")).toEqual({
      problem: "expected email",
    });
    expect(parseFieldAnswer({ type: "string", format: "email" }, "a@b.io")).toEqual({ value: "a@b.io" });
    expect(
      parseFieldAnswer({ type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "l" }] }, "1"),
    ).toEqual({ value: "s" });
    expect(
      parseFieldAnswer(
        { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, maxItems: 2 },
        "a, 3",
      ),
    ).toEqual({ value: ["a", "c"] });
    expect(
      parseFieldAnswer(
        { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, maxItems: 1 },
        "a,b",
      ),
    ).toEqual({ problem: "choose at most 1" });
  });
});

describe("terminalSafe", () => {
  it("removes control characters and whole escape sequences, keeps newlines, bounds length", () => {
    expect(terminalSafe("a\u001b[31mb\u0007c\nd\u009b2Je\u202ef")).toBe("abc\nd" + "ef");
    expect(terminalSafe("x".repeat(50), 10)).toBe(`${"x".repeat(9)}…`);
  });
});

describe("createProgress().progress", () => {
  it("not a terminal: one line per call (its first report), numbers only", () => {
    const out = new PassThrough() as unknown as NodeJS.WriteStream;
    let text = "";
    (out as unknown as PassThrough).on("data", (chunk) => {
      text += String(chunk);
    });
    const progress = createProgress(out);
    progress.progress({ identity: "probe.progress", callId: "c1", progress: 1, total: 4 });
    progress.progress({ identity: "probe.progress", callId: "c1", progress: 2, total: 4 });
    progress.progress({ identity: "probe.progress", callId: "c2", progress: 0.5 });
    expect(text).toBe("[1] probe.progress running 1/4 (25%)\n[1] probe.progress running 0.5\n");
  });

  it("a terminal: the live line is rewritten on each report", () => {
    const out = new PassThrough() as unknown as NodeJS.WriteStream & { isTTY: boolean };
    out.isTTY = true;
    let text = "";
    (out as unknown as PassThrough).on("data", (chunk) => {
      text += String(chunk);
    });
    const progress = createProgress(out);
    progress.progress({ identity: "t.x", callId: "c1", progress: 1, total: 2 });
    progress.progress({ identity: "t.x", callId: "c1", progress: 2, total: 2 });
    progress.done();
    expect(text.split("\r\u001b[2K").length).toBe(3);
    expect(text).toContain("2/2 (100%)");
  });
});
