/**
 * Contract tests: classify-error.ts decides from the SDK's error texts, codes and class names. Each test
 * makes the REAL SDK (client, transports, a server over the SDK's in-memory transport or loopback HTTP)
 * produce the error and checks that it still maps. When an SDK update rewords a message or renames a
 * class, the failing assertion names the assumption that broke.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { MCPHttpServerConfig } from "@agentforge/mcp-config";
import {
  Client,
  type OAuthClientProvider,
  type ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { MCPConnectionError, MCPRequestError, MCPTimeoutError } from "../../src/errors.js";
import { isUnauthorizedError } from "../../src/internal/auth/authorization-code.js";
import {
  httpStartupError,
  httpStatusOf,
  isConnectionGone,
  isSdkTimeout,
  requestError,
  systemCode,
} from "../../src/internal/lifecycle/classify-error.js";
import { Redactor } from "../../src/internal/shared/redactor.js";
import { failure, linked } from "./loopback.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Resolvers of the `hang` calls the server received. */
const hangsReceived: (() => void)[] = [];
const hangReceived = () => new Promise<void>((resolve) => hangsReceived.push(resolve));

/** A low-level SDK server: one tool `hang` (answers only when cancelled), one `ticks` (progress until cancelled), one `typed`. */
function toolServer(): Server {
  const server = new Server({ name: "contract-server", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: "hang", inputSchema: { type: "object" } },
      { name: "ticks", inputSchema: { type: "object" } },
      {
        name: "typed",
        inputSchema: { type: "object" },
        outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      },
      {
        name: "untyped_reply",
        inputSchema: { type: "object" },
        outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const aborted = new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve()));
    if (request.params.name === "ticks") {
      const token = request.params._meta?.progressToken;
      let progress = 0;
      const timer = setInterval(() => {
        if (token === undefined) return;
        void extra
          .sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: ++progress },
          })
          .catch(() => {});
      }, 10);
      await aborted;
      clearInterval(timer);
      return { content: [] };
    }
    if (request.params.name === "typed") return { content: [], structuredContent: { n: "not a number" } };
    if (request.params.name === "untyped_reply") return { content: [{ type: "text", text: "no structure" }] };
    for (const received of hangsReceived.splice(0)) received();
    await aborted;
    return { content: [] };
  });
  return server;
}

async function connected() {
  const pair = await linked(toolServer());
  cleanups.push(pair.close);
  return pair;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the SDK to reject");
    },
    (error: unknown) => error,
  );
}

describe("SDK request errors that classify-error.ts reads", () => {
  it('a request timeout is SdkError RequestTimeout "Request timed out" with data.timeout → TOOL_TIMEOUT', async () => {
    const { client } = await connected();
    const error = await rejection(client.callTool({ name: "hang" }, { timeout: 50 }));
    expect(SdkError.isInstance(error), "SDK timeout is an SdkError").toBe(true);
    expect((error as SdkError).code, "SDK timeout code is SdkErrorCode.RequestTimeout").toBe(
      SdkErrorCode.RequestTimeout,
    );
    expect((error as ProtocolError).message, 'SDK timeout message contains "Request timed out"').toMatch(
      /Request timed out/,
    );
    expect((error as ProtocolError).data, "SDK timeout carries data.timeout (ms)").toEqual({ timeout: 50 });
    expect(isSdkTimeout(error), "isSdkTimeout recognises it").toBe(true);
    const mapped = requestError(error, failure());
    expect(MCPTimeoutError.isInstance(mapped) && mapped.code).toBe("TOOL_TIMEOUT");
  });

  it('maxTotalTimeout is SdkError RequestTimeout "Maximum total timeout exceeded" → a timeout', async () => {
    const { client } = await connected();
    const error = await rejection(
      client.callTool(
        { name: "ticks" },
        {
          timeout: 60_000,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: 100,
          onprogress: () => {},
        },
      ),
    );
    expect((error as SdkError).code, "total timeout code is SdkErrorCode.RequestTimeout").toBe(
      SdkErrorCode.RequestTimeout,
    );
    expect(
      (error as ProtocolError).message,
      'total timeout message contains "Maximum total timeout"',
    ).toMatch(/Maximum total timeout/);
    expect(isSdkTimeout(error), "isSdkTimeout recognises the total timeout").toBe(true);
    const mapped = requestError(error, failure({ timeoutMs: 60_000 }));
    expect(MCPTimeoutError.isInstance(mapped) && mapped.code).toBe("TOOL_TIMEOUT");
  });

  it("the SDK's maxTotalTimeout is only checked when progress arrives (why call-path.ts keeps its own hard timer)", async () => {
    const { client } = await connected();
    // No progress at all: the SDK lets the call run past maxTotalTimeout until the idle timeout.
    const error = await rejection(client.callTool({ name: "hang" }, { timeout: 400, maxTotalTimeout: 20 }));
    // Fails when the SDK makes maxTotalTimeout a hard bound: then the hand-rolled max-total timer in
    // internal/calls/call-path.ts can be replaced by the request option (same behaviour).
    expect(
      (error as ProtocolError).message,
      "without progress, the idle timeout ends the call, not maxTotalTimeout",
    ).toMatch(/Request timed out/);
    expect((error as ProtocolError).data).toEqual({ timeout: 400 });
  });

  it('a request on a closed client is Error "Not connected" → connection gone, CONNECTION_LOST', async () => {
    const { client } = await connected();
    await client.close();
    const error = await rejection(client.ping());
    expect((error as Error).message, 'SDK says exactly "Not connected"').toBe("Not connected");
    expect(isConnectionGone(error, "stdio"), "isConnectionGone reads it (even for stdio)").toBe(true);
    const mapped = requestError(error, failure());
    expect(MCPConnectionError.isInstance(mapped) && mapped.code).toBe("CONNECTION_LOST");
  });

  it("a connection that closes under a request is SdkError ConnectionClosed → CONNECTION_LOST", async () => {
    const { client } = await connected();
    const received = hangReceived();
    const call = rejection(client.callTool({ name: "hang" }));
    await received;
    await client.transport?.close();
    const error = await call;
    expect((error as SdkError).code, "SDK uses SdkErrorCode.ConnectionClosed").toBe(
      SdkErrorCode.ConnectionClosed,
    );
    expect(isConnectionGone(error, "streamable-http")).toBe(true);
    const mapped = requestError(error, failure());
    expect(MCPConnectionError.isInstance(mapped) && mapped.code).toBe("CONNECTION_LOST");
  });

  it("a reply that breaks the result schema is SdkError InvalidResult → INVALID_REPLY", async () => {
    const { client } = await connected();
    const error = await rejection(
      client.request({ method: "tools/list" }, z.object({ notThere: z.string() })),
    );
    expect((error as SdkError).code, "the SDK rejects with SdkErrorCode.InvalidResult").toBe(
      SdkErrorCode.InvalidResult,
    );
    const mapped = requestError(error, failure({ method: "tools/list", toolName: undefined }));
    expect(MCPRequestError.isInstance(mapped) && mapped.code).toBe("INVALID_REPLY");
  });

  it("structured content that breaks (or is missing for) the tool's output schema → INVALID_REPLY", async () => {
    const { client } = await connected();
    await client.listTools();
    for (const [name, rpcCode] of [
      ["typed", ProtocolErrorCode.InvalidParams],
      ["untyped_reply", ProtocolErrorCode.InvalidRequest],
    ] as const) {
      const error = await rejection(client.callTool({ name }));
      expect((error as ProtocolError).code, `${name}: SDK error code`).toBe(rpcCode);
      expect(
        (error as ProtocolError).message,
        `${name}: message names "output schema" or "structured content"`,
      ).toMatch(/output schema|structured content/i);
      const mapped = requestError(error, failure());
      expect(MCPRequestError.isInstance(mapped) && mapped.code, name).toBe("INVALID_REPLY");
    }
  });
});

