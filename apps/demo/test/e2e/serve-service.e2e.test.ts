// `agentforge serve` as a service: one MCP stack shared by every run (the children of the serve process
// do not grow per run), bounded concurrent runs (429 + Retry-After), per-process server logs, reload
// (REST, SIGHUP, --watch-config) while a run is active, and a clean shutdown that pauses active runs.
// Runs are held inside a tool call by the gated filesystem server (see service-fixtures.ts): no timing.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentforge, killRunning } from "./cli.js";
import { alive, readSse, type Served, startServe } from "./mcp-fixtures.js";
import {
  childPids,
  DEFAULT_PERMISSIONS,
  descendantPids,
  jsonClient,
  localToolsServer,
  type ServiceRoster,
  serviceRoster,
  serviceServers,
  waitForEvent,
} from "./service-fixtures.js";

const POLL = { timeout: 150_000, interval: 200 };

let roster: ServiceRoster;
let served: Served;
const call = jsonClient(() => served.url);

function serveArgs(extra: string[] = []): string[] {
  return [
    "--port",
    "0",
    "--config",
    roster.config,
    "--state-dir",
    roster.stateDir,
    "--allowed-base",
    roster.base,
    "--no-check",
    "--health-interval",
    "0",
    ...extra,
  ];
}

async function runToEnd(id: string, after = 0): Promise<string> {
  const stream = await readSse(`${served.url}/api/v1/runs/${id}/events`, {
    headers: { "Last-Event-ID": String(after) },
    timeoutMs: 150_000,
  });
  return String(stream.events.at(-1)?.data.status);
}

async function statusOf(id: string): Promise<string> {
  return String((await call("GET", `/api/v1/runs/${id}`)).json.status);
}

beforeAll(async () => {
  roster = serviceRoster();
  roster.openGate();
  served = await startServe(serveArgs(["--max-runs", "4"]), { cwd: roster.dir });
}, 120_000);
afterEach(killRunning);
afterAll(async () => {
  roster?.openGate();
  await served?.stop();
  roster?.cleanup();
});

describe("one MCP stack per process", () => {
  it("runs one after the other and at once reuse the same server processes", async () => {
    const pid = served.child.pid as number;
    let children: number[] | undefined;
    for (let i = 0; i < 3; i++) {
      const started = await call("POST", "/api/v1/runs", { folder: "proj" });
      expect(started.status).toBe(202);
      expect(await runToEnd(started.json.id as string)).toBe("finished");
      const now = childPids(pid);
      if (children === undefined) {
        children = now;
        expect(children.length).toBeGreaterThanOrEqual(1); // the filesystem server (and its gate) at least
      } else expect(now).toEqual(children); // the very same processes
    }
    const all = descendantPids(pid).length;
    const concurrent = await Promise.all(
      Array.from({ length: 4 }, () => call("POST", "/api/v1/runs", { folder: "proj" })),
    );
    expect(concurrent.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    const statuses = await Promise.all(concurrent.map((r) => runToEnd(r.json.id as string)));
    expect(statuses).toEqual(["finished", "finished", "finished", "finished"]);
    expect(childPids(pid)).toEqual(children);
    expect(descendantPids(pid).length).toBe(all);
  });

  it("keeps the servers' stderr logs per process (<state>/logs/mcp/<pid>/)", () => {
    const folder = join(roster.stateDir, "logs", "mcp", String(served.child.pid));
    expect(existsSync(join(folder, "filesystem.stderr.log"))).toBe(true);
    expect(existsSync(join(roster.stateDir, "logs", "mcp", "filesystem.stderr.log"))).toBe(false);
  });

  it("GET /api/v1/health: the instance id, the store and the run slots", async () => {
    const health = await call("GET", "/api/v1/health");
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({
      status: "ok",
      instanceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      pid: served.child.pid,
      store: "files",
      runs: { active: 0, max: 4 },
    });
    expect(served.stderr()).toContain(`instance ${health.json.instanceId}`);
    const list = await call("GET", "/api/v1/runs?limit=3");
    expect((list.json.runs as { ownerInstance: string }[]).map((r) => r.ownerInstance)).toEqual([
      health.json.instanceId,
      health.json.instanceId,
      health.json.instanceId,
    ]);
  });
});

describe("bounded runs (--max-runs 4)", () => {
  it("20 concurrent POSTs: exactly 4 accepted while they run, 16 × 429 with Retry-After; all accepted finish", async () => {
    const paused = await call("POST", "/api/v1/runs", { folder: "proj", pauseAfter: 1 });
    expect(await runToEnd(paused.json.id as string)).toBe("paused");
    roster.closeGate(); // from here every run waits inside its first filesystem call
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call("POST", "/api/v1/runs", { folder: "proj" })),
    );
    const accepted = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status === 429);
    expect(accepted).toHaveLength(4);
    expect(refused).toHaveLength(16);
    for (const answer of refused) {
      expect(answer.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(answer.json).toMatchObject({ error: { code: "TOO_MANY_RUNS", maxRuns: 4 } });
    }
    expect((await call("GET", "/api/v1/health")).json).toMatchObject({ runs: { active: 4, max: 4 } });
    const resume = await call("POST", `/api/v1/runs/${paused.json.id}/resume`);
    expect(resume.status).toBe(429);
    expect(resume.json).toMatchObject({ error: { code: "TOO_MANY_RUNS" } });
    for (const answer of accepted) expect(await statusOf(answer.json.id as string)).toBe("running");

    roster.openGate();
    const ends = await Promise.all(accepted.map((a) => runToEnd(a.json.id as string)));
    expect(ends).toEqual(["finished", "finished", "finished", "finished"]);
    await expect
      .poll(async () => (await call("GET", "/api/v1/health")).json.runs, POLL)
      .toEqual({
        active: 0,
        max: 4,
      });
    const before = (await call("GET", `/api/v1/runs/${paused.json.id}`)).json.eventCount as number;
    const again = await call("POST", `/api/v1/runs/${paused.json.id}/resume`);
    expect(again.status).toBe(202);
    expect(await runToEnd(paused.json.id as string, before)).toBe("finished");
  });
});

