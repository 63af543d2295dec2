// Loud by default: what the executor and the LangChain loop do when a server an agent is granted did not
// start, with an in-process client (our own `MCPToolCallClient` interface) and a scripted model. The same
// with real servers that fail to start is in test/e2e/loud-by-default.e2e.test.ts.
import { MCPConnectionError, MCPServerNotFoundError } from "@agentforge/mcp-client";
import type { MCPError } from "@agentforge/mcp-config";
import { type MCPPermissionGrants, MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  MCP_TOOL_CALL_FAILED,
  MCP_WARNING,
  type MCPToolCallFailedEvent,
  type MCPWarningEvent,
} from "./events.js";
import { invokeWithTools } from "./langchain/invoke-with-tools.js";
import { type MCPToolCallClient, MCPToolExecutor } from "./mcp-tool-executor.js";
import { ScriptedChatModel } from "./testing/scripted-chat-model.js";

const missing = new MCPConnectionError(
  'command "agentforge-filesytem" was not found. Fix: check the command of server "files".',
  { code: "COMMAND_NOT_FOUND", serverName: "files", transport: "stdio" },
);

function setup(grants: MCPPermissionGrants, errors: Record<string, MCPError> = { files: missing }) {
  const registry = new MCPToolRegistry();
  const tool = (server: string, name: string) => ({
    identity: `${server}.${name}`,
    serverName: server,
    toolName: name,
    description: `${name} of ${server}`,
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  });
  registry.register("everything", [tool("everything", "echo"), tool("everything", "get-env")]);
  const called: string[] = [];
  const client: MCPToolCallClient = {
    callTool: (async (server: string, name: string) => {
      called.push(`${server}.${name}`);
      return { content: [{ type: "text", text: "ok" }] };
    }) as MCPToolCallClient["callTool"],
    getConfig: (() => ({ transport: "stdio" })) as unknown as MCPToolCallClient["getConfig"],
  };
  const executor = new MCPToolExecutor({
    clientManager: client,
    registry,
    policy: new MCPPermissionPolicy(grants),
    serverError: (serverName) => errors[serverName],
  });
  const warnings: MCPWarningEvent[] = [];
  const failed: MCPToolCallFailedEvent[] = [];
  executor.on(MCP_WARNING, (e) => warnings.push(e));
  executor.on(MCP_TOOL_CALL_FAILED, (e) => failed.push(e));
  return { executor, called, warnings, failed };
}

describe("an unavailable server is loud by default", () => {
  it("execute() of its tool throws the server's start error, not TOOL_NOT_FOUND", async () => {
    const { executor, failed } = setup({ helper: ["files.*"] });
    await expect(executor.execute("helper", "files.read_text_file", { path: "a" })).rejects.toBe(missing);
    expect(failed.map((e) => [e.identity, e.errorCode, e.message])).toEqual([
      [
        "files.read_text_file",
        "COMMAND_NOT_FOUND",
        'command "agentforge-filesytem" was not found. Fix: check the command of server "files".',
      ],
    ]);
  });

  it("an agent not granted the tool is told only TOOL_NOT_FOUND (nothing about the roster)", async () => {
    const { executor } = setup({ helper: ["files.*"], other: ["everything.echo"] });
    await expect(executor.execute("other", "files.read_text_file", {})).rejects.toMatchObject({
      code: "TOOL_NOT_FOUND",
    });
  });

  it("the loop fails with the server's error before the model is called; degraded runs and warns", async () => {
    const { executor, warnings } = setup({ helper: ["files.*", "everything.echo"] });
    const model = new ScriptedChatModel(["an answer without tools"]);
    await expect(
      invokeWithTools(model, [new HumanMessage("hi")], {
        tools: executor.registry.list(),
        executor,
        agent: "helper",
      }),
    ).rejects.toBe(missing);
    expect(model.calls).toHaveLength(0);

    const result = await invokeWithTools(model, [new HumanMessage("hi")], {
      tools: executor.registry.list(),
      executor,
      agent: "helper",
      degraded: true,
    });
    expect(result.message.content).toBe("an answer without tools");
    expect(warnings).toEqual([
      expect.objectContaining({
        type: MCP_WARNING,
        code: "SERVERS_UNAVAILABLE",
        agent: "helper",
        servers: [{ serverName: "files", errorCode: "COMMAND_NOT_FOUND", message: missing.message }],
      }),
    ]);
    expect(warnings[0]?.message).toMatch(
      /^Agent "helper" runs without the tools of server "files" \(degraded mode\): files: command/,
    );
  });

  it("a disabled server is called disabled", async () => {
    const disabled = new MCPServerNotFoundError('MCP server "files" is disabled (enabled: false).', {
      code: "SERVER_DISABLED",
      serverName: "files",
    });
    const { executor } = setup({ helper: ["files.*"] }, { files: disabled });
    expect(() => executor.checkAvailability("helper")).toThrow(disabled);
  });

  it("an agent nobody granted is a warning with the closest name", () => {
    const { executor, warnings } = setup({ helper: ["everything.*"] });
    executor.checkAvailability("helpr");
    executor.checkAvailability("helpr"); // the same warning is given once
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      [
        "AGENT_NOT_GRANTED",
        'Agent "helpr" has no grants, so it gets no tools (deny by default): did you mean "helper"? Grant it tools in permissions: (or createMCPToolkit\'s permissions).',
      ],
    ]);
  });
});

describe("names in the loop", () => {
  it("a denied tool called by its model name is audited DENIED with its identity; the model hears not-found", async () => {
    const { executor, failed, called } = setup({ helper: ["everything.echo"] }, {});
    const model = new ScriptedChatModel([{ toolCalls: [{ name: "everything__get-env", args: {} }] }, "done"]);
    const result = await invokeWithTools(model, [new HumanMessage("env?")], {
      tools: executor.registry.list(),
      executor,
      agent: "helper",
    });
    expect(called).toEqual([]);
    expect(failed.map((e) => [e.identity, e.outcome, e.errorCode])).toEqual([
      ["everything.get-env", "denied", "TOOL_DENIED"],
    ]);
    expect(result.calls.map((c) => [c.identity, c.modelName, c.errorCode])).toEqual([
      ["everything.get-env", "everything__get-env", "TOOL_DENIED"],
    ]);
    const told = model.calls[1]?.messages.find((m): m is ToolMessage => m instanceof ToolMessage);
    expect(told?.content).toBe(
      'Error (TOOL_NOT_FOUND): Tool "everything__get-env" is not registered. Known tools: everything__echo.',
    );
  });

  it("INVALID_ARGUMENTS names the tool as the model knows it", async () => {
    const { executor } = setup({ helper: ["everything.echo"] }, {});
    const model = new ScriptedChatModel([{ toolCalls: [{ name: "everything__echo", args: {} }] }, "done"]);
    await invokeWithTools(model, [new HumanMessage("echo")], {
      tools: executor.registry.list(),
      executor,
      agent: "helper",
    });
    const told = model.calls[1]?.messages.find((m): m is ToolMessage => m instanceof ToolMessage);
    expect(told?.content).toMatch(
      /^Error \(INVALID_ARGUMENTS\): The arguments for "everything__echo" do not match/,
    );
    expect(String(told?.content)).not.toContain("everything.echo");
  });
});
