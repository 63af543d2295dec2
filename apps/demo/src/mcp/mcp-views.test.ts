import { describe, expect, it } from "vitest";
import { errorViewOf, healthView, liveInfo, serverView, splitStderrSection } from "./mcp-views.js";

describe("splitStderrSection", () => {
  it("splits a stdio error into the message and the stderr tail it ends with", () => {
    const text =
      'MCP server "broken" (pid 7) exited with code 3 before completing the MCP handshake.\nLast 4000 characters of the stderr of "broken" (/tmp/logs/broken.stderr.log):\nline 1\nline 2\n';
    expect(splitStderrSection(text)).toEqual({
      message: 'MCP server "broken" (pid 7) exited with code 3 before completing the MCP handshake.',
      stderrTail: "line 1\nline 2",
    });
  });

  it("an empty stderr gives a null tail; a message without the section is kept whole", () => {
    expect(splitStderrSection('failed.\nstderr of "x" (/tmp/x.log) was empty.')).toEqual({
      message: "failed.",
      stderrTail: null,
    });
    expect(splitStderrSection("host does not resolve")).toEqual({
      message: "host does not resolve",
      stderrTail: null,
    });
  });

  it("finds the section at the end of a backoff message (cause, retry state, fix, stderr)", () => {
    const text =
      'MCP server "b" exited; not retried for another 250 ms (backoff after 1 failed attempt). Fix: run it by hand.\nLast 4000 characters of the stderr of "b":\nboom';
    expect(splitStderrSection(text)).toEqual({
      message:
        'MCP server "b" exited; not retried for another 250 ms (backoff after 1 failed attempt). Fix: run it by hand.',
      stderrTail: "boom",
    });
  });
});

describe("views", () => {
  it("healthView rounds the latency and carries the error with its code", () => {
    expect(
      healthView({
        serverName: "a",
        status: "unhealthy",
        latencyMs: 12.345,
        toolCount: null,
        error: "gone",
        errorCode: "HTTP_DNS",
        checkedAt: "2026-01-01T00:00:00.000Z",
      }),
    ).toEqual({
      status: "unhealthy",
      checkedAt: "2026-01-01T00:00:00.000Z",
      latencyMs: 12.3,
      toolCount: null,
      error: { code: "HTTP_DNS", message: "gone", stderrTail: null },
    });
    expect(
      healthView({ serverName: "a", status: "disabled", latencyMs: null, toolCount: null, checkedAt: "t" }),
    ).toMatchObject({ latencyMs: null, error: null });
  });

  it("errorViewOf keeps an MCP error's code, and says FAILED for anything else", () => {
    expect(errorViewOf(Object.assign(new Error("nope"), { code: "SERVER_DISABLED" }))).toEqual({
      code: "SERVER_DISABLED",
      message: "nope",
      stderrTail: null,
    });
    expect(errorViewOf("text")).toEqual({ code: "FAILED", message: "text", stderrTail: null });
  });

  it("serverView falls back to the name, prefers the live tool count", () => {
    const config = {
      name: "x",
      enabled: true,
      transport: "http",
      url: "https://e.example/mcp",
      headers: {},
      auth: { type: "none" },
      connectionTimeout: 10,
      toolTimeout: 30,
      resetTimeoutOnProgress: false,
    } as const;
    expect(serverView(config, null)).toEqual({
      name: "x",
      displayName: "x",
      description: null,
      transport: "http",
      enabled: true,
      toolCount: null,
      health: null,
    });
    expect(
      serverView(config, { status: "healthy", checkedAt: "t", latencyMs: 1, toolCount: 2, error: null }, 5)
        .toolCount,
    ).toBe(5);
  });

  it("liveInfo gives the revision the manager negotiated, null when it knows none", () => {
    const client = {
      getServerVersion: () => ({ name: "s", version: "1.0.0" }),
      getServerCapabilities: () => ({ tools: { listChanged: true } }),
      getInstructions: () => undefined,
    };
    expect(liveInfo(client, undefined)).toEqual({
      protocolVersion: null,
      serverInfo: { name: "s", version: "1.0.0", title: null },
      capabilities: { tools: { listChanged: true } },
      instructions: null,
    });
    expect(liveInfo(client, "2026-07-28").protocolVersion).toBe("2026-07-28");
  });
});