describe("reload", () => {
  it("adds, changes and removes servers while a run is active; the run goes on; the policy follows", async () => {
    const tested = await call("POST", "/api/v1/mcp/servers/local-tools/test");
    expect(tested.json).toMatchObject({ ok: true });
    const localPid = (await call("GET", "/api/v1/mcp/servers/local-tools")).json.server as {
      connection: { pid: number };
    };
    roster.closeGate();
    const started = await call("POST", "/api/v1/runs", { folder: "proj" });
    expect(started.status).toBe(202);
    const id = started.json.id as string;
    await waitForEvent(`${served.url}/api/v1/runs/${id}/events`, "MCP_TOOL_CALL_STARTED");

    const servers = serviceServers(roster)
      .replace(localToolsServer("local-tools"), localToolsServer("local-tools-2", "Added by a reload"))
      .replace(
        "  - name: sequential-thinking\n",
        "  - name: sequential-thinking\n    description: Changed by a reload\n",
      );
    roster.write(servers, DEFAULT_PERMISSIONS.replace("local-tools.echo", "local-tools-2.echo"));
    const reloaded = await call("POST", "/api/v1/mcp/reload");
    expect(reloaded.status).toBe(200);
    expect(reloaded.json).toMatchObject({
      added: ["local-tools-2"],
      removed: ["local-tools"],
      changed: ["sequential-thinking"],
      unchanged: ["filesystem"],
      failed: {},
    });
    await expect.poll(() => alive(localPid.connection.pid), POLL).toBe(false);
    const list = (await call("GET", "/api/v1/mcp/servers")).json.servers as {
      name: string;
      description: string | null;
    }[];
    expect(list.map((s) => s.name)).toEqual(["filesystem", "sequential-thinking", "local-tools-2"]);
    expect(list.find((s) => s.name === "local-tools-2")?.description).toBe("Added by a reload");
    expect((await call("GET", "/api/v1/mcp/servers/local-tools")).status).toBe(404);
    const tools = await call("GET", "/api/v1/mcp/servers/local-tools-2/tools");
    const echo = (tools.json.tools as { identity: string; agents: string[] }[]).find(
      (t) => t.identity === "local-tools-2.echo",
    );
    expect(echo?.agents).toEqual(["ops"]); // the new file's permissions

    expect(await statusOf(id)).toBe("running");
    roster.openGate();
    expect(["finished", "failed"]).toContain(await runToEnd(id));
  });

  it("SIGHUP reloads the file; a file that does not load is refused and the roster stays", async () => {
    roster.write(serviceServers(roster)); // local-tools back, local-tools-2 gone
    served.child.kill("SIGHUP");
    await expect
      .poll(
        async () =>
          ((await call("GET", "/api/v1/mcp/servers")).json.servers as { name: string }[]).map((s) => s.name),
        POLL,
      )
      .toEqual(["filesystem", "sequential-thinking", "local-tools"]);
    writeFileSync(roster.config, "servers: [ not: valid\n");
    served.child.kill("SIGHUP");
    await expect.poll(() => served.stderr(), POLL).toContain("SIGHUP: the config was not applied");
    const refused = await call("POST", "/api/v1/mcp/reload");
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({ error: { code: "CONFIG_RELOAD_FAILED" } });
    expect(((await call("GET", "/api/v1/mcp/servers")).json.servers as unknown[]).length).toBe(3);
    roster.write(serviceServers(roster));
  });
});

