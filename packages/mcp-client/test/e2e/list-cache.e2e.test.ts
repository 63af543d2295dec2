// Lists on the 2026-07-28 revision against a real v2 SDK server over HTTP (and stdio): `ttlMs`/`cacheScope`
// are honoured (the server counts the list requests it got, per Authorization header), and a tool list
// change reaches `toolsChanged` through the `subscriptions/listen` stream, also after a reconnect.
import {
  httpTestServer,
  modernStdioTestServer,
  type RunningHttpTestServer,
  startModernTestServer,
} from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import type { MCPClientManager, MCPToolsChangedEvent } from "../../src/index.js";
import { cleanup, manager, onCleanup, textOf } from "./helpers.js";

afterEach(cleanup);

type Counts = Record<string, number>;

async function listStats(
  m: MCPClientManager,
  server: string,
): Promise<{ toolsList: Counts; resourcesList: Counts; listening: number | null }> {
  return JSON.parse(textOf(await m.callTool(server, "list_stats")));
}

async function modern(options: Parameters<typeof startModernTestServer>[0]): Promise<RunningHttpTestServer> {
  const server = await startModernTestServer(options);
  onCleanup(() => server.stop());
  return server;
}

function bearer(name: string, url: string, variable: string) {
  return httpTestServer(name, url, { auth: { type: "bearer", credentialEnvVar: variable } });
}

function nextToolsChanged(m: MCPClientManager, serverName: string): Promise<MCPToolsChangedEvent> {
  return new Promise((resolve) => {
    const unsubscribe = m.on("toolsChanged", (event) => {
      if (event.serverName !== serverName) return;
      unsubscribe();
      resolve(event);
    });
  });
}

describe("list caching (ttlMs / cacheScope)", { timeout: 120_000 }, () => {
  it("a list with ttlMs is served from the cache while fresh: one tools/list and one resources/list", async () => {
    const server = await modern({ listTtlMs: 3_600_000, listCacheScope: "private" });
    const m = manager([httpTestServer("cached", server.url)]);
    const first = await m.listTools("cached");
    const second = await m.listTools("cached");
    expect(second.map((tool) => tool.toolName)).toEqual(first.map((tool) => tool.toolName));
    const pageA = await m.listResources("cached");
    const pageB = await m.listResources("cached");
    expect(pageB).toEqual(pageA);
    expect(pageA.resources.map((resource) => resource.uri)).toEqual(["note://one"]);
    const { toolsList, resourcesList } = await listStats(m, "cached");
    expect({ toolsList, resourcesList }).toEqual({
      toolsList: { "(none)": 1 },
      resourcesList: { "(none)": 1 },
    });
  });

  it("ttlMs 0 (the SDK default) asks the server every time, as before", async () => {
    const server = await modern({});
    const m = manager([httpTestServer("uncached", server.url)]);
    await m.listTools("uncached");
    await m.listTools("uncached");
    await m.listResources("uncached");
    await m.listResources("uncached");
    const { toolsList, resourcesList } = await listStats(m, "uncached");
    expect({ toolsList, resourcesList }).toEqual({
      toolsList: { "(none)": 2 },
      resourcesList: { "(none)": 2 },
    });
  });

  it("a private list is fetched once per credential; a reconnect starts with an empty cache", async () => {
    const server = await modern({ listTtlMs: 3_600_000, listCacheScope: "private" });
    const env = { TOKEN_A: "alpha-token", TOKEN_B: "beta-token" };
    const m = manager([bearer("as-a", server.url, "TOKEN_A"), bearer("as-b", server.url, "TOKEN_B")], {
      env,
    });
    for (const name of ["as-a", "as-b", "as-a", "as-b"]) await m.listTools(name);
    expect((await listStats(m, "as-a")).toolsList).toEqual({
      "Bearer alpha-token": 1,
      "Bearer beta-token": 1,
    });
    await m.close("as-a");
    await m.listTools("as-a"); // a new connection asks again (its background refresh may ask too)
    const afterReconnect = (await listStats(m, "as-a")).toolsList;
    expect(afterReconnect["Bearer alpha-token"]).toBeGreaterThanOrEqual(2);
    expect(afterReconnect["Bearer beta-token"]).toBe(1);
    await m.listTools("as-a");
    expect((await listStats(m, "as-a")).toolsList).toEqual(afterReconnect);
  });
});

