// What the client declares and answers: elicitation only with a handler (a failing handler answers
// decline, never a crash), roots and sampling never (clean JSON-RPC errors), server log notifications
// into the per-server log (redacted); and the 403 hint over real HTTP on loopback.
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { httpTestServer, stdioTestServer } from "@agentforge/test-servers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type MCPClientManagerOptions,
  MCPConnectionError,
  type MCPElicitationHandler,
} from "../../src/index.js";
import { cleanup, manager, onCleanup, rejectionOf, tempDir, textOf } from "./helpers.js";

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
afterEach(async () => {
  await cleanup();
  expect(escaped).toEqual([]);
});

const SECRET = "canary-secret-value-0123456789";

/** A manager with one hostile stdio test server ("asker") whose config reads SECRET_VAR. */
function asker(options: MCPClientManagerOptions = {}) {
  const logDir = tempDir("mcp-logs-");
  const m = manager(
    [stdioTestServer("asker", { hostile: true }, { env: { API_KEY: "SECRET_VAR" }, toolTimeout: 30 })],
    { logDir, env: { SECRET_VAR: SECRET, PATH: process.env.PATH ?? "" }, ...options },
  );
  const log = () => readFileSync(join(logDir, "asker.stderr.log"), "utf8");
  const ask = async (method: string) =>
    JSON.parse(textOf(await m.callTool("asker", "ask_client", { method }))) as {
      result?: Record<string, unknown>;
      error?: { code: number; message: string };
    };
  return { m, log, ask };
}

describe("elicitation handler", { timeout: 180_000 }, () => {
  it("answers form requests; roots and sampling still get a clean method-not-found", async () => {
    const seen: unknown[] = [];
    const { ask } = asker({
      elicitation: async (request, context) => {
        seen.push({ request, aborted: context.signal.aborted });
        return { action: "accept", content: { password: "hunter22" } };
      },
    });
    expect(await ask("elicitation/create")).toMatchObject({
      result: { action: "accept", content: { password: "hunter22" } },
    });
    expect(seen).toEqual([
      {
        request: {
          mode: "form",
          serverName: "asker",
          message: "Your password, please",
          requestedSchema: { type: "object", properties: { password: { type: "string" } } },
        },
        aborted: false,
      },
    ]);
    for (const method of ["sampling/createMessage", "roots/list"]) {
      expect(await ask(method)).toMatchObject({ error: { code: -32601 } });
    }
  });

  it.each<[string, MCPElicitationHandler, string]>([
    [
      "throws",
      async () => {
        throw new Error("handler bug");
      },
      "the elicitation handler failed: handler bug",
    ],
    [
      "answers content of the wrong type",
      async () => ({ action: "accept", content: { password: 5 as unknown as string } }),
      '"password" is not a string',
    ],
    [
      "answers a value that was not asked for",
      async () => ({ action: "accept", content: { password: "x", ssn: "123" } }),
      '"ssn" was not asked for',
    ],
    [
      "answers an unknown action",
      async () => ({ action: "maybe" }) as unknown as { action: "cancel" },
      'action "maybe"',
    ],
  ])(
    "a handler that %s answers decline and the reason goes to the server log",
    async (_case, handler, reason) => {
      const { ask, log, m } = asker({ elicitation: handler });
      expect(await ask("elicitation/create")).toMatchObject({ result: { action: "decline" } });
      // The log file is written as a stream: wait for the line.
      const declined = () =>
        log()
          .split("\n")
          .find((entry) => entry.startsWith("[client] elicitation/create (form) answered decline: ")) ?? "";
      await expect.poll(declined, { timeout: 60_000 }).toContain(reason);
      expect(textOf(await m.callTool("asker", "echo", { text: "still fine" }))).toBe("still fine");
    },
  );

  it("a handler that never answers is declined after elicitationTimeoutMs, and its signal fires", async () => {
    let signal: AbortSignal | undefined;
    const { ask } = asker({
      elicitationTimeoutMs: 300,
      elicitation: (_request, context) => {
        signal = context.signal;
        return new Promise(() => {});
      },
    });
    expect(await ask("elicitation/create")).toMatchObject({ result: { action: "decline" } });
    expect(signal?.aborted).toBe(true);
  });

  it("without a handler the capability is not declared: elicitation gets method-not-found", async () => {
    const { ask } = asker();
    expect(await ask("elicitation/create")).toMatchObject({ error: { code: -32601 } });
  });
});

describe("server log notifications", { timeout: 180_000 }, () => {
  it("go to the server's log file, one redacted line each", async () => {
    const { m, log } = asker();
    await m.callTool("asker", "flood", { count: 20 });
    await m.callTool("asker", "log_message", { data: { note: "multi\nline", token: SECRET } });
    await expect.poll(() => log(), { timeout: 60_000 }).toContain("log_message");
    const lines = log()
      .split("\n")
      .filter((line) => line.startsWith("[server log]"));
    expect(lines.filter((line) => line.startsWith("[server log] info flood: log line"))).toHaveLength(20);
    const last = lines.find((line) => line.includes("log_message")) as string;
    expect(last).toContain("[server log] warning log_message:");
    expect(last).toContain("[REDACTED]");
    expect(log()).not.toContain(SECRET);
  });

  it("a huge log message is cut to one bounded line", async () => {
    const { m, log } = asker();
    await m.callTool("asker", "log_message", { data: "x".repeat(100_000) });
    await expect.poll(() => log(), { timeout: 60_000 }).toContain("characters cut]");
    const line = log()
      .split("\n")
      .find((entry) => entry.startsWith("[server log]")) as string;
    expect(line.length).toBeLessThan(2100);
  });
});

/** An HTTP server on 127.0.0.1 that answers 403 to everything and records the request headers. */
async function forbidding(wwwAuthenticate?: string): Promise<{ url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    response.writeHead(403, {
      "content-type": "text/plain",
      ...(wwwAuthenticate ? { "www-authenticate": wwwAuthenticate } : {}),
    });
    response.end(wwwAuthenticate ? `insufficient_scope` : "Forbidden: invalid Host header");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onCleanup(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, seen };
}

describe("403 Forbidden over HTTP", { timeout: 180_000 }, () => {
  it("with no credentials configured: names the Host sent, no scope hint", async () => {
    const { url, seen } = await forbidding();
    const m = manager([httpTestServer("guarded", url)]);
    const error = await rejectionOf(m.listTools("guarded"));
    expect(MCPConnectionError.isInstance(error) && error.code).toBe("HTTP_FORBIDDEN");
    expect(error.httpStatus).toBe(403);
    const host = new URL(url).host;
    expect(seen[0]?.host).toBe(host);
    expect(error.message).toContain(`Host: ${host}`);
    expect(error.message).toContain("No credentials were sent");
    expect(error.message).not.toMatch(/scope/);
  });

  it("with a bearer token sent: keeps the permission/scope hint, and never shows the token", async () => {
    const { url, seen } = await forbidding();
    const m = manager(
      [httpTestServer("guarded", url, { auth: { type: "bearer", credentialEnvVar: "TOKEN" } })],
      {
        env: { TOKEN: SECRET },
      },
    );
    const error = await rejectionOf(m.listTools("guarded"));
    expect(error).toMatchObject({ code: "HTTP_FORBIDDEN", httpStatus: 403 });
    expect(seen[0]?.authorization).toBe(`Bearer ${SECRET}`);
    expect(error.message).toContain("lack the needed permission or scope");
    expect(error.message).not.toContain(SECRET);
  });
});