describe("management operations", () => {
  it("reconnect ends the server's process and starts a new one; test gives one latency figure", async () => {
    const first = await call("POST", "/api/v1/mcp/servers/local-tools/reconnect");
    expect(first.status).toBe(200);
    const second = await call("POST", "/api/v1/mcp/servers/local-tools/reconnect");
    expect(second.json).toMatchObject({ name: "local-tools", status: "healthy", toolCount: 3 });
    expect(second.json.previousPid).toBe(first.json.pid);
    expect(second.json.pid).not.toBe(first.json.pid);
    expect(alive(first.json.pid as number)).toBe(false);
    const test = await call("POST", "/api/v1/mcp/servers/local-tools/test");
    expect(test.json).toMatchObject({ name: "local-tools", ok: true, latencyMs: expect.any(Number) });
    const all = await call("POST", "/api/v1/mcp/health-check");
    expect(all.json, JSON.stringify(all.json)).toMatchObject({ summary: { healthy: 3, unhealthy: 0 } });
    const health = await call("GET", "/api/v1/mcp/health");
    expect((health.json.servers as { name: string }[]).map((s) => s.name)).toEqual([
      "filesystem",
      "sequential-thinking",
      "local-tools",
    ]);
    expect((await call("POST", "/api/v1/mcp/servers/nope/reconnect")).status).toBe(404);
  });

  it("the CLI has the same verbs: reconnect, reload (checks the file; --url reloads a running serve)", async () => {
    const reconnect = await agentforge(
      [
        "mcp",
        "reconnect",
        "local-tools",
        "--config",
        roster.config,
        "--state-dir",
        roster.stateDir,
        "--json",
      ],
      { cwd: roster.dir },
    );
    expect(`${reconnect.code} ${reconnect.stderr}`).toMatch(/^0 /);
    const view = JSON.parse(reconnect.stdout) as { previousPid: number | null; pid: number; status: string };
    expect(view).toMatchObject({ status: "healthy", pid: expect.any(Number) });

    const check = await agentforge(["mcp", "reload", "--config", roster.config], { cwd: roster.dir });
    expect(`${check.code} ${check.stdout}`).toMatch(/^0 .*valid, 3 servers/s);
    const local = await agentforge(["mcp", "reload", "--url", served.url, "--json"], { cwd: roster.dir });
    expect(`${local.code} ${local.stderr}`).toMatch(/^0 /);
    expect(JSON.parse(local.stdout)).toMatchObject({
      unchanged: ["filesystem", "sequential-thinking", "local-tools"],
    });
    const list = await agentforge(
      ["mcp", "list", "--config", roster.config, "--state-dir", roster.stateDir],
      {
        cwd: roster.dir,
      },
    );
    expect(list.stdout).toMatch(/DESCRIPTION/);
    expect(list.stdout).toContain("Workspace files (gated)");
  });
});

