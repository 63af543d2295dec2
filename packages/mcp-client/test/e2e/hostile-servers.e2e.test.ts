// Hostile MCP servers against the public API: whatever a server sends, the host survives (no uncaught
// exception, no unhandled rejection), failures are typed MCPErrors, the other servers of the same
// manager stay usable, and no child process is left behind.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MCPServerConfig } from "@agentforge/mcp-config";
import {
  httpTestServer,
  processState,
  type StdioTestServerBehaviour,
  startHttpTestServer,
  stdioTestServer,
} from "@agentforge/test-servers";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type DiscoveredTool,
  discoverAll,
  discoverTools,
  MCPConnectionError,
  type MCPListenerErrorEvent,
  MCPRequestError,
  MCPTimeoutError,
  type MCPToolsChangedEvent,
} from "../../src/index.js";
import { cleanup, expectGone, manager, onCleanup, rejectionOf, tempDir, textOf } from "./helpers.js";

// Process-level detector: anything that escapes into the host fails the test that caused it.
const escaped: unknown[] = [];
const onEscape = (error: unknown) => escaped.push(error);
beforeAll(() => {
  process.on("uncaughtException", onEscape);
  process.on("unhandledRejection", onEscape);
});
afterAll(() => {
  process.off("uncaughtException", onEscape);
  process.off("unhandledRejection", onEscape);
});

const pids: number[] = [];
afterEach(async () => {
  await cleanup();
  expectGone(pids.splice(0));
  // Give callbacks scheduled by the closing connections a turn before looking.
  await new Promise((resolve) => setImmediate(resolve));
  expect(escaped.splice(0).map(String)).toEqual([]);
});

const hostile = (name: string, behaviour: StdioTestServerBehaviour = {}, overrides = {}) =>
  stdioTestServer(name, { hostile: true, ...behaviour }, overrides);

/** A manager with the hostile server(s) plus a well-behaved one, recording every child's pid. */
function withGood(configs: MCPServerConfig[], options: Parameters<typeof manager>[1] = {}) {
  const m = manager([...configs, stdioTestServer("good")], options);
  m.on("connected", (event) => {
    if (event.pid !== undefined) pids.push(event.pid);
  });
  return m;
}

async function expectGoodUsable(m: ReturnType<typeof manager>): Promise<void> {
  expect(textOf(await m.callTool("good", "echo", { text: "still here" }))).toBe("still here");
}

function nextToolsChanged(m: ReturnType<typeof manager>, serverName: string, has?: string) {
  return new Promise<MCPToolsChangedEvent>((resolve) => {
    const unsubscribe = m.on("toolsChanged", (event) => {
      if (event.serverName !== serverName) return;
      if (has && !event.tools.some((tool) => tool.toolName === has)) return;
      unsubscribe();
      resolve(event);
    });
  });
}

async function stats(m: ReturnType<typeof manager>, server: string) {
  return JSON.parse(textOf(await m.callTool(server, "stats"))) as {
    toolsListed: number;
    clientReplies: { method: string; error?: { code: number; message: string } }[];
  };
}

const problemCodes = (tool: DiscoveredTool | undefined) => (tool?.problems ?? []).map((p) => p.code);

