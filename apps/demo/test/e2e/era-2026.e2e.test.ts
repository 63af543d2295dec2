// What a 2026-07-28 server asks of the demo, with real processes (the built CLI, the v2 SDK 2026 test
// server, a hand-written 2026 server listing a task-only tool, a scripted OpenAI-API model server):
// each input_required round of a served run is one run event and one audit line carrying the mode only
// (never the server's question, the answers or the requestState), and a tool that only runs as a task
// is never bound to the model and is shown by `mcp tools` with the reason.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startModelServer } from "@agentforge/model-servers";
import { MODERN_TEST_SERVER, TASK_TOOLS_TEST_SERVER } from "@agentforge/test-servers";
import { describe, expect, it } from "vitest";
import { agentforge } from "./cli.js";
import { readSse, startServe, stdioServer } from "./mcp-fixtures.js";
import { servedRunsScope, writeRoster } from "./protocol-fixtures.js";

const { base, models, served } = servedRunsScope("agentforge-era-");

/** filesystem + `modern` (2026, input rounds) + `jobs` (2026, a task-only tool). */
function roster(): string {
  return writeRoster(
    base,
    `${stdioServer("modern", [MODERN_TEST_SERVER, "--stdio"])}
${stdioServer("jobs", [TASK_TOOLS_TEST_SERVER])}
permissions:
  documentation: [filesystem.*, modern.ask_twice, jobs.*]
`,
  );
}

describe("agentforge serve: input rounds of a 2026-07-28 server", () => {
  it("one run event and one audit line per round, with the mode only; the task-only tool is not bound", async () => {
    const allowed = join(base, "projects");
    mkdirSync(join(allowed, "bell"), { recursive: true });
    writeFileSync(join(allowed, "bell", "README.md"), "# bell\n\nRings the harbour bell.\n");
    const model = await startModelServer("openai", {
      turns: [
        { toolCalls: [{ name: "modern__ask_twice", args: {} }] },
        { text: "# Bell\n\n## Purpose\nRings the harbour bell." },
      ],
    });
    models.push(model);
    const state = mkdtempSync(join(base, "state-"));
    const server = await startServe(
      ["--port", "0", "--no-check", "--config", roster(), "--state-dir", state, "--allowed-base", allowed],
      { env: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseURL }, cwd: base },
    );
    served.push(server);
    const started = await fetch(`${server.url}/api/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ folder: "bell", model: "openai" }),
    });
    expect(started.status, await started.clone().text()).toBe(202);
    const run = (await started.json()) as { id: string };
    const { events } = await readSse(`${server.url}/api/v1/runs/${run.id}/events`, {
      until: (event) => event.event === "run_finished",
      timeoutMs: 170_000,
    });
    const finished = events.find((e) => e.event === "run_finished");
    expect(finished?.data.status, JSON.stringify(finished?.data)).toBe("finished");

    // Nobody at a terminal: both rounds were declined, and each was one run event, in order.
    const rounds = events.filter((e) => e.event === "MCP_TOOL_CALL_INPUT_ROUND").map((e) => e.data);
    expect(rounds.map((r) => [r.round, r.modes])).toEqual([
      [1, ["elicitation.form"]],
      [2, ["elicitation.form"]],
    ]);
    for (const round of rounds) {
      expect(Object.keys(round).sort()).toEqual(
        [
          "agent",
          "at",
          "callId",
          "identity",
          "modes",
          "round",
          "runId",
          "serverName",
          "timestamp",
          "toolName",
          "type",
        ].sort(),
      );
      expect(round).toMatchObject({ runId: run.id, identity: "modern.ask_twice", agent: "documentation" });
    }
    // The audit trail: one line per round, the mode only.
    const auditText = readFileSync(join(state, "audit.jsonl"), "utf8");
    const auditRounds = auditText
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === "MCP_TOOL_CALL_INPUT_ROUND");
    expect(auditRounds.map((line) => [line.tool, line.round, line.modes])).toEqual([
      ["modern.ask_twice", 1, ["elicitation.form"]],
      ["modern.ask_twice", 2, ["elicitation.form"]],
    ]);
    // The server's questions, its schema and its requestState (`r1`, `r2:...`) are nowhere.
    const streamText = JSON.stringify(events);
    for (const text of [streamText, auditText]) {
      for (const secret of ["first?", "second?", "requestedSchema", '"r1"', "r2:"])
        expect(text).not.toContain(secret);
    }

    // The task-only tool was never offered to the model; the others of its server were.
    const body = model.requests[0]?.body as { tools?: { function: { name: string } }[] } | undefined;
    const offered = (body?.tools ?? []).map((tool) => tool.function.name);
    expect(offered).toContain("jobs__echo");
    expect(offered).toContain("modern__ask_twice");
    expect(offered).not.toContain("jobs__long_job");
  }, 240_000);
});

describe("agentforge mcp tools: a task-only tool on a 2026-07-28 connection", () => {
  it("is listed as not offered to models, with the reason (table and --json)", async () => {
    const config = roster();
    const state = mkdtempSync(join(base, "state-"));
    const text = await agentforge(["mcp", "tools", "jobs", "--config", config, "--state-dir", state]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/jobs\.long_job\s+\(not offered to models\)/);
    expect(text.stdout).toContain(
      'not offered jobs.long_job: tool "long_job" of MCP server "jobs" only runs as a task',
    );
    expect(text.stdout).toMatch(/jobs\.echo\s+documentation/);
    const json = await agentforge([
      "mcp",
      "tools",
      "jobs",
      "--json",
      "--config",
      config,
      "--state-dir",
      state,
    ]);
    expect(json.code, json.stderr).toBe(0);
    const view = JSON.parse(json.stdout) as { tools: { identity: string; unavailable: string | null }[] };
    const byIdentity = new Map(view.tools.map((tool) => [tool.identity, tool.unavailable]));
    expect(byIdentity.get("jobs.long_job")).toMatch(/only runs as a task .*2026-07-28/);
    expect(byIdentity.get("jobs.echo")).toBeNull();
  }, 120_000);
});
