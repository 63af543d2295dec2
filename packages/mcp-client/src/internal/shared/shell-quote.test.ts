import { describe, expect, it } from "vitest";
import { shellCommandLine, shellQuote } from "./shell-quote.js";

describe("shellQuote", () => {
  it("leaves plain words as they are", () => {
    expect(shellQuote("node")).toBe("node");
    expect(shellQuote("/usr/bin/node")).toBe("/usr/bin/node");
    expect(shellQuote("--port=8080")).toBe("--port=8080");
    expect(shellQuote("user@host:1,2")).toBe("user@host:1,2");
  });

  it("single-quotes spaces, $, globs, ~ and # so the shell expands nothing", () => {
    expect(shellQuote("my server.js")).toBe("'my server.js'");
    expect(shellQuote("$HOME")).toBe("'$HOME'");
    expect(shellQuote("a$(rm -rf x)`id`")).toBe("'a$(rm -rf x)`id`'");
    expect(shellQuote("*.json")).toBe("'*.json'");
    expect(shellQuote("~/x")).toBe("'~/x'");
    expect(shellQuote("#tag")).toBe("'#tag'");
    expect(shellQuote('say "hi"')).toBe(`'say "hi"'`);
    expect(shellQuote("a\\b")).toBe("'a\\b'");
  });

  it("writes a single quote as '\\''", () => {
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("'")).toBe("''\\'''");
  });

  it("gives the empty word as ''", () => {
    expect(shellQuote("")).toBe("''");
  });

  it("quotes a command word with = (else the shell reads an assignment), not an argument", () => {
    expect(shellQuote("A=b", true)).toBe("'A=b'");
    expect(shellQuote("A=b")).toBe("A=b");
  });
});

describe("shellCommandLine", () => {
  it("joins the quoted command and arguments with spaces", () => {
    expect(shellCommandLine("/opt/my tools/node", ["server.js", "", "--name", "O'Brien $USER"])).toBe(
      "'/opt/my tools/node' server.js '' --name 'O'\\''Brien $USER'",
    );
    expect(shellCommandLine("npx", [])).toBe("npx");
  });
});
