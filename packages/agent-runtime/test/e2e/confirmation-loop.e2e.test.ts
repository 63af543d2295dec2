import { join } from "node:path";
import { readCallLog, stdioTestServer } from "@agentforge/test-servers";
import {
  AIMessage,
  HumanMessage,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { MCP_TOOL_CALL_CONFIRMATION_RESOLVED } from "../../src/index.js";
import { invokeWithTools, type ToolLoopState } from "../../src/langchain/index.js";
import { cleanup, stack, tempDir } from "./harness.js";

afterEach(cleanup);

const ask = [new HumanMessage("Please use the tools.")];
const CANARY = "canary-Loop-Confirm-91x";
const grants = { agent: { allow: ["alpha.add"], confirm: ["alpha.echo"] } };

/** A fresh stack (a new server process, a new executor): what a restarted instance has. */
async function instance() {
  const log = join(tempDir(), "calls.jsonl");
  const s = await stack([stdioTestServer("alpha", { callLog: log })], grants);
  const echoes = () => readCallLog(log).filter((line) => line.tool === "echo").length;
  return { ...s, echoes };
}

function toolMessages(transcript: StoredMessage[]): ToolMessage[] {
  return mapStoredMessagesToChatMessages(transcript).filter(
    (m): m is ToolMessage => m instanceof ToolMessage,
  );
}

/** Pause a run on alpha.echo (alpha.add runs), and return its stored state. */
async function paused() {
  const first = await instance();
  const model = fakeModel().respondWithTools([
    { name: "alpha__echo", args: { text: CANARY }, id: "c1" },
    { name: "alpha__add", args: { a: 1, b: 2 }, id: "c2" },
  ]);
  const saved: ToolLoopState[] = [];
  const result = await invokeWithTools(model, ask, {
    tools: first.registry.list(),
    executor: first.executor,
    agent: "agent",
    confirmations: "pause",
    runId: "run-42",
    onRound: (state) => {
      saved.push(JSON.parse(JSON.stringify(state)));
    },
  });
  expect(result.status).toBe("awaiting_confirmation");
  expect(first.echoes()).toBe(0);
  expect(model.callCount).toBe(1);
  expect(result.pending).toHaveLength(1);
  expect(result.pending?.[0]).toMatchObject({ identity: "alpha.echo", runId: "run-42", agent: "agent" });
  expect(result.pending?.[0]?.argumentsPreview).toContain(CANARY);
  // The call that needed no confirmation ran; its result waits in the state with the pending call.
  expect(result.calls).toMatchObject([{ identity: "alpha.add", toolCallId: "c2", ok: true }]);
  expect(saved.at(-1)?.pending?.confirmations.map((c) => c.toolCallId)).toEqual(["c1"]);
  expect(saved.at(-1)).toEqual(JSON.parse(JSON.stringify(result.state)));
  return { state: saved.at(-1) as ToolLoopState, request: result.pending?.[0] };
}

describe("invokeWithTools pauses on a call that needs confirmation, and goes on when resumed", () => {
  it("pauses, survives a restart, and on allow runs the call and finishes", async () => {
    const { state, request } = await paused();
    // A new instance: new server process, new executor. Resumed with no answer yet: still waiting.
    const second = await instance();
    const waitingModel = fakeModel().respond(new AIMessage("never asked"));
    const still = await invokeWithTools(waitingModel, [], {
      tools: second.registry.list(),
      executor: second.executor,
      agent: "agent",
      confirmations: "pause",
      resume: state,
    });
    expect(still.status).toBe("awaiting_confirmation");
    expect(waitingModel.callCount).toBe(0);
    const resolved: Record<string, unknown>[] = [];
    second.executor.events.on(MCP_TOOL_CALL_CONFIRMATION_RESOLVED, (e) => {
      resolved.push({ ...e });
    });
    const model = fakeModel().respond(new AIMessage("echoed and added"));
    const result = await invokeWithTools(model, [], {
      tools: second.registry.list(),
      executor: second.executor,
      agent: "agent",
      confirmations: "pause",
      resume: still.state as ToolLoopState,
      confirmationAnswers: [{ callId: request?.callId as string, decision: "allow", answeredBy: "alice" }],
    });
    expect(result.status).toBe("finished");
    expect(result.message.content).toBe("echoed and added");
    expect(second.echoes()).toBe(1);
    // Tool messages in the order the model made the calls, each answering its call.
    expect(toolMessages(result.transcript).map((m) => [m.tool_call_id, m.content])).toEqual([
      ["c1", CANARY],
      ["c2", "3"],
    ]);
    expect(result.calls.map((c) => [c.toolCallId, c.ok])).toEqual([
      ["c2", true],
      ["c1", true],
    ]);
    expect(result.rounds).toBe(1);
    expect(resolved).toMatchObject([
      { decision: "allow", source: "answer", answeredBy: "alice", callId: request?.callId, runId: "run-42" },
    ]);
    expect(JSON.stringify(resolved)).not.toContain(CANARY);
  });

  it("on deny, the model gets the refusal as an error tool message and the run finishes", async () => {
    const { state, request } = await paused();
    const second = await instance();
    const model = fakeModel().respond(new AIMessage("ok, I will not"));
    const result = await invokeWithTools(model, [], {
      tools: second.registry.list(),
      executor: second.executor,
      agent: "agent",
      confirmations: "pause",
      resume: state,
      confirmationAnswers: [{ callId: request?.callId as string, decision: "deny", reason: "not today" }],
    });
    expect(result.status).toBe("finished");
    expect(second.echoes()).toBe(0);
    const refusal = toolMessages(result.transcript).find((m) => m.tool_call_id === "c1");
    expect(refusal?.status).toBe("error");
    expect(refusal?.content).toMatch(/^Error \(CONFIRMATION_DENIED\).*not today/);
    expect(result.calls.find((c) => c.toolCallId === "c1")).toMatchObject({
      ok: false,
      errorCode: "CONFIRMATION_DENIED",
    });
  });

  it("an answer does not carry over to other arguments or a changed definition", async () => {
    const { state, request } = await paused();
    // The stored arguments were changed after the person saw them.
    const tampered: ToolLoopState = JSON.parse(JSON.stringify(state).split(CANARY).join("rm -rf /"));
    const second = await instance();
    const result = await invokeWithTools(fakeModel().respond(new AIMessage("done")), [], {
      tools: second.registry.list(),
      executor: second.executor,
      agent: "agent",
      confirmations: "pause",
      resume: tampered,
      confirmationAnswers: [{ callId: request?.callId as string, decision: "allow" }],
    });
    expect(second.echoes()).toBe(0);
    expect(toolMessages(result.transcript).find((m) => m.tool_call_id === "c1")?.content).toMatch(
      /CONFIRMATION_DENIED.*another call/,
    );
    // The tool's definition changed while the run waited.
    const third = await instance();
    third.registry.replaceServer(
      "alpha",
      third.registry
        .list({ serverName: "alpha" })
        .map((tool) => (tool.identity === "alpha.echo" ? { ...tool, description: "also deletes" } : tool)),
    );
    const changed = await invokeWithTools(fakeModel().respond(new AIMessage("done")), [], {
      tools: third.registry.list(),
      executor: third.executor,
      agent: "agent",
      confirmations: "pause",
      resume: state,
      confirmationAnswers: [{ callId: request?.callId as string, decision: "allow" }],
    });
    expect(third.echoes()).toBe(0);
    expect(toolMessages(changed.transcript).find((m) => m.tool_call_id === "c1")?.content).toMatch(
      /CONFIRMATION_DENIED/,
    );
  });

  it("a model that keeps calling a tool that needs confirmation is bounded per run", async () => {
    const log = join(tempDir(), "calls.jsonl");
    const asked: string[] = [];
    const s = await stack([stdioTestServer("alpha", { callLog: log })], grants, {
      maxConfirmationsPerRun: 2,
      confirm: (request) => {
        asked.push(request.callId);
        return { decision: "deny", reason: "no" };
      },
    });
    let model = fakeModel();
    for (let i = 1; i <= 5; i++)
      model = model.respondWithTools([{ name: "alpha__echo", args: { text: `${i}` }, id: `c${i}` }]);
    model = model.respond(new AIMessage("gave up"));
    const result = await invokeWithTools(model, ask, {
      tools: s.registry.list(),
      executor: s.executor,
      agent: "agent",
      maxRounds: 5,
      runId: "looping",
    });
    expect(result.status).toBe("finished");
    expect(asked).toHaveLength(2);
    expect(result.calls.map((c) => c.errorCode)).toEqual([
      "CONFIRMATION_DENIED",
      "CONFIRMATION_DENIED",
      "CONFIRMATION_LIMIT_REACHED",
      "CONFIRMATION_LIMIT_REACHED",
      "CONFIRMATION_LIMIT_REACHED",
    ]);
    expect(readCallLog(log).filter((line) => line.tool === "echo")).toHaveLength(0);
  });

  it('"ask" (default) asks the executor\'s handler; without one the model is told CONFIRMATION_REQUIRED', async () => {
    const s = await instance();
    const model = fakeModel()
      .respondWithTools([{ name: "alpha__echo", args: { text: "x" }, id: "c1" }])
      .respond(new AIMessage("could not"));
    const result = await invokeWithTools(model, ask, {
      tools: s.registry.list(),
      executor: s.executor,
      agent: "agent",
    });
    expect(result.status).toBe("finished");
    expect(toolMessages(result.transcript)[0]?.content).toMatch(/^Error \(CONFIRMATION_REQUIRED\)/);
    expect(s.echoes()).toBe(0);
  });
});
