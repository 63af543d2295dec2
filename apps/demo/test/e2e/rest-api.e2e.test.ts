// The REST API over real HTTP: `agentforge serve --port 0` as a child process on 127.0.0.1, a temp roster
// with healthy, broken, unreachable and disabled servers and a canary secret, docs runs with SSE events.

import { cpSync, existsSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentforge, killRunning } from "./cli.js";
import {
  alive,
  type Roster,
  readSse,
  type Served,
  startServe,
  TEMP_ROSTER_SERVERS,
  tempRoster,
} from "./mcp-fixtures.js";

let roster: Roster;
let served: Served;
const bodies: string[] = [];

async function call(
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${served.url}${path}`, {
    method,
    headers: options.headers ?? (options.body !== undefined ? { "content-type": "application/json" } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  const text = await response.text();
  bodies.push(text);
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: asserted by the caller through `text`
  }
  return { status: response.status, headers: response.headers, json, text };
}

interface ServerView {
  name: string;
  enabled: boolean;
  checking: boolean;
  toolCount: number | null;
  health: {
    status: string;
    checkedAt: string;
    error: { code: string; stderrTail: string | null } | null;
  } | null;
  connection: { state: string; pid: number | null };
}

async function settledServers(): Promise<ServerView[]> {
  let servers: ServerView[] = [];
  await expect
    .poll(
      async () => {
        const { json } = await call("GET", "/api/v1/mcp/servers");
        servers = json.servers as ServerView[];
        return servers.every((s) => !s.checking && s.health !== null);
      },
      { timeout: 60_000, interval: 100, message: "the start-up health checks did not finish" },
    )
    .toBe(true);
  return servers;
}

/** A raw GET (fetch does not let a test set Host). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return rawRequest("GET", path, headers);
}

/** A raw request with exactly these headers (Host, Origin, Sec-Fetch-Site as a browser would send them). */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  base = served.url,
): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once("error", reject);
    req.end();
  });
}

/** `agentforge serve` on any free port, over the temp roster and its state and base folders. */
function serveArgs(): string[] {
  return [
    "--port",
    "0",
    "--config",
    roster.config,
    "--state-dir",
    roster.stateDir,
    "--allowed-base",
    roster.base,
  ];
}

beforeAll(async () => {
  roster = await tempRoster();
  symlinkSync("/etc", join(roster.base, "escape"));
  served = await startServe(serveArgs(), {
    env: roster.env,
    cwd: roster.dir,
  });
});
afterEach(killRunning);
afterAll(async () => {
  await served?.stop();
  roster?.cleanup();
});

describe("agentforge serve", () => {
  it("prints its URL on stderr when ready, bound to 127.0.0.1", () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(served.stderr()).toContain(`dashboard ${served.url}/mcp`);
  });

  it("GET /api/v1/mcp/servers: every server with its status, health and connection", async () => {
    const servers = await settledServers();
    expect(servers.map((s) => s.name)).toEqual(TEMP_ROSTER_SERVERS);
    const byName = Object.fromEntries(servers.map((s) => [s.name, s]));
    expect(byName["local-tools"]).toMatchObject({
      displayName: "Local tools",
      transport: "stdio",
      enabled: true,
      toolCount: 3,
      checking: false,
      health: { status: "healthy", error: null },
      connection: { state: "connected", pid: expect.any(Number), failures: 0, protocolVersion: "2026-07-28" },
    });
    expect(byName.broken?.health).toMatchObject({
      status: "unhealthy",
      error: { code: "SERVER_EXITED", stderrTail: "boom: token=[REDACTED]" },
    });
    expect(byName.remote?.health).toMatchObject({ status: "unhealthy", error: { code: "HTTP_UNREACHABLE" } });
    expect(byName.off).toMatchObject({
      enabled: false,
      health: { status: "disabled" },
      connection: { state: "disabled" },
    });
  });

  it("GET /api/v1/mcp/servers/{name}: the redacted config and live info; 404 lists the known names", async () => {
    const local = await call("GET", "/api/v1/mcp/servers/local-tools");
    expect(local.status).toBe(200);
    expect(local.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(local.json).toMatchObject({
      server: { name: "local-tools", connection: { state: "connected" } },
      config: { name: "local-tools", transport: "stdio", variables: [] },
      live: {
        serverInfo: { name: "agentforge-local-tools" },
        capabilities: { tools: {} },
        protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      },
    });
    const remote = await call("GET", "/api/v1/mcp/servers/remote");
    expect(remote.json).toMatchObject({
      config: {
        auth: { type: "bearer", credentialEnvVar: "AF_TEST_CANARY_SECRET" },
        variables: [{ name: "AF_TEST_CANARY_SECRET", set: true }],
      },
      live: null,
    });
    const missing = await call("GET", "/api/v1/mcp/servers/nope");
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({
      error: {
        code: "SERVER_NOT_FOUND",
        message: expect.stringContaining('no MCP server named "nope"'),
        known: ["local-tools", "filesystem", "sequential-thinking", "broken", "remote", "off"],
      },
    });
  });

  it("GET /api/v1/mcp/servers/{name}/tools: the known tools with agents; 409 disabled, 404 unknown", async () => {
    // The start-up checks listed filesystem's tools: GET answers from them.
    const tools = await call("GET", "/api/v1/mcp/servers/filesystem/tools");
    expect(tools.status).toBe(200);
    const list = tools.json.tools as { identity: string; agents: string[] }[];
    expect(list.map((t) => t.identity)).toContain("filesystem.read_text_file");
    for (const tool of list) expect(tool.agents).toEqual(["documentation"]);
    expect(tools.json.servers).toEqual([
      { name: "filesystem", status: "ok", toolCount: list.length, error: null },
    ]);

    const off = await call("GET", "/api/v1/mcp/servers/off/tools");
    expect(off.status).toBe(409);
    expect(off.json).toMatchObject({ error: { code: "SERVER_DISABLED" } });
    // `broken` never listed any: "not_listed", with its last health error, and how to list them.
    const broken = await call("GET", "/api/v1/mcp/servers/broken/tools");
    expect(broken.status).toBe(200);
    expect(broken.json).toEqual({
      tools: [],
      servers: [
        {
          name: "broken",
          status: "not_listed",
          toolCount: null,
          error: expect.objectContaining({ code: "SERVER_EXITED", stderrTail: "boom: token=[REDACTED]" }),
        },
      ],
      list: { method: "POST", href: "/api/v1/mcp/servers/broken/tools" },
    });
    expect((await call("GET", "/api/v1/mcp/servers/nope/tools")).status).toBe(404);
  });

  it("POST /api/v1/mcp/servers/{name}/tools lists them live: 200, 502 unavailable, 409 disabled", async () => {
    const tools = await call("POST", "/api/v1/mcp/servers/local-tools/tools");
    expect(tools.status).toBe(200);
    expect(tools.json.servers).toEqual([{ name: "local-tools", status: "ok", toolCount: 3, error: null }]);
    const broken = await call("POST", "/api/v1/mcp/servers/broken/tools");
    expect(broken.status).toBe(502);
    expect(broken.json).toMatchObject({
      error: {
        code: "SERVER_UNAVAILABLE",
        serverError: { code: "SERVER_EXITED", stderrTail: "boom: token=[REDACTED]" },
      },
    });
    expect((await call("POST", "/api/v1/mcp/servers/off/tools")).status).toBe(409);
    expect((await call("POST", "/api/v1/mcp/servers/nope/tools")).status).toBe(404);
  });

  it("POST /api/v1/mcp/servers/{name}/health-check: a fresh check, also of a failing server", async () => {
    const before = await call("GET", "/api/v1/mcp/servers");
    const old =
      (before.json.servers as ServerView[]).find((s) => s.name === "sequential-thinking")?.health
        ?.checkedAt ?? "";
    const check = await call("POST", "/api/v1/mcp/servers/sequential-thinking/health-check");
    expect(check.status).toBe(200);
    expect(check.json).toMatchObject({
      name: "sequential-thinking",
      status: "healthy",
      toolCount: 1,
      error: null,
      latencyMs: expect.any(Number),
    });
    expect(Date.parse(check.json.checkedAt as string)).toBeGreaterThan(Date.parse(old));
    // Twice in a row: each check of a failing server is a real attempt (not a backoff message).
    for (let i = 0; i < 2; i++) {
      const broken = await call("POST", "/api/v1/mcp/servers/broken/health-check");
      expect(broken.json).toMatchObject({
        status: "unhealthy",
        error: { code: "SERVER_EXITED", stderrTail: "boom: token=[REDACTED]" },
      });
      expect((broken.json.error as { message: string }).message).not.toContain("not retried for another");
    }
    expect((await call("POST", "/api/v1/mcp/servers/off/health-check")).json).toMatchObject({
      status: "disabled",
    });
    expect((await call("POST", "/api/v1/mcp/servers/nope/health-check")).status).toBe(404);
  });

  it("POST /api/v1/mcp/refresh: reconnect and rediscover; the listing then shows the new connections", async () => {
    const before = (await settledServers()).find((s) => s.name === "local-tools")?.connection.pid as number;
    const refresh = await call("POST", "/api/v1/mcp/refresh");
    expect(refresh.status).toBe(200);
    expect(
      (refresh.json.servers as { name: string; status: string }[]).map((s) => `${s.name}:${s.status}`),
    ).toEqual([
      "local-tools:ok",
      "filesystem:ok",
      "sequential-thinking:ok",
      "broken:failed",
      "remote:failed",
      "off:disabled",
    ]);
    expect(refresh.json.toolCount).toBe(14);
    const after = (await settledServers()).find((s) => s.name === "local-tools")?.connection.pid as number;
    expect(after).not.toBe(before);
    expect(alive(before)).toBe(false);
  });

  it("answers unknown routes, foreign Host and Origin headers with JSON errors", async () => {
    const notFound = await call("GET", "/api/v1/nothing");
    expect(notFound.status).toBe(404);
    expect(notFound.json).toEqual({ error: { code: "NOT_FOUND", message: "no route GET /api/v1/nothing" } });
    const wrongMethod = await call("DELETE", "/api/v1/mcp/servers");
    expect(wrongMethod.status).toBe(404);
    const port = new URL(served.url).port;
    const host = await rawGet("/api/v1/mcp/servers", { host: `evil.example:${port}` });
    expect(host.status).toBe(403);
    expect(JSON.parse(host.body)).toMatchObject({ error: { code: "FORBIDDEN_HOST" } });
    const origin = await rawGet("/api/v1/mcp/servers", {
      host: `127.0.0.1:${port}`,
      origin: "http://evil.example",
    });
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.body)).toMatchObject({ error: { code: "FORBIDDEN_ORIGIN" } });
    const sameOrigin = await rawGet("/api/v1/mcp/servers", {
      host: `localhost:${port}`,
      origin: `http://localhost:${port}`,
    });
    expect(sameOrigin.status).toBe(200);
  });

  it("refuses what a browser marks as cross-site or same-site (403 FORBIDDEN_CROSS_SITE), GET or POST", async () => {
    const host = `127.0.0.1:${new URL(served.url).port}`;
    for (const site of ["cross-site", "same-site"]) {
      // What an <img src> on another site sends: no Origin, Sec-Fetch-Site only.
      const get = await rawRequest("GET", "/api/v1/mcp/servers/local-tools/tools", {
        host,
        "sec-fetch-site": site,
      });
      expect(`${site}: ${get.status}`).toBe(`${site}: 403`);
      expect(JSON.parse(get.body)).toMatchObject({
        error: { code: "FORBIDDEN_CROSS_SITE", message: expect.stringContaining("Sec-Fetch-Site") },
      });
      const post = await rawRequest("POST", "/api/v1/mcp/servers/broken/health-check", {
        host,
        "sec-fetch-site": site,
      });
      expect(post.status).toBe(403);
    }
    for (const site of ["same-origin", "none"]) {
      const ok = await rawRequest("GET", "/api/v1/mcp/servers", { host, "sec-fetch-site": site });
      expect(`${site}: ${ok.status}`).toBe(`${site}: 200`);
    }
    // The page itself may be opened from a link on another site.
    expect((await rawRequest("GET", "/mcp", { host, "sec-fetch-site": "cross-site" })).status).toBe(200);
  });

  it("the /mcp page is served with a strict Content-Security-Policy", async () => {
    const page = await fetch(`${served.url}/mcp`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await page.text()).toContain('<script src="/mcp/mcp.js" defer></script>');
    const script = await fetch(`${served.url}/mcp/mcp.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const etag = script.headers.get("etag") as string;
    expect((await fetch(`${served.url}/mcp/mcp.js`, { headers: { "if-none-match": etag } })).status).toBe(
      304,
    );
    expect((await fetch(`${served.url}/`, { redirect: "manual" })).headers.get("location")).toBe("/mcp");
  });
});

describe("runs", () => {
  let runId = "";
  let firstEvents: { id: number; event: string; data: Record<string, unknown> }[] = [];

  it("POST /api/v1/runs refuses bad bodies with field paths (400), foreign folders (403), non-JSON (415)", async () => {
    const empty = await call("POST", "/api/v1/runs", { body: "{}" });
    expect(empty.status).toBe(400);
    expect(empty.json).toMatchObject({
      error: { code: "INVALID_BODY", issues: [{ path: "folder", message: "required" }] },
    });
    const bad = await call("POST", "/api/v1/runs", {
      body: JSON.stringify({ folder: 3, pauseAfter: 0, maxRounds: "x", model: "gpt", extra: true }),
    });
    expect(bad.status).toBe(400);
    const paths = (bad.json.error as { issues: { path: string }[] }).issues.map((i) => i.path).sort();
    expect(paths).toEqual(["extra", "folder", "maxRounds", "model", "pauseAfter"]);
    const notJson = await call("POST", "/api/v1/runs", { body: "{folder" });
    expect(notJson.json).toMatchObject({ error: { code: "INVALID_JSON" } });
    const array = await call("POST", "/api/v1/runs", { body: "[]" });
    expect(array.json).toMatchObject({ error: { code: "INVALID_BODY", issues: [{ path: "(body)" }] } });
    const text = await call("POST", "/api/v1/runs", {
      body: '{"folder":"proj"}',
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    expect(text.json).toMatchObject({ error: { code: "UNSUPPORTED_MEDIA_TYPE" } });
    const huge = await call("POST", "/api/v1/runs", { body: JSON.stringify({ folder: "x".repeat(70_000) }) });
    expect(huge.status).toBe(413);
    expect(huge.json).toMatchObject({ error: { code: "BODY_TOO_LARGE" } });

    for (const folder of ["..", "/etc", "escape", "proj/../../"]) {
      const outside = await call("POST", "/api/v1/runs", { body: JSON.stringify({ folder }) });
      expect(`${folder}: ${outside.status}`).toBe(`${folder}: 403`);
      expect(outside.json).toMatchObject({ error: { code: "FOLDER_NOT_ALLOWED" } });
    }
    const missing = await call("POST", "/api/v1/runs", {
      body: JSON.stringify({ folder: "no-such-folder" }),
    });
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({ error: { code: "INVALID_BODY", issues: [{ path: "folder" }] } });
    const file = await call("POST", "/api/v1/runs", { body: JSON.stringify({ folder: "notes.txt" }) });
    expect(file.status).toBe(400);
  });

  it("POST /api/v1/runs starts a docs run (202 + Location); its events stream over SSE until it pauses", async () => {
    const started = await call("POST", "/api/v1/runs", {
      body: JSON.stringify({ folder: "proj", pauseAfter: 1 }),
    });
    expect(started.status).toBe(202);
    runId = started.json.id as string;
    expect(started.headers.get("location")).toBe(`/api/v1/runs/${runId}`);
    expect(started.json).toMatchObject({
      status: "running",
      active: true,
      folder: join(roster.base, "proj"),
      model: "offline",
      links: { events: `/api/v1/runs/${runId}/events`, resume: `/api/v1/runs/${runId}/resume` },
    });
    const stream = await readSse(`${served.url}/api/v1/runs/${runId}/events`);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toContain("text/event-stream");
    expect(stream.ended).toBe(true); // the stream ends when the run stops
    firstEvents = stream.events;
    bodies.push(stream.raw);
    const types = firstEvents.map((e) => e.event);
    expect(types[0]).toBe("run_started");
    expect(types).toContain("MCP_TOOL_CALL_STARTED");
    expect(types).toContain("MCP_TOOL_CALL_COMPLETED");
    expect(types).toContain("round_saved");
    expect(types.at(-1)).toBe("run_finished");
    expect(firstEvents.at(-1)?.data).toMatchObject({ type: "run_finished", runId, status: "paused" });
    expect(firstEvents.map((e) => e.id)).toEqual(firstEvents.map((_, i) => i + 1));
    const call1 = firstEvents.find((e) => e.event === "MCP_TOOL_CALL_COMPLETED")?.data;
    expect(call1).toMatchObject({
      runId,
      agent: "documentation",
      outcome: "ok",
      identity: expect.stringMatching(/^(filesystem|sequential-thinking)\./),
    });
    for (const event of firstEvents)
      expect(event.data).toMatchObject({ type: event.event, at: expect.any(String) });

    const run = await call("GET", `/api/v1/runs/${runId}`);
    expect(run.json).toMatchObject({
      id: runId,
      status: "paused",
      active: false,
      round: 1,
      document: null,
      eventCount: firstEvents.length,
    });
    expect((run.json.calls as unknown[]).length).toBeGreaterThan(0);
  });

  it("replays events after Last-Event-ID (header or lastEventId query); a bad id is a 400", async () => {
    const replay = await readSse(`${served.url}/api/v1/runs/${runId}/events`, {
      headers: { "Last-Event-ID": "2" },
    });
    expect(replay.events).toEqual(firstEvents.slice(2));
    const query = await readSse(
      `${served.url}/api/v1/runs/${runId}/events?lastEventId=${firstEvents.length - 1}`,
    );
    expect(query.events).toEqual(firstEvents.slice(-1));
    const bad = await readSse(`${served.url}/api/v1/runs/${runId}/events`, {
      headers: { "Last-Event-ID": "abc" },
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.raw)).toMatchObject({ error: { code: "INVALID_LAST_EVENT_ID" } });
  });

  it("POST /api/v1/runs/{id}/resume continues the run; its events continue the numbering", async () => {
    const resumed = await call("POST", `/api/v1/runs/${runId}/resume`);
    expect(resumed.status).toBe(202);
    expect(resumed.json).toMatchObject({ id: runId, status: "running", active: true });
    const again = await call("POST", `/api/v1/runs/${runId}/resume`, { body: "{}" });
    expect([409, 202]).toContain(again.status); // 409 RUN_ACTIVE while it runs (it may have finished already)
    if (again.status === 409) expect(again.json).toMatchObject({ error: { code: "RUN_ACTIVE" } });
    const last = firstEvents.length;
    const stream = await readSse(`${served.url}/api/v1/runs/${runId}/events`, {
      headers: { "Last-Event-ID": String(last) },
    });
    bodies.push(stream.raw);
    expect(stream.events[0]).toMatchObject({ id: last + 1, event: "run_started", data: { resumed: true } });
    expect(stream.events.at(-1)).toMatchObject({ event: "run_finished", data: { status: "finished" } });
    const run = await call("GET", `/api/v1/runs/${runId}`);
    expect(run.json).toMatchObject({ status: "finished", active: false, error: null });
    expect(run.json.document).toMatch(/^# /);

    const finished = await call("POST", `/api/v1/runs/${runId}/resume`);
    expect(finished.status).toBe(409);
    expect(finished.json).toMatchObject({ error: { code: "RUN_FINISHED" } });
  });

  it("unknown runs are 404 RUN_NOT_FOUND", async () => {
    for (const id of ["not-a-uuid", "00000000-0000-4000-8000-000000000000"]) {
      expect((await call("GET", `/api/v1/runs/${id}`)).json).toMatchObject({
        error: { code: "RUN_NOT_FOUND" },
      });
      expect((await call("POST", `/api/v1/runs/${id}/resume`)).status).toBe(404);
      expect((await readSse(`${served.url}/api/v1/runs/${id}/events`)).status).toBe(404);
    }
  });

  it("replays a run's events after the server restarted (they are saved in the state folder)", async () => {
    const all = await readSse(`${served.url}/api/v1/runs/${runId}/events`);
    const local = (await settledServers()).find((s) => s.name === "local-tools")?.connection.pid as number;
    expect(await served.stop()).toBe(0);
    expect(alive(local)).toBe(false); // the MCP servers ended with it
    served = await startServe([...serveArgs(), "--no-check"], {
      env: roster.env,
      cwd: roster.dir,
    });
    const replay = await readSse(`${served.url}/api/v1/runs/${runId}/events`);
    expect(replay.ended).toBe(true);
    expect(replay.events).toEqual(all.events);
    expect((await call("GET", `/api/v1/runs/${runId}`)).json).toMatchObject({
      status: "finished",
      eventCount: all.events.length,
    });
  });

  it("a roster file that broke meanwhile is refused at reload (422); the running roster stays and runs work on", async () => {
    const original = readFileSync(roster.config, "utf8");
    writeFileSync(roster.config, "servers: [ this is not: valid\n");
    try {
      const refused = await call("POST", "/api/v1/mcp/reload");
      expect(refused.status).toBe(422);
      expect(refused.json).toMatchObject({
        error: { code: "CONFIG_RELOAD_FAILED", message: expect.stringContaining("mcp_servers.yaml") },
      });
      const started = await call("POST", "/api/v1/runs", { body: JSON.stringify({ folder: "proj" }) });
      expect(started.status).toBe(202);
      const id = started.json.id as string;
      const stream = await readSse(`${served.url}/api/v1/runs/${id}/events`);
      bodies.push(stream.raw);
      expect(stream.events.at(-1)).toMatchObject({ event: "run_finished", data: { status: "finished" } });
      expect((await call("GET", "/api/v1/mcp/servers")).json.servers).toHaveLength(
        TEMP_ROSTER_SERVERS.length,
      );
    } finally {
      writeFileSync(roster.config, original);
    }
  });

  it("resume re-checks the real folder: swapped for a symlink (out of the base, or elsewhere in it) is 403", async () => {
    const folder = join(roster.base, "swap");
    cpSync(join(roster.base, "proj"), folder, { recursive: true });
    const started = await call("POST", "/api/v1/runs", {
      body: JSON.stringify({ folder: "swap", pauseAfter: 1 }),
    });
    expect(started.status).toBe(202);
    const id = started.json.id as string;
    const first = await readSse(`${served.url}/api/v1/runs/${id}/events`);
    expect(first.events.at(-1)?.data).toMatchObject({ type: "run_finished", status: "paused" });

    renameSync(folder, `${folder}.orig`);
    try {
      for (const target of [roster.dir, join(roster.base, "proj")]) {
        symlinkSync(target, folder);
        const refused = await call("POST", `/api/v1/runs/${id}/resume`);
        expect(`${target}: ${refused.status}`).toBe(`${target}: 403`);
        expect(refused.json).toMatchObject({
          error: {
            code: "FOLDER_NOT_ALLOWED",
            runId: id,
            folder,
            message: expect.stringContaining(
              `run ${id} cannot be resumed: its folder ${folder} now resolves to`,
            ),
          },
        });
        rmSync(folder);
      }
    } finally {
      if (existsSync(`${folder}.orig`)) renameSync(`${folder}.orig`, folder);
    }
    const still = await call("GET", `/api/v1/runs/${id}`);
    expect(still.json).toMatchObject({ status: "paused", active: false, round: 1 });
    expect(still.json.eventCount).toBe(first.events.length); // nothing ran

    const resumed = await call("POST", `/api/v1/runs/${id}/resume`);
    expect(resumed.status).toBe(202);
    const rest = await readSse(`${served.url}/api/v1/runs/${id}/events`, {
      headers: { "Last-Event-ID": String(first.events.length) },
    });
    bodies.push(rest.raw);
    expect(rest.events.at(-1)).toMatchObject({ event: "run_finished", data: { status: "finished" } });
  });

  it("a run started with another roster (agentforge docs --config) is not resumed here: 409 RUN_CONFIG_MISMATCH", async () => {
    const other = join(roster.dir, "other-roster.yaml");
    writeFileSync(other, readFileSync(roster.config, "utf8"));
    const cli = await agentforge(
      [
        "docs",
        join(roster.base, "proj"),
        "--config",
        other,
        "--pause-after",
        "1",
        "--json",
        "--state-dir",
        roster.stateDir,
      ],
      { cwd: roster.dir, env: roster.env },
    );
    expect(`${cli.code} ${cli.stderr}`).toMatch(/^0 /);
    const { runId } = JSON.parse(cli.stdout) as { runId: string };
    const refused = await call("POST", `/api/v1/runs/${runId}/resume`);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({
      error: {
        code: "RUN_CONFIG_MISMATCH",
        runId,
        configPath: other,
        message: expect.stringContaining(`run ${runId} was started with the roster ${other}`),
      },
    });
    expect((await call("GET", `/api/v1/runs/${runId}`)).json).toMatchObject({ status: "paused" });
  });

  it("no response ever contained the canary secret", () => {
    expect(bodies.length).toBeGreaterThan(30);
    for (const body of bodies) expect(body).not.toContain(roster.canary);
  });
});

describe("access control", () => {
  it("requires the bearer token on /api when AGENTFORGE_API_TOKEN is set (the page itself stays public)", async () => {
    const token = "test-token-0123456789";
    const guarded = await startServe([...serveArgs(), "--no-check"], {
      env: { ...roster.env, AGENTFORGE_API_TOKEN: token },
      cwd: roster.dir,
    });
    try {
      expect(guarded.stderr()).toContain("(bearer token required)");
      const none = await fetch(`${guarded.url}/api/v1/mcp/servers`);
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toBe('Bearer realm="agentforge"');
      expect(await none.json()).toMatchObject({ error: { code: "UNAUTHORIZED" } });
      const wrong = await fetch(`${guarded.url}/api/v1/mcp/servers`, {
        headers: { authorization: "Bearer nope" },
      });
      expect(wrong.status).toBe(401);
      const right = await fetch(`${guarded.url}/api/v1/mcp/servers`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(right.status).toBe(200);
      expect(await right.text()).not.toContain(token);
      expect((await fetch(`${guarded.url}/mcp`)).status).toBe(200);
    } finally {
      await guarded.stop();
    }
  });

  it("no GET starts or connects a server: a never-connected server's tools answer from what is known", async () => {
    // A fresh serve without start-up checks; `broken` writes this marker whenever a process starts it.
    const marker = join(roster.dir, "broken-started-by-get-test");
    const quiet = await startServe([...serveArgs(), "--no-check"], {
      env: { ...roster.env, AF_TEST_MARKER_FILE: marker },
      cwd: roster.dir,
    });
    try {
      const get = (path: string) => fetch(`${quiet.url}${path}`);
      for (const name of ["broken", "local-tools"]) {
        const tools = await get(`/api/v1/mcp/servers/${name}/tools`);
        expect(tools.status).toBe(200);
        expect(await tools.json()).toMatchObject({
          tools: [],
          servers: [{ name, status: "not_listed", toolCount: null }],
        });
        expect((await get(`/api/v1/mcp/servers/${name}`)).status).toBe(200);
      }
      const listing = (await (await get("/api/v1/mcp/servers")).json()) as { servers: ServerView[] };
      // Nothing started: every enabled server idle, no process.
      expect(listing.servers.map((x) => `${x.name}:${x.connection.state}:${x.connection.pid}`)).toEqual(
        TEMP_ROSTER_SERVERS.map((name) => `${name}:${name === "off" ? "disabled" : "idle"}:null`),
      );
      expect(existsSync(marker)).toBe(false);
      // The POST does start it: the marker proves the witness works.
      const post = await fetch(`${quiet.url}/api/v1/mcp/servers/broken/tools`, { method: "POST" });
      expect(post.status).toBe(502);
      expect(existsSync(marker)).toBe(true);
    } finally {
      await quiet.stop();
    }
  });

  it("refuses to serve off loopback without a token (exit 2); with one it starts", async () => {
    const refused = await agentforge(["serve", "--host", "0.0.0.0", ...serveArgs()], {
      cwd: roster.dir,
      env: { AGENTFORGE_API_TOKEN: "" },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "refusing to serve on 0.0.0.0 without a bearer token: set AGENTFORGE_API_TOKEN",
    );
    const open = await startServe(["--host", "0.0.0.0", ...serveArgs(), "--no-check"], {
      env: { ...roster.env, AGENTFORGE_API_TOKEN: "another-token-123456" },
      cwd: roster.dir,
    });
    try {
      const port = new URL(open.url).port;
      expect(open.url).toBe(`http://0.0.0.0:${port}`);
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/mcp/servers`, {
        headers: { authorization: "Bearer another-token-123456" },
      });
      expect(response.status).toBe(200);
    } finally {
      await open.stop();
    }
  });

  it("bad flags are usage errors (exit 2)", async () => {
    for (const args of [
      ["--port", "http"],
      ["--port", "70000"],
      ["extra"],
      ["--allowed-base", join(roster.dir, "missing")],
    ]) {
      const result = await agentforge(
        ["serve", ...args, "--config", roster.config, "--state-dir", roster.stateDir],
        { cwd: roster.dir },
      );
      expect(`${args.join(" ")}: ${result.code}`).toBe(`${args.join(" ")}: 2`);
    }
  });
});
