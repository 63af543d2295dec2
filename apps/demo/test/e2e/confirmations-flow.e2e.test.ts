// A run that stops for a person's confirmation, for real: `agentforge serve` (files store) over a roster
// whose grant puts `filesystem.directory_tree` under `confirm:`; the offline model calls it in its first
// round. The run stops `awaiting_confirmation` with the request stored and announced (never the
// arguments in events or the audit trail); Allow → the call is made and the run finishes; Deny → the
// model gets the refusal as an error and the run finishes; an answer given for one run, copied into
// another run's waiting call, is not taken there (the binding is checked): the call is not made and the
// run asks again.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentforge } from "./cli.js";
import { CONFIRMED_TOOL, callApi, requireConfirmation, serveRoster } from "./confirmation-fixtures.js";
import { type Roster, readSse, type Served, startServe, tempRoster } from "./mcp-fixtures.js";

const POLL = { timeout: 120_000, interval: 200 };

let roster: Roster;
let served: Served;

interface Confirmation {
  runId: string;
  callId: string;
  identity: string;
  binding: string;
  argumentsPreview: string;
  links: { answer: string };
}
interface Call {
  identity: string;
  ok: boolean;
  errorCode?: string;
}

const api = (method: string, path: string, body?: unknown) =>
  callApi(served.url, method, path, body !== undefined ? { body } : {});

async function startRun(): Promise<string> {
  const started = await api("POST", "/api/v1/runs", { folder: "proj" });
  expect(started.status).toBe(202);
  return started.json.id as string;
}

async function pendingOf(runId: string): Promise<Confirmation> {
  let found: Confirmation | undefined;
  await expect
    .poll(async () => {
      const list = (await api("GET", "/api/v1/confirmations")).json.confirmations as Confirmation[];
      found = list.find((c) => c.runId === runId);
      return found !== undefined;
    }, POLL)
    .toBe(true);
  return found as Confirmation;
}

const statusOf = async (id: string) => (await api("GET", `/api/v1/runs/${id}`)).json.status;
const callsOf = async (id: string) => (await api("GET", `/api/v1/runs/${id}`)).json.calls as Call[];

beforeAll(async () => {
  roster = await tempRoster();
  requireConfirmation(roster.config);
  served = await serveRoster(roster);
}, 120_000);

afterAll(async () => {
  await served?.stop();
  roster?.cleanup();
});

