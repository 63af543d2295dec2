import { createSecretRedactor } from "@agentforge/mcp-config";
import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import { describe, expect, it } from "vitest";
import {
  argumentsPreview,
  canonicalJson,
  confirmationAnswer,
  confirmationBinding,
  createConfirmationRun,
} from "./confirmation.js";

const tool: MCPToolDescriptor = {
  identity: "github.merge_pull_request",
  serverName: "github",
  toolName: "merge_pull_request",
  inputSchema: { type: "object", properties: { number: { type: "number" } } },
  annotations: { destructiveHint: true },
};

describe("canonicalJson", () => {
  it("sorts keys at every level and drops what JSON drops", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined }], c: null }, f: () => 1 })).toBe(
      '{"a":{"c":null,"d":[3,{"z":1}]},"b":1}',
    );
    expect(canonicalJson({ x: 1n })).toBe('{"x":"1"}');
  });

  it("refuses a cycle instead of looping", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(RangeError);
  });
});

describe("confirmationBinding", () => {
  it("is the same for the same call whatever the key order, and differs when any part differs", async () => {
    const base = { runId: "r1", agent: "ops", tool, args: { number: 7, opts: { a: 1, b: 2 } } };
    const binding = await confirmationBinding(base);
    expect(binding).toMatch(/^[0-9a-f]{64}$/);
    expect(await confirmationBinding({ ...base, args: { opts: { b: 2, a: 1 }, number: 7 } })).toBe(binding);
    const others = await Promise.all([
      confirmationBinding({ ...base, args: { number: 8, opts: { a: 1, b: 2 } } }),
      confirmationBinding({ ...base, runId: "r2" }),
      confirmationBinding({ ...base, agent: "other" }),
      confirmationBinding({ ...base, tool: { ...tool, description: "now also deletes the branch" } }),
      confirmationBinding({ ...base, tool: { ...tool, annotations: { destructiveHint: false } } }),
      confirmationBinding({ ...base, tool: { ...tool, identity: "github.merge_pull_requests" } }),
    ]);
    expect(new Set([binding, ...others]).size).toBe(7);
  });
});

describe("argumentsPreview", () => {
  it("writes escapes, C1 and bidirectional controls and separators as visible \\u escapes", () => {
    const { text, truncated } = argumentsPreview({
      text: "\u001b]0;owned\u0007\u001b[31mred\u009b2J\u202eabc\u2028x\u007f",
    });
    expect(truncated).toBe(false);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is that none is left.
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2028\u2029]/);
    for (const visible of [
      "\\u001b]0;owned\\u0007",
      "\\u001b[31mred",
      "\\u009b2J",
      "\\u202e",
      "\\u2028",
      "\\u007f",
    ]) {
      expect(text).toContain(visible);
    }
    // Still JSON of the same value.
    expect(JSON.parse(text)).toEqual({
      text: "\u001b]0;owned\u0007\u001b[31mred\u009b2J\u202eabc\u2028x\u007f",
    });
  });

  it("keeps keys in a stable order, and HTML as plain text (escaping it is the page's job)", () => {
    expect(argumentsPreview({ b: "<script>", a: 1 }).text).toBe('{\n  "a": 1,\n  "b": "<script>"\n}');
  });

  it("redacts secrets in every form and bounds the preview with a marker", () => {
    const secret = "ghp_SuperSecretToken12345";
    const redactor = createSecretRedactor([secret]);
    const { text, truncated } = argumentsPreview(
      { auth: secret, quoted: `say "${secret}"`, long: "y".repeat(5000) },
      { redact: (t) => redactor.redact(t), maxChars: 300 },
    );
    expect(text).not.toContain(secret);
    expect(text).toContain("[REDACTED]");
    expect(text.length).toBeLessThanOrEqual(300);
    expect(text).toMatch(/… \[\d+ characters truncated\]$/);
    expect(truncated).toBe(true);
  });

  it("survives arguments that are not JSON", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(argumentsPreview(cyclic).text).toBe("[arguments that cannot be shown as JSON]");
  });
});

describe("createConfirmationRun", () => {
  it("is plain data with the id given, or a random one", () => {
    expect(createConfirmationRun("run-1")).toEqual({
      runId: "run-1",
      requests: 0,
      confirmedForRun: [],
      usedAnswers: [],
    });
    expect(createConfirmationRun().runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(() => createConfirmationRun("")).toThrow(TypeError);
  });
});

describe("confirmationAnswer", () => {
  it("binds a person's decision to the request's call", () => {
    const request = { binding: "b".repeat(64), callId: "call-1", requestedAt: "2026-01-01T00:00:00.000Z" };
    expect(confirmationAnswer(request, { decision: "deny", reason: "no", answeredBy: "alice" })).toEqual({
      decision: "deny",
      reason: "no",
      answeredBy: "alice",
      ...request,
    });
    expect(() => confirmationAnswer(request, { decision: "yes" } as never)).toThrow(TypeError);
  });
});
