// A server an agent is granted that never starts is loud where it matters: toolkit.tools(), the tool
// loops and execute() fail with that server's own error (code, cause, what to fix) — a missing command, a
// wrong path, an unset variable, a disabled server — unless the caller opts into degraded mode. Grants are
// checked against the roster (an unknown server is a config error) and against the discovered tools
// (a pattern matching nothing, an agent nobody granted: warnings with a did-you-mean). Real child processes.
import { processState, STDIO_TEST_SERVER, testServerArgs } from "@agentforge/test-servers";
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import {
  createMCPToolkit,
  MCP_TOOL_CALL_FAILED,
  MCP_WARNING,
  MCPConfigError,
  MCPConnectionError,
  MCPServerNotFoundError,
  type MCPToolCallFailedEvent,
  type MCPToolkit,
  type MCPWarningEvent,
} from "../../src/index.js";
import { invokeWithTools } from "../../src/langchain/index.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { cleanup, onCleanup } from "./harness.js";

afterEach(cleanup);

const working = {
  name: "alpha",
  transport: "stdio" as const,
  enabled: true,
  command: process.execPath,
  args: [STDIO_TEST_SERVER, ...testServerArgs({})],
  connection_timeout: 120,
};

function owned(toolkit: MCPToolkit): MCPToolkit {
  onCleanup(() => toolkit.close());
  return toolkit;
}