describe("a run waiting for a person's confirmation", () => {
  it("stops awaiting_confirmation; Allow makes the call and the run finishes", {
    timeout: 200_000,
  }, async () => {
    const id = await startRun();
    const pending = await pendingOf(id);
    expect(pending.identity).toBe(CONFIRMED_TOOL);
    expect(pending.argumentsPreview).toContain("excludePatterns");
    await expect.poll(() => statusOf(id), POLL).toBe("awaiting_confirmation");
    // `agentforge resume` of the waiting run has nothing to ask: it says so, and the run still waits.
    const cli = await agentforge(["resume", id, "--config", roster.config, "--state-dir", roster.stateDir], {
      env: roster.env,
      cwd: roster.dir,
      timeoutMs: 180_000,
    });
    expect(cli.code).toBe(0);
    expect(cli.stderr).toContain("waits for a person to confirm a tool call");
    expect(await statusOf(id)).toBe("awaiting_confirmation");
    expect((await pendingOf(id)).callId).toBe(pending.callId);
    const answered = await api("POST", pending.links.answer, { decision: "allow" });
    expect(answered.status).toBe(202);
    await expect.poll(() => statusOf(id), POLL).toBe("finished");
    const tree = (await callsOf(id)).filter((c) => c.identity === CONFIRMED_TOOL);
    expect(tree).toEqual([expect.objectContaining({ ok: true })]);
    const { events } = await readSse(`${served.url}/api/v1/runs/${id}/events`, { timeoutMs: 60_000 });
    const types = events.map((e) => e.event);
    expect(types).toContain("confirmation_requested");
    expect(types).toContain("MCP_TOOL_CALL_CONFIRMATION_REQUESTED");
    expect(events.find((e) => e.event === "run_finished")?.data).toMatchObject({
      status: "awaiting_confirmation",
    });
    expect(events.find((e) => e.event === "MCP_TOOL_CALL_CONFIRMATION_RESOLVED")?.data).toMatchObject({
      identity: CONFIRMED_TOOL,
      decision: "allow",
      source: "answer",
      answeredBy: "loopback",
    });
    expect(events.at(-1)?.data).toMatchObject({ type: "run_finished", status: "finished" });
    // Neither the stream nor the audit trail holds the arguments.
    expect(JSON.stringify(events)).not.toContain("excludePatterns");
    const audit = readFileSync(join(roster.stateDir, "audit.jsonl"), "utf8");
    expect(audit).toContain("MCP_TOOL_CALL_CONFIRMATION_RESOLVED");
    expect(audit).not.toContain("excludePatterns");
  });

  it("Deny: the model gets the refusal as an error tool result and the run finishes", {
    timeout: 200_000,
  }, async () => {
    const id = await startRun();
    const first = await pendingOf(id);
    const answered = await api("POST", first.links.answer, { decision: "deny", reason: "not this time" });
    expect(answered.status).toBe(202);
    // Refused the whole tree, the model asks for each top-level folder's tree instead (other arguments:
    // new confirmations, the run stops again); each is denied too, until the run finishes.
    let denied = 1;
    await expect
      .poll(async () => {
        const status = await statusOf(id);
        if (status === "awaiting_confirmation") {
          const list = (await api("GET", "/api/v1/confirmations")).json.confirmations as Confirmation[];
          for (const item of list.filter((c) => c.runId === id)) {
            if ((await api("POST", item.links.answer, { decision: "deny" })).status < 300) denied++;
          }
        }
        return status;
      }, POLL)
      .toBe("finished");
    const tree = (await callsOf(id)).filter((c) => c.identity === CONFIRMED_TOOL);
    expect(tree.length).toBe(denied);
    expect(tree.every((c) => !c.ok && c.errorCode === "CONFIRMATION_DENIED")).toBe(true);
    const run = (await api("GET", `/api/v1/runs/${id}`)).json;
    expect(typeof run.document).toBe("string");
    // The other tools were not touched by the refusal.
    expect((run.calls as Call[]).some((c) => c.identity === "filesystem.read_text_file" && c.ok)).toBe(true);
  });

  it("a confirmation nobody answers expires (--confirmation-ttl): denied, and the run finishes", {
    timeout: 200_000,
  }, async () => {
    const short = await startServe(
      [
        "--port",
        "0",
        "--no-check",
        "--config",
        roster.config,
        "--state-dir",
        join(roster.dir, "state-expiry"),
        "--allowed-base",
        roster.base,
        "--confirmation-ttl",
        "2s",
      ],
      { env: roster.env, cwd: roster.dir },
    );
    try {
      const created = await callApi(short.url, "POST", "/api/v1/runs", { body: { folder: "proj" } });
      expect(created.status).toBe(202);
      const id = created.json.id as string;
      const status = async () => (await callApi(short.url, "GET", `/api/v1/runs/${id}`)).json;
      await expect.poll(async () => (await status()).status, POLL).toBe("finished");
      const calls = (await status()).calls as Call[];
      const tree = calls.filter((c) => c.identity === CONFIRMED_TOOL);
      expect(tree.length).toBeGreaterThan(0);
      expect(tree.every((c) => !c.ok && c.errorCode === "CONFIRMATION_DENIED")).toBe(true);
      const { events } = await readSse(`${short.url}/api/v1/runs/${id}/events`, { timeoutMs: 60_000 });
      const resolved = events.filter((e) => e.event === "confirmation_resolved").map((e) => e.data);
      expect(resolved.length).toBe(tree.length);
      expect(resolved.every((d) => d.status === "expired" && d.answeredBy === "expiry")).toBe(true);
    } finally {
      await short.stop();
    }
  });

  it("an answer copied from another run is not taken: the binding differs, the run asks again", {
    timeout: 200_000,
  }, async () => {
    const first = await startRun();
    const firstPending = await pendingOf(first);
    const second = await startRun();
    const secondPending = await pendingOf(second);
    // The same call in two runs has two bindings (the run's id is part of it).
    expect(secondPending.binding).not.toBe(firstPending.binding);
    await api("POST", firstPending.links.answer, { decision: "allow" });
    await expect.poll(() => statusOf(first), POLL).toBe("finished");
    // Forge run 2's stored confirmation: run 1's allowed answer, under run 2's id and waiting call id.
    const file1 = join(roster.stateDir, "confirmations", `${first}.json`);
    const file2 = join(roster.stateDir, "confirmations", `${second}.json`);
    const [answer] = JSON.parse(readFileSync(file1, "utf8")) as Array<Record<string, unknown>>;
    writeFileSync(file2, JSON.stringify([{ ...answer, runId: second, callId: secondPending.callId }]));
    // Run 2 still waits (a resume is refused); released by hand, as an answer would release it.
    const refused = await api("POST", `/api/v1/runs/${second}/resume`, {});
    expect(refused.status).toBe(409);
    expect((refused.json.error as { code: string }).code).toBe("CONFIRMATION_PENDING");
    const runFile = join(roster.stateDir, "runs", `${second}.json`);
    writeFileSync(
      runFile,
      JSON.stringify({ ...JSON.parse(readFileSync(runFile, "utf8")), status: "paused" }),
    );
    expect((await api("POST", `/api/v1/runs/${second}/resume`, {})).status).toBe(202);
    // The resumed run does not take run 1's answer (its binding is not the waiting call's): the call is
    // not made, and the run waits again, with its own request stored afresh.
    await expect.poll(() => statusOf(second), POLL).toBe("awaiting_confirmation");
    const again = await pendingOf(second);
    expect(again.callId).toBe(secondPending.callId);
    expect(again.binding).toBe(secondPending.binding);
    expect((await callsOf(second)).some((c) => c.identity === CONFIRMED_TOOL)).toBe(false);
  });
});
