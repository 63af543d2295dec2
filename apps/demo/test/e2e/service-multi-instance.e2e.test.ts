// Several `agentforge serve` processes on one real PostgreSQL (TEST_DATABASE_URL; a fresh database for
// this file, dropped after; skipped with the reason printed when it is unset): a run started on A is seen
// and streamed (SSE, Last-Event-ID replay then live, no gap, no duplicate) on B; a run paused on A is
// resumed via B, and of two resumes at once exactly one is accepted; an instance SIGKILLed mid-run (held
// inside a tool call by the gated filesystem server) has its run recovered and finished by another one
// after a short lease; SIGTERM pauses an instance's run resumably; and one instance admits exactly
// --max-runs of 20 concurrent starts.
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../src/run-store/postgres/test-database.js";
import { type Served, SseSplitter, startServe } from "./mcp-fixtures.js";
import { descendantPids, jsonClient, type ServiceRoster, serviceRoster } from "./service-fixtures.js";

const skipReason = process.env.TEST_DATABASE_URL
  ? undefined
  : "TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres): several serve instances share runs through PostgreSQL and its pg-boss queue, which needs a real server";
if (skipReason) console.warn(`service-multi-instance e2e tests skipped: ${skipReason}`);

const POLL = { timeout: 170_000, interval: 250 };

let roster: ServiceRoster;
let db: TestDatabase;
/** Instances started by the running test (ended in afterEach). */
const started: Served[] = [];
/** Processes left by a SIGKILLed instance (its MCP servers), ended in afterEach. */
const orphans: number[] = [];

interface Instance {
  served: Served;
  id: string;
  call: ReturnType<typeof jsonClient>;
}

async function instance(name: string, extra: string[] = []): Promise<Instance> {
  const served = await startServe(
    [
      "--port",
      "0",
      "--config",
      roster.config,
      "--state-dir",
      join(roster.dir, `state-${name}`),
      "--allowed-base",
      roster.base,
      "--no-check",
      "--health-interval",
      "0",
      "--database-url",
      db.url,
      ...extra,
    ],
    { cwd: roster.dir, timeoutMs: 120_000 },
  );
  started.push(served);
  const id = /; instance ([0-9a-f-]{36});/.exec(served.stderr())?.[1];
  if (!id) throw new Error(`no instance id in the ready line:\n${served.stderr()}`);
  return { served, id, call: jsonClient(() => served.url) };
}

/** A run as GET returns it. */
async function runOf(at: Instance, id: string): Promise<Record<string, unknown>> {
  const response = await at.call("GET", `/api/v1/runs/${id}`);
  expect(response.status).toBe(200);
  return response.json;
}

interface StreamEvent {
  id: number;
  type: string;
  data: Record<string, unknown>;
}

/** An SSE reader whose events can be looked at while it reads; `done` settles when the stream ends. */
function openStream(url: string, lastEventId: number) {
  const controller = new AbortController();
  const events: StreamEvent[] = [];
  const done = (async () => {
    const response = await fetch(url, {
      headers: { Accept: "text/event-stream", "Last-Event-ID": String(lastEventId) },
      signal: controller.signal,
    });
    if (!response.body) throw new Error(`no event stream at ${url} (${response.status})`);
    const decoder = new TextDecoder();
    const splitter = new SseSplitter();
    for await (const chunk of response.body) {
      for (const { id, event, data } of splitter.push(
        decoder.decode(chunk as Uint8Array, { stream: true }),
      )) {
        if (id === undefined) continue; // a keep-alive comment
        events.push({
          id: Number(id),
          type: event ?? "message",
          data: JSON.parse(data ?? "{}") as Record<string, unknown>,
        });
      }
    }
  })();
  return { events, done, close: () => controller.abort() };
}

beforeAll(async () => {
  if (skipReason) return;
  roster = serviceRoster();
  db = await createTestDatabase("agentforge_mi");
}, 60_000);