describe("subscriptions/listen (tool list changes on 2026-07-28)", { timeout: 120_000 }, () => {
  it("HTTP: a tool added on the server reaches toolsChanged, the cached list is dropped, and again after a reconnect", async () => {
    const server = await modern({ listChanged: true, listTtlMs: 3_600_000, listCacheScope: "public" });
    const m = manager([httpTestServer("live", server.url)]);
    await m.listTools("live");
    expect(m.connectionStatus("live").protocolVersion).toBe("2026-07-28");
    const added = nextToolsChanged(m, "live");
    await m.callTool("live", "add_tool", { name: "fresh" });
    expect(await added).toMatchObject({ serverName: "live", added: ["fresh"], removed: [], changed: [] });
    // The change replaced the cached list with the new one, which is then served without a request.
    const before = (await listStats(m, "live")).toolsList;
    expect((await m.listTools("live")).map((tool) => tool.toolName)).toContain("fresh");
    expect((await listStats(m, "live")).toolsList).toEqual(before);

    await m.close("live");
    await m.listTools("live"); // reconnects; the listen stream is opened again on the new connection
    const removed = nextToolsChanged(m, "live");
    await m.callTool("live", "remove_tool", { name: "fresh" });
    expect((await removed).removed).toEqual(["fresh"]);
  });

  it("close() ends the stream on the server; a manager of its own keeps exactly one open", async () => {
    const server = await modern({ listChanged: true });
    const first = manager([httpTestServer("first", server.url)]);
    const second = manager([httpTestServer("second", server.url)]);
    await first.listTools("first");
    expect((await listStats(second, "second")).listening).toBe(2);
    await first.closeAll();
    // The server notices the aborted stream asynchronously: ask until it did (bounded by count, not time).
    let listening: number | null = null;
    for (let attempt = 0; attempt < 50 && listening !== 1; attempt++) {
      listening = (await listStats(second, "second")).listening;
    }
    expect(listening).toBe(1);
  });

  it("a stream the server ends is opened again while the connection stays, and changes arrive again", async () => {
    const server = await modern({ listChanged: true });
    const m = manager([httpTestServer("again", server.url)]);
    await m.listTools("again");
    expect((await listStats(m, "again")).listening).toBe(1);
    await m.callTool("again", "end_streams");
    // Ask until the server saw the stream end and the client opened a new one (bounded by count).
    let sawEnd = false;
    let listening: number | null = null;
    for (let attempt = 0; attempt < 200 && !(sawEnd && listening === 1); attempt++) {
      listening = (await listStats(m, "again")).listening;
      if (listening === 0) sawEnd = true;
    }
    expect({ sawEnd, listening }).toEqual({ sawEnd: true, listening: 1 });
    const added = nextToolsChanged(m, "again");
    await m.callTool("again", "add_tool", { name: "after" });
    expect((await added).added).toEqual(["after"]);
  });

  it("a server that refuses the stream: retried with backoff, then a process warning; the connection works", async () => {
    const server = await modern({ listChanged: true, maxSubscriptions: 0 });
    const warned = new Promise<Error & { code?: string }>((resolve) => {
      const onWarning = (warning: Error & { code?: string }) => {
        if (warning.code !== "AGENTFORGE_LIST_LISTEN_FAILED") return;
        process.off("warning", onWarning);
        resolve(warning);
      };
      process.on("warning", onWarning);
      onCleanup(() => process.off("warning", onWarning));
    });
    const m = manager([httpTestServer("refusing", server.url)]);
    expect(textOf(await m.callTool("refusing", "echo", { text: "still works" }))).toBe("still works");
    const warning = await warned;
    expect(warning.message).toContain(
      'MCP server "refusing" did not keep a subscriptions/listen stream open',
    );
    expect((await listStats(m, "refusing")).listening).toBe(0);
  });

  it("stdio: a tool added on the server reaches toolsChanged through the listen stream", async () => {
    const m = manager([modernStdioTestServer("live-stdio", {}, { listChanged: true })]);
    await m.listTools("live-stdio");
    expect(m.connectionStatus("live-stdio").protocolVersion).toBe("2026-07-28");
    const added = nextToolsChanged(m, "live-stdio");
    await m.callTool("live-stdio", "add_tool", { name: "fresh" });
    expect(await added).toMatchObject({ added: ["fresh"] });
  });

  it("a server without listChanged gets no listen stream, and a change is seen on the next list", async () => {
    const server = await modern({});
    const m = manager([httpTestServer("quiet", server.url)]);
    const events: MCPToolsChangedEvent[] = [];
    m.on("toolsChanged", (event) => events.push(event));
    await m.listTools("quiet");
    await m.callTool("quiet", "add_tool", { name: "later" });
    expect(events).toEqual([]);
    await m.listTools("quiet");
    expect(events.map((event) => event.added)).toEqual([["later"]]);
  });
});
