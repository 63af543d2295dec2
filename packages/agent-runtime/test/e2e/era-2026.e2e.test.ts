// What a 2026-07-28 connection asks of the governed path: input_required rounds are events carrying the
// round and its modes only (never the server's message, the answers or the requestState), an oversized
// requestState fails the call with a typed error, and a tool that only runs as a task (which this client
// runs on 2025-11-25 connections only) is never offered to a model and fails typed when called.
import { modernStdioTestServer, taskToolsTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import {
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_INPUT_ROUND,
  type MCPToolInputRoundEvent,
} from "../../src/index.js";
import { toLangChainTools } from "../../src/langchain/index.js";
import { cleanup, rejectionOf, stack } from "./harness.js";

afterEach(cleanup);

const ANSWER = "ANSWER-VALUE-7f3";

describe("input_required rounds on the governed path", { timeout: 120_000 }, () => {
  it("one MCP_TOOL_CALL_INPUT_ROUND per round, with the mode and nothing of the content", async () => {
    const { executor, recorded } = await stack(
      [modernStdioTestServer("modern")],
      { agent: ["modern.*"] },
      {
        elicitation: async () => ({ action: "accept", content: { v: ANSWER } }),
      },
    );
    const rounds: MCPToolInputRoundEvent[] = [];
    executor.events.on(MCP_TOOL_CALL_INPUT_ROUND, (event) => {
      rounds.push(event);
    });
    const result = await executor.execute("agent", "modern.ask_twice", {});
    expect(result.text).toBe(`${ANSWER} then ${ANSWER}`);
    expect(
      rounds.map(({ round, modes, callId, identity, agent }) => ({ round, modes, callId, identity, agent })),
    ).toEqual([
      {
        round: 1,
        modes: ["elicitation.form"],
        callId: result.callId,
        identity: "modern.ask_twice",
        agent: "agent",
      },
      {
        round: 2,
        modes: ["elicitation.form"],
        callId: result.callId,
        identity: "modern.ask_twice",
        agent: "agent",
      },
    ]);
    // The server's questions ("first?", "second?"), the schema, the answers and the state (`r2:<answer>`)
    // appear nowhere in the events.
    for (const line of [...rounds.map((e) => JSON.stringify(e)), ...recorded.lines]) {
      for (const secret of ["first?", "second?", "requestedSchema", ANSWER, "r1", "r2:"])
        expect(line).not.toContain(secret);
    }
    // A call without rounds has no round event.
    await executor.execute("agent", "modern.echo", { text: "plain" });
    expect(rounds).toHaveLength(2);
  });

  it("a requestState over 256 KiB fails the call with REQUEST_STATE_TOO_LARGE, the state nowhere", async () => {
    const { executor, recorded } = await stack(
      [modernStdioTestServer("modern")],
      { agent: ["modern.*"] },
      {
        elicitation: async () => ({ action: "accept", content: { ok: true } }),
      },
    );
    const error = await rejectionOf(
      executor.execute("agent", "modern.ask_big_state", { bytes: 256 * 1024 + 1 }),
    );
    // Request errors reach the caller as TOOL_FAILED, the client's error (and its code) as the cause.
    expect(error).toMatchObject({ code: "TOOL_FAILED", cause: { code: "REQUEST_STATE_TOO_LARGE" } });
    expect(error.message).toContain("over the client's limit of 262144 bytes");
    const failed = recorded.events.filter((e) => e.event === MCP_TOOL_CALL_FAILED);
    expect(failed).toMatchObject([{ errorCode: "TOOL_FAILED" }]);
    for (const line of recorded.lines) expect(line).not.toContain("ssssssss");
  });
});

describe("task-required tools on a 2026-07-28 connection", { timeout: 120_000 }, () => {
  it("are not offered to models; calling one fails with TASK_EXECUTION_UNSUPPORTED, never sent", async () => {
    const { executor, registry, recorded } = await stack([taskToolsTestServer("jobs")], {
      agent: ["jobs.*"],
    });
    expect(registry.list().map((t) => t.identity)).toContain("jobs.long_job");
    expect(executor.allowedTools("agent").map((t) => t.identity)).toEqual([
      "jobs.echo",
      "jobs.maybe_job",
      "jobs.stats",
    ]);
    const bound = toLangChainTools(executor, "agent", registry.list()).map((t) => t.name);
    expect(bound).toEqual(["jobs__echo", "jobs__maybe_job", "jobs__stats"]);
    const error = await rejectionOf(executor.execute("agent", "jobs.long_job", {}));
    expect(error).toMatchObject({ code: "TASK_EXECUTION_UNSUPPORTED", serverName: "jobs" });
    expect(error.message).toContain("only runs as a task");
    expect(recorded.events.filter((e) => e.event === MCP_TOOL_CALL_FAILED)).toMatchObject([
      { identity: "jobs.long_job", errorCode: "TASK_EXECUTION_UNSUPPORTED" },
    ]);
    const stats = await executor.execute("agent", "jobs.stats", {});
    expect(JSON.parse(stats.text).calls).toEqual({});
  });
});