afterEach(async () => {
  roster?.openGate(); // a held tool call lets go, so every process can end
  await Promise.all(started.splice(0).map((served) => served.stop()));
  for (const pid of orphans.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}, 60_000);

afterAll(async () => {
  await db?.drop();
  roster?.cleanup();
}, 60_000);

describe.skipIf(skipReason !== undefined)("several serve instances on one PostgreSQL", () => {
  it("a run started on A is seen on B and its events stream on B: replay, then live, no gap, no duplicate", async () => {
    roster.closeGate();
    const a = await instance("a");
    const posted = await a.call("POST", "/api/v1/runs", { folder: "proj" });
    expect(posted.status).toBe(202);
    const id = posted.json.id as string;
    // Held inside its first tool call on A (the only instance yet): running, owned by A.
    await expect
      .poll(async () => {
        const run = await runOf(a, id);
        return `${run.status} ${run.ownerInstance} ${Number(run.eventCount) >= 2}`;
      }, POLL)
      .toBe(`running ${a.id} true`);

    const b = await instance("b");
    const seen = await runOf(b, id);
    expect(seen).toMatchObject({ id, status: "running", ownerInstance: a.id, active: false });
    expect((await b.call("GET", "/api/v1/runs")).json.runs).toEqual(
      expect.arrayContaining([expect.objectContaining({ id })]),
    );

    // From B, after event 1: the replay (2..k) arrives while the run is still held on A...
    const stream = openStream(`${b.served.url}/api/v1/runs/${id}/events`, 1);
    const held = Number(seen.eventCount);
    await expect.poll(() => stream.events.length, POLL).toBeGreaterThanOrEqual(held - 1);
    // ...then everything A appends once the gate opens arrives live, until run_finished.
    roster.openGate();
    await stream.done;
    const last = stream.events.at(-1);
    expect(last?.type).toBe("run_finished");
    expect(last?.data.status).toBe("finished");
    const total = Number((await runOf(b, id)).eventCount);
    expect(total).toBeGreaterThan(held);
    expect(stream.events.map((event) => event.id)).toEqual(
      Array.from({ length: total - 1 }, (_, i) => i + 2),
    );
    // The same events, read from A (the instance that ran it) and from B again, with a Last-Event-ID.
    const onA = openStream(`${a.served.url}/api/v1/runs/${id}/events`, 0);
    await onA.done;
    expect(onA.events.slice(1)).toEqual(stream.events);
    const replay = openStream(`${b.served.url}/api/v1/runs/${id}/events`, total - 2);
    await replay.done;
    expect(replay.events.map((event) => event.id)).toEqual([total - 1, total]);
    expect((await runOf(b, id)).ownerInstance).toBe(a.id);
  });

  it("streams opened at once on both instances each end with their run's run_finished, gap-free", async () => {
    roster.openGate();
    const a = await instance("a");
    const b = await instance("b");
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const at = i % 2 === 0 ? a : b;
      const posted = await at.call("POST", "/api/v1/runs", { folder: "proj" });
      expect(posted.status).toBe(202);
      ids.push(posted.json.id as string);
    }
    // Opened while the runs are queued, running or just finished, on the executing instance and on the
    // other: whichever, each stream must carry every event and end with the closing run_finished (not
    // before it, and not hang after it).
    const streams = ids.flatMap((id) =>
      [a, b].map((at) => ({ id, stream: openStream(`${at.served.url}/api/v1/runs/${id}/events`, 0) })),
    );
    await Promise.all(streams.map(({ stream }) => stream.done));
    for (const { id, stream } of streams) {
      const last = stream.events.at(-1);
      expect(`${id} ${last?.type} ${last?.data.status}`).toBe(`${id} run_finished finished`);
      expect(stream.events.map((event) => event.id)).toEqual(
        Array.from({ length: stream.events.length }, (_, i) => i + 1),
      );
    }
  });

  it("a run paused on A is resumed via B; of two resumes at once (A and B) exactly one is accepted", async () => {
    roster.openGate();
    const a = await instance("a");
    const b = await instance("b");
    const posted = await a.call("POST", "/api/v1/runs", { folder: "proj", pauseAfter: 1 });
    expect(posted.status).toBe(202);
    const id = posted.json.id as string;
    // Queued runs are saved paused too: wait for the pause after its first tool round.
    await expect
      .poll(async () => {
        const run = await runOf(b, id);
        return `${run.status} ${Number(run.round) >= 1}`;
      }, POLL)
      .toBe("paused true");
    const resumed = await b.call("POST", `/api/v1/runs/${id}/resume`);
    expect(resumed.status).toBe(202);
    await expect.poll(async () => (await runOf(a, id)).status, POLL).toBe("finished");
    const again = await a.call("POST", `/api/v1/runs/${id}/resume`);
    expect(again.status).toBe(409);
    expect((again.json.error as Record<string, unknown>).code).toBe("RUN_FINISHED");

    // A second run, paused, then resumed on both instances at the same moment.
    const second = await b.call("POST", "/api/v1/runs", { folder: "proj", pauseAfter: 1 });
    const secondId = second.json.id as string;
    await expect
      .poll(async () => {
        const run = await runOf(a, secondId);
        return `${run.status} ${Number(run.round) >= 1}`;
      }, POLL)
      .toBe("paused true");
    const both = await Promise.all([
      a.call("POST", `/api/v1/runs/${secondId}/resume`),
      b.call("POST", `/api/v1/runs/${secondId}/resume`),
    ]);
    expect(both.map((response) => response.status).sort()).toEqual([202, 409]);
    const loser = both.find((response) => response.status === 409)?.json.error;
    expect(loser).toMatchObject({ code: "RUN_ACTIVE" });
    await expect.poll(async () => (await runOf(b, secondId)).status, POLL).toBe("finished");
    // One resume, one continuation: the run started twice in all (its start and the one resume).
    const events = openStream(`${a.served.url}/api/v1/runs/${secondId}/events`, 0);
    await events.done;
    expect(events.events.filter((event) => event.type === "run_started")).toHaveLength(2);
    expect(events.events.filter((event) => event.type === "run_finished").map((e) => e.data.status)).toEqual([
      "paused",
      "finished",
    ]);
  });

  it("an instance SIGKILLed mid-run: after the lease its run is recovered and finished by another", async () => {
    roster.closeGate();
    const lease = ["--run-lease-seconds", "10", "--queue-maintenance-seconds", "1"];
    const a = await instance("a", lease);
    const posted = await a.call("POST", "/api/v1/runs", { folder: "proj" });
    expect(posted.status).toBe(202);
    const id = posted.json.id as string;
    await expect
      .poll(async () => {
        const run = await runOf(a, id);
        return `${run.status} ${run.ownerInstance} ${Number(run.eventCount) >= 2}`;
      }, POLL)
      .toBe(`running ${a.id} true`);
    const pid = a.served.child.pid as number;
    orphans.push(...descendantPids(pid));
    const exited = new Promise((resolve) => a.served.child.once("exit", resolve));
    a.served.child.kill("SIGKILL");
    await exited;

    const b = await instance("b", lease);
    roster.openGate();
    await expect
      .poll(async () => {
        const run = await runOf(b, id);
        return `${run.status} ${run.ownerInstance}`;
      }, POLL)
      .toBe(`finished ${b.id}`);
    const run = await runOf(b, id);
    expect(run.document).toEqual(expect.stringContaining("#"));
    const events = openStream(`${b.served.url}/api/v1/runs/${id}/events`, 0);
    await events.done;
    const ids = events.events.map((event) => event.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    expect(events.events.filter((event) => event.type === "run_started").length).toBeGreaterThanOrEqual(2);
  });

  it("SIGTERM on A pauses its run (saved, resumable) before the queue stops; B resumes and finishes it", async () => {
    roster.closeGate();
    const a = await instance("a");
    const posted = await a.call("POST", "/api/v1/runs", { folder: "proj" });
    const id = posted.json.id as string;
    await expect
      .poll(async () => {
        const run = await runOf(a, id);
        return `${run.status} ${run.ownerInstance} ${Number(run.eventCount) >= 2}`;
      }, POLL)
      .toBe(`running ${a.id} true`);
    expect(await a.served.stop()).toBe(0);
    const b = await instance("b");
    const paused = await runOf(b, id);
    expect(paused).toMatchObject({ status: "paused", ownerInstance: a.id, active: false });
    roster.openGate();
    expect((await b.call("POST", `/api/v1/runs/${id}/resume`)).status).toBe(202);
    await expect
      .poll(async () => {
        const run = await runOf(b, id);
        return `${run.status} ${run.ownerInstance}`;
      }, POLL)
      .toBe(`finished ${b.id}`);
  });

  it("20 concurrent starts against --max-runs 4 on one instance: exactly 4 accepted, 16 answered 429", async () => {
    roster.closeGate();
    const one = await instance("one", ["--max-runs", "4"]);
    // A model that cannot be used here is refused at once (no key), not queued for a worker to fail.
    const keyless = await one.call("POST", "/api/v1/runs", { folder: "proj", model: "openai" });
    expect(keyless.status).toBe(400);
    expect(keyless.json.error).toMatchObject({ code: "RUN_START_FAILED" });
    expect(String((keyless.json.error as Record<string, unknown>).message)).toContain("OPENAI_API_KEY");
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => one.call("POST", "/api/v1/runs", { folder: "proj" })),
    );
    const accepted = answers.filter((response) => response.status === 202);
    const refused = answers.filter((response) => response.status === 429);
    expect(accepted).toHaveLength(4);
    expect(refused).toHaveLength(16);
    for (const response of refused) {
      expect((response.json.error as Record<string, unknown>).code).toBe("TOO_MANY_RUNS");
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    // All four are taken by this instance's workers (held in a tool call), none more.
    await expect
      .poll(async () => {
        const views = await Promise.all(accepted.map((r) => runOf(one, r.json.id as string)));
        return views.filter((view) => view.status === "running" && view.active === true).length;
      }, POLL)
      .toBe(4);
    expect((await one.call("POST", "/api/v1/runs", { folder: "proj" })).status).toBe(429);
    roster.openGate();
    for (const response of accepted) {
      await expect
        .poll(async () => (await runOf(one, response.json.id as string)).status, POLL)
        .toBe("finished");
    }
    // The slots are free again (once the four jobs are settled: a 429 creates nothing, so ask again).
    let laterId: string | undefined;
    await expect
      .poll(async () => {
        const later = await one.call("POST", "/api/v1/runs", { folder: "proj" });
        if (later.status === 202) laterId = later.json.id as string;
        return later.status;
      }, POLL)
      .toBe(202);
    await expect.poll(async () => (await runOf(one, laterId as string)).status, POLL).toBe("finished");
  });
});
