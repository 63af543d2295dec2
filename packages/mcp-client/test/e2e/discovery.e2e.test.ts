// Discovery, list_changed, reload and refresh against real stdio servers.
import { stdioTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import { discoverAll, discoverTools, type MCPToolsChangedEvent } from "../../src/index.js";
import { cleanup, expectGone, manager, pidOf } from "./helpers.js";

afterEach(cleanup);

const BUILT_IN_TOOLS = 17; // tools every test server registers

function nextToolsChanged(m: ReturnType<typeof manager>, serverName: string): Promise<MCPToolsChangedEvent> {
  return new Promise((resolve) => {
    const listener = (event: MCPToolsChangedEvent) => {
      if (event.serverName !== serverName) return;
      m.off("toolsChanged", listener);
      resolve(event);
    };
    m.on("toolsChanged", listener);
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
    const m = manager([
      stdioTestServer("one"),
      stdioTestServer("two", { extraTools: 2 }),
      stdioTestServer("broken", { exitAtStart: 4, message: "no config" }),
      stdioTestServer("mute-1", { noHandshake: true }, { connectionTimeout: 1.5 }),
      stdioTestServer("mute-2", { noHandshake: true }, { connectionTimeout: 1.5 }),
      stdioTestServer("mute-3", { noHandshake: true }, { connectionTimeout: 1.5 }),
      stdioTestServer("off", {}, { enabled: false }),
    ]);
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
    // Three 1.5 s handshake timeouts run side by side: bounded by the slowest, not their sum (4.5 s).
    expect(result.durationMs).toBeLessThan(4000);
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