/** A loopback HTTP server: POST to /mcp answers `status`; everything else 404. */
async function httpServer(status: number): Promise<{ url: string; server: HttpServer }> {
  const server = createServer((request, response) => {
    request.resume();
    response.statusCode = request.method === "POST" && request.url === "/mcp" ? status : 404;
    response.end(status === 401 ? "unauthorized" : "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

function httpConfig(url: string): MCPHttpServerConfig {
  return {
    name: "remote",
    enabled: true,
    transport: "http",
    url,
    headers: {},
    auth: { type: "none" },
    connectionTimeout: 10,
    toolTimeout: 30,
  } as unknown as MCPHttpServerConfig;
}

function httpFailure(url: string) {
  return {
    config: httpConfig(url),
    url,
    kind: "streamable-http" as const,
    connectionTimeoutMs: 10_000,
    env: {},
    redactor: new Redactor(),
  };
}

async function connectError(url: string, authProvider?: OAuthClientProvider): Promise<unknown> {
  const client = new Client({ name: "contract", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), authProvider ? { authProvider } : {});
  cleanups.push(() => client.close().catch(() => {}));
  return rejection(client.connect(transport));
}

describe("SDK HTTP errors that classify-error.ts reads", () => {
  for (const [status, code] of [
    [401, "HTTP_UNAUTHORIZED"],
    [403, "HTTP_FORBIDDEN"],
    [404, "HTTP_NOT_FOUND"],
    [405, "HTTP_ERROR"],
  ] as const) {
    it(`an HTTP ${status} carries the status as a numeric code → ${code}`, async () => {
      const { url } = await httpServer(status);
      const error = await connectError(url);
      expect(httpStatusOf(error), `StreamableHTTPError.code is the HTTP status (${status})`).toBe(status);
      const mapped = httpStartupError(error, httpFailure(url));
      expect(mapped.code).toBe(code);
      expect(mapped.httpStatus).toBe(status);
    });
  }

  it("a 401 with an OAuth provider that must redirect is an UnauthorizedError (by class name) → HTTP_UNAUTHORIZED", async () => {
    const { url } = await httpServer(401);
    let redirected = 0;
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return "http://127.0.0.1:9/callback";
      },
      get clientMetadata() {
        return { redirect_uris: ["http://127.0.0.1:9/callback"], client_name: "contract" };
      },
      clientInformation: () => ({ client_id: "contract-client" }),
      tokens: () => undefined,
      saveTokens: () => {},
      redirectToAuthorization: () => {
        redirected++;
      },
      saveCodeVerifier: () => {},
      codeVerifier: () => "verifier",
    };
    const error = await connectError(url, provider);
    expect(redirected, "the SDK asked the provider to redirect").toBe(1);
    expect((error as Error).constructor.name, 'the SDK class is still named "UnauthorizedError"').toBe(
      "UnauthorizedError",
    );
    expect(isUnauthorizedError(error), "authorization-code.ts recognises it").toBe(true);
    expect(httpStartupError(error, httpFailure(url)).code).toBe("HTTP_UNAUTHORIZED");
  });

  it("nothing listening is a fetch TypeError with cause ECONNREFUSED → HTTP_UNREACHABLE, connection gone", async () => {
    const { url, server } = await httpServer(200);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = await connectError(url);
    expect(systemCode(error), "the cause chain carries ECONNREFUSED").toBe("ECONNREFUSED");
    expect(isConnectionGone(error, "streamable-http")).toBe(true);
    expect(httpStartupError(error, httpFailure(url)).code).toBe("HTTP_UNREACHABLE");
  });
});