describe("hostile servers (stdio)", { timeout: 120_000 }, () => {
  it("a listener that throws or rejects never reaches the host; listenerError and onListenerError see it", async () => {
    // A failing listenerError listener is a process warning: heard here as any program would hear it.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => {
      if ((warning as { code?: string }).code === "AGENTFORGE_LISTENER_ERROR") warnings.push(warning.message);
    };
    process.on("warning", onWarning);
    onCleanup(() => process.off("warning", onWarning));
    const seen: { error: unknown; event: string; serverName: string }[] = [];
    const m = withGood([hostile("bad")], {
      onListenerError: (error, event, serverName) => seen.push({ error, event, serverName }),
    });
    const announced: MCPListenerErrorEvent[] = [];
    m.on("listenerError", (event) => announced.push(event));
    m.on("listenerError", () => {
      throw new Error("a listenerError listener that throws");
    });
    m.on("connected", () => {
      throw new Error("connected listener bug");
    });
    m.on("toolsChanged", () => {
      throw new Error("toolsChanged listener bug (e.g. a registry conflict)");
    });
    m.on("toolsChanged", async () => {
      throw new Error("async toolsChanged listener bug");
    });
    let laterListenerCalls = 0;
    m.on("toolsChanged", () => {
      laterListenerCalls++;
    });
    await discoverTools(m, "bad");
    const changed = nextToolsChanged(m, "bad", "added_later");
    await m.callTool("bad", "add_tool", { name: "added_later" });
    await changed;
    await vi.waitFor(() => expect(seen.filter((s) => s.event === "toolsChanged")).toHaveLength(2));
    expect(laterListenerCalls).toBe(1);
    expect(seen.map((s) => `${s.event}:${s.serverName}:${(s.error as Error).message}`)).toEqual(
      expect.arrayContaining([
        "connected:bad:connected listener bug",
        "toolsChanged:bad:toolsChanged listener bug (e.g. a registry conflict)",
        "toolsChanged:bad:async toolsChanged listener bug",
      ]),
    );
    expect(announced.map((a) => `${a.event}:${a.serverName}`)).toEqual(
      expect.arrayContaining(["connected:bad", "toolsChanged:bad"]),
    );
    await vi.waitFor(() =>
      expect(warnings).toContain(
        'A listener of the "MCPClientManager listenerError" event failed (Error: a listenerError listener that throws); the event was delivered to the other listeners.',
      ),
    );
    await expectGoodUsable(m);
  });

  it("duplicate tool names at start and after list_changed are delivered, flagged DUPLICATE_NAME", async () => {
    const m = withGood([hostile("dup_start", { duplicateTools: true }), hostile("dup_later")]);
    // A listener that throws on duplicates, as a registry would: contained.
    m.on("toolsChanged", (event) => {
      if (event.tools.filter((t) => t.toolName === "echo").length > 1) throw new Error("duplicate tool");
    });
    const atStart = await discoverTools(m, "dup_start");
    const echoes = atStart.filter((tool) => tool.toolName === "echo");
    expect(echoes).toHaveLength(2);
    for (const echo of echoes) expect(problemCodes(echo)).toContain("DUPLICATE_NAME");
    expect(problemCodes(atStart.find((t) => t.toolName === "add"))).toEqual([]);

    await discoverTools(m, "dup_later");
    const changed = new Promise<MCPToolsChangedEvent>((resolve) => {
      m.on("toolsChanged", (event) => {
        if (event.serverName === "dup_later" && event.tools.filter((t) => t.toolName === "echo").length > 1)
          resolve(event);
      });
    });
    await m.callTool("dup_later", "make_duplicates");
    const event = await changed;
    expect(event.tools.filter((t) => problemCodes(t).includes("DUPLICATE_NAME"))).toHaveLength(2);
    expect(m.cachedTools("dup_later")?.filter((t) => t.toolName === "echo")).toHaveLength(2);
    expect(textOf(await m.callTool("dup_later", "echo", { text: "ok" }))).toBe("ok");
    await expectGoodUsable(m);
  });

  it("garbage and megabyte-long non-JSON lines on stdout, during the handshake and during a call", async () => {
    const m = withGood([hostile("noisy", { noiseAtStart: 1_500_000, garbageAtStart: true })]);
    expect(textOf(await m.callTool("noisy", "echo", { text: "after handshake noise" }))).toBe(
      "after handshake noise",
    );
    expect(textOf(await m.callTool("noisy", "stdout_noise", { lines: 20, bytes: 2_000_000 }))).toBe(
      "noise written",
    );
    expect(textOf(await m.callTool("noisy", "echo", { text: "after call noise" }))).toBe("after call noise");
    expect(m.connectionStatus("noisy").state).toBe("connected");
    await expectGoodUsable(m);
  });

  it("replies with unknown ids, id null, no id and a second answer to an answered call are ignored; the connection stays usable", async () => {
    const m = withGood([hostile("strays")]);
    const disconnected: unknown[] = [];
    m.on("disconnected", (event) => disconnected.push(event));
    expect(textOf(await m.callTool("strays", "stray_replies"))).toBe("strays sent");
    // The second answer arrives while this call is in flight: it is not taken for this call's reply.
    expect(textOf(await m.callTool("strays", "sleep", { ms: 100 }))).toBe("slept 100 ms");
    expect(textOf(await m.callTool("strays", "echo", { text: "next" }))).toBe("next");
    expect(disconnected).toEqual([]);
    await expectGoodUsable(m);
  });

  it("server-to-client requests the client did not advertise are answered with -32601 at once", async () => {
    const m = withGood([hostile("asker")]);
    for (const method of ["sampling/createMessage", "elicitation/create", "roots/list"]) {
      const outcome = JSON.parse(textOf(await m.callTool("asker", "ask_client", { method })));
      expect(outcome).toMatchObject({ method, error: { code: -32601 } });
    }
    const recorded = (await stats(m, "asker")).clientReplies;
    expect(recorded.map((r) => `${r.method}:${r.error?.code}`)).toEqual([
      "sampling/createMessage:-32601",
      "elicitation/create:-32601",
      "roots/list:-32601",
    ]);
    await expectGoodUsable(m);
  });

  it("hostile tool names and schemas come through as data, flagged, without prototype pollution", async () => {
    const m = withGood([hostile("weird", { hostileTools: true })]);
    const result = await discoverAll(m);
    expect(result.servers.map((s) => `${s.serverName}:${s.status}`)).toEqual(["weird:ok", "good:ok"]);
    const tools = await discoverTools(m, "weird");
    const byName = (name: string) => tools.find((tool) => tool.toolName === name);
    for (const name of ["__proto__", "constructor", "toString"]) {
      const tool = byName(name);
      expect(tool?.identity).toBe(`weird.${name}`);
      expect(Object.getPrototypeOf(tool)).toBe(Object.prototype);
    }
    expect(({} as Record<string, unknown>).description).toBeUndefined();
    expect(({} as Record<string, unknown>).inputSchema).toBeUndefined();
    expect(problemCodes(byName("not model safe/name with spaces"))).toContain("NAME_NOT_MODEL_SAFE");
    expect(problemCodes(byName("x".repeat(200)))).toContain("NAME_NOT_MODEL_SAFE");
    expect(byName("schema_null")?.inputSchema).toBeNull();
    expect(problemCodes(byName("schema_null"))).toContain("INPUT_SCHEMA_NOT_OBJECT");
    expect(byName("schema_string")?.inputSchema).toBe("not a schema");
    expect(byName("schema_array")?.inputSchema).toEqual([1, 2, 3]);
    expect(byName("schema_self_ref")?.inputSchema).toMatchObject({
      $defs: { node: { $ref: "#/$defs/node" } },
    });
    expect(byName("output_schema_loop")?.outputSchema).toMatchObject({ $ref: "#/$defs/a" });
    expect(problemCodes(byName("description_number"))).toContain("INVALID_DEFINITION");
    // Entries without a string name cannot be tools: left out.
    expect(tools.some((tool) => typeof tool.toolName !== "string")).toBe(false);
    expect(textOf(await m.callTool("weird", "echo", { text: "fine" }))).toBe("fine");
    await expectGoodUsable(m);
  });

  it("a flood of 5,000 log and progress notifications during one call: the call completes", async () => {
    const m = withGood([hostile("flooder")]);
    let progress = 0;
    const result = await m.callTool("flooder", "flood", { count: 2500 }, { onprogress: () => progress++ });
    expect(textOf(result)).toBe("flooded 2500");
    expect(progress).toBe(2500);
    // A progress callback that throws is contained too.
    const again = await m.callTool(
      "flooder",
      "flood",
      { count: 200 },
      {
        onprogress: () => {
          throw new Error("progress callback bug");
        },
      },
    );
    expect(textOf(again)).toBe("flooded 200");
    await expectGoodUsable(m);
  });

  it("a storm of 2,000 list_changed notifications causes at most 3 tools/list requests", async () => {
    const m = withGood([hostile("stormy")]);
    await discoverTools(m, "stormy");
    const before = (await stats(m, "stormy")).toolsListed;
    const changed = nextToolsChanged(m, "stormy", "storm_done");
    expect(textOf(await m.callTool("stormy", "list_changed_storm", { count: 2000 }))).toBe(
      "sent 2000 list_changed",
    );
    // storm_done is listed only after the storm's last notification: this event comes from the
    // coalesced fetch made after the burst, so every tools/list the burst caused is counted below.
    await changed;
    const after = (await stats(m, "stormy")).toolsListed;
    expect(after - before).toBeGreaterThanOrEqual(1);
    expect(after - before).toBeLessThanOrEqual(3);
    await expectGoodUsable(m);
  });

  it("content parts of unknown types and invalid base64 images: callTool returns, the parts are replaced by notes", async () => {
    const m = withGood([hostile("content")]);
    const result = await m.callTool("content", "weird_content");
    expect(result.isError).not.toBe(true);
    expect(result.content).toHaveLength(6);
    expect(result.content.every((part) => part.type === "text")).toBe(true);
    const texts = result.content.map((part) => (part.type === "text" ? part.text : ""));
    expect(texts[0]).toBe("before");
    expect(texts[5]).toBe("after");
    expect(texts[1]).toContain('unknown type "video"');
    expect(texts[2]).toContain("image content omitted");
    await expectGoodUsable(m);
  });

  it("a tools/call result that is not a tool result (content not a list, isError not a boolean): a typed INVALID_REPLY", async () => {
    const m = withGood([hostile("malformed", {}, { protocolVersion: "2025-11-25" })]);
    const error = await rejectionOf(m.callTool("malformed", "malformed_result"));
    expect(MCPRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "INVALID_REPLY",
      serverName: "malformed",
      toolName: "malformed_result",
    });
    expect(textOf(await m.callTool("malformed", "echo", { text: "next" }))).toBe("next");
    await expectGoodUsable(m);
  });

  it("structuredContent that breaks the declared outputSchema: a typed INVALID_REPLY, the server stays usable", async () => {
    const m = withGood([hostile("structured")]);
    await discoverTools(m, "structured");
    const error = await rejectionOf(m.callTool("structured", "bad_structured"));
    expect(MCPRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "INVALID_REPLY",
      serverName: "structured",
      toolName: "bad_structured",
    });
    expect(textOf(await m.callTool("structured", "echo", { text: "next" }))).toBe("next");
    await expectGoodUsable(m);
  });

  it("a reply that arrives after the call's timeout is ignored, and the next call works", async () => {
    const m = withGood([hostile("late")]);
    const disconnected: unknown[] = [];
    m.on("disconnected", (event) => disconnected.push(event));
    const error = await rejectionOf(m.callTool("late", "sleep", { ms: 1500 }, { timeoutMs: 300 }));
    expect(MCPTimeoutError.isInstance(error)).toBe(true);
    expect(error.code).toBe("TOOL_TIMEOUT");
    // This reply is written after the late one, so the late one has been read when this resolves.
    expect(textOf(await m.callTool("late", "sleep", { ms: 1600 }))).toBe("slept 1600 ms");
    expect(textOf(await m.callTool("late", "echo", { text: "next" }))).toBe("next");
    expect(disconnected).toEqual([]);
    await expectGoodUsable(m);
  });

  it("a server that closes its stdout but keeps running is a lost connection at once; the next use reconnects", async () => {
    // With a 10-minute tool timeout, only the detection of the closed stdout can end this call in time.
    const m = withGood([hostile("mute", {}, { toolTimeout: 600 })]);
    const lost: { reason: string; pid?: number }[] = [];
    m.on("disconnected", (event) => {
      if (event.serverName === "mute") lost.push(event);
    });
    const first = Number(textOf(await m.callTool("mute", "pid")));
    const error = await rejectionOf(m.callTool("mute", "close_stdout"));
    expect(MCPConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "CONNECTION_LOST", serverName: "mute" });
    expect(error.message).toContain("closed its stdout but kept running");
    expect(lost).toMatchObject([{ reason: "lost", pid: first }]);
    const second = Number(textOf(await m.callTool("mute", "pid")));
    expect(second).not.toBe(first);
    await vi.waitFor(() => expect(processState(first)).toBe("gone"), { timeout: 30_000, interval: 50 });
    await expectGoodUsable(m);
  });
});

