// Answering confirmations over REST against a real `agentforge serve` (files store, bearer token): the
// pending list across runs, validation (400), unknown run or call (404), a second answer (409), the
// answer recorded with the token's fingerprint (never the token), a resume refused while a confirmation
// is pending, and the last answer resuming the run through the run manager until it finishes. The run
// is one a paused run leaves behind, saved by the app's own store.
import { createHash } from "node:crypto";
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, HOSTILE_PREVIEW, seedAwaitingRun, serveRoster } from "./confirmation-fixtures.js";
import { type Roster, readSse, type Served, tempRoster } from "./mcp-fixtures.js";

const TOKEN = `token-${Math.random().toString(36).slice(2)}`;
const FINGERPRINT = `token:${createHash("sha256").update(TOKEN).digest("hex").slice(0, 12)}`;

let roster: Roster;
let served: Served;
let runA: string;
let runB: string;

const api = (method: string, path: string, body?: unknown) =>
  callApi(served.url, method, path, { token: TOKEN, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  roster = await tempRoster();
  const seed = {
    folder: realpathSync(join(roster.base, "proj")),
    configPath: realpathSync(roster.config),
  };
  runA = await seedAwaitingRun(roster.stateDir, {
    ...seed,
    calls: [{ callId: "call-a1", argumentsPreview: HOSTILE_PREVIEW }, { callId: "call-a2" }],
  });
  runB = await seedAwaitingRun(roster.stateDir, { ...seed, calls: [{ callId: "call-b1" }] });
  served = await serveRoster(roster, { AGENTFORGE_API_TOKEN: TOKEN });
}, 120_000);

afterAll(async () => {
  await served?.stop();
  roster?.cleanup();
});

describe("confirmations over REST", () => {
  it("lists the pending confirmations of every run, with the preview and the answer link", async () => {
    const unauthenticated = await callApi(served.url, "GET", "/api/v1/confirmations");
    expect(unauthenticated.status).toBe(401);
    const { status, json } = await api("GET", "/api/v1/confirmations");
    expect(status).toBe(200);
    const list = json.confirmations as Array<Record<string, unknown>>;
    expect(list.map((c) => `${c.runId}/${c.callId}`).sort()).toEqual(
      [`${runA}/call-a1`, `${runA}/call-a2`, `${runB}/call-b1`].sort(),
    );
    const hostile = list.find((c) => c.callId === "call-a1");
    expect(hostile).toMatchObject({
      identity: "local-tools.echo",
      status: "pending",
      argumentsPreview: HOSTILE_PREVIEW,
      links: { answer: `/api/v1/runs/${runA}/confirmations/call-a1` },
    });
    expect((await api("GET", "/api/v1/confirmations?limit=0")).status).toBe(400);
  });

  it("refuses a resume while a confirmation is pending", async () => {
    const { status, json } = await api("POST", `/api/v1/runs/${runA}/resume`, {});
    expect(status).toBe(409);
    expect((json.error as { code: string }).code).toBe("CONFIRMATION_PENDING");
  });

  it("validates the answer (400), and answers 404 for an unknown run or call", async () => {
    const bad = await api("POST", `/api/v1/runs/${runA}/confirmations/call-a1`, {
      decision: "maybe",
      extra: 1,
    });
    expect(bad.status).toBe(400);
    const issues = (bad.json.error as { issues: Array<{ path: string }> }).issues.map((i) => i.path).sort();
    expect(issues).toEqual(["decision", "extra"]);
    expect((await api("POST", `/api/v1/runs/${runA}/confirmations/call-a1`, {})).status).toBe(400);
    expect(
      (
        await api("POST", `/api/v1/runs/${runA}/confirmations/call-a1`, {
          decision: "allow",
          scope: "forever",
        })
      ).status,
    ).toBe(400);
    const unknownCall = await api("POST", `/api/v1/runs/${runA}/confirmations/call-zz`, {
      decision: "allow",
    });
    expect(unknownCall.status).toBe(404);
    expect((unknownCall.json.error as { code: string }).code).toBe("CONFIRMATION_NOT_FOUND");
    const odd = await api("POST", `/api/v1/runs/${runA}/confirmations/%3Cscript%3E${"x".repeat(300)}`, {
      decision: "allow",
    });
    expect(odd.status).toBe(404);
    expect(odd.text).not.toContain("<script>");
    // A call id of another run names nothing in this one.
    const other = await api("POST", `/api/v1/runs/${runB}/confirmations/call-a1`, { decision: "allow" });
    expect(other.status).toBe(404);
    const unknownRun = await api(
      "POST",
      "/api/v1/runs/00000000-0000-4000-8000-000000000000/confirmations/call-a1",
      { decision: "allow" },
    );
    expect(unknownRun.status).toBe(404);
    expect((unknownRun.json.error as { code: string }).code).toBe("RUN_NOT_FOUND");
  });

  it("records the first answer with the token's fingerprint, 409 for a second one", async () => {
    const first = await api("POST", `/api/v1/runs/${runA}/confirmations/call-a1`, { decision: "allow" });
    expect(first.status).toBe(200); // call-a2 is still pending: the run waits
    expect(first.json).toMatchObject({
      resumed: false,
      confirmation: { status: "allowed", scope: "call", answeredBy: FINGERPRINT },
      run: { status: "awaiting_confirmation" },
    });
    expect(first.text).not.toContain(TOKEN);
    const second = await api("POST", `/api/v1/runs/${runA}/confirmations/call-a1`, { decision: "deny" });
    expect(second.status).toBe(409);
    expect((second.json.error as { code: string }).code).toBe("CONFIRMATION_ANSWERED");
    const stored = readFileSync(join(roster.stateDir, "confirmations", `${runA}.json`), "utf8");
    expect(stored).toContain(FINGERPRINT);
    expect(stored).not.toContain(TOKEN);
  });

  it("resumes the run with the last answer; it finishes, its stream tells who answered, never the arguments", async () => {
    const last = await api("POST", `/api/v1/runs/${runA}/confirmations/call-a2`, {
      decision: "deny",
      scope: "call",
      reason: "not now",
    });
    expect(last.status).toBe(202);
    expect(last.json).toMatchObject({ resumed: true, confirmation: { status: "denied", reason: "not now" } });
    const { events } = await readSse(`${served.url}/api/v1/runs/${runA}/events`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      until: (event) => event.event === "run_finished",
      timeoutMs: 120_000,
    });
    const resolved = events.filter((e) => e.event === "confirmation_resolved").map((e) => e.data);
    expect(resolved).toMatchObject([
      { callId: "call-a1", decision: "allow", answeredBy: FINGERPRINT },
      { callId: "call-a2", decision: "deny", answeredBy: FINGERPRINT },
    ]);
    expect(JSON.stringify(events)).not.toContain("onerror");
    expect(events.at(-1)?.data).toMatchObject({ status: "finished" });
    const run = await api("GET", `/api/v1/runs/${runA}`);
    expect(run.json).toMatchObject({ status: "finished" });
    // The other run still waits.
    const pending = (await api("GET", "/api/v1/confirmations")).json.confirmations as Array<{
      runId: string;
    }>;
    expect(pending.map((c) => c.runId)).toEqual([runB]);
  });
});
