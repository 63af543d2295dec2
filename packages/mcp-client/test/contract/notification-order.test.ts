/**
 * Contract test of the ordering assumption behind the two-microtask wait in MCPStdioTransport.deliver:
 * the SDK handles a response as soon as it is delivered, but runs notification handlers (progress
 * included) a microtask later. So a progress notification and the response right behind it in one
 * stdout chunk would lose the progress (its handler is removed with the response) unless the transport
 * holds later messages back for two microtasks. If the SDK changes either side, these tests say which.
 */
import { Client, type Progress } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { MCPStdioTransport } from "../../src/mcp-stdio-transport.js";
import { HandFedTransport } from "./loopback.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Start a tools/call with a progress callback; the test then feeds the progress and the reply. */
async function callWithProgress() {
  const transport = new HandFedTransport();
  const client = new Client({ name: "contract", version: "1.0.0" });
  closers.push(() => client.close().catch(() => {}));
  await client.connect(transport);
  const progress: Progress[] = [];
  const call = client.callTool({ name: "slow" }, { onprogress: (value) => progress.push(value) });
  const request = await transport.request("tools/call");
  const token = (request.params as { _meta?: { progressToken?: string | number } })._meta?.progressToken;
  expect(token, "the SDK sends a progressToken when onprogress is given").toBeDefined();
  const feed = transport.onmessage as NonNullable<typeof transport.onmessage>;
  return {
    call,
    progress,
    sendProgress: () =>
      feed({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token as string | number, progress: 1, total: 2 },
      }),
    sendReply: () => feed({ jsonrpc: "2.0", id: request.id, result: { content: [] } }),
  };
}

describe("SDK ordering of notifications and responses (why MCPStdioTransport waits two microtasks)", () => {
  it("a progress notification delivered synchronously right before the response is lost (the reason for the wait)", async () => {
    const { call, progress, sendProgress, sendReply } = await callWithProgress();
    sendProgress();
    sendReply();
    await call;
    await new Promise((resolve) => setImmediate(resolve));
    // Fails when the SDK starts running notification handlers synchronously: then the wait in
    // MCPStdioTransport.deliver is no longer needed (harmless, but it can go).
    expect(progress, "the SDK runs notification handlers after a microtask, responses at once").toEqual([]);
  });

  it("two microtasks after the notification, its handler has run before the response is handled", async () => {
    const { call, progress, sendProgress, sendReply } = await callWithProgress();
    sendProgress();
    await Promise.resolve();
    await Promise.resolve();
    sendReply();
    await call;
    // Fails when the SDK defers notification handlers by more than two microtasks: then the wait in
    // MCPStdioTransport.drainQueue must grow, or progress right before a reply is dropped.
    expect(progress, "two microtasks are enough for the SDK's notification handler").toEqual([
      { progress: 1, total: 2 },
    ]);
  });

  it("through the real MCPStdioTransport, progress and reply in one stdout chunk both arrive, in order", async () => {
    // A child that answers the handshake, then answers tools/call with the progress and the result in
    // one write (one chunk on our side).
    const script = `
      let buffer = "";
      const out = (messages) => process.stdout.write(messages.map((m) => JSON.stringify(m) + "\\n").join(""));
      process.stdin.on("data", (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf("\\n")) >= 0) {
          const message = JSON.parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 1);
          if (message.method === "initialize") {
            out([{ jsonrpc: "2.0", id: message.id, result: { protocolVersion: message.params.protocolVersion,
              capabilities: { tools: {} }, serverInfo: { name: "one-chunk", version: "1.0.0" } } }]);
          } else if (message.method === "tools/call") {
            const token = message.params._meta.progressToken;
            out([
              { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 1, total: 2 } },
              { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 2, total: 2 } },
              { jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "done" }] } },
            ]);
          }
        }
      });
    `;
    const transport = new MCPStdioTransport({
      command: process.execPath,
      args: ["-e", script],
      stderrLogPath: false,
      serverName: "one-chunk",
    });
    const client = new Client({ name: "contract", version: "1.0.0" });
    closers.push(() => client.close().catch(() => {}));
    await client.connect(transport, { timeout: 60_000 });
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: "slow" },
      {
        timeout: 60_000,
        onprogress: (value) => progress.push(value),
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(progress).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
  });
});
