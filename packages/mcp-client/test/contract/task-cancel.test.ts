// A task the caller gave up on is cancelled with `tasks/cancel`; when the server refuses that (or never
// answers), the task may still run there: cancelTask says so as a process warning instead of dropping it.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CancelTaskRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { cancelTask } from "../../src/internal/calls/task-call.js";
import { linked } from "./loopback.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function nextWarning(code: string): Promise<Error & { code?: string }> {
  return new Promise((resolve) => {
    const onWarning = (warning: Error & { code?: string }) => {
      if (warning.code !== code) return;
      process.off("warning", onWarning);
      resolve(warning);
    };
    process.on("warning", onWarning);
  });
}

describe("cancelTask", () => {
  it("a server without tasks/cancel: the failed cancel is a process warning naming server and task", async () => {
    const { client, close } = await linked(
      new Server({ name: "plain", version: "1.0.0" }, { capabilities: { tools: {} } }),
    );
    closers.push(close);
    const warned = nextWarning("AGENTFORGE_TASK_CANCEL_FAILED");
    await expect(cancelTask(client, "plain", "task-7")).resolves.toBeUndefined();
    const warning = await warned;
    expect(warning.message).toContain('MCP server "plain" did not cancel task task-7');
    expect(warning.message).toContain("it may still be running there");
  });

  it("the server's refusal reaches the warning cleaned (no escape sequence)", async () => {
    const server = new Server(
      { name: "hostile", version: "1.0.0" },
      { capabilities: { tools: {}, tasks: { cancel: {} } } },
    );
    server.setRequestHandler(CancelTaskRequestSchema, () => {
      throw new McpError(-32602, "no such task\u001b]52;c;ZXZpbA==\u0007\u001b[2J");
    });
    const { client, close } = await linked(server);
    closers.push(close);
    const warned = nextWarning("AGENTFORGE_TASK_CANCEL_FAILED");
    await cancelTask(client, "hostile", "task-8");
    const warning = await warned;
    expect(warning.message).toContain("no such task");
    expect(warning.message).not.toContain("\u001b");
    expect(warning.message).not.toContain("\u0007");
  });
});
