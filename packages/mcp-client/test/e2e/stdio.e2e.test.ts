// Real stdio child processes (the test-servers package) through the manager.
import { execFileSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readCallLog, STDIO_TEST_SERVER, stdioTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import {
  type MCPConnectedEvent,
  MCPConnectionError,
  type MCPDisconnectedEvent,
  MCPRequestError,
  MCPTimeoutError,
} from "../../src/index.js";
import { cleanup, expectGone, manager, pidOf, rejectionOf, tempDir, textOf } from "./helpers.js";

afterEach(cleanup);

function startedPids(file: string): number[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("connection reuse", () => {
  it("keeps one child process across 500 calls", async () => {
    const m = manager([stdioTestServer("reuse")]);
    const connected: MCPConnectedEvent[] = [];
    m.on("connected", (event) => connected.push(event));
    const pids = new Set<number>();
    for (let i = 0; i < 500; i++) pids.add(await pidOf(m, "reuse"));
    expect(pids.size).toBe(1);
    expect(connected).toHaveLength(1);
    expect(connected[0]).toMatchObject({ serverName: "reuse", transport: "stdio", attempt: 1 });
    expect(connected[0]?.pid).toBe([...pids][0]);
    expect(m.connectionStatus("reuse")).toMatchObject({ state: "connected", pid: [...pids][0] });
    // The SDK client hands the negotiated protocol version to the transport after initialize.
    const transport = (await m.getClient("reuse")).transport as { protocolVersion?: string } | undefined;
    expect(transport?.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("shares one connection attempt between 64 concurrent first calls (one child)", async () => {
    const startLog = join(tempDir(), "starts.log");
    const m = manager([stdioTestServer("single", { startLog, startupDelayMs: 200 })]);
    let connectedCount = 0;
    m.on("connected", () => connectedCount++);
    const pids = await Promise.all(Array.from({ length: 64 }, () => pidOf(m, "single")));
    expect(new Set(pids).size).toBe(1);
    expect(startedPids(startLog)).toEqual([pids[0]]);
    expect(connectedCount).toBe(1);
  });

  it("a burst of requests of every size, sent in one turn, each gets its own reply (requests are written in groups)", async () => {
    const m = manager([stdioTestServer("burst", {}, { toolTimeout: 120, connectionTimeout: 120 })]);
    await m.callTool("burst", "echo", { text: "warm" });
    // 300 calls in one synchronous loop: small ones, ones around the 256 KiB group limit, and big ones.
    const sizes = Array.from(
      { length: 300 },
      (_, i) => [1, 100, 4_000, 70_000, 260_000, 600_000][i % 6] ?? 1,
    );
    const texts = sizes.map((size, i) => `${i}:`.padEnd(size, String.fromCharCode(97 + (i % 26))));
    const replies = await Promise.all(texts.map((text) => m.callTool("burst", "echo", { text })));
    const mismatched = replies.map((reply, i) => (textOf(reply) === texts[i] ? -1 : i)).filter((i) => i >= 0);
    expect(mismatched).toEqual([]);
    // The connection is still good for the next call, and so is closing with requests just sent.
    expect(textOf(await m.callTool("burst", "echo", { text: "after" }))).toBe("after");
    const last = m.callTool("burst", "echo", { text: "sent just before close" }).then(
      (reply) => expect(textOf(reply)).toBe("sent just before close"),
      (error: unknown) => expect(error).toMatchObject({ code: "CONNECTION_CLOSED" }),
    );
    await m.closeAll();
    await last;
  });
});

describe("failures of a live connection", () => {
  it("crash → CONNECTION_LOST with exit code and stderr → automatic reconnect on the next call", async () => {
    const m = manager([stdioTestServer("crashy")]);
    const disconnected: MCPDisconnectedEvent[] = [];
    m.on("disconnected", (event) => disconnected.push(event));
    const first = await pidOf(m, "crashy");
    const error = await rejectionOf(m.callTool("crashy", "crash", { code: 3 }));
    expect(MCPConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "CONNECTION_LOST", serverName: "crashy", exitCode: 3 });
    expect(error.message).toContain('tools/call "crash"');
    expect(error.message).toMatch(/crashing on purpose\n?$/);
    expect(disconnected).toEqual([
      expect.objectContaining({ serverName: "crashy", reason: "lost", pid: first, exitCode: 3 }),
    ]);
    const second = await pidOf(m, "crashy");
    expect(second).not.toBe(first);
    expectGone([first]);
    // The stderr log is truncated at each attempt: the crash belongs to the previous one.
    const log = readFileSync(error.stderrLogPath as string, "utf8");
    expect(log).not.toContain("crashing on purpose");
  });

  it("a server that dies on its 3rd call fails that call only", async () => {
    const m = manager([stdioTestServer("third", { crashOnCall: 3 })]);
    await m.callTool("third", "echo", { text: "1" });
    await m.callTool("third", "echo", { text: "2" });
    await expect(m.callTool("third", "echo", { text: "3" })).rejects.toMatchObject({
      code: "CONNECTION_LOST",
      exitCode: 70,
    });
    expect(textOf(await m.callTool("third", "echo", { text: "4" }))).toBe("4");
  });

  it("hang → MCPTimeoutError close to tool_timeout; cancellation is sent; the connection stays", async () => {
    const callLog = join(tempDir(), "calls.log");
    const m = manager([stdioTestServer("hangs", { callLog }, { toolTimeout: 1 })]);
    const pid = await pidOf(m, "hangs");
    const started = performance.now();
    const error = await rejectionOf(m.callTool("hangs", "hang"));
    const elapsed = performance.now() - started;
    expect(MCPTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "TOOL_TIMEOUT",
      serverName: "hangs",
      toolName: "hang",
      timeoutMs: 1000,
    });
    expect(elapsed).toBeGreaterThanOrEqual(990); // a timer never fires early; no upper bound on a busy machine
    await until(() => readCallLog(callLog).some((entry) => entry.cancelled === "hang"));
    expect(await pidOf(m, "hangs")).toBe(pid);
  });

  it("an over-limit reply fails with a clear error and the server stays usable", async () => {
    const m = manager([stdioTestServer("big", {}, { maxMessageBytes: 1024 * 1024 })]);
    const pid = await pidOf(m, "big");
    const error = await rejectionOf(m.callTool("big", "big", { bytes: 2_000_000 }));
    expect(MCPRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "REPLY_TOO_LARGE", serverName: "big", limitBytes: 1_048_576 });
    expect(error.replyBytes).toBeGreaterThan(2_000_000);
    expect(error.message).toContain('MCP server "big"');
    expect(error.message).toContain("1048576 bytes (max_message_bytes)");
    expect(textOf(await m.callTool("big", "big", { bytes: 500_000 }))).toHaveLength(500_000);
    expect(await pidOf(m, "big")).toBe(pid);
  });

  it("the manager's maxMessageBytes applies to servers without their own", async () => {
    const m = manager([stdioTestServer("capped")], { maxMessageBytes: 4096 });
    await expect(m.callTool("capped", "big", { bytes: 10_000 })).rejects.toMatchObject({
      code: "REPLY_TOO_LARGE",
      limitBytes: 4096,
    });
    expect(textOf(await m.callTool("capped", "echo", { text: "still here" }))).toBe("still here");
  });

  it("ignores garbage on stdout, before the handshake and between replies", async () => {
    const m = manager([stdioTestServer("noisy", { garbageAtStart: true })]);
    expect(textOf(await m.callTool("noisy", "garbage"))).toBe("ok");
    expect(textOf(await m.callTool("noisy", "echo", { text: "fine" }))).toBe("fine");
  });
});

describe("start-up failures", () => {
  it("exit before the handshake → SERVER_EXITED whose message ends with the last 4000 characters of stderr", async () => {
    const m = manager([
      stdioTestServer("broken", {
        stderrLines: 400,
        exitAtStart: 2,
        message: "FATAL: DATABASE_URL is not set",
      }),
    ]);
    const error = await rejectionOf(m.callTool("broken", "echo", { text: "x" }));
    expect(MCPConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "SERVER_EXITED", exitCode: 2, transport: "stdio" });
    const log = readFileSync(error.stderrLogPath as string, "utf8");
    expect(log.length).toBeGreaterThan(4000);
    expect(error.message.endsWith(log.slice(-4000))).toBe(true);
    expect(error.message).toContain("FATAL: DATABASE_URL is not set");
    expect(error.message).not.toContain("stderr line 00000");
    expect(error.message).toMatch(/exited with code 2 before completing the MCP handshake/);
  });

  it("SERVER_EXITED names the whole command line to run by hand: shell-quoted, the secret argument redacted", async () => {
    const canary = "canary-7d1e0b44-do-not-leak";
    const behaviour = ["--exit-at-start", "1", "--note", "it's a $HOME `id`", "--empty", ""];
    const m = manager(
      [
        stdioTestServer(
          "by-hand",
          {},
          { args: [STDIO_TEST_SERVER, ...behaviour, "--token", "${AGENTFORGE_TEST_TOKEN}"] },
        ),
      ],
      { env: { AGENTFORGE_TEST_TOKEN: canary, PATH: process.env.PATH } },
    );
    const error = await rejectionOf(m.callTool("by-hand", "echo"));
    expect(error).toMatchObject({ code: "SERVER_EXITED" });
    expect(error.message).not.toContain(canary);
    const line = /\(the end of its stderr follows\): ([^\n]*)/.exec(error.message)?.[1] as string;
    expect(line).toBeDefined();
    // A real POSIX shell reads the line back as the words the server was started with.
    const words = execFileSync("/bin/sh", ["-c", `printf '%s\\0' ${line}`], { encoding: "utf8" })
      .split("\0")
      .slice(0, -1);
    expect(words).toEqual([process.execPath, STDIO_TEST_SERVER, ...behaviour, "--token", "[REDACTED]"]);
  });

  it("command not found → COMMAND_NOT_FOUND with a fix hint", async () => {
    const m = manager([stdioTestServer("missing", {}, { command: "agentforge-no-such-command", args: [] })]);
    const error = await rejectionOf(m.callTool("missing", "echo"));
    expect(error).toMatchObject({ code: "COMMAND_NOT_FOUND", serverName: "missing" });
    expect(error.message).toContain('command "agentforge-no-such-command" was not found');
    expect(error.message).toContain("Fix:");
  });

  it("a file without the execute bit → COMMAND_NOT_EXECUTABLE; a missing cwd → SERVER_START_FAILED", async () => {
    const script = join(tempDir(), "server.sh");
    writeFileSync(script, "#!/bin/sh\necho hi\n");
    chmodSync(script, 0o644);
    const m = manager([
      stdioTestServer("noexec", {}, { command: script, args: [] }),
      stdioTestServer("nocwd", {}, { cwd: "/definitely/not/a/folder" }),
    ]);
    await expect(m.callTool("noexec", "echo")).rejects.toMatchObject({ code: "COMMAND_NOT_EXECUTABLE" });
    const error = await rejectionOf(m.callTool("nocwd", "echo"));
    expect(error).toMatchObject({ code: "SERVER_START_FAILED" });
    expect(error.message).toContain("/definitely/not/a/folder");
  });

  it("no handshake → HANDSHAKE_TIMEOUT after connection_timeout, and the child is killed", async () => {
    const startLog = join(tempDir(), "starts.log");
    const m = manager([
      // Long enough for the child to start and write its stderr line on a busy machine (load 25+).
      stdioTestServer("silent", { noHandshake: true, startLog }, { connectionTimeout: 20 }),
    ]);
    const error = await rejectionOf(m.callTool("silent", "echo"));
    expect(error).toMatchObject({ code: "HANDSHAKE_TIMEOUT", serverName: "silent" });
    expect(error.message).toMatch(/never answering MCP\n?$/);
    expectGone(startedPids(startLog));
  });

  it("backs off after a failed attempt: the next call fails fast with the same code", async () => {
    const startLog = join(tempDir(), "starts.log");
    const m = manager([stdioTestServer("down", { exitAtStart: 1, startLog })], {
      backoff: { initialDelayMs: 60_000 },
    });
    await expect(m.callTool("down", "echo")).rejects.toMatchObject({ code: "SERVER_EXITED" });
    const error = await rejectionOf(m.callTool("down", "echo"));
    expect(startedPids(startLog)).toHaveLength(1); // failed fast: no second process was started
    expect(error).toMatchObject({ code: "SERVER_EXITED" });
    // Cause first, then the retry state, then the fix (and the stderr section).
    expect(error.message).toMatch(
      /^MCP server "down" \(pid \d+\) exited with code 1 before completing the MCP handshake; not retried for another \d+ ms \(backoff after 1 failed attempt\)\. Fix: run /,
    );
    expect(m.connectionStatus("down")).toMatchObject({ state: "backoff", failures: 1 });
    await m.close("down"); // close() resets the backoff
    expect(m.connectionStatus("down").state).toBe("idle");
  });
});

describe("calls", () => {
  it("plain calls and calls asking for progress, side by side on one connection, each get their own reply", async () => {
    const callLog = join(tempDir(), "calls.log");
    const m = manager([stdioTestServer("paths", { callLog }, { toolTimeout: 120 })]);
    await m.listTools("paths");
    const progressSeen: number[] = [];
    const calls = Array.from({ length: 200 }, (_, i) =>
      i % 4 === 3
        ? m.callTool(
            "paths",
            "progress",
            { steps: 2, intervalMs: 1 },
            { onprogress: (p) => progressSeen.push(p.progress) },
          )
        : m.callTool("paths", "echo", { text: `call ${i}` }),
    );
    const replies = await Promise.all(calls);
    replies.forEach((reply, i) => {
      expect(textOf(reply)).toBe(i % 4 === 3 ? "done 2" : `call ${i}`);
    });
    expect(progressSeen).toHaveLength(100);
    const entries = readCallLog(callLog);
    expect(new Set(entries.map((e) => e.requestId)).size).toBe(200);
  });

  it("cancels through an AbortSignal: REQUEST_CANCELLED, and the server receives notifications/cancelled", async () => {
    const callLog = join(tempDir(), "calls.log");
    const m = manager([stdioTestServer("cancel", { callLog })]);
    await pidOf(m, "cancel");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const error = await rejectionOf(
      m.callTool("cancel", "cancellable_sleep", { ms: 10_000 }, { signal: controller.signal }),
    );
    expect(error).toMatchObject({ code: "REQUEST_CANCELLED", toolName: "cancellable_sleep" });
    await until(() => readCallLog(callLog).some((entry) => entry.cancelled === "cancellable_sleep"));
    await expect(
      m.callTool("cancel", "echo", { text: "x" }, { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ code: "REQUEST_CANCELLED" });
  });

  it("an onprogress callback that throws or rejects does not stop the call: each failure is a process warning", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => {
      if ((warning as { code?: string }).code === "AGENTFORGE_LISTENER_ERROR") warnings.push(warning.message);
    };
    process.on("warning", onWarning);
    try {
      const m = manager([stdioTestServer("progress")]);
      let calls = 0;
      const done = await m.callTool(
        "progress",
        "progress",
        { steps: 2, intervalMs: 10 },
        {
          onprogress: () => {
            calls += 1;
            if (calls === 1) throw new Error("progress listener broke");
            return Promise.reject(new Error("async progress listener broke"));
          },
        },
      );
      expect(textOf(done)).toBe("done 2");
      await expect.poll(() => warnings.length).toBe(2);
      expect(warnings).toEqual([
        'The onprogress callback of a call to tool "progress" of MCP server "progress" failed (Error: progress listener broke); the call went on.',
        'The onprogress callback of a call to tool "progress" of MCP server "progress" failed (Error: async progress listener broke); the call went on.',
      ]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("delivers progress, resets the timeout on progress when asked, and enforces the max total timeout", async () => {
    // The tool takes 8 × 800 ms, longer than the 5 s tool timeout, with progress every 800 ms: only a
    // gap of over 5 s between two progress notifications (far beyond a busy machine's jitter; 400 ms was
    // not at load 41) could fail the first call.
    const m = manager([stdioTestServer("progress", {}, { toolTimeout: 5 })]);
    const seen: number[] = [];
    const done = await m.callTool(
      "progress",
      "progress",
      { steps: 8, intervalMs: 800 },
      { resetTimeoutOnProgress: true, onprogress: (p) => seen.push(p.progress) },
    );
    expect(textOf(done)).toBe("done 8");
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await expect(m.callTool("progress", "progress", { steps: 8, intervalMs: 800 })).rejects.toMatchObject({
      code: "TOOL_TIMEOUT",
    });
    const capped = await rejectionOf(
      m.callTool(
        "progress",
        "progress",
        { steps: 20, intervalMs: 100 },
        { resetTimeoutOnProgress: true, maxTotalTimeoutMs: 700 },
      ),
    );
    expect(capped).toMatchObject({ code: "TOOL_TIMEOUT", timeoutMs: 700 });
    expect(capped.message).toContain("max_total_timeout");
  });

  it("a plain call (no progress) past max_total_timeout: TOOL_TIMEOUT naming max_total_timeout, cancellation sent", async () => {
    const callLog = join(tempDir(), "calls.log");
    const m = manager([stdioTestServer("capped-plain", { callLog }, { toolTimeout: 60 })]);
    await pidOf(m, "capped-plain");
    const error = await rejectionOf(
      m.callTool("capped-plain", "cancellable_sleep", { ms: 30_000 }, { maxTotalTimeoutMs: 300 }),
    );
    expect(error).toMatchObject({ code: "TOOL_TIMEOUT", timeoutMs: 300, toolName: "cancellable_sleep" });
    expect(error.message).toContain("max_total_timeout");
    await until(() => readCallLog(callLog).some((entry) => entry.cancelled === "cancellable_sleep"));
    expect(textOf(await m.callTool("capped-plain", "echo", { text: "still here" }))).toBe("still here");
  });

  it("honours max_concurrent_calls", async () => {
    const m = manager([stdioTestServer("limited", {}, { maxConcurrentCalls: 2 })]);
    await Promise.all(Array.from({ length: 6 }, () => m.callTool("limited", "sleep", { ms: 100 })));
    const stats = JSON.parse(textOf(await m.callTool("limited", "stats"))) as {
      inFlightMax: number;
      total: number;
    };
    expect(stats.inFlightMax).toBe(2);
    expect(stats.total).toBe(6);
  });

  it("returns tool-level failures as isError results and JSON-RPC errors as RPC_ERROR", async () => {
    const m = manager([stdioTestServer("errors")]);
    const failed = await m.callTool("errors", "fail", { message: "nope" });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain("nope");
    const invalid = await m.callTool("errors", "add", { a: "not a number", b: 1 });
    expect(invalid.isError).toBe(true);
    const rpc = await rejectionOf(m.callTool("errors", "rpc_error"));
    expect(MCPRequestError.isInstance(rpc)).toBe(true);
    expect(rpc).toMatchObject({ code: "RPC_ERROR", rpcCode: -32050, toolName: "rpc_error" });
    expect(rpc.message).toContain("the test server refuses this call");
    const structured = await m.callTool("errors", "structured", { value: 21 });
    expect(structured.structuredContent).toEqual({ doubled: 42 });
  });

  it("gives the child a minimal environment plus its resolved env entries", async () => {
    const m = manager([stdioTestServer("env", {}, { env: { CHILD_VAR: "PARENT_VAR" } })], {
      env: { PATH: process.env.PATH, PARENT_VAR: "from-parent", UNRELATED_SECRET: "must-not-pass" },
    });
    const keys = JSON.parse(textOf(await m.callTool("env", "env_keys"))) as string[];
    expect(keys).toContain("CHILD_VAR");
    expect(keys).toContain("PATH");
    expect(keys).not.toContain("UNRELATED_SECRET");
    expect(textOf(await m.callTool("env", "env_value", { name: "CHILD_VAR" }))).toBe("from-parent");
  });

  it("expands ${NODE} and ${VAR} placeholders, and reports an unset one as SERVER_MISCONFIGURED", async () => {
    const m = manager(
      [
        stdioTestServer("placeholders", {}, { command: "${NODE}", args: ["${SERVER_SCRIPT}"] }),
        stdioTestServer("unset", {}, { command: "${NODE}", args: ["${NOT_SET_ANYWHERE}"] }),
      ],
      { env: { SERVER_SCRIPT: STDIO_TEST_SERVER } },
    );
    expect(textOf(await m.callTool("placeholders", "echo", { text: "ok" }))).toBe("ok");
    const error = await rejectionOf(m.callTool("unset", "echo"));
    expect(error).toMatchObject({ code: "SERVER_MISCONFIGURED", serverName: "unset" });
    expect(error.message).toContain("NOT_SET_ANYWHERE");
  });
});

describe("closing", () => {
  it("closeAll leaves no child process, not even one that ignores stdin EOF and SIGTERM", async () => {
    const startLog = join(tempDir(), "starts.log");
    const m = manager([
      stdioTestServer("one", { startLog }),
      stdioTestServer("two", { startLog }),
      stdioTestServer("stubborn", { startLog, stubborn: true }),
    ]);
    await Promise.all([pidOf(m, "one"), pidOf(m, "two"), pidOf(m, "stubborn")]);
    const pids = startedPids(startLog);
    expect(pids).toHaveLength(3);
    const closed: string[] = [];
    m.on("disconnected", (event) => closed.push(`${event.serverName}:${event.reason}`));
    await m.closeAll();
    expectGone(pids);
    expect(closed.sort()).toEqual(["one:closed", "stubborn:closed", "two:closed"]);
    // The manager stays usable: the next call starts a new child.
    expect(await pidOf(m, "one")).not.toBe(pids[0]);
  });

  it("closeAll during a connection attempt ends that child too", async () => {
    const startLog = join(tempDir(), "starts.log");
    const m = manager([stdioTestServer("slow", { startLog, startupDelayMs: 5000 })]);
    const pending = m.callTool("slow", "echo", { text: "x" });
    await until(() => startedPids(startLog).length === 1);
    await m.closeAll();
    await expect(pending).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
    expectGone(startedPids(startLog));
  });

  it("in-flight calls fail with CONNECTION_CLOSED when their server is closed", async () => {
    const m = manager([stdioTestServer("busy")]);
    await pidOf(m, "busy");
    const pending = m.callTool("busy", "sleep", { ms: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await m.close("busy");
    await expect(pending).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
  });
});