describe("--watch-config", () => {
  let watched: Served | undefined;
  afterAll(async () => {
    await watched?.stop();
  });

  it("reloads when the file is replaced (editor-style); a broken save is reported and the roster stays", async () => {
    watched = await startServe(
      [
        "--port",
        "0",
        "--config",
        roster.config,
        "--state-dir",
        join(roster.dir, "state-watch"),
        "--allowed-base",
        roster.base,
        "--no-check",
        "--watch-config",
      ],
      { cwd: roster.dir },
    );
    const get = jsonClient(() => (watched as Served).url);
    const names = async () =>
      ((await get("GET", "/api/v1/mcp/servers")).json.servers as { name: string }[]).map((s) => s.name);
    expect((await get("GET", "/api/v1/health")).json).toMatchObject({ watchConfig: true });
    roster.write(`${serviceServers(roster)}${localToolsServer("extra")}`);
    await expect.poll(names, POLL).toContain("extra");
    writeFileSync(roster.config, "servers: [ broken\n");
    await expect.poll(() => (watched as Served).stderr(), POLL).toContain("was not applied");
    expect(await names()).toContain("extra");
    roster.write(serviceServers(roster));
    await expect.poll(names, POLL).not.toContain("extra");
  });
});

describe("shutdown", () => {
  it("SIGTERM pauses an active run resumably, refuses new work, ends every server; a restart resumes it", async () => {
    roster.closeGate();
    const started = await call("POST", "/api/v1/runs", { folder: "proj" });
    const id = started.json.id as string;
    await waitForEvent(`${served.url}/api/v1/runs/${id}/events`, "MCP_TOOL_CALL_STARTED");
    const children = descendantPids(served.child.pid as number);
    expect(children.length).toBeGreaterThan(0);
    expect(await served.stop()).toBe(0);
    for (const pid of children) await expect.poll(() => alive(pid), POLL).toBe(false);
    const saved = JSON.parse(readFileSync(join(roster.stateDir, "runs", `${id}.json`), "utf8")) as {
      status: string;
    };
    expect(saved.status).toBe("paused");

    roster.openGate();
    served = await startServe(serveArgs(), { cwd: roster.dir });
    const events = (await call("GET", `/api/v1/runs/${id}`)).json.eventCount as number;
    expect((await call("POST", `/api/v1/runs/${id}/resume`)).status).toBe(202);
    expect(await runToEnd(id, events)).toBe("finished");
  });

  it("bad service flags are usage errors (exit 2); a database URL never shows its password", async () => {
    for (const [args, message] of [
      [["--max-runs", "0"], /--max-runs expects an integer from 1 to 1000, got "0"/],
      [["--max-runs", "x"], /--max-runs expects/],
      [["--health-interval", "soon"], /--health-interval expects seconds/],
      [["--database-url", "mysql://u:pw-123@h/db"], /must be a postgres:\/\/ or postgresql:\/\/ URL/],
      [["--run-lease-seconds", "30"], /apply to the PostgreSQL run store only/],
      [
        ["--database-url", "postgres://u:pw-123@127.0.0.1:1/app", "--run-lease-seconds", "1"],
        /--run-lease-seconds expects whole seconds from 2/,
      ],
    ] as const) {
      const result = await agentforge(["serve", ...args], { cwd: roster.dir });
      expect(`${args.join(" ")}: ${result.code}`).toBe(`${args.join(" ")}: 2`);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain("pw-123");
    }
  });

  it("an unreachable database is a start-up error (exit 1) naming the variable, never the password", async () => {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    const flag = await agentforge(
      ["serve", ...serveArgs(["--database-url", "postgres://u:pw-123@127.0.0.1:1/app"])],
      { cwd: roster.dir },
    );
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain(
      'cannot connect to PostgreSQL at 127.0.0.1:1, database "app" (from --database-url)',
    );
    expect(flag.stderr).not.toContain("pw-123");
    const env = await agentforge(["serve", ...serveArgs()], {
      cwd: roster.dir,
      env: { DATABASE_URL: "postgres://u:pw-123@127.0.0.1:1/app" },
    });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain("(from DATABASE_URL)");
    expect(env.stderr).not.toContain("pw-123");
    expect(env.stderr).not.toContain("listening on");
  });
});