describe("hostile servers (HTTP)", { timeout: 120_000 }, () => {
  it("duplicates, hostile definitions, client requests, weird content and a list_changed storm", async () => {
    const http = await startHttpTestServer({ hostile: true, hostileTools: true, duplicateTools: true });
    onCleanup(() => http.stop());
    const m = withGood([httpTestServer("remote", http.url)]);
    const tools = await discoverTools(m, "remote");
    expect(tools.filter((t) => t.toolName === "echo")).toHaveLength(2);
    expect(tools.find((t) => t.toolName === "__proto__")?.identity).toBe("remote.__proto__");
    expect(tools.find((t) => t.toolName === "schema_null")?.inputSchema).toBeNull();
    const outcome = JSON.parse(textOf(await m.callTool("remote", "ask_client", { method: "roots/list" })));
    expect(outcome).toMatchObject({ error: { code: -32601 } });
    const content = await m.callTool("remote", "weird_content");
    expect(content.content).toHaveLength(6);
    const before = (await stats(m, "remote")).toolsListed;
    const changed = nextToolsChanged(m, "remote", "storm_done");
    await m.callTool("remote", "list_changed_storm", { count: 2000 });
    await changed;
    // Coalesced: a handful of tools/list requests for 2000 notifications. How many exactly depends on
    // how the notifications spread out in time (a loaded machine spreads them), never near 2000.
    expect((await stats(m, "remote")).toolsListed - before).toBeLessThanOrEqual(20);
    await expectGoodUsable(m);
  });
});

