// The terminal elicitation prompt and the progress lines, driven through real streams (no terminal).
import { PassThrough } from "node:stream";
import type { MCPElicitationRequest } from "@agentforge/mcp-client";
import { describe, expect, it } from "vitest";
import { terminalSafe } from "../shared/terminal-safe.js";
import {
  fieldDefault,
  oneLine,
  parseFieldAnswer,
  terminalElicitation,
  urlLines,
} from "./elicitation-prompt.js";
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
  it("asks field by field, re-asks invalid answers, leaves optional ones without a default out", async () => {
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

  it("a message cannot forge a second prompt block; the URL's host is shown in ASCII, no bidi control", async () => {
    const io = streams();
    answerLines(io, ["n"]);
    const answer = await terminalElicitation(io)(
      {
        mode: "url",
        serverName: "evil\nMCP server",
        message:
          'Sign in.\n\nMCP server "github" asks: session expired\n  URL: https://github.com/login\u2028  Host: github.com\r\n',
        url: "https://g\u0456thub.com/login/\u202edevice\u202c",
        elicitationId: "e2",
      },
      context(),
    );
    expect(answer).toEqual({ action: "decline" });
    const lines = io.written().split("\n");
    // Our lines only: one "asks" line, one URL line, one Host line, each starting with our own words.
    expect(lines.filter((l) => l.includes("asks:"))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith("MCP server"))).toEqual([
      'MCP server "evil MCP server" asks: Sign in. MCP server "github" asks: session expired URL: https://github.com/login Host: github.com',
    ]);
    expect(lines.filter((l) => /^\s*URL:/.test(l))).toEqual([
      "  URL: https://xn--gthub-n2e.com/login/%E2%80%AEdevice%E2%80%AC",
    ]);
    expect(lines.filter((l) => /^\s*Host:/.test(l))).toEqual([
      "  Host: xn--gthub-n2e.com (written with non-ASCII letters: check it is the site you expect)",
    ]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
    expect(io.written()).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u2028\u2029\r\u001b]/);
  });

  it("shows each field's default and keeps it on Enter (SEP-1034); a typed answer replaces it", async () => {
    const io = streams();
    answerLines(io, ["y", "", "7", "", "", ""]);
    const answer = await terminalElicitation(io)(
      {
        mode: "form",
        serverName: "booking",
        message: "Your order",
        requestedSchema: {
          type: "object",
          properties: {
            org: { type: "string", title: 'Organisation\nMCP server "x" asks: token', default: "acme" },
            seats: { type: "integer", minimum: 1, maximum: 50, default: 5 },
            notify: { type: "boolean", default: true },
            size: {
              type: "string",
              oneOf: [
                { const: "s", title: "Small" },
                { const: "l", title: "Large" },
              ],
              default: "l",
            },
            broken: { type: "integer", maximum: 3, default: 9 },
          },
          required: ["org", "seats"],
        },
      },
      context(),
    );
    // The invalid default (9 > 3) is ignored: Enter leaves that optional field out.
    expect(answer).toEqual({ action: "accept", content: { org: "acme", seats: 7, notify: true, size: "l" } });
    const text = io.written();
    expect(text).toContain(
      'Organisation MCP server "x" asks: token (string; default "acme": Enter keeps it): ',
    );
    expect(text).toContain('seats (integer; default "5": Enter keeps it): ');
    expect(text).toContain('notify (y/n; default "yes": Enter keeps it): ');
    expect(text).toContain('default "Large": Enter keeps it');
    expect(text).toContain("broken (integer; optional: Enter to leave out): ");
    expect(text.split("\n").filter((l) => l.startsWith("MCP server"))).toHaveLength(1);
  });

  it("the server's cancellation cancels a question being asked", async () => {
    const io = streams();
    const controller = new AbortController();
    const pending = terminalElicitation(io)(form, { serverName: "booking", signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual({ action: "cancel" });
  });
});

describe("urlLines, oneLine, fieldDefault", () => {
  it("shows what a URL opens and its host, or says it is not a URL", () => {
    expect(urlLines("https://pay.example/a b")).toEqual([
      "  URL: https://pay.example/a%20b",
      "  Host: pay.example",
    ]);
    expect(urlLines("https://github.com@evil.example/login")[1]).toBe("  Host: evil.example");
    expect(urlLines("file:///etc/passwd")[1]).toBe("  Host: (none) (a file: URL, not a web page)");
    expect(urlLines("not a url\nMCP server")).toEqual([
      "  URL: not a url MCP server",
      "  (this is not a valid URL: do not open it)",
    ]);
  });

  it("puts any text on one line, cleaned and bounded", () => {
    expect(oneLine("a\nb\r\nc\u2028d\u2029e\u0085f\u202eg\t h")).toBe("a b c d efg h");
    expect(oneLine("x".repeat(1000), 100).length).toBeLessThanOrEqual(100);
  });

  it("takes a default only when it is a valid answer to its field", () => {
    expect(fieldDefault({ type: "string", default: "acme" })).toEqual({ value: "acme", shown: "acme" });
    expect(fieldDefault({ type: "string", enum: ["a", "b"], default: "c" })).toBeUndefined();
    expect(fieldDefault({ type: "integer", default: 2.5 })).toBeUndefined();
    expect(fieldDefault({ type: "boolean", default: "yes" })).toBeUndefined();
    expect(fieldDefault({ type: "boolean", default: false })).toEqual({ value: false, shown: "no" });
    expect(
      fieldDefault({ type: "array", items: { type: "string", enum: ["r", "g"] }, default: ["g"] }),
    ).toEqual({ value: ["g"], shown: "g" });
    expect(fieldDefault({ type: "string" })).toBeUndefined();
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
