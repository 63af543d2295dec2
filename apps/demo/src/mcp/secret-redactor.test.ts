import type { MCPServerConfig } from "@agentforge/mcp-config";
import { describe, expect, it } from "vitest";
import { secretRedactor } from "./secret-redactor.js";

const stdio = {
  name: "s",
  enabled: true,
  transport: "stdio",
  command: "node",
  args: ["${API_URL}"],
  env: { TOKEN: "MY_TOKEN", ROOT: "AGENTFORGE_WORKSPACE" },
  connectionTimeout: 10,
  toolTimeout: 30,
  resetTimeoutOnProgress: false,
} as MCPServerConfig;

describe("secretRedactor", () => {
  it("redacts the values of the variables the config reads, plus extra values, longest first", () => {
    const redactor = secretRedactor(
      [stdio],
      { MY_TOKEN: "tok-123456", API_URL: "https://u:tok-123456-long@x", OTHER: "unrelated-value" },
      { extra: ["api-token-99"] },
    );
    expect(redactor.redact("a tok-123456 b https://u:tok-123456-long@x c api-token-99 unrelated-value")).toBe(
      "a [REDACTED] b [REDACTED] c [REDACTED] unrelated-value",
    );
  });

  it("also redacts a value's JSON-escaped form", () => {
    const redactor = secretRedactor([stdio], { MY_TOKEN: 'se"cret\\1' });
    expect(redactor.redact(JSON.stringify({ v: 'x se"cret\\1 y' }))).toBe('{"v":"x [REDACTED] y"}');
  });

  it("ignores short values and the variables the app sets itself", () => {
    const redactor = secretRedactor(
      [stdio],
      { MY_TOKEN: "abc", AGENTFORGE_WORKSPACE: "/home/me/project" },
      { notSecret: ["AGENTFORGE_WORKSPACE"] },
    );
    expect(redactor.redact("abc /home/me/project")).toBe("abc /home/me/project");
  });
});

describe("secretRedactor forms", () => {
  it("redacts a value's URL-encoded form and a value split across streamed chunks", () => {
    const redactor = secretRedactor([stdio], { MY_TOKEN: "tok/en+value=1" });
    expect(redactor.redact(`https://x/?t=${encodeURIComponent("tok/en+value=1")}`)).toBe(
      "https://x/?t=[REDACTED]",
    );
    const stream = redactor.stream();
    const out = stream.push("log line tok/en+") + stream.push("value=1 end\n") + stream.flush();
    expect(out).toBe("log line [REDACTED] end\n");
  });
});
