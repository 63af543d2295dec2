// Tools that only run as tasks on a 2026-07-28 connection: this client runs tasks (SEP-1686) on
// 2025-11-25 connections only, so such a tool is flagged at discovery and a call to it fails with
// TASK_EXECUTION_UNSUPPORTED before anything is sent. The server is hand-written (a v2 SDK server strips
// `execution` from tools/list on the 2026 wire) and counts the calls it receives.
import { taskToolsTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import { discoverTools, toolUnavailableReason } from "../../src/discover-tools.js";
import { MCPCapabilityError } from "../../src/errors.js";
import { cleanup, manager, rejectionOf, textOf } from "./helpers.js";

afterEach(cleanup);

describe("task-required tools on a 2026-07-28 connection", { timeout: 120_000 }, () => {
  it("are flagged at discovery with the reason; the other tools are not", async () => {
    const m = manager([taskToolsTestServer("jobs")]);
    const tools = await discoverTools(m, "jobs");
    expect(m.connectionStatus("jobs").protocolVersion).toBe("2026-07-28");
    const byName = new Map(tools.map((tool) => [tool.toolName, tool]));
    expect(byName.get("long_job")?.execution).toEqual({ taskSupport: "required" });
    expect(byName.get("long_job")?.problems?.map((p) => p.code)).toEqual(["TASK_EXECUTION_UNSUPPORTED"]);
    expect(toolUnavailableReason(byName.get("long_job") ?? {})).toMatch(
      /only runs as a task .* does not run tasks on 2026-07-28 connections .*SEP-2663/,
    );
    for (const name of ["echo", "maybe_job", "stats"]) {
      expect(toolUnavailableReason(byName.get(name) ?? {}), name).toBeUndefined();
    }
  });

  it("a call fails with TASK_EXECUTION_UNSUPPORTED and never reaches the server; other calls go on", async () => {
    const m = manager([taskToolsTestServer("jobs")]);
    // No discovery first: the call path lists the tools itself to learn the tool's task support.
    const error = await rejectionOf(m.callTool("jobs", "long_job", {}));
    expect(MCPCapabilityError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "TASK_EXECUTION_UNSUPPORTED",
      serverName: "jobs",
      capability: "tasks",
    });
    expect((error as Error).message).toContain('tool "long_job" of MCP server "jobs" only runs as a task');
    // Known tools now: the second refusal comes from the cached list.
    await expect(m.callTool("jobs", "long_job", {})).rejects.toMatchObject({
      code: "TASK_EXECUTION_UNSUPPORTED",
    });
    expect(textOf(await m.callTool("jobs", "maybe_job", {}))).toBe("maybe_job ran");
    expect(textOf(await m.callTool("jobs", "echo", { text: "hi" }))).toBe("hi");
    const stats = JSON.parse(textOf(await m.callTool("jobs", "stats", {})));
    expect(stats.calls).toEqual({ maybe_job: 1, echo: 1 });
  });
});