function listen(toolkit: MCPToolkit) {
  const warnings: MCPWarningEvent[] = [];
  const failed: MCPToolCallFailedEvent[] = [];
  toolkit.on(MCP_WARNING, (e) => warnings.push(e));
  toolkit.on(MCP_TOOL_CALL_FAILED, (e) => failed.push(e));
  return { warnings, failed };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

describe("a granted server that does not start is loud by default", () => {
  it("missing command: tools() and the loop reject with COMMAND_NOT_FOUND; execute() too, not TOOL_NOT_FOUND", async () => {
    const toolkit = owned(
      await createMCPToolkit({
        config: {
          servers: [
            working,
            { name: "files", transport: "stdio", enabled: true, command: "agentforge-filesytem-missing" },
          ],
          permissions: { helper: ["alpha.echo", "files.*"] },
        },
      }),
    );
    const { failed } = listen(toolkit);
    const error = await rejection(toolkit.tools("helper"));
    expect(MCPConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "COMMAND_NOT_FOUND", serverName: "files" });
    expect(error.message).toMatch(/agentforge-filesytem-missing/);

    const model = new ScriptedChatModel(["no tools needed"]);
    await expect(
      invokeWithTools(model, [new HumanMessage("hi")], {
        tools: toolkit.registry.list(),
        executor: toolkit.executor,
        agent: "helper",
      }),
    ).rejects.toBe(error);
    expect(model.calls).toHaveLength(0);

    await expect(toolkit.execute("helper", "files.read_text_file", { path: "a" })).rejects.toBe(error);
    expect(failed.map((e) => [e.identity, e.errorCode])).toEqual([
      ["files.read_text_file", "COMMAND_NOT_FOUND"],
    ]);
    // The working server's tools are still there for an agent that is not granted the broken one.
    expect((await toolkit.execute("helper", "alpha.echo", { text: "still" })).text).toBe("still");
  });

  it("degraded: tools() gives what there is, and one warning names each missing server and why", async () => {
    const toolkit = owned(
      await createMCPToolkit({
        config: {
          servers: [
            working,
            {
              name: "files",
              transport: "stdio",
              enabled: true,
              command: process.execPath,
              args: ["/no/such/dir/filesystem.js"],
              connection_timeout: 120,
            },
          ],
          permissions: { helper: ["alpha.echo", "files.*"] },
        },
        degraded: true,
      }),
    );
    const { warnings } = listen(toolkit);
    expect((await toolkit.tools("helper")).map((t) => t.identity)).toEqual(["alpha.echo"]);
    expect(warnings).toHaveLength(1);
    const [warning] = warnings;
    expect(warning?.code).toBe("SERVERS_UNAVAILABLE");
    if (warning?.code !== "SERVERS_UNAVAILABLE") throw new Error("unreachable");
    expect(warning.servers.map((s) => [s.serverName, s.errorCode])).toEqual([["files", "SERVER_EXITED"]]);
    expect(warning.message).toMatch(/runs without the tools of server "files" \(degraded mode\)/);
    // Per call, loud again.
    await expect(toolkit.tools("helper", { degraded: false })).rejects.toMatchObject({
      code: "SERVER_EXITED",
    });
  });

  it("an unset ${VAR} is SERVER_MISCONFIGURED naming the variable; a disabled server is SERVER_DISABLED", async () => {
    const toolkit = owned(
      await createMCPToolkit({
        config: {
          servers: [
            {
              name: "files",
              transport: "stdio",
              enabled: true,
              command: process.execPath,
              args: [STDIO_TEST_SERVER, "${AGENTFORGE_TEST_UNSET_WS_DIR}"],
            },
            { ...working, name: "off", enabled: false },
          ],
          permissions: { helper: ["files.*"], idle: ["off.*"] },
        },
        env: {},
      }),
    );
    const unset = await rejection(toolkit.tools("helper"));
    expect(unset).toMatchObject({ code: "SERVER_MISCONFIGURED", serverName: "files" });
    expect(unset.message).toContain("AGENTFORGE_TEST_UNSET_WS_DIR");
    const disabled = await rejection(toolkit.tools("idle"));
    expect(MCPServerNotFoundError.isInstance(disabled)).toBe(true);
    expect(disabled).toMatchObject({ code: "SERVER_DISABLED", serverName: "off" });
    expect(disabled.message).toMatch(/^MCP server "off" is disabled \(enabled: false/);
  });
});

describe("grants checked against the roster and the tools", () => {
  it("a grant naming a server the roster lacks is a config error with a did-you-mean", async () => {
    const error = await rejection(
      createMCPToolkit({ config: { servers: [working], permissions: { helper: ["alpah.echo"] } } }),
    );
    expect(MCPConfigError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      'permissions.helper[0]: names server "alpah", which the roster does not define (did you mean "alpha"?)',
    );
    const inCode = await rejection(
      createMCPToolkit({ config: { servers: [working] }, permissions: { helper: ["alpah.*"] } }),
    );
    expect(inCode.message).toContain('names server "alpah"');
  });

  it("a pattern matching no tool and an agent nobody granted are warnings with a did-you-mean", async () => {
    const toolkit = owned(
      await createMCPToolkit({
        config: { servers: [working], permissions: { helper: ["alpha.ecko", "alpha.pid"] } },
      }),
    );
    const { warnings } = listen(toolkit);
    expect((await toolkit.tools("helper")).map((t) => t.identity)).toEqual(["alpha.pid"]);
    expect(await toolkit.tools("helpr")).toEqual([]);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      [
        "GRANT_MATCHES_NO_TOOL",
        expect.stringMatching(
          /^Grant "alpha.ecko" of agent "helper" matches none of the \d+ tools server "alpha" lists; did you mean "alpha.echo"\?$/,
        ),
      ],
      [
        "AGENT_NOT_GRANTED",
        'Agent "helpr" has no grants, so it gets no tools (deny by default): did you mean "helper"? Grant it tools in permissions: (or createMCPToolkit\'s permissions).',
      ],
    ]);
    expect(toolkit.checkGrants().map((w) => w.code)).toEqual(["GRANT_MATCHES_NO_TOOL"]);
  });
});

it("no child process is left behind", async () => {
  const toolkit = await createMCPToolkit({ config: { servers: [working], permissions: { a: ["alpha.*"] } } });
  await toolkit.tools("a");
  const pid = Number((await toolkit.execute("a", "alpha.pid", {})).text);
  await toolkit.close();
  await expect.poll(() => processState(pid), { timeout: 30_000 }).toBe("gone");
});
