// `agentforge docs` asks at the terminal before a call a `confirm` grant covers: the real CLI under a
// pseudo-terminal (`script`), answering what a person would type. `y` → the call is made; Enter (the
// default, no) → the model gets the refusal and the run still finishes. The question shows the agent,
// the tool, its annotations in words and the argument preview, and nothing on the terminal carries an
// escape sequence but the CLI's own line rewriting.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI, cliEnv, killRunning, track } from "./cli.js";
import { CONFIRMED_TOOL, requireConfirmation } from "./confirmation-fixtures.js";
import { type Roster, tempRoster } from "./mcp-fixtures.js";

let roster: Roster;
beforeAll(async () => {
  roster = await tempRoster();
  requireConfirmation(roster.config);
});
afterEach(killRunning);
afterAll(() => roster?.cleanup());

/**
 * Run the CLI with a pseudo-terminal as stdin, stdout and stderr, typing `answer` + Enter at every
 * confirmation question; resolves with the exit code, the text and how many questions were asked.
 */
function docsAtTerminal(
  stateDir: string,
  answer: string,
): Promise<{ code: number | null; text: string; asked: number }> {
  const args = [
    process.execPath,
    CLI,
    "docs",
    join(roster.base, "proj"),
    "--config",
    roster.config,
    "--state-dir",
    stateDir,
  ];
  const command = args.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
  const child = track(
    spawn("script", ["-qfec", command, "/dev/null"], {
      env: cliEnv({ ...roster.env, TERM: "xterm-256color" }),
      stdio: ["pipe", "pipe", "pipe"],
    }),
  );
  let text = "";
  let asked = 0;
  const onData = (chunk: Buffer) => {
    text += chunk.toString("utf8");
    // Every question that appeared gets the answer (the terminal keeps it until the CLI reads it).
    const questions = text.split("Allow this call?").length - 1;
    while (asked < questions) {
      asked++;
      child.stdin?.write(`${answer}\r`);
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  return new Promise((resolve) =>
    child.once("close", (code) => {
      child.stdin?.destroy();
      resolve({ code, text, asked });
    }),
  );
}

interface SavedRun {
  status: string;
  state: { calls: Array<{ identity: string; ok: boolean; errorCode?: string }> };
  document?: string;
}

function savedRuns(stateDir: string): SavedRun[] {
  const dir = join(stateDir, "runs");
  return readdirSync(dir)
    .filter((name: string) => name.endsWith(".json"))
    .map((name: string) => JSON.parse(readFileSync(join(dir, name), "utf8")) as SavedRun);
}

describe("agentforge docs at a terminal, with a confirm grant", () => {
  it("asks; y makes the call and the run finishes", { timeout: 200_000 }, async () => {
    const stateDir = join(roster.dir, "state-yes");
    const { code, text, asked } = await docsAtTerminal(stateDir, "y");
    expect(code).toBe(0);
    expect(asked).toBe(1);
    expect(text).toContain('Confirm a tool call of agent "documentation":');
    expect(text).toContain(`tool:        ${CONFIRMED_TOOL}`);
    expect(text).toMatch(/annotations: read-only/);
    expect(text).toContain('"excludePatterns"');
    const [run] = savedRuns(stateDir);
    expect(run?.status).toBe("finished");
    expect(run?.state.calls.filter((c) => c.identity === CONFIRMED_TOOL)).toEqual([
      expect.objectContaining({ ok: true }),
    ]);
    const audit = readFileSync(join(stateDir, "audit.jsonl"), "utf8");
    expect(audit).toMatch(
      /"event":"MCP_TOOL_CALL_CONFIRMATION_RESOLVED"[^\n]*"decision":"allow"[^\n]*"answeredBy":"terminal"/,
    );
    expect(audit).not.toContain("excludePatterns");
  });

  it("Enter denies (the default); the model gets the refusal and the run finishes", {
    timeout: 200_000,
  }, async () => {
    const stateDir = join(roster.dir, "state-no");
    const { code, text, asked } = await docsAtTerminal(stateDir, "");
    expect(code).toBe(0);
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(text).toContain("denied");
    const [run] = savedRuns(stateDir);
    expect(run?.status).toBe("finished");
    const tree = run?.state.calls.filter((c) => c.identity === CONFIRMED_TOOL) ?? [];
    expect(tree.length).toBe(asked);
    expect(tree.every((c) => !c.ok && c.errorCode === "CONFIRMATION_DENIED")).toBe(true);
    expect(typeof run?.document).toBe("string");
    // Between the questions, only the progress line's own rewriting reaches the terminal.
    const question = text.slice(text.indexOf("Confirm a tool call"), text.indexOf("Allow this call?"));
    expect(question).not.toContain("\u001b");
  });
});
