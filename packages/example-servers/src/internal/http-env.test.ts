import { describe, expect, it } from "vitest";
import { httpLimitsFromEnv } from "./http-env.js";
import { UsageError } from "./parse-cli.js";

describe("httpLimitsFromEnv", () => {
  it("reads nothing from an empty environment", () => {
    expect(httpLimitsFromEnv({})).toEqual({});
    expect(httpLimitsFromEnv({ MCP_HTTP_MAX_SESSIONS: " " })).toEqual({});
  });

  it("maps every variable to its serveHttp option, seconds to milliseconds", () => {
    expect(
      httpLimitsFromEnv({
        MCP_HTTP_MAX_SESSIONS: "50",
        MCP_HTTP_MAX_SESSIONS_PER_CLIENT: "0",
        MCP_HTTP_PENDING_SESSION_SECONDS: "0.25",
        MCP_HTTP_SESSION_IDLE_SECONDS: "600",
        MCP_HTTP_MAX_BODY_BYTES: "1048576",
        MCP_HTTP_MAX_JSON_DEPTH: "32",
      }),
    ).toEqual({
      maxSessions: 50,
      maxSessionsPerClient: 0,
      pendingSessionMs: 250,
      sessionIdleMs: 600_000,
      maxBodyBytes: 1_048_576,
      maxJsonDepth: 32,
    });
  });

  it.each([
    ["MCP_HTTP_MAX_SESSIONS", "0", /MCP_HTTP_MAX_SESSIONS expects a whole number of at least 1, got "0"/],
    ["MCP_HTTP_MAX_SESSIONS", "1e3", /got "1e3"/],
    ["MCP_HTTP_MAX_SESSIONS_PER_CLIENT", "-1", /at least 0, got "-1"/],
    ["MCP_HTTP_MAX_JSON_DEPTH", "2.5", /whole number/],
    ["MCP_HTTP_SESSION_IDLE_SECONDS", "ten", /a number of seconds of at least 0.001, got "ten"/],
    ["MCP_HTTP_PENDING_SESSION_SECONDS", "0", /at least 0.001/],
  ])("%s=%s is a usage error", (name, value, message) => {
    expect(() => httpLimitsFromEnv({ [name]: value })).toThrow(UsageError);
    expect(() => httpLimitsFromEnv({ [name]: value })).toThrow(message);
  });
});
