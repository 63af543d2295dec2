import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { agentforge, killRunning, limited } from "./cli.js";
import { exampleServer, stdioServer } from "./mcp-fixtures.js";

const base = mkdtempSync(join(tmpdir(), "agentforge-docs-"));
afterEach(killRunning);
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A small project to document, in a fresh folder. */
function project(name: string): string {
  const root = join(base, name);
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(
    join(root, "README.md"),
    `# ${name}\n\nA parser for harbour tide tables, written for the e2e tests.\n\n## Usage\n\n\`\`\`sh\nmake run\n\`\`\`\n`,
  );
  writeFileSync(join(root, "Makefile"), "run:\n\tpython3 src/main.py\n\ntest:\n\tpython3 -m pytest\n");
  writeFileSync(
    join(root, "src", "main.py"),
    '"""Entry point: reads a tide table and prints it."""\nprint("tides")\n',
  );
  writeFileSync(join(root, "src", "table.py"), "def parse(text):\n    return text.split()\n");
  return root;
}

function stateDir(): string {
  return mkdtempSync(join(base, "state-"));
}

/** A roster with the local servers by absolute path, and optional extra YAML. */
function config(
  extraServers = "",
  permissions = "documentation: [filesystem.*, sequential-thinking.*]",
): string {
  const file = join(mkdtempSync(join(base, "config-")), "mcp_servers.yaml");
  writeFileSync(
    file,
    `servers:
${exampleServer("filesystem")}
${exampleServer("sequential-thinking")}
${extraServers}
permissions:
  ${permissions}
`,
  );
  return file;
}

const REMOTES = ["github", "context7", "exa"]
  .map(
    (name) => `  - name: ${name}
    enabled: true
    transport: http
    url: https://${name === "github" ? "api.githubcopilot.com" : `mcp.${name}.invalid`}/mcp
    auth: { type: bearer, credential_env_var: ${name.toUpperCase()}_TOKEN }
    connection_timeout: 600`,
  )
  .join("\n");

