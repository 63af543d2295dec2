// A canary secret, passed in an env var to a stdio server and in headers to an HTTP server, must never
// appear in an error message, an event, a status, a health record or a stderr log file.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { httpTestServer, startHttpTestServer, stdioTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import type { MCPClientManager } from "../../src/index.js";
import { cleanup, manager, onCleanup, rejectionOf, tempDir } from "./helpers.js";

afterEach(cleanup);

const CANARY = "canary-9f3b2c71-do-not-leak";

function recordEvents(m: MCPClientManager): unknown[] {
  const events: unknown[] = [];
  for (const name of [
    "connected",
    "disconnected",
    "connectionFailed",
    "toolsChanged",
    "healthChanged",
  ] as const) {
    m.on(name, (event: unknown) => events.push({ name, event }));
  }
  return events;
}

function everything(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner instanceof Error
      ? { ...(inner as object), message: inner.message, stack: inner.stack, cause: String(inner.cause) }
      : inner,
  );
}

describe("secrets", () => {
  it("stdio: a server that prints its secret env var on stderr leaks it nowhere", async () => {
    const logDir = tempDir("mcp-logs-");
    const config = { env: { API_KEY: "CANARY_SOURCE" } };
    const m = manager(
      [
        stdioTestServer("leaky-start", { stderrEnv: ["API_KEY"], exitAtStart: 1 }, config),
        stdioTestServer("leaky-crash", { stderrEnv: ["API_KEY"] }, config),
      ],
      { env: { CANARY_SOURCE: CANARY, PATH: process.env.PATH }, logDir },
    );
    const events = recordEvents(m);
    const startError = await rejectionOf(m.callTool("leaky-start", "echo"));
    expect(startError.message).toContain("env API_KEY=[REDACTED]");
    const crashError = await rejectionOf(m.callTool("leaky-crash", "crash"));
    expect(crashError.message).toContain("env API_KEY=[REDACTED]");
    const health = await m.healthCheckAll();
    const statuses = m.serverNames().map((name) => m.connectionStatus(name));

    for (const error of [startError, crashError]) {
      expect(error.message).not.toContain(CANARY);
      expect(everything(error)).not.toContain(CANARY);
      expect(String(error.stack)).not.toContain(CANARY);
    }
    expect(everything(events)).not.toContain(CANARY);
    expect(everything(health)).not.toContain(CANARY);
    expect(everything(statuses)).not.toContain(CANARY);
    const logs = readdirSync(logDir);
    expect(logs.sort()).toEqual(["leaky-crash.stderr.log", "leaky-start.stderr.log"]);
    for (const file of logs) {
      const text = readFileSync(join(logDir, file), "utf8");
      expect(text).toContain("[REDACTED]");
      expect(text).not.toContain(CANARY);
    }
  });

  it("http: a server that echoes the request headers in its 401 leaks neither the bearer token nor a custom header", async () => {
    const running = await startHttpTestServer({
      tokenEnv: "TOKEN",
      env: { TOKEN: "the-real-token" },
      echoAuth: true,
    });
    onCleanup(() => running.stop());
    const m = manager(
      [
        httpTestServer("bearer", running.url, { auth: { type: "bearer", credentialEnvVar: "CANARY_TOKEN" } }),
        // fetch sends headers sorted by name: these come first, so the echo of them is within the
        // part of the 401 body that the error message keeps.
        httpTestServer("header", running.url, {
          headers: { "A-Team-Secret": "CANARY_TOKEN" },
          auth: { type: "api_key", credentialEnvVar: "CANARY_TOKEN", headerName: "A-Api-Key" },
        }),
      ],
      { env: { CANARY_TOKEN: CANARY } },
    );
    const events = recordEvents(m);
    const bearer = await rejectionOf(m.callTool("bearer", "echo", { text: "x" }));
    const header = await rejectionOf(m.callTool("header", "echo", { text: "x" }));
    const health = await m.healthCheckAll();
    expect(bearer).toMatchObject({ code: "HTTP_UNAUTHORIZED" });
    // The server did echo the token back: the client redacted it.
    expect(bearer.message).toContain("Bearer [REDACTED]");
    expect(header.message).toContain("[REDACTED]");
    for (const value of [bearer, header, events, health]) expect(everything(value)).not.toContain(CANARY);
    expect(String(bearer.stack)).not.toContain(CANARY);
  });
});
