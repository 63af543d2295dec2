// Discovery, list_changed, reload and refresh against real stdio servers.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { stdioTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import { discoverAll, discoverTools, type MCPToolsChangedEvent } from "../../src/index.js";
import { cleanup, expectGone, manager, pidOf, tempDir } from "./helpers.js";

afterEach(cleanup);

const BUILT_IN_TOOLS = 17; // tools every test server registers

function nextToolsChanged(m: ReturnType<typeof manager>, serverName: string): Promise<MCPToolsChangedEvent> {
  return new Promise((resolve) => {
    const unsubscribe = m.on("toolsChanged", (event) => {
      if (event.serverName !== serverName) return;
      unsubscribe();
      resolve(event);
    });
  });
}

describe("discoverTools", () => {
  it("returns plain DiscoveredTools with identity <server>.<tool>, schemas and annotations", async () => {
    const m = manager([stdioTestServer("files")]);
    const tools = await discoverTools(m, "files");
    expect(tools).toHaveLength(BUILT_IN_TOOLS);
    const add = tools.find((tool) => tool.toolName === "add");
    expect(add).toMatchObject({
      identity: "files.add",
      serverName: "files",
      description: "Add two numbers",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      annotations: { readOnlyHint: true },
    });
    const structured = tools.find((tool) => tool.toolName === "structured");
    expect(structured?.outputSchema).toMatchObject({
      type: "object",
      properties: { doubled: { type: "number" } },
    });
    expect(JSON.parse(JSON.stringify(tools))).toEqual(tools);
    expect(m.cachedTools("files")).toEqual(tools);
  });

  it("follows tools/list pagination", async () => {
    const m = manager([stdioTestServer("paged", { pageSize: 4, extraTools: 10 })]);
    const tools = await discoverTools(m, "paged");
    expect(tools).toHaveLength(BUILT_IN_TOOLS + 10);
    expect(new Set(tools.map((tool) => tool.toolName)).size).toBe(BUILT_IN_TOOLS + 10);
  });
});

describe("discoverAll", () => {
  it("discovers every enabled server in parallel and reports failures without throwing", async () => {
    // Parallel, proven by a count rather than a clock: when the first handshake times out, all three
    // silent servers have already been started (one after the other, only one would have been). The
    // handshake timeout is long enough for three Node.js processes to start on a busy machine (at load
    // 25 on 2 cores, 3 s was not: none had written its start line when the first timed out).
    const startLog = join(tempDir(), "mute-starts.log");
    const started = () =>
      existsSync(startLog) ? readFileSync(startLog, "utf8").split("\n").filter(Boolean) : [];
    const mute = { noHandshake: true, startLog };
    const m = manager([
      stdioTestServer("one"),
      stdioTestServer("two", { extraTools: 2 }),
      stdioTestServer("broken", { exitAtStart: 4, message: "no config" }),
      stdioTestServer("mute-1", mute, { connectionTimeout: 30 }),
      stdioTestServer("mute-2", mute, { connectionTimeout: 30 }),
      stdioTestServer("mute-3", mute, { connectionTimeout: 30 }),
      stdioTestServer("off", {}, { enabled: false }),
    ]);
    const startedAtFirstTimeout: number[] = [];
    m.on("connectionFailed", (event) => {
      if (event.error.code === "HANDSHAKE_TIMEOUT" && startedAtFirstTimeout.length === 0) {
        startedAtFirstTimeout.push(started().length);
      }
    });
    const result = await discoverAll(m);
    expect(result.servers.map((s) => `${s.serverName}:${s.status}`)).toEqual([
      "one:ok",
      "two:ok",
      "broken:failed",
      "mute-1:failed",
      "mute-2:failed",
      "mute-3:failed",
    ]);
    expect(result.servers[2]?.error).toMatchObject({ code: "SERVER_EXITED" });
    expect(result.servers[3]?.error).toMatchObject({ code: "HANDSHAKE_TIMEOUT" });
    expect(result.tools).toHaveLength(BUILT_IN_TOOLS * 2 + 2);
    expect(result.tools.filter((tool) => tool.serverName === "two")).toHaveLength(BUILT_IN_TOOLS + 2);
    expect(startedAtFirstTimeout).toEqual([3]);
  });
});

