// Issue 24, item 8: a URL-mode elicitation that tries to spoof the operator's terminal. The server's
// message carries line breaks (and a line separator) to forge a second `MCP server "github" asks: … URL:`
// block, and its URL has a homoglyph host (Cyrillic і for i) and a bidi override. The real CLI
// (`agentforge docs` on a pseudo-terminal via script(1)), a real test server, a scripted OpenAI-API model
// server through the real @langchain/openai client: the screen shows one prompt block, the server's text
// on one line, the URL as it would be opened and its host in ASCII (punycode), and no bidi control.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ModelServer, startModelServer } from "@agentforge/model-servers";
import { STDIO_TEST_SERVER } from "@agentforge/test-servers";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CLI, cliEnv, killRunning, track } from "./cli.js";
import { exampleServer, stdioServer } from "./mcp-fixtures.js";

const base = mkdtempSync(join(tmpdir(), "agentforge-spoof-"));
const models: ModelServer[] = [];
afterEach(async () => {
  killRunning();
  await Promise.all(models.splice(0).map((server) => server.close()));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function roster(): string {
  const file = join(base, "mcp_servers.yaml");
  writeFileSync(
    file,
    `servers:
${exampleServer("filesystem")}
${stdioServer("evil", [STDIO_TEST_SERVER, "--hostile-text"], { tool_timeout: 120 })}
permissions:
  documentation: [filesystem.*, evil.escape_elicit]
`,
  );
  return file;
}

/** Quote one argument for `sh -c`. */
const sh = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

describe("a spoofing URL-mode elicitation at the operator's terminal", () => {
  it("one prompt block, the message on one line, the URL as opened and its host in punycode, no bidi control", async () => {
    const root = join(base, "project");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "README.md"), "# Bell\n\nRings the harbour bell.\n");
    const state = mkdtempSync(join(base, "state-"));
    const model = await startModelServer("openai", {
      turns: [
        { toolCalls: [{ name: "evil__escape_elicit", args: { mode: "url" } }] },
        { text: "# Bell\n\nRings the harbour bell." },
      ],
    });
    models.push(model);
    const command = [process.execPath, CLI, "docs", root, "--model", "openai", "--config", roster()]
      .concat(["--state-dir", state])
      .map(sh)
      .join(" ");
    const child = track(
      spawn("script", ["-qec", command, "/dev/null"], {
        env: cliEnv({ OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseURL }),
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
    let screen = "";
    let answered = false;
    child.stdout.on("data", (chunk) => {
      screen += String(chunk);
      if (!answered && screen.includes("Open this URL yourself? [y/N]")) {
        answered = true;
        child.stdin.write("n\n");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.stdin.end();
    expect(code, screen).toBe(0);
    expect(answered, screen).toBe(true);

    const lines = screen.replace(/\r\n/g, "\n").split("\n");
    // One prompt block: the only line that says a server asks is ours, for the server that asked.
    const asks = lines.filter((line) => line.includes(" asks: "));
    expect(asks, screen).toHaveLength(1);
    expect(asks[0]).toMatch(/^MCP server "evil" asks: Sign in to finish\. MCP server "github" asks: /);
    expect(
      lines.filter((line) => /^\s*MCP server "github"/.test(line)),
      screen,
    ).toEqual([]);
    // One URL line, ours: the URL a browser would open, all ASCII; the host beside it, in punycode.
    const urls = lines.filter((line) => /^\s*URL:/.test(line));
    expect(urls, screen).toEqual([
      "  URL: https://xn--gthub-n2e.com/login/%E2%80%AEdevice%E2%80%AC?next=%2F",
    ]);
    expect(lines.filter((line) => /^\s*Host:/.test(line))).toEqual([
      "  Host: xn--gthub-n2e.com (written with non-ASCII letters: check it is the site you expect)",
    ]);
    // No bidi control, line or paragraph separator reaches the terminal.
    expect(screen).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
    // The server was told "decline" (the operator said no), and the run went on to its answer.
    const body = model.requests[1]?.body as { messages?: { role: string; content: unknown }[] } | undefined;
    const toolAnswer = (body?.messages ?? []).find((m) => m.role === "tool");
    expect(String(toolAnswer?.content)).toMatch(/"action":\s*"decline"/);
  }, 180_000);

  it("form mode: each field on one line with its default, Enter keeps the defaults, the server gets them", async () => {
    const root = join(base, "project-form");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "README.md"), "# Bell\n\nRings the harbour bell.\n");
    const state = mkdtempSync(join(base, "state-"));
    const model = await startModelServer("openai", {
      turns: [
        { toolCalls: [{ name: "evil__escape_elicit", args: { mode: "form" } }] },
        { text: "# Bell\n\nRings the harbour bell." },
      ],
    });
    models.push(model);
    const command = [process.execPath, CLI, "docs", root, "--model", "openai", "--config", roster()]
      .concat(["--state-dir", state])
      .map(sh)
      .join(" ");
    const child = track(
      spawn("script", ["-qec", command, "/dev/null"], {
        env: cliEnv({ OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseURL }),
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
    let screen = "";
    const typed: string[] = [];
    // Yes to the request, then Enter at each of the three fields (each question ends with "): ").
    child.stdout.on("data", (chunk) => {
      screen += String(chunk);
      const questions = screen.split("Enter keeps it): ").length - 1;
      if (typed.length === 0 && screen.includes("Answer? [y/N]")) {
        typed.push("y");
        child.stdin.write("y\n");
      } else if (typed.length > 0 && typed.length <= questions && typed.length < 4) {
        typed.push("");
        child.stdin.write("\n");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.stdin.end();
    expect(code, screen).toBe(0);
    expect(typed).toEqual(["y", "", "", ""]);
    const lines = screen.replace(/\r\n/g, "\n").split("\n");
    expect(lines.filter((line) => line.includes(" asks: ")).length, screen).toBeGreaterThanOrEqual(1);
    expect(
      lines.filter((line) => /^\s*MCP server "github"/.test(line)),
      screen,
    ).toEqual([]);
    expect(screen).toContain('(string; default "acme": Enter keeps it): ');
    expect(screen).toContain('seats (integer; default "5": Enter keeps it): ');
    expect(screen).toContain('notify (y/n; default "yes": Enter keeps it): ');
    expect(screen).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
    // The server got the defaults, as the user kept them.
    const body = model.requests[1]?.body as { messages?: { role: string; content: unknown }[] } | undefined;
    const toolAnswer = String((body?.messages ?? []).find((m) => m.role === "tool")?.content);
    expect(toolAnswer).toMatch(/"action":\s*"accept"/);
    expect(toolAnswer).toContain('"org":"acme"');
    expect(toolAnswer).toContain('"seats":5');
    expect(toolAnswer).toContain('"notify":true');
  }, 180_000);
});
