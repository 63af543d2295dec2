import { join } from "node:path";
import { readCallLog, stdioTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import {
  createConfirmationRun,
  MCP_TOOL_CALL_CONFIRMATION_REQUESTED,
  MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
  type MCPConfirmationDecision,
  MCPConfirmationError,
  type MCPConfirmationRequest,
  MCPToolExecutionError,
  toolErrorText,
} from "../../src/index.js";
import { cleanup, rejectionOf, stack, tempDir } from "./harness.js";

afterEach(cleanup);

const CANARY = "canary-Confirm-7Hq2-never-logged";

/** A stack whose agent may call alpha.echo only after confirmation (alpha.add needs none). */
async function confirmStack(
  options: Parameters<typeof stack>[2] = {},
  grants: Parameters<typeof stack>[1] = {
    agent: { allow: ["alpha.add"], confirm: ["alpha.echo", "alpha.structured"] },
  },
) {
  const log = join(tempDir(), "calls.jsonl");
  const s = await stack([stdioTestServer("alpha", { callLog: log })], grants, options);
  for (const name of [MCP_TOOL_CALL_CONFIRMATION_REQUESTED, MCP_TOOL_CALL_CONFIRMATION_RESOLVED] as const) {
    s.executor.events.on(name, (payload) => {
      const event = { event: name, ...payload };
      s.recorded.events.push(event);
      s.recorded.lines.push(JSON.stringify(event));
    });
  }
  const calls = () => readCallLog(log).filter((line) => line.tool === "echo").length;
  return { ...s, calls };
}

/** A handler that records its requests and answers from a list. */
function scripted(...answers: (MCPConfirmationDecision | Error)[]) {
  const requests: MCPConfirmationRequest[] = [];
  const handler = async (request: MCPConfirmationRequest) => {
    requests.push(request);
    const answer = answers.shift() ?? { decision: "deny" };
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { handler, requests };
}

describe("confirmation: the executor asks before a call a confirm pattern grants", () => {
  it("with no handler the call is refused with CONFIRMATION_REQUIRED and never reaches the server", async () => {
    const { executor, recorded, calls } = await confirmStack();
    const error = await rejectionOf(executor.execute("agent", "alpha.echo", { text: CANARY }));
    expect(MCPConfirmationError.isInstance(error)).toBe(true);
    expect(error.code).toBe("CONFIRMATION_REQUIRED");
    expect(error.message).toMatch(/needs a person's confirmation/);
    expect(toolErrorText(error as unknown as MCPConfirmationError)).toMatch(
      /^Error \(CONFIRMATION_REQUIRED\)/,
    );
    expect(calls()).toBe(0);
    expect(recorded.events.map((e) => [e.event, e.source ?? e.outcome ?? e.asked])).toEqual([
      ["MCP_TOOL_CALL_STARTED", undefined],
      ["MCP_TOOL_CALL_CONFIRMATION_REQUESTED", false],
      ["MCP_TOOL_CALL_CONFIRMATION_RESOLVED", "no-handler"],
      ["MCP_TOOL_CALL_FAILED", "denied"],
    ]);
    expect(recorded.events.at(-1)).toMatchObject({ errorCode: "CONFIRMATION_REQUIRED" });
    expect(recorded.lines.join("\n")).not.toContain(CANARY);
    // The error's JSON (for logs) never holds the request (it previews the arguments).
    expect(JSON.stringify(error)).not.toContain(CANARY);
    // A call allow grants needs nothing.
    expect((await executor.execute("agent", "alpha.add", { a: 1, b: 2 })).text).toBe("3");
  });

  it("asks the handler with the request, and an allow makes the call under the request's callId", async () => {
    const { handler, requests } = scripted({ decision: "allow", answeredBy: "ops@example" });
    const { executor, recorded, calls } = await confirmStack({ confirm: handler });
    const result = await executor.execute("agent", "alpha.echo", { text: CANARY });
    expect(result.text).toBe(CANARY);
    expect(calls()).toBe(1);
    const [request] = requests;
    expect(request).toMatchObject({
      callId: result.callId,
      agent: "agent",
      identity: "alpha.echo",
      serverName: "alpha",
      toolName: "echo",
      title: "echo",
      basis: "pattern",
      previewTruncated: false,
    });
    expect(request?.binding).toMatch(/^[0-9a-f]{64}$/);
    expect(request?.fingerprint).toBe(executor.registry.fingerprint("alpha.echo"));
    expect(request?.argumentsPreview).toContain(CANARY);
    expect(request?.reason).toMatch(/after confirmation by pattern "alpha.echo"/);
    const resolvedEvent = recorded.events.find((e) => e.event === MCP_TOOL_CALL_CONFIRMATION_RESOLVED);
    expect(resolvedEvent).toMatchObject({
      decision: "allow",
      scope: "call",
      source: "handler",
      answeredBy: "ops@example",
      callId: result.callId,
    });
    expect(typeof resolvedEvent?.waitedMs).toBe("number");
    expect(recorded.lines.join("\n")).not.toContain(CANARY);
  });

  it("a deny, a handler that throws, a timeout and a non-answer all refuse the call with CONFIRMATION_DENIED", async () => {
    const { handler, requests } = scripted(
      { decision: "deny", reason: "not on a Friday\u001b[2J" },
      new Error(`handler broke ${CANARY}`),
      { decision: "maybe" } as unknown as MCPConfirmationDecision,
    );
    const { executor, recorded, calls } = await confirmStack({ confirm: handler });
    const denied = await rejectionOf(executor.execute("agent", "alpha.echo", { text: "a" }));
    expect(denied.code).toBe("CONFIRMATION_DENIED");
    expect(denied.message).toContain("Their reason: not on a Friday");
    expect(denied.message).not.toContain("\u001b");
    const failed = await rejectionOf(executor.execute("agent", "alpha.echo", { text: "b" }));
    expect(failed.code).toBe("CONFIRMATION_DENIED");
    expect(failed.message).not.toContain(CANARY);
    const invalid = await rejectionOf(executor.execute("agent", "alpha.echo", { text: "c" }));
    expect(invalid.code).toBe("CONFIRMATION_DENIED");
    expect(requests).toHaveLength(3);
    expect(calls()).toBe(0);
    expect(
      recorded.events.filter((e) => e.event === MCP_TOOL_CALL_CONFIRMATION_RESOLVED).map((e) => e.source),
    ).toEqual(["handler", "handler-failed", "invalid-answer"]);
  });

  it("times out: a handler that never answers denies the call once confirmationTimeoutMs passed", async () => {
    const { executor, recorded, calls } = await confirmStack({ confirmationTimeoutMs: 50 });
    let aborted = false;
    const error = await rejectionOf(
      executor.execute(
        "agent",
        "alpha.echo",
        { text: "x" },
        {
          confirm: (_request, { signal }) =>
            new Promise(() => {
              signal.addEventListener("abort", () => {
                aborted = true;
              });
            }),
        },
      ),
    );
    expect(error.code).toBe("CONFIRMATION_DENIED");
    expect(error.message).toMatch(/not confirmed within/);
    expect(aborted).toBe(true);
    expect(calls()).toBe(0);
    expect(recorded.events.find((e) => e.event === MCP_TOOL_CALL_CONFIRMATION_RESOLVED)?.source).toBe(
      "timeout",
    );
  });

  it("the caller's signal ends the wait as a cancelled call", async () => {
    const { executor, calls } = await confirmStack();
    const controller = new AbortController();
    const pending = executor.execute(
      "agent",
      "alpha.echo",
      { text: "x" },
      {
        signal: controller.signal,
        confirm: () => {
          setTimeout(() => controller.abort(new Error("run stopped")), 10);
          return new Promise(() => undefined);
        },
      },
    );
    const error = await rejectionOf(pending);
    expect(MCPToolExecutionError.isInstance(error)).toBe(true);
    expect(error.code).toBe("TOOL_CANCELLED");
    expect(calls()).toBe(0);
  });
});

describe("confirmation: runs, scope and bounds", () => {
  it('scope "run" covers the same identity in the same run only', async () => {
    const { handler, requests } = scripted(
      { decision: "allow", scope: "run" },
      { decision: "allow" },
      { decision: "allow" },
    );
    const { executor, recorded, calls } = await confirmStack({ confirm: handler });
    const run = createConfirmationRun("run-1");
    await executor.execute("agent", "alpha.echo", { text: "one" }, { confirmationRun: run });
    await executor.execute("agent", "alpha.echo", { text: "two" }, { confirmationRun: run });
    expect(requests).toHaveLength(1);
    expect(run.confirmedForRun.map((entry) => entry.identity)).toEqual(["alpha.echo"]);
    // Another tool of the same run is asked for.
    await executor.execute("agent", "alpha.structured", { value: 1 }, { confirmationRun: run });
    expect(requests).toHaveLength(2);
    // Another run is asked again; so is a call outside any run.
    await executor.execute(
      "agent",
      "alpha.echo",
      { text: "three" },
      { confirmationRun: createConfirmationRun("run-2") },
    );
    expect(requests).toHaveLength(3);
    expect(calls()).toBe(3);
    expect(
      recorded.events
        .filter((e) => e.event === MCP_TOOL_CALL_CONFIRMATION_RESOLVED)
        .map((e) => [e.source, e.scope, e.runId]),
    ).toEqual([
      ["handler", "run", "run-1"],
      ["run", "run", "run-1"],
      ["handler", "call", "run-1"],
      ["handler", "call", "run-2"],
    ]);
    // The run's state is plain JSON: stored and restored, it still covers the tool.
    const restored = JSON.parse(JSON.stringify(run));
    await executor.execute("agent", "alpha.echo", { text: "four" }, { confirmationRun: restored });
    expect(requests).toHaveLength(3);
  });

  it("a run's confirmations are asked one at a time: a run-wide answer covers calls made at once", async () => {
    let active = 0;
    let most = 0;
    const asked: string[] = [];
    const { executor, calls } = await confirmStack({
      confirm: async (request) => {
        active++;
        most = Math.max(most, active);
        asked.push(request.identity);
        await new Promise((resolve) => setTimeout(resolve, 50));
        active--;
        return { decision: "allow", scope: "run" };
      },
    });
    const run = createConfirmationRun();
    const results = await Promise.all(
      ["a", "b", "c"].map((text) =>
        executor.execute("agent", "alpha.echo", { text }, { confirmationRun: run }),
      ),
    );
    expect(results.map((r) => r.text)).toEqual(["a", "b", "c"]);
    expect(asked).toEqual(["alpha.echo"]);
    expect(most).toBe(1);
    expect(calls()).toBe(3);
  });

  it("a changed definition needs a new confirmation, even in a run confirmed for the tool", async () => {
    const { handler, requests } = scripted({ decision: "allow", scope: "run" }, { decision: "allow" });
    const { executor, registry } = await confirmStack({ confirm: handler });
    const run = createConfirmationRun();
    await executor.execute("agent", "alpha.echo", { text: "one" }, { confirmationRun: run });
    const tools = registry.list({ serverName: "alpha" });
    registry.replaceServer(
      "alpha",
      tools.map((tool) =>
        tool.identity === "alpha.echo" ? { ...tool, description: "now deletes things" } : tool,
      ),
    );
    await executor.execute("agent", "alpha.echo", { text: "two" }, { confirmationRun: run });
    expect(requests).toHaveLength(2);
    expect(requests[1]?.fingerprint).not.toBe(requests[0]?.fingerprint);
  });

  it("a looping model's confirmation requests are bounded per run (CONFIRMATION_LIMIT_REACHED, nobody asked)", async () => {
    const { handler, requests } = scripted();
    const { executor, recorded } = await confirmStack({ confirm: handler, maxConfirmationsPerRun: 3 });
    const run = createConfirmationRun();
    const codes: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      codes.push(
        (
          await rejectionOf(
            executor.execute("agent", "alpha.echo", { text: `${i}` }, { confirmationRun: run }),
          )
        ).code,
      );
    }
    expect(codes).toEqual([
      "CONFIRMATION_DENIED",
      "CONFIRMATION_DENIED",
      "CONFIRMATION_DENIED",
      "CONFIRMATION_LIMIT_REACHED",
      "CONFIRMATION_LIMIT_REACHED",
      "CONFIRMATION_LIMIT_REACHED",
    ]);
    expect(requests).toHaveLength(3);
    expect(run.requests).toBe(3);
    expect(recorded.events.filter((e) => e.event === MCP_TOOL_CALL_CONFIRMATION_REQUESTED)).toHaveLength(3);
  });
});

describe("confirmation: answers bound to the exact call", () => {
  async function pending(
    executor: Awaited<ReturnType<typeof confirmStack>>["executor"],
    run = createConfirmationRun(),
  ) {
    const error = await rejectionOf(
      executor.execute(
        "agent",
        "alpha.echo",
        { text: CANARY, n: [1, { b: 2, a: 1 }] },
        { confirmationRun: run, deferConfirmation: true },
      ),
    );
    expect(error.code).toBe("CONFIRMATION_REQUIRED");
    const request = (error as unknown as MCPConfirmationError).request as MCPConfirmationRequest;
    expect(request.binding).toMatch(/^[0-9a-f]{64}$/);
    return { run, request };
  }

  it("a deferred request is answered later: the call goes ahead under the request's callId, once", async () => {
    const { executor, recorded, calls } = await confirmStack({ validateArguments: false });
    const { run, request } = await pending(executor);
    // Deferred: nobody asked, no RESOLVED yet.
    expect(recorded.events.filter((e) => e.event === MCP_TOOL_CALL_CONFIRMATION_RESOLVED)).toEqual([]);
    expect(recorded.events.find((e) => e.event === MCP_TOOL_CALL_CONFIRMATION_REQUESTED)?.asked).toBe(false);
    const stored = JSON.parse(JSON.stringify({ run, request }));
    // Keys in another order are the same arguments.
    const result = await executor.execute(
      "agent",
      "alpha.echo",
      { n: [1, { a: 1, b: 2 }], text: CANARY },
      {
        confirmationRun: stored.run,
        confirmation: {
          decision: "allow",
          binding: stored.request.binding,
          callId: stored.request.callId,
          requestedAt: stored.request.requestedAt,
          answeredBy: "token:ops",
        },
      },
    );
    expect(result.callId).toBe(request.callId);
    expect(calls()).toBe(1);
    expect(
      recorded.events.filter((e) => e.event === MCP_TOOL_CALL_CONFIRMATION_RESOLVED).at(-1),
    ).toMatchObject({
      decision: "allow",
      source: "answer",
      answeredBy: "token:ops",
      callId: request.callId,
    });
    // The same answer again: refused (replay).
    const replay = await rejectionOf(
      executor.execute(
        "agent",
        "alpha.echo",
        { text: CANARY, n: [1, { a: 1, b: 2 }] },
        {
          confirmationRun: stored.run,
          confirmation: { decision: "allow", binding: request.binding, callId: request.callId },
        },
      ),
    );
    expect(replay.code).toBe("CONFIRMATION_DENIED");
    expect(replay.message).toMatch(/used already/);
    expect(calls()).toBe(1);
    expect(recorded.lines.join("\n")).not.toContain(CANARY);
  });

  it("an answer is refused for other arguments, another run, another agent or a changed definition", async () => {
    const { executor, registry, calls } = await confirmStack(
      { validateArguments: false },
      {
        agent: { confirm: ["alpha.echo"] },
        other: { confirm: ["alpha.echo"] },
      },
    );
    const { run, request } = await pending(executor);
    const answer = { decision: "allow" as const, binding: request.binding, callId: request.callId };
    const args = { text: CANARY, n: [1, { b: 2, a: 1 }] };
    const refused = async (agent: string, callArgs: Record<string, unknown>, callRun = run) => {
      const error = await rejectionOf(
        executor.execute(agent, "alpha.echo", callArgs, { confirmationRun: callRun, confirmation: answer }),
      );
      expect(error.code).toBe("CONFIRMATION_DENIED");
      expect(error.message).toMatch(/was for another call/);
    };
    await refused("agent", { ...args, text: `${CANARY}!` });
    await refused("agent", { ...args, n: [1, { a: 1, b: 3 }] });
    await refused("agent", args, createConfirmationRun(run.runId.replace(/.$/, "x")));
    await refused("other", args);
    registry.replaceServer(
      "alpha",
      registry
        .list({ serverName: "alpha" })
        .map((tool) => (tool.identity === "alpha.echo" ? { ...tool, title: "Echo v2" } : tool)),
    );
    await refused("agent", args);
    expect(calls()).toBe(0);
    // A deny given as an answer refuses the call too.
    const denied = await rejectionOf(
      executor.execute("agent", "alpha.echo", args, {
        confirmationRun: run,
        confirmation: { decision: "deny", binding: "0".repeat(64), reason: "no" },
      }),
    );
    expect(denied.code).toBe("CONFIRMATION_DENIED");
  });
});

describe("confirmation: arguments no person could read", () => {
  it("arguments nested too deeply are refused as an error the model gets, never thrown out of the run", async () => {
    const { handler, requests } = scripted({ decision: "allow" });
    const { executor, calls } = await confirmStack({ confirm: handler, validateArguments: false });
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 300; i++) deep = { deeper: deep };
    const error = await rejectionOf(executor.execute("agent", "alpha.echo", { text: "x", deep }));
    expect(MCPConfirmationError.isInstance(error)).toBe(true);
    expect(error.code).toBe("CONFIRMATION_DENIED");
    expect(error.message).toMatch(/cannot be shown to a person/);
    expect(requests).toHaveLength(0);
    expect(calls()).toBe(0);
  });
});

describe("confirmation: the preview a person reads", () => {
  it("bounds the preview, makes escapes and controls visible, and redacts the server's secrets", async () => {
    const SECRET = "sk-live-Preview-Secret-123456";
    process.env.AGENTFORGE_TEST_PREVIEW_SECRET = SECRET;
    try {
      const { handler, requests } = scripted({ decision: "deny" });
      const configs = [stdioTestServer("beta", {}, { env: { API_KEY: "AGENTFORGE_TEST_PREVIEW_SECRET" } })];
      const withSecret = await stack(
        configs,
        { agent: { confirm: ["beta.echo"] } },
        { confirm: handler, validateArguments: false },
      );
      await rejectionOf(
        withSecret.executor.execute("agent", "beta.echo", {
          text: `\u001b]52;c;ZXZpbA==\u0007\u001b[2J clear \u202eevil\u202c \u009b31m key=${SECRET}`,
          zpad: "x".repeat(5000),
        }),
      );
      const preview = requests[0]?.argumentsPreview ?? "";
      expect(preview).not.toContain(SECRET);
      expect(preview).toContain("[REDACTED]");
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is that none is left.
      expect(preview).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(preview).toContain("\\u001b]52;c;");
      expect(preview).toContain("\\u202e");
      expect(preview).toContain("\\u009b");
      expect(preview.length).toBeLessThanOrEqual(2000);
      expect(preview).toMatch(/characters truncated\]$/);
      expect(requests[0]?.previewTruncated).toBe(true);
    } finally {
      delete process.env.AGENTFORGE_TEST_PREVIEW_SECRET;
    }
  });
});
