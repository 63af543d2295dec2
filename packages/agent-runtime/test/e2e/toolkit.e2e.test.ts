// createMCPToolkit over real stdio servers: lazy and eager discovery, the policy on every call, events,
// health, reload, a bad tool list contained, and close ending every child process.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { processState, STDIO_TEST_SERVER, testServerArgs } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import {
  createMCPToolkit,
  MCP_SERVER_TOOLS_REJECTED,
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  type MCPToolkit,
} from "../../src/index.js";
import { createMCPToolkit as createNodeToolkit } from "../../src/node/index.js";
import { cleanup, onCleanup, tempDir } from "./harness.js";

afterEach(cleanup);

/** A stdio test server as a roster entry written in code (file shape, defaults left out). */
function testServer(name: string, behaviour: Parameters<typeof testServerArgs>[0] = {}) {
  return {
    name,
    transport: "stdio" as const,
    enabled: true,
    command: process.execPath,
    args: [STDIO_TEST_SERVER, ...testServerArgs(behaviour)],
    // A busy machine can take far longer than the 10 s default to start a server.
    connection_timeout: 120,
  };
}

function owned<T extends Pick<MCPToolkit, "close">>(toolkit: T): T {
  onCleanup(() => toolkit.close());
  return toolkit;
}

describe("createMCPToolkit (stdio servers)", () => {
  it("discovers on the first tools(), gives each agent only its tools, and checks the policy on every call", async () => {
    const toolkit = owned(
      await createMCPToolkit({
        config: {
          servers: [testServer("alpha"), testServer("beta")],
          permissions: { helper: ["alpha.echo", "alpha.pid"], other: ["beta.*"] },
        },
      }),
    );
    expect(toolkit.manager.connectionStatus("alpha").state).toBe("idle");
    const events: { name: string; identity: string; outcome: string; errorCode?: string }[] = [];
    for (const name of [MCP_TOOL_CALL_COMPLETED, MCP_TOOL_CALL_FAILED] as const) {
      toolkit.events.on(name, (e) =>
        events.push({ name, identity: e.identity, outcome: String(e.outcome), errorCode: e.errorCode }),
      );
    }

    const tools = await toolkit.tools("helper");
    expect(tools.map((t) => t.identity).sort()).toEqual(["alpha.echo", "alpha.pid"]);
    expect(toolkit.discovery?.servers.map((s) => s.status)).toEqual(["ok", "ok"]);
    expect((await toolkit.tools("nobody")).length).toBe(0);

    const result = await toolkit.execute("helper", "alpha.echo", { text: "hello" });
    expect(result.text).toBe("hello");
    await expect(toolkit.execute("helper", "beta.echo", { text: "x" })).rejects.toMatchObject({
      code: "TOOL_DENIED",
    });
    await expect(toolkit.execute("helper", "alpha.echo", { text: 5 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
    });
    expect(events).toEqual([
      { name: MCP_TOOL_CALL_COMPLETED, identity: "alpha.echo", outcome: "ok", errorCode: undefined },
      { name: MCP_TOOL_CALL_FAILED, identity: "beta.echo", outcome: "denied", errorCode: "TOOL_DENIED" },
      {
        name: MCP_TOOL_CALL_FAILED,
        identity: "alpha.echo",
        outcome: "failed",
        errorCode: "INVALID_ARGUMENTS",
      },
    ]);

    const health = await toolkit.health();
    expect(health.ok).toBe(true);
    expect(health.servers.map((s) => s.status)).toEqual(["healthy", "healthy"]);
  });

  it("execute() before tools() discovers first; close() ends every child process", async () => {
    const toolkit = await createMCPToolkit({
      config: { servers: [testServer("alpha")], permissions: { helper: ["alpha.*"] } },
    });
    try {
      const pid = Number((await toolkit.execute("helper", "alpha.pid", {})).text);
      expect(processState(pid)).not.toBe("gone");
      await toolkit.close();
      await expect.poll(() => processState(pid)).toBe("gone");
      await expect(toolkit.tools("helper")).rejects.toMatchObject({ code: "TOOLKIT_CLOSED" });
    } finally {
      await toolkit.close();
    }
  });

  it("contains a server whose tool list is bad: the others work, health and events say why", async () => {
    const toolkit = owned(
      await createMCPToolkit({
        config: {
          servers: [testServer("alpha"), testServer("broken", { duplicateTools: true })],
          permissions: { helper: ["alpha.*", "broken.*"] },
        },
      }),
    );
    const rejected: string[] = [];
    toolkit.events.on(MCP_SERVER_TOOLS_REJECTED, (e) => rejected.push(e.serverName));
    const identities = (await toolkit.tools("helper")).map((t) => t.identity);
    expect(identities).toContain("alpha.echo");
    expect(identities.some((identity) => identity.startsWith("broken."))).toBe(false);
    expect(rejected).toEqual(["broken"]);
    expect(toolkit.rejectedServers().map((r) => [r.serverName, r.error.code])).toEqual([
      ["broken", "TOOL_DUPLICATE"],
    ]);
    const health = await toolkit.health();
    expect(health.ok).toBe(false);
    expect(health.rejectedServers.map((r) => r.serverName)).toEqual(["broken"]);
    expect((await toolkit.execute("helper", "alpha.echo", { text: "still works" })).text).toBe("still works");
  });

  it("reload removes, adds and re-permits servers; the registry follows", async () => {
    const toolkit = owned(
      await createMCPToolkit({
        config: {
          servers: [testServer("alpha"), testServer("beta")],
          permissions: { helper: ["alpha.*", "beta.*"] },
        },
      }),
    );
    const serversOf = async (agent: string) =>
      [...new Set((await toolkit.tools(agent)).map((t) => t.serverName))].sort();
    expect(await serversOf("helper")).toEqual(["alpha", "beta"]);

    const changes = await toolkit.reload({
      servers: [testServer("alpha"), testServer("gamma")],
      permissions: { helper: ["gamma.*"] },
    });
    expect(changes).toMatchObject({ added: ["gamma"], removed: ["beta"], unchanged: ["alpha"] });
    expect(toolkit.registry.list({ serverName: "beta" })).toEqual([]);
    expect(toolkit.registry.list({ serverName: "gamma" }).length).toBeGreaterThan(0);
    expect(await serversOf("helper")).toEqual(["gamma"]);
    await expect(toolkit.execute("helper", "alpha.echo", { text: "x" })).rejects.toMatchObject({
      code: "TOOL_DENIED",
    });
    expect((await toolkit.execute("helper", "gamma.echo", { text: "new" })).text).toBe("new");
  });

  it("createExecutor: events of its own, calls through the given client, and the policy follows reload", async () => {
    const toolkit = owned(
      await createMCPToolkit({
        config: { servers: [testServer("alpha")], permissions: { helper: ["alpha.*"] } },
        discover: "eager",
      }),
    );
    const through: string[] = [];
    const run = toolkit.createExecutor({
      clientManager: {
        callTool: (serverName, toolName, args, options) => {
          through.push(`${serverName}.${toolName}`);
          return toolkit.manager.callTool(serverName, toolName, args, options);
        },
        getConfig: (serverName) => toolkit.manager.getConfig(serverName),
      },
    });
    onCleanup(() => run.dispose());
    const shared: string[] = [];
    const own: string[] = [];
    toolkit.on(MCP_TOOL_CALL_COMPLETED, (e) => shared.push(e.identity));
    const unsubscribe = run.on(MCP_TOOL_CALL_COMPLETED, (e) => own.push(`${e.serverName}/${e.toolName}`));

    expect((await run.execute("helper", "alpha.echo", { text: "run" })).text).toBe("run");
    await toolkit.execute("helper", "alpha.pid");
    expect(through).toEqual(["alpha.echo"]);
    expect(own).toEqual(["alpha/echo"]);
    expect(shared).toEqual(["alpha.pid"]);

    // A run going on when the grants change decides its next call with the new ones.
    await toolkit.reload({ servers: [testServer("alpha")], permissions: { helper: ["alpha.pid"] } });
    await expect(run.execute("helper", "alpha.echo", { text: "x" })).rejects.toMatchObject({
      code: "TOOL_DENIED",
      identity: "alpha.echo",
      serverName: "alpha",
      toolName: "echo",
    });
    expect(run.allowedTools("helper").map((t) => t.identity)).toEqual(["alpha.pid"]);
    unsubscribe();
    await run.execute("helper", "alpha.pid");
    expect(own).toEqual(["alpha/echo"]);

    await toolkit.close();
    expect(() => toolkit.createExecutor()).toThrow(/closed/);
  });
});

describe("createMCPToolkit from @agentforge/agent-runtime/node (a config file)", () => {
  it("loads a YAML file, discovers eagerly, and reloads from a path", async () => {
    const dir = tempDir();
    const localTools = createRequire(import.meta.url)
      .resolve("@agentforge/example-servers/package.json")
      .replace("package.json", "dist/bin/local-tools.js");
    const file = join(dir, "mcp_servers.yaml");
    writeFileSync(
      file,
      [
        "servers:",
        "  - name: local",
        "    transport: stdio",
        "    enabled: true",
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(localTools)}]`,
        "    connection_timeout: 120",
        "permissions:",
        "  helper: [local.echo, local.word_count]",
        "",
      ].join("\n"),
    );
    const toolkit = owned(await createNodeToolkit({ config: file, discover: "eager" }));
    expect(toolkit.discovery?.servers).toMatchObject([{ serverName: "local", status: "ok" }]);
    expect(toolkit.config.source).toBe(file);
    expect((await toolkit.tools("helper")).map((t) => t.identity).sort()).toEqual([
      "local.echo",
      "local.word_count",
    ]);
    const counted = await toolkit.execute("helper", "local.word_count", { text: "one two three" });
    expect(counted.text).toContain("3");

    const narrower = join(dir, "narrower.yaml");
    writeFileSync(narrower, `${readFileSync(file, "utf8").replace("local.echo, ", "")}`);
    await toolkit.reload(narrower);
    expect((await toolkit.tools("helper")).map((t) => t.identity)).toEqual(["local.word_count"]);

    await expect(createNodeToolkit({ config: join(dir, "missing.yaml") })).rejects.toMatchObject({
      code: "CONFIG_NOT_FOUND",
    });
  });
});
