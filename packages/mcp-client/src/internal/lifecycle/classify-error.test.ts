import {
  OAuthError,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
} from "@modelcontextprotocol/client";

// What the v2 Streamable HTTP transport throws for a non-OK answer.
const httpError = (status: number, message: string) =>
  new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${message}`, {
    status,
  });

import { describe, expect, it } from "vitest";
import { MCPConnectionError, MCPRequestError, MCPTimeoutError } from "../../errors.js";
import { MCPStdioTransport } from "../../mcp-stdio-transport.js";
import { AccessTokenRejectedError } from "../auth/http-auth.js";
import { Redactor } from "../shared/redactor.js";
import {
  backoffMessage,
  type HttpFailure,
  httpStartupError,
  MAX_COMMAND_LINE_CHARS,
  type RequestFailure,
  requestError,
  runByHandLine,
  stdioStartupError,
} from "./classify-error.js";

const SECRET = "canary-token-0123456789";
const redactor = new Redactor([SECRET]);

const httpFailure = (overrides: Partial<HttpFailure> = {}): HttpFailure => ({
  config: {
    name: "remote",
    enabled: true,
    transport: "http",
    url: "https://mcp.example.invalid/mcp",
    headers: {},
    auth: { type: "bearer", credentialEnvVar: "REMOTE_TOKEN" },
    connectionTimeout: 10,
    toolTimeout: 30,
    resetTimeoutOnProgress: false,
  },
  url: "https://mcp.example.invalid/mcp?key=abc",
  kind: "streamable-http",
  connectionTimeoutMs: 10_000,
  env: { REMOTE_TOKEN: SECRET },
  redactor,
  ...overrides,
});

const networkError = (code: string) =>
  new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) });

describe("httpStartupError", () => {
  it("classifies 401 with the credential hint and redacts an echoed token", () => {
    const error = httpStartupError(
      httpError(401, `Error POSTing to endpoint: {"received":"Bearer ${SECRET}"}`),
      httpFailure(),
    );
    expect(error).toBeInstanceOf(MCPConnectionError);
    expect(error.code).toBe("HTTP_UNAUTHORIZED");
    expect(error.httpStatus).toBe(401);
    expect(error.message).toContain("Check the value of REMOTE_TOKEN");
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain("key=abc");
    expect(String((error.cause as Error).message)).not.toContain(SECRET);
  });

  it("names unset credential variables", () => {
    const error = httpStartupError(httpError(401, "Unauthorized"), httpFailure({ env: {} }));
    expect(error.message).toContain("REMOTE_TOKEN is not set");
  });

  it.each([
    [403, "HTTP_FORBIDDEN"],
    [404, "HTTP_NOT_FOUND"],
    [500, "HTTP_ERROR"],
  ])("classifies HTTP %i as %s, keeping the status apart from the code", (status, code) => {
    const error = httpStartupError(httpError(status, "x"), httpFailure());
    expect(error.code).toBe(code);
    expect(error.httpStatus).toBe(status);
  });

  it("403 with credentials sent keeps the scope hint; with none it names the Host instead", () => {
    const withToken = httpStartupError(httpError(403, "Forbidden"), httpFailure());
    expect(withToken.message).toContain("lack the needed permission or scope");
    const base = httpFailure();
    const none = httpFailure({ config: { ...base.config, auth: { type: "none" } }, env: {} });
    const refused = httpStartupError(httpError(403, "Forbidden"), none);
    expect(refused.code).toBe("HTTP_FORBIDDEN");
    expect(refused.message).not.toContain("scope");
    expect(refused.message).toContain("Host: mcp.example.invalid");
    // A bearer config whose variable is unset sent nothing either.
    const unset = httpStartupError(httpError(403, "Forbidden"), httpFailure({ env: {} }));
    expect(unset.message).toContain("No credentials were sent");
    // The server said insufficient_scope: the scope hint stays.
    const said = httpStartupError(
      httpError(403, 'Bearer error="insufficient_scope", scope="mcp:write"'),
      none,
    );
    expect(said.message).toContain("lack the needed permission or scope");
  });

  it.each([
    ["ECONNREFUSED", "HTTP_UNREACHABLE"],
    ["ENOTFOUND", "HTTP_DNS"],
    ["DEPTH_ZERO_SELF_SIGNED_CERT", "HTTP_TLS"],
    ["ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED", "HTTP_TLS"],
  ])("classifies a fetch failure with cause %s as %s", (cause, code) => {
    expect(httpStartupError(networkError(cause), httpFailure()).code).toBe(code);
  });

  it("classifies SDK timeouts, OAuth refusals and rejected pre-issued tokens", () => {
    const timeout = new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: 10_000 });
    expect(httpStartupError(timeout, httpFailure()).code).toBe("HANDSHAKE_TIMEOUT");
    expect(httpStartupError(new OAuthError("invalid_client", "bad secret"), httpFailure()).code).toBe(
      "AUTH_FAILED",
    );
    const rejected = httpStartupError(new AccessTokenRejectedError("OAUTH_TOKEN"), httpFailure());
    expect(rejected.code).toBe("HTTP_UNAUTHORIZED");
    expect(rejected.message).toContain("OAUTH_TOKEN");
  });
});

describe("stdioStartupError", () => {
  const config = {
    name: "local",
    enabled: true,
    transport: "stdio" as const,
    command: "missing-cmd",
    args: [],
    env: {},
    connectionTimeout: 10,
    toolTimeout: 30,
    resetTimeoutOnProgress: false,
  };
  const failure = () => ({
    config,
    command: "missing-cmd",
    args: [],
    stdio: new MCPStdioTransport({ command: "missing-cmd", stderrLogPath: false }),
    connectionTimeoutMs: 10_000,
    redactor,
  });

  it("classifies spawn ENOENT, EACCES and a missing cwd", () => {
    const errno = (code: string) => Object.assign(new Error(`spawn missing-cmd ${code}`), { code });
    expect(stdioStartupError(errno("ENOENT"), failure()).code).toBe("COMMAND_NOT_FOUND");
    expect(stdioStartupError(errno("EACCES"), failure()).code).toBe("COMMAND_NOT_EXECUTABLE");
    const cwd = stdioStartupError(errno("CWD_NOT_FOUND"), failure());
    expect(cwd.code).toBe("SERVER_START_FAILED");
    const notFound = stdioStartupError(errno("ENOENT"), failure());
    expect(notFound.message).toMatch(/Fix: install it/);
    expect(notFound.serverName).toBe("local");
  });
});

describe("runByHandLine", () => {
  it("shell-quotes the command and every argument: spaces, quotes, $, the empty argument", () => {
    expect(
      runByHandLine("/opt/my node/bin/node", ["server.js", "my dir", "it's", "$HOME", ""], new Redactor()),
    ).toBe("'/opt/my node/bin/node' server.js 'my dir' 'it'\\''s' '$HOME' ''");
  });

  it("redacts the values of the config's variables, in the command and inside an argument", () => {
    const line = runByHandLine(
      `/home/${SECRET}/node`,
      ["--token", SECRET, `--auth=Bearer ${SECRET}`],
      redactor,
    );
    expect(line).not.toContain(SECRET);
    expect(line).toBe("'/home/[REDACTED]/node' --token '[REDACTED]' '--auth=Bearer [REDACTED]'");
  });

  it("passes the cleaner: no control characters or line breaks, bounded", () => {
    const line = runByHandLine(
      "node",
      ["a\u001b]0;title\u0007b", "line\nbreak", "\u202etxt"],
      new Redactor(),
    );
    expect(line).toBe("node 'ab' 'line break' 'txt'");
    const long = runByHandLine("node", ["x".repeat(5000)], new Redactor());
    expect(long.length).toBe(MAX_COMMAND_LINE_CHARS);
    expect(long).toMatch(/characters truncated\]$/);
  });
});

describe("backoffMessage", () => {
  it("puts the cause first, then the retry state, then the fix", () => {
    const last = httpStartupError(httpError(401, "Unauthorized"), httpFailure({ env: {} }));
    const message = backoffMessage(last.message, 216.2, 2);
    expect(message).toMatch(
      /^MCP server "remote" at https:\/\/mcp\.example\.invalid\/mcp answered 401 Unauthorized .*REMOTE_TOKEN is not set; not retried for another 217 ms \(backoff after 2 failed attempts\)\.$/,
    );
    const fixed = backoffMessage(
      'MCP server "x" at u answered 403 Forbidden (said: Fix: nothing). Fix: allow that host.',
      1000,
      1,
    );
    expect(fixed).toBe(
      'MCP server "x" at u answered 403 Forbidden (said: Fix: nothing); not retried for another 1000 ms (backoff after 1 failed attempt). Fix: allow that host.',
    );
  });

  it("keeps the stderr section at the end, after the fix", () => {
    const last =
      'MCP server "local" (pid 7) exited with code 1 before completing the MCP handshake. Fix: run it by hand to see why (the end of its stderr follows): node server.js\nLast 4000 characters of the stderr of "local":\nboom. Fix: not this one';
    expect(backoffMessage(last, 50, 1)).toBe(
      'MCP server "local" (pid 7) exited with code 1 before completing the MCP handshake; not retried for another 50 ms (backoff after 1 failed attempt). Fix: run it by hand to see why (the end of its stderr follows): node server.js\nLast 4000 characters of the stderr of "local":\nboom. Fix: not this one',
    );
    expect(backoffMessage('MCP server "a" failed.\nstderr of "a" was empty.', 5, 3)).toBe(
      'MCP server "a" failed; not retried for another 5 ms (backoff after 3 failed attempts).\nstderr of "a" was empty.',
    );
  });
});

describe("requestError", () => {
  const base: RequestFailure = {
    serverName: "local",
    method: "tools/call",
    toolName: "slow",
    kind: "stdio",
    stdio: undefined,
    redactor,
    timeoutMs: 1000,
    elapsedMs: 1003,
    cancelled: false,
    totalTimeoutMs: undefined,
  };

  it("maps the SDK timeout to MCPTimeoutError TOOL_TIMEOUT", () => {
    const error = requestError(
      new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: 1000 }),
      base,
    );
    expect(error).toBeInstanceOf(MCPTimeoutError);
    expect(error.code).toBe("TOOL_TIMEOUT");
    expect((error as MCPTimeoutError).timeoutMs).toBe(1000);
    expect(error.message).toContain("1 s (tool_timeout)");
  });

  it("prefers cancellation and max-total-timeout over the SDK's wrapping of the abort", () => {
    const abort = new SdkError(SdkErrorCode.RequestTimeout, "AbortError");
    expect(requestError(abort, { ...base, cancelled: true }).code).toBe("REQUEST_CANCELLED");
    const total = requestError(abort, { ...base, totalTimeoutMs: 5000 });
    expect(total.code).toBe("TOOL_TIMEOUT");
    expect(total.message).toContain("max_total_timeout");
  });

  it("keeps the server's JSON-RPC code in rpcCode and redacts its message", () => {
    const error = requestError(
      new ProtocolError(ProtocolErrorCode.InvalidParams, `bad argument ${SECRET}`),
      base,
    );
    expect(error).toBeInstanceOf(MCPRequestError);
    expect(error.code).toBe("RPC_ERROR");
    expect((error as MCPRequestError).rpcCode).toBe(ProtocolErrorCode.InvalidParams);
    expect(error.message).not.toContain(SECRET);
  });

  it("recognises the transport's synthetic reply-too-large error", () => {
    const error = requestError(
      new ProtocolError(-32099, "too large", {
        reason: "REPLY_TOO_LARGE",
        replyBytes: 2_000_000,
        limitBytes: 1_048_576,
      }),
      base,
    ) as MCPRequestError;
    expect(error.code).toBe("REPLY_TOO_LARGE");
    expect(error.limitBytes).toBe(1_048_576);
    expect(error.message).toContain("1048576 bytes (max_message_bytes)");
    expect(error.message).toContain('"local"');
  });

  it("maps a closed connection to CONNECTION_LOST", () => {
    const error = requestError(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed"), {
      ...base,
      kind: "streamable-http",
    });
    expect(error.code).toBe("CONNECTION_LOST");
  });
});

describe("2026-07-28 error codes", () => {
  const base = {
    serverName: "s",
    method: "tools/call",
    toolName: "t",
    kind: "streamable-http" as const,
    stdio: undefined,
    redactor: new Redactor(),
    timeoutMs: 1000,
    elapsedMs: 1,
    cancelled: false,
    totalTimeoutMs: undefined,
  };

  it("maps -32022 to PROTOCOL_VERSION_UNSUPPORTED naming only clean versions, -32020 to PROTOCOL_HEADER_MISMATCH", () => {
    const unsupported = requestError(
      new ProtocolError(-32022, "Unsupported protocol version", {
        supported: ["2025-11-25", "\u001b[31mevil", "2026-07-28"],
        requested: "2024-01-01",
      }),
      base,
    );
    expect(unsupported).toMatchObject({ code: "PROTOCOL_VERSION_UNSUPPORTED", rpcCode: -32022 });
    expect(unsupported.message).toContain("it lists 2025-11-25, 2026-07-28");
    expect(unsupported.message).not.toContain("evil");
    expect(requestError(new ProtocolError(-32020, "Header mismatch"), base)).toMatchObject({
      code: "PROTOCOL_HEADER_MISMATCH",
      rpcCode: -32020,
    });
  });

  it("maps a resource not found (-32002, or -32602 with the uri) on resources/read to RESOURCE_NOT_FOUND", () => {
    const read = { ...base, method: "resources/read", toolName: undefined };
    expect(requestError(new ProtocolError(-32002, "Resource not found"), read).code).toBe(
      "RESOURCE_NOT_FOUND",
    );
    expect(
      requestError(new ProtocolError(-32602, "Resource not found", { uri: "file:///x" }), read).code,
    ).toBe("RESOURCE_NOT_FOUND");
    expect(requestError(new ProtocolError(-32602, "bad params"), read).code).toBe("RPC_ERROR");
    expect(requestError(new ProtocolError(-32000, "busy"), base)).toMatchObject({
      code: "RPC_ERROR",
      rpcCode: -32000,
    });
  });

  it("maps too many input rounds to INPUT_ROUNDS_EXCEEDED", () => {
    expect(
      requestError(new SdkError(SdkErrorCode.InputRequiredRoundsExceeded, "too many rounds"), base).code,
    ).toBe("INPUT_ROUNDS_EXCEEDED");
  });
});
