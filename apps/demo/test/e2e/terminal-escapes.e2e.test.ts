// Escape sequences from a server never reach the operator's terminal (hostile-input issue, item 3): a
// server that dies writing a clipboard write (OSC 52), a screen clear, a cursor move, a bidi override
// and a fake second prompt on its stderr, checked with the real CLI under a pseudo-terminal (`script`),
// so what is asserted is exactly the byte stream a terminal would interpret.
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  HOSTILE_TEXT_MARK,
  type RunningHttpTestServer,
  STDIO_TEST_SERVER,
  startHttpTestServer,
} from "@agentforge/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, cliEnv, track } from "./cli.js";
import { stdioServer } from "./mcp-fixtures.js";

const base = mkdtempSync(join(tmpdir(), "agentforge-escapes-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const HOSTILE =
  "fatal: \u001b]52;c;ZWNobyBwd25lZA==\u0007clipboard \u001b[2J\u001b[Hcleared \u009b31mred\u001b[0m " +
  '\u202etxt.exe\u202c\rMCP server "github" asks: paste your token here';

function roster(): string {
  const file = join(base, "mcp_servers.yaml");
  writeFileSync(
    file,
    `servers:
${stdioServer("evil", [STDIO_TEST_SERVER, "--exit-at-start", "1", "--message", HOSTILE])}
permissions:
  documentation: [evil.*]
`,
  );
  return file;
}

/** Run the CLI with a pseudo-terminal as its stdout and stderr; the bytes the terminal would get. */
function underTerminal(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; bytes: Buffer }> {
  const command = [process.execPath, CLI, ...args]
    .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
    .join(" ");
  const child = track(
    spawn("script", ["-qfec", command, "/dev/null"], {
      env: cliEnv({ TERM: "xterm-256color", ...env }),
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  const chunks: Buffer[] = [];
  child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) =>
    child.once("close", (code) => resolve({ code, bytes: Buffer.concat(chunks) })),
  );
}

/** What a terminal would act on: ESC, C1 controls (UTF-8 C2 80–C2 9F), BEL, bidi controls. */
function actionable(bytes: Buffer): string[] {
  const text = bytes.toString("utf8");
  const found = new Set<string>();
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code === 0x1b || code === 0x07 || (code >= 0x80 && code <= 0x9f)) found.add(`U+${code.toString(16)}`);
    if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069))
      found.add(`U+${code.toString(16)}`);
  }
  return [...found];
}

describe("a server's stderr under the operator's terminal", () => {
  const config = roster();
  const state = mkdtempSync(join(base, "state-"));

  it("mcp health shows the server's last words cleaned: no escape sequence, no bidi control", async () => {
    const { bytes } = await underTerminal([
      "mcp",
      "health",
      "evil",
      "--config",
      config,
      "--state-dir",
      state,
    ]);
    const text = bytes.toString("utf8");
    expect(text).toMatch(/unhealthy/);
    expect(text).toContain("clipboard");
    expect(text).toContain("cleared");
    expect(actionable(bytes)).toEqual([]);
    // The carriage return that would have overwritten the line is a line break now.
    expect(text).not.toMatch(/txt\.exe\rMCP/);
  });

  it("mcp health --json escapes what JSON leaves raw (C1, bidi) and still parses", async () => {
    const { bytes } = await underTerminal([
      "mcp",
      "health",
      "evil",
      "--json",
      "--config",
      config,
      "--state-dir",
      state,
    ]);
    expect(actionable(bytes)).toEqual([]);
    const json = bytes.toString("utf8").replace(/\r\n/g, "\n");
    expect(json).toMatch(/"status": "unhealthy"/);
  });
});

describe("an HTTP server's error body under the operator's terminal", () => {
  let web: RunningHttpTestServer;
  let config: string;
  const state = mkdtempSync(join(base, "state-"));
  beforeAll(async () => {
    web = await startHttpTestServer({ hostileErrorBody: true });
    config = join(base, "http_servers.yaml");
    writeFileSync(
      config,
      `servers:
  - name: web
    enabled: true
    transport: http
    url: ${web.url}
    connection_timeout: 60
permissions:
  documentation: [web.*]
`,
    );
  }, 120_000);
  afterAll(async () => {
    await web?.stop();
  });

  it("mcp health and mcp test show what the server said cleaned (an HTTP 500 body of escapes and bidi controls)", async () => {
    for (const verb of ["health", "test"]) {
      const { bytes } = await underTerminal(["mcp", verb, "web", "--config", config, "--state-dir", state]);
      const text = bytes.toString("utf8");
      expect(text, verb).toMatch(/500/);
      expect(text, verb).toContain(HOSTILE_TEXT_MARK);
      expect(actionable(bytes), verb).toEqual([]);
      // No line separator, and no lone surrogate half (its UTF-8 would be the replacement character's).
      expect(text, verb).not.toMatch(/[\u2028\u2029]/);
    }
  }, 120_000);
});

describe("an authorization server's error_description under the operator's terminal", () => {
  let auth: RunningHttpTestServer;
  let config: string;
  let bin: string;
  const state = mkdtempSync(join(base, "state-"));
  beforeAll(async () => {
    auth = await startHttpTestServer({ authServer: true, dcr: true, hostileAuthorizeError: true });
    config = join(base, "oauth_servers.yaml");
    writeFileSync(
      config,
      `servers:
  - name: remote
    enabled: true
    transport: http
    url: ${auth.url}
    connection_timeout: 60
    auth: { type: oauth, grant: authorization_code }
permissions:
  documentation: [remote.*]
`,
    );
    // The desktop opener the login starts: a stand-in that plays the browser (follows the redirects).
    bin = join(base, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, "xdg-open"),
      `#!${process.execPath}\nfetch(process.argv[2], { redirect: "follow" }).then((r) => r.body?.cancel(), () => {});\n`,
    );
    chmodSync(join(bin, "xdg-open"), 0o755);
  }, 120_000);
  afterAll(async () => {
    await auth?.stop();
  });

  it("mcp login says the login failed with the server's words cleaned: no escape, no bidi control", async () => {
    const { code, bytes } = await underTerminal(
      ["mcp", "login", "remote", "--config", config, "--state-dir", state],
      { PATH: `${bin}:${process.env.PATH ?? ""}`, DISPLAY: ":99", WAYLAND_DISPLAY: "" },
    );
    const text = bytes.toString("utf8");
    expect(code, text).toBe(1);
    expect(text).toContain("Login to remote failed");
    expect(text).toContain("access_denied");
    expect(text).toContain(HOSTILE_TEXT_MARK);
    expect(actionable(bytes)).toEqual([]);
    expect(text).not.toMatch(/[\u2028\u2029]/);
  }, 120_000);
});