describe("redaction where text is cut", { timeout: 120_000 }, () => {
  const VALUE = "sk-hostile-7c1e94d2b05a";

  it("a value split across the 64 KiB stderr read boundary is redacted in the log file and the error", async () => {
    const logDir = tempDir("mcp-logs-");
    // stderr is read in 64 KiB pieces; the old code flushed 128 KiB of an unfinished line at once, so
    // 131,072 is where a value used to be cut in two. Any boundary must hold now.
    const offsets = [131_072 - 5, 131_072 - 12, 65_536 - 5];
    const configs = offsets.map((offset, i) =>
      stdioTestServer(
        `split${i}`,
        { stderrValueEnv: "LEAKED", stderrValueOffset: offset, exitAtStart: 1 },
        { env: { LEAKED: "HOSTILE_SECRET" } },
      ),
    );
    const m = withGood(configs, { env: { ...process.env, HOSTILE_SECRET: VALUE }, logDir });
    const failures: unknown[] = [];
    m.on("connectionFailed", (event) => failures.push(event.error.message));
    for (let i = 0; i < offsets.length; i++) {
      const error = await rejectionOf(m.callTool(`split${i}`, "echo", { text: "x" }));
      expect(error).toMatchObject({ code: "SERVER_EXITED" });
      expect(error.message).toContain("[REDACTED] end of line");
      const log = readFileSync(join(logDir, `split${i}.stderr.log`), "utf8");
      expect(log.length).toBeGreaterThan(offsets[i] as number);
      expect(log).toContain("[REDACTED] end of line");
      for (const text of [log, error.message]) {
        expect(text).not.toContain(VALUE.slice(0, 8));
        expect(text).not.toContain(VALUE.slice(-8));
      }
    }
    expect(JSON.stringify(failures)).not.toContain(VALUE.slice(0, 8));
    expect(failures).toHaveLength(offsets.length);
    await expectGoodUsable(m);
  });

  it("a value at the truncation edge of a non-JSON stdout line is redacted before the line is cut", async () => {
    const logDir = tempDir("mcp-logs-");
    const m = withGood(
      [
        stdioTestServer(
          "edge",
          { stdoutValueEnv: "LEAKED", stdoutValueOffset: 200 - 6, exitAtStart: 1 },
          { env: { LEAKED: "HOSTILE_SECRET" } },
        ),
      ],
      { env: { ...process.env, HOSTILE_SECRET: VALUE }, logDir },
    );
    const events: string[] = [];
    m.on("connectionFailed", (event) => events.push(event.error.message));
    const error = await rejectionOf(m.callTool("edge", "echo", { text: "x" }));
    expect(error).toMatchObject({ code: "SERVER_EXITED" });
    expect(error.message).toContain("non-JSON on stdout");
    for (const text of [error.message, ...events, m.connectionStatus("edge").lastError ?? ""]) {
      expect(text).not.toContain(VALUE.slice(0, 6));
    }
    expect(existsSync(join(logDir, "edge.stderr.log"))).toBe(true);
    await expectGoodUsable(m);
  });
});
