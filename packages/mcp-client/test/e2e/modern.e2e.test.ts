// The 2026-07-28 revision: a stateless 2026-only server written with the official v2 SDK is reached
// with the default config (protocol_version absent = auto), over HTTP and stdio; a 2025-only server is
// still reached with auto (fallback); pins are honoured; input_required rounds go to the elicitation
// handler; a JSON-RPC -32000 from a live server is an RPC_ERROR.
import {
  httpTestServer,
  modernStdioTestServer,
  startModernTestServer,
  stdioTestServer,
} from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import type { MCPElicitationRequest } from "../../src/elicitation.js";
import { MCPConnectionError, MCPRequestError } from "../../src/errors.js";
import { cleanup, manager, onCleanup, rejectionOf, textOf } from "./helpers.js";

afterEach(cleanup);

async function modernHttp(name = "modern") {
  const server = await startModernTestServer();
  onCleanup(() => server.stop());
  return httpTestServer(name, server.url);
}

describe("2026-07-28 (stateless, v2 SDK server)", { timeout: 180_000 }, () => {
  it("HTTP, default config: negotiates 2026-07-28 and shows it in status, health and the connected event", async () => {
    const m = manager([await modernHttp()]);
    const connected: unknown[] = [];
    m.on("connected", (event) => connected.push(event.protocolVersion));
    expect(textOf(await m.callTool("modern", "echo", { text: "hi" }))).toBe("hi");
    expect(m.connectionStatus("modern").protocolVersion).toBe("2026-07-28");
    const health = await m.healthCheck("modern");
    expect(health).toMatchObject({ status: "healthy", protocolVersion: "2026-07-28" });
    expect(connected).toEqual(["2026-07-28"]);
  });

  it("stdio, default config: negotiates 2026-07-28 with server/discover", async () => {
    const m = manager([modernStdioTestServer("modern-stdio")]);
    expect(textOf(await m.callTool("modern-stdio", "echo", { text: "over stdio" }))).toBe("over stdio");
    expect(m.connectionStatus("modern-stdio").protocolVersion).toBe("2026-07-28");
  });

  it("a 2025-only server (v1 SDK) is reached with auto through the initialize fallback, and pinned 2025", async () => {
    const m = manager([
      stdioTestServer("old-auto"),
      stdioTestServer("old-pinned", {}, { protocolVersion: "2025-11-25" }),
    ]);
    await m.callTool("old-auto", "echo", { text: "a" });
    await m.callTool("old-pinned", "echo", { text: "b" });
    expect(m.connectionStatus("old-auto").protocolVersion).toBe("2025-11-25");
    expect(m.connectionStatus("old-pinned").protocolVersion).toBe("2025-11-25");
  });

  it("pinning 2025-11-25 against a 2026-only server fails with a typed connection error", async () => {
    const m = manager([{ ...(await modernHttp("pinned-old")), protocolVersion: "2025-11-25" }]);
    const error = await rejectionOf(m.callTool("pinned-old", "echo", { text: "x" }));
    expect(MCPConnectionError.isInstance(error)).toBe(true);
  });

  it("pinning 2026-07-28 against a 2025-only server fails with a typed connection error", async () => {
    const m = manager([stdioTestServer("old", {}, { protocolVersion: "2026-07-28", connectionTimeout: 20 })]);
    const error = await rejectionOf(m.callTool("old", "echo", { text: "x" }));
    expect(MCPConnectionError.isInstance(error)).toBe(true);
  });

  it("an input_required round goes to the elicitation handler (defaults filled); requestState comes back untouched", async () => {
    const asked: MCPElicitationRequest[] = [];
    const m = manager([await modernHttp()], {
      elicitation: async (request) => {
        asked.push(request);
        // `excited` left out: filled from the schema's default (SEP-1034).
        return { action: "accept", content: { name: "Grace" } };
      },
    });
    const result = await m.callTool("modern", "ask", {});
    expect(textOf(result)).toBe("hello Grace excited=true (state state-1:\u00e9\u{1F600})");
    expect(asked).toMatchObject([{ mode: "form", serverName: "modern", message: "Your name?" }]);
  });

  it("two rounds in one call, each answered by the handler", async () => {
    let n = 0;
    const m = manager([await modernHttp()], {
      elicitation: async () => ({ action: "accept", content: { v: `answer${++n}` } }),
    });
    expect(textOf(await m.callTool("modern", "ask_twice", {}))).toBe("answer1 then answer2");
  });

  it("a sampling request inside a tool call is refused (the capability is never declared); the call fails typed", async () => {
    const m = manager([await modernHttp()], { elicitation: async () => ({ action: "decline" }) });
    const error = await rejectionOf(m.callTool("modern", "ask_sampling", {}));
    expect(MCPRequestError.isInstance(error) || MCPConnectionError.isInstance(error)).toBe(true);
    expect(textOf(await m.callTool("modern", "echo", { text: "after" }))).toBe("after");
  });

  it("HTTP: an x-mcp-header argument reaches the server as its Mcp-Param header; plain tools go without", async () => {
    const m = manager([await modernHttp()]);
    // A plain tool first (its call takes the path without the SDK's header mirroring)...
    expect(textOf(await m.callTool("modern", "echo", { text: "plain" }))).toBe("plain");
    // ...then the annotated one: the header carries the argument's value.
    expect(textOf(await m.callTool("modern", "region_echo", { region: "eu-west-1" }))).toBe(
      "header=eu-west-1 arg=eu-west-1",
    );
    expect(textOf(await m.callTool("modern", "echo", { text: "again" }))).toBe("again");
  });

  it("a caller's _meta and trace context reach the server; protocol keys are never overridden", async () => {
    const m = manager([await modernHttp()]);
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const result = await m.callTool(
      "modern",
      "meta_echo",
      {},
      {
        meta: {
          "io.agentforge/roots": ["file:///work"],
          "io.modelcontextprotocol/protocolVersion": "1999-01-01",
          progressToken: "forged",
        },
        traceContext: { traceparent, tracestate: "vendor=1" },
      },
    );
    const { meta: seen, envelope } = JSON.parse(textOf(result)) as Record<string, Record<string, unknown>>;
    expect(seen).toMatchObject({
      "io.agentforge/roots": ["file:///work"],
      traceparent,
      tracestate: "vendor=1",
    });
    expect(seen?.progressToken).toBeUndefined();
    expect(JSON.stringify({ seen, envelope })).not.toContain("1999-01-01");
    expect(envelope?.["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    await expect(
      m.callTool("modern", "meta_echo", {}, { meta: { big: "x".repeat(20_000) } }),
    ).rejects.toThrow(RangeError);
    await expect(
      m.callTool("modern", "meta_echo", {}, { traceContext: { traceparent: "not-a-trace" } }),
    ).rejects.toThrow(/traceparent/);
  });

  it("stdio, 2026-07-28: an input_required round, a JSON-RPC error and the caller's _meta on the stdio call path", async () => {
    const m = manager([modernStdioTestServer("modern-stdio", { protocolVersion: "2026-07-28" })], {
      elicitation: async () => ({ action: "accept", content: { name: "Ada" } }),
    });
    expect(textOf(await m.callTool("modern-stdio", "ask", {}))).toBe(
      "hello Ada excited=true (state state-1:\u00e9\u{1F600})",
    );
    const error = await rejectionOf(m.callTool("modern-stdio", "fail", { code: -32001, message: "nope" }));
    expect(MCPRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "RPC_ERROR", rpcCode: -32001 });
    const echoed = JSON.parse(
      textOf(await m.callTool("modern-stdio", "meta_echo", {}, { meta: { "x.test/k": 1 } })),
    );
    expect(echoed.meta).toMatchObject({ "x.test/k": 1 });
    expect(m.connectionStatus("modern-stdio").protocolVersion).toBe("2026-07-28");
  });

  it("a JSON-RPC -32000 from a live server is RPC_ERROR, not CONNECTION_LOST; the connection stays", async () => {
    const m = manager([await modernHttp()]);
    const error = await rejectionOf(m.callTool("modern", "fail", { code: -32000, message: "busy" }));
    expect(MCPRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "RPC_ERROR", rpcCode: -32000 });
    expect(textOf(await m.callTool("modern", "echo", { text: "still" }))).toBe("still");
  });
});
