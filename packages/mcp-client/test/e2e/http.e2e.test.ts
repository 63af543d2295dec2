// Real HTTP MCP servers on 127.0.0.1 (port 0), each its own process, through the manager.
import { createServer } from "node:net";
import { httpTestServer, type RunningHttpTestServer, startHttpTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import {
  type MCPConnectedEvent,
  MCPConnectionError,
  type MCPDisconnectedEvent,
  type MCPToolsChangedEvent,
} from "../../src/index.js";
import { cleanup, manager, onCleanup, rejectionOf, textOf } from "./helpers.js";

afterEach(cleanup);

async function server(
  options: Parameters<typeof startHttpTestServer>[0] = {},
): Promise<RunningHttpTestServer> {
  const running = await startHttpTestServer(options);
  onCleanup(() => running.stop());
  return running;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

const TOKEN = "http-test-token-value";

describe("Streamable HTTP", () => {
  it("connects with a bearer token and reuses one session for every call", async () => {
    const running = await server({ tokenEnv: "TOKEN", env: { TOKEN } });
    const m = manager(
      [httpTestServer("remote", running.url, { auth: { type: "bearer", credentialEnvVar: "T" } })],
      {
        env: { T: TOKEN },
      },
    );
    const connected: MCPConnectedEvent[] = [];
    m.on("connected", (event) => connected.push(event));
    for (let i = 0; i < 50; i++)
      expect(textOf(await m.callTool("remote", "echo", { text: `#${i}` }))).toBe(`#${i}`);
    expect(connected).toHaveLength(1);
    expect(connected[0]?.transport).toBe("streamable-http");
    const stats = (await (await fetch(`${running.origin}/admin/stats`)).json()) as { total: number };
    expect(stats.total).toBe(50);
  });

  it("wrong token → HTTP_UNAUTHORIZED (httpStatus 401) naming the variable", async () => {
    const running = await server({ tokenEnv: "TOKEN", env: { TOKEN } });
    const m = manager(
      [
        httpTestServer("wrong", running.url, { auth: { type: "bearer", credentialEnvVar: "WRONG" } }),
        httpTestServer("unset", running.url, { auth: { type: "bearer", credentialEnvVar: "NOT_SET_VAR" } }),
      ],
      { env: { WRONG: "not-the-right-token" } },
    );
    const error = await rejectionOf(m.callTool("wrong", "echo", { text: "x" }));
    expect(MCPConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "HTTP_UNAUTHORIZED", httpStatus: 401, serverName: "wrong" });
    expect(error.message).toContain("401 Unauthorized");
    expect(error.message).toContain("WRONG");
    const unset = await rejectionOf(m.callTool("unset", "echo", { text: "x" }));
    expect(unset).toMatchObject({ code: "HTTP_UNAUTHORIZED" });
    expect(unset.message).toContain("NOT_SET_VAR is not set");
  });

  it("a wrong path → HTTP_NOT_FOUND after trying both transports; a closed port → HTTP_UNREACHABLE", async () => {
    const running = await server();
    const port = await closedPort();
    const m = manager([
      httpTestServer("wrongpath", `${running.origin}/not-mcp`),
      httpTestServer("closed", `http://127.0.0.1:${port}/mcp`),
    ]);
    const notFound = await rejectionOf(m.callTool("wrongpath", "echo"));
    expect(notFound).toMatchObject({ code: "HTTP_NOT_FOUND", httpStatus: 404 });
    expect(notFound.message).toContain("legacy HTTP+SSE");
    const unreachable = await rejectionOf(m.callTool("closed", "echo"));
    expect(unreachable).toMatchObject({ code: "HTTP_UNREACHABLE" });
    expect(unreachable.message).toContain("ECONNREFUSED");
  });

  it("falls back to the legacy HTTP+SSE transport for an old server", async () => {
    const running = await server({ legacySse: true });
    const m = manager([httpTestServer("legacy", running.url)]);
    const connected: MCPConnectedEvent[] = [];
    m.on("connected", (event) => connected.push(event));
    expect(textOf(await m.callTool("legacy", "echo", { text: "over sse" }))).toBe("over sse");
    expect(textOf(await m.callTool("legacy", "add", { a: 2, b: 3 }))).toBe("5");
    expect(connected.map((event) => event.transport)).toEqual(["sse"]);
    expect(m.connectionStatus("legacy").transport).toBe("sse");
  });

  it("a lost session fails the call in flight with CONNECTION_LOST, and the next call reconnects", async () => {
    const running = await server();
    const m = manager([httpTestServer("session", running.url)]);
    const connected: MCPConnectedEvent[] = [];
    const disconnected: MCPDisconnectedEvent[] = [];
    m.on("connected", (event) => connected.push(event));
    m.on("disconnected", (event) => disconnected.push(event));
    await m.callTool("session", "echo", { text: "1" });
    await fetch(`${running.origin}/admin/drop-sessions`, { method: "POST" });
    const error = await rejectionOf(m.callTool("session", "echo", { text: "2" }));
    expect(error).toMatchObject({ code: "CONNECTION_LOST", httpStatus: 404, serverName: "session" });
    expect(textOf(await m.callTool("session", "echo", { text: "3" }))).toBe("3");
    expect(connected.map((event) => event.attempt)).toEqual([1, 2]);
    expect(disconnected.map((event) => event.reason)).toEqual(["lost"]);
  });

  it("a server that goes away fails the next call with CONNECTION_LOST", async () => {
    const running = await startHttpTestServer();
    const m = manager([httpTestServer("gone", running.url)]);
    await m.callTool("gone", "echo", { text: "1" });
    await running.stop();
    await expect(m.callTool("gone", "echo", { text: "2" })).rejects.toMatchObject({
      code: "CONNECTION_LOST",
    });
    await expect(m.callTool("gone", "echo", { text: "3" })).rejects.toMatchObject({
      code: "HTTP_UNREACHABLE",
    });
  });

  it("turns notifications/tools/list_changed into a toolsChanged event", async () => {
    const running = await server();
    const m = manager([httpTestServer("dynamic", running.url)]);
    const before = await m.listTools("dynamic");
    const changed = new Promise<MCPToolsChangedEvent>((resolve) => {
      const unsubscribe = m.on("toolsChanged", (event) => {
        unsubscribe();
        resolve(event);
      });
    });
    await m.callTool("dynamic", "add_tool", { name: "late_tool" });
    const event = await changed;
    expect(event).toMatchObject({ serverName: "dynamic", added: ["late_tool"], removed: [], changed: [] });
    expect(event.tools).toHaveLength(before.length + 1);
    expect(m.cachedTools("dynamic")?.some((tool) => tool.identity === "dynamic.late_tool")).toBe(true);
  });
});