describe("tool list changes", () => {
  it("notifications/tools/list_changed → toolsChanged with what was added and removed", async () => {
    const m = manager([stdioTestServer("dynamic")]);
    await discoverTools(m, "dynamic");
    const added = nextToolsChanged(m, "dynamic");
    await m.callTool("dynamic", "add_tool", { name: "fresh" });
    expect(await added).toMatchObject({ serverName: "dynamic", added: ["fresh"], removed: [], changed: [] });
    const removed = nextToolsChanged(m, "dynamic");
    await m.callTool("dynamic", "remove_tool", { name: "fresh" });
    const event = await removed;
    expect(event.removed).toEqual(["fresh"]);
    expect(event.tools).toHaveLength(BUILT_IN_TOOLS);
  });

  it("after a reconnect the tools are fetched again and a difference fires toolsChanged", async () => {
    const m = manager([stdioTestServer("restart")]);
    await discoverTools(m, "restart");
    const added = nextToolsChanged(m, "restart");
    await m.callTool("restart", "add_tool", { name: "ephemeral" });
    await added;
    await expect(m.callTool("restart", "crash")).rejects.toMatchObject({ code: "CONNECTION_LOST" });
    const afterReconnect = nextToolsChanged(m, "restart");
    await pidOf(m, "restart"); // reconnects; the new process does not have "ephemeral"
    expect(await afterReconnect).toMatchObject({ removed: ["ephemeral"], added: [] });
  });
});

describe("reload and refresh", () => {
  it("applyConfig restarts only changed servers, adds new ones and closes removed ones", async () => {
    const keep = stdioTestServer("keep");
    const change = stdioTestServer("change");
    const drop = stdioTestServer("drop");
    const m = manager([keep, change, drop]);
    const [keepPid, changePid, dropPid] = await Promise.all([
      pidOf(m, "keep"),
      pidOf(m, "change"),
      pidOf(m, "drop"),
    ]);
    await discoverTools(m, "drop");
    const emptied = nextToolsChanged(m, "drop");
    const changes = await m.applyConfig([
      { ...keep },
      stdioTestServer("change", { extraTools: 1 }),
      stdioTestServer("added"),
    ]);
    expect(changes).toEqual({
      added: ["added"],
      removed: ["drop"],
      changed: ["change"],
      unchanged: ["keep"],
    });
    expect((await emptied).tools).toEqual([]);
    expect(m.serverNames()).toEqual(["keep", "change", "added"]);
    expect(m.connectionStatus("change").state).toBe("connected"); // reconnected right away
    expect(await pidOf(m, "keep")).toBe(keepPid);
    expect(await pidOf(m, "change")).not.toBe(changePid);
    expect(m.connectionStatus("added").state).toBe("idle");
    expectGone([changePid, dropPid]);
    await expect(m.callTool("drop", "echo")).rejects.toMatchObject({ code: "SERVER_NOT_FOUND" });
  });

  it("refresh reconnects and rediscovers every enabled server", async () => {
    const m = manager([stdioTestServer("r1"), stdioTestServer("r2")]);
    const before = await Promise.all([pidOf(m, "r1"), pidOf(m, "r2")]);
    const result = await m.refresh();
    expect(result.servers.map((s) => s.status)).toEqual(["ok", "ok"]);
    expect(result.tools).toHaveLength(BUILT_IN_TOOLS * 2);
    const after = await Promise.all([pidOf(m, "r1"), pidOf(m, "r2")]);
    expect(after[0]).not.toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expectGone(before);
  });
});