describe("agentforge docs (offline, real MCP servers)", () => {
  it("documents the folder it is given, from what the tools returned", async () => {
    const root = project("tidal-parser");
    const state = stateDir();
    const result = await agentforge(["docs", root, "--state-dir", state]);
    expect(result.stderr).toMatch(/run [0-9a-f-]{36} \(offline\)/);
    expect(result.code).toBe(0);
    const doc = result.stdout;
    expect(doc).toMatch(/^# tidal-parser\n/);
    expect(doc).toContain("A parser for harbour tide tables, written for the e2e tests.");
    for (const file of ["README.md", "Makefile", "main.py", "table.py"]) expect(doc).toContain(file);
    expect(doc).toContain("`make run`");
    expect(doc).toContain("Entry point: reads a tide table and prints it.");
    // One progress line per tool call on stderr (not a TTY: plain lines).
    expect(result.stderr).toMatch(/\[1\] \S+ ok \d+ ms/);

    // The output follows the folder: add a file, run again.
    writeFileSync(join(root, "src", "forecast.py"), "def forecast():\n    pass\n");
    const again = await agentforge(["docs", root, "--state-dir", state]);
    expect(again.stdout).toContain("forecast.py");
    expect(doc).not.toContain("forecast.py");
  });

  it("--out writes the document; --json prints transcript and per-call records", async () => {
    const root = project("json-mode");
    const out = join(base, "overview.md");
    const result = await agentforge(["docs", root, "--out", out, "--json", "--state-dir", stateDir()]);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.status).toBe("finished");
    expect(readFileSync(out, "utf8")).toBe(json.document);
    expect(json.calls.length).toBeGreaterThanOrEqual(5);
    for (const call of json.calls) {
      expect(Object.keys(call).sort()).toEqual([
        "durationMs",
        "identity",
        "modelName",
        "ok",
        "round",
        "toolCallId",
      ]);
      expect(call.identity).toMatch(/^(filesystem|sequential-thinking)\./);
    }
    expect(json.transcript.map((m: { type: string }) => m.type)).toEqual(
      expect.arrayContaining(["system", "human", "ai", "tool"]),
    );
  });

  it("never reads outside the folder: a symlink pointing out is refused by the filesystem server", async () => {
    const root = project("sandboxed");
    const outside = join(base, "outside-secret.txt");
    writeFileSync(outside, "TOP-SECRET-7731 must never appear\n");
    rmSync(join(root, "README.md"));
    symlinkSync(outside, join(root, "README.md"));
    const state = stateDir();
    const result = await agentforge(["docs", root, "--json", "--state-dir", state]);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(JSON.stringify(json)).not.toContain("TOP-SECRET-7731");
    expect(json.document).toMatch(/`README.md` — could not be read/);
    const audit = readFileSync(join(state, "audit.jsonl"), "utf8");
    expect(audit).not.toContain("TOP-SECRET-7731");
    expect(audit).toContain('"outcome":"tool_error"');
  });

  it("the audit log records every call — identity, agent, outcome, duration — never arguments or results", async () => {
    const root = project("audited");
    const state = stateDir();
    const result = await agentforge(["docs", root, "--json", "--state-dir", state]);
    const json = JSON.parse(result.stdout);
    const lines = readFileSync(join(state, "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(json.calls.length);
    for (const line of lines) {
      expect(line).toMatchObject({ agent: "documentation", event: "MCP_TOOL_CALL_COMPLETED", outcome: "ok" });
      expect(Object.keys(line).sort()).toEqual([
        "agent",
        "at",
        "callId",
        "durationMs",
        "event",
        "outcome",
        "server",
        "tool",
      ]);
    }
    const audit = JSON.stringify(lines);
    expect(audit).not.toContain("A parser for harbour tide tables");
    expect(audit).not.toContain(root);
  });

  it("a run stopped after its first round resumes in a new process with new real tool calls", async () => {
    const root = project("resumable");
    const state = stateDir();
    const first = await agentforge(["docs", root, "--pause-after", "1", "--json", "--state-dir", state]);
    expect(first.code).toBe(0);
    const paused = JSON.parse(first.stdout);
    expect(paused.status).toBe("paused");
    const saved = JSON.parse(readFileSync(join(state, "runs", `${paused.runId}.json`), "utf8"));
    expect(saved).toMatchObject({ status: "paused", state: { round: 1, finished: false } });
    expect(JSON.stringify(saved)).not.toMatch(/MCPClientManager|"client"|"transport"/);
    const auditBefore = readFileSync(join(state, "audit.jsonl"), "utf8").trim().split("\n").length;

    const resumed = await agentforge(["resume", paused.runId, "--json", "--state-dir", state]);
    expect(resumed.code).toBe(0);
    const done = JSON.parse(resumed.stdout);
    expect(done.status).toBe("finished");
    expect(done.document).toContain("resumable");
    const newCalls = done.calls.filter((c: { round: number }) => c.round === 2);
    expect(newCalls.some((c: { identity: string }) => c.identity === "filesystem.read_text_file")).toBe(true);
    const audit = readFileSync(join(state, "audit.jsonl"), "utf8").trim().split("\n");
    expect(audit.length - auditBefore).toBe(newCalls.length);
    // A finished run cannot be resumed again into a second document.
    const twice = await agentforge(["resume", paused.runId, "--json", "--state-dir", state]);
    expect(JSON.parse(twice.stdout).document).toBe(done.document);
  });

  it("unreachable remote servers are reported and change nothing; the run never waits out their timeout", async () => {
    const root = project("remote-free");
    const plain = config();
    // connection_timeout is 600 s: had the run waited for it, the CLI would be killed at 100 s (code null).
    const withRemotes = config(
      REMOTES,
      "documentation: [filesystem.*, sequential-thinking.*, github.*, context7.*, exa.*]",
    );
    const [a, b] = await limited([
      () => agentforge(["docs", root, "--config", plain, "--state-dir", stateDir()], { timeoutMs: 100_000 }),
      () =>
        agentforge(["docs", root, "--config", withRemotes, "--state-dir", stateDir()], {
          timeoutMs: 100_000,
        }),
    ]);
    expect(`${a?.code} ${a?.stderr}`).toMatch(/^0 /);
    expect(`${b?.code} ${b?.stderr}`).toMatch(/^0 /);
    for (const name of ["github", "context7", "exa"])
      expect(b?.stderr).toContain(`server ${name} unavailable`);
    expect(a?.stderr).not.toContain("unavailable");
    expect(b?.stdout.replace(/\d+ MCP tool calls?/, "")).toBe(a?.stdout.replace(/\d+ MCP tool calls?/, ""));
  });

  it("resume re-checks the real folder: a folder swapped for a symlink is refused (run and folder named)", async () => {
    const root = project("swapped");
    const elsewhere = project("elsewhere");
    const state = stateDir();
    const first = await agentforge(["docs", root, "--pause-after", "1", "--json", "--state-dir", state]);
    expect(first.code).toBe(0);
    const { runId } = JSON.parse(first.stdout) as { runId: string };
    const record = join(state, "runs", `${runId}.json`);
    const auditBefore = readFileSync(join(state, "audit.jsonl"), "utf8");

    renameSync(root, `${root}.orig`);
    symlinkSync(elsewhere, root);
    const refused = await agentforge(["resume", runId, "--json", "--state-dir", state]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`run ${runId} cannot be resumed`);
    expect(refused.stderr).toContain(`its folder ${root} now resolves to ${elsewhere}`);
    expect(JSON.parse(readFileSync(record, "utf8"))).toMatchObject({ status: "paused", folder: root });
    expect(readFileSync(join(state, "audit.jsonl"), "utf8")).toBe(auditBefore); // no tool was called

    rmSync(root);
    const gone = await agentforge(["resume", runId, "--state-dir", state]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`its folder ${root} no longer exists`);

    // The real folder back in place: the run goes on.
    renameSync(`${root}.orig`, root);
    const resumed = await agentforge(["resume", runId, "--json", "--state-dir", state]);
    expect(`${resumed.code} ${resumed.stderr}`).toMatch(/^0 /);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "finished" });
  });

  it("a run remembers its --config: resume in a new process without --config uses it; another is refused", async () => {
    const root = project("own-roster");
    const state = stateDir();
    // A witness server in the roster appends a line each time a process starts it, then exits (the run
    // reports it unavailable and goes on): the count says which roster each process used.
    const witness = join(base, "witness-starts.log");
    const roster = config(
      stdioServer("witness", [
        "-e",
        `require("node:fs").appendFileSync(${JSON.stringify(witness)}, "started\\n"); process.exit(0)`,
      ]),
      "documentation: [filesystem.*, sequential-thinking.*, witness.*]",
    );
    const starts = () => (existsSync(witness) ? readFileSync(witness, "utf8").split("\n").length - 1 : 0);
    // Without --json, so the progress notes (run id, unavailable servers) are on stderr.
    const first = await agentforge([
      "docs",
      root,
      "--config",
      roster,
      "--pause-after",
      "1",
      "--state-dir",
      state,
    ]);
    expect(`${first.code} ${first.stderr}`).toMatch(/^0 /);
    expect(first.stderr).toContain("server witness unavailable");
    const startedOnce = starts();
    expect(startedOnce).toBeGreaterThan(0);
    const runId = /continue with: agentforge resume ([0-9a-f-]{36})/.exec(first.stderr)?.[1] as string;
    expect(runId).toBeDefined();
    const record = join(state, "runs", `${runId}.json`);
    expect(JSON.parse(readFileSync(record, "utf8"))).toMatchObject({ status: "paused", configPath: roster });

    const other = config();
    const refused = await agentforge(["resume", runId, "--config", other, "--state-dir", state]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`run ${runId} was started with the roster ${roster}, not ${other}`);
    expect(starts()).toBe(startedOnce); // refused before any server was started

    const resumed = await agentforge(["resume", runId, "--state-dir", state]);
    expect(`${resumed.code} ${resumed.stderr}`).toMatch(/^0 /);
    expect(resumed.stderr).toContain(`resuming ${runId}`);
    expect(resumed.stderr).toContain("server witness unavailable"); // only the recorded roster has it
    expect(starts()).toBeGreaterThan(startedOnce);
    expect(resumed.stdout).toMatch(/^# own-roster\n/);
    expect(JSON.parse(readFileSync(record, "utf8"))).toMatchObject({
      status: "finished",
      configPath: roster,
    });
  });

  // Many CLI start-ups: 0.7-0.9 s each on a quiet machine, 5-6 s each at a load of 16 on 2 cores.
  it("usage and config errors exit with code 2 and say what to fix", { timeout: 240_000 }, async () => {
    const cases: [string[], RegExp, NodeJS.ProcessEnv?][] = [
      [["docs", join(base, "does-not-exist")], /folder ".*does-not-exist" does not exist/],
      [
        ["docs", base, "--model", "gpt-9"],
        /--model expects one of offline, openai, anthropic, ollama, got "gpt-9"/,
      ],
      [["docs", base, "--model", "openai"], /--model openai needs OPENAI_API_KEY to be set/],
      [["docs", base, "--model", "anthropic"], /--model anthropic needs ANTHROPIC_API_KEY to be set/],
      [["docs", base, "--config", join(base, "missing.yaml")], /Config file .*missing.yaml does not exist/],
      [["docs"], /docs expects one <folder>/],
      [["docs", base, "--bogus"], /Unknown option '--bogus'/],
      [["resume", "not-a-run"], /"not-a-run" is not a run id/],
      [["frobnicate"], /unknown command "frobnicate"/],
    ];
    // Independent CLI start-ups, two at a time.
    const results = await limited(
      cases.map(
        ([args, , env]) =>
          () =>
            agentforge([...args, "--state-dir", stateDir()], env ? { env } : {}),
      ),
    );
    cases.forEach(([args, message], i) => {
      const result = results[i];
      expect(`${args.join(" ")} → ${result?.code}`).toBe(`${args.join(" ")} → 2`);
      expect(result?.stderr).toMatch(message);
    });
    expect(readdirSync(base).length).toBeGreaterThan(0);
  });
});
