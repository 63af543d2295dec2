// Tracing end to end: real tool calls (a real stdio MCP server, the client manager, registry, policy and
// executor) traced by `startTracing`, exported over real HTTP on loopback to local doubles of an OTLP
// collector (POST /v1/traces, JSON) and of the LangSmith ingest API (GET /info, POST /runs/multipart or
// /runs/batch). The doubles keep every raw request, so the tests can prove what never leaves the process.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { MCPToolExecutor, registerDiscovered } from "@agentforge/agent-runtime";
import { discoverAll, MCPClientManager } from "@agentforge/mcp-client";
import { MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { stdioTestServer } from "@agentforge/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import { startTracing, type Tracing } from "../../src/tracing/tracing.js";

/** An argument value no exported byte may contain. */
const SECRET = "arg-canary-9f3Kq-SECRET-value";
/** The LangSmith API key: only ever in the x-api-key header. */
const API_KEY = "lsv2_pt_canary0key0e2e0never0in0a0body";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

// ---------------------------------------------------------------------------------------------------------
// Loopback HTTP doubles.

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as sent, decompressed when the client compressed it. */
  body: Buffer;
}
interface Reply {
  status: number;
  json?: unknown;
}
interface Double {
  url: string;
  requests: Received[];
}

async function startDouble(reply: (request: Received) => Reply): Promise<Double> {
  const requests: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const received: Received = {
        method: req.method ?? "",
        path: new URL(req.url ?? "/", "http://double").pathname,
        headers: req.headers,
        body,
      };
      requests.push(received);
      const answer = reply(received);
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(JSON.stringify(answer.json ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return { url: `http://127.0.0.1:${address.port}`, requests };
}

/** An OTLP/HTTP collector: accepts POST /v1/traces. */
const startCollector = (): Promise<Double> =>
  startDouble((request) =>
    request.method === "POST" && request.path === "/v1/traces"
      ? { status: 200, json: { partialSuccess: {} } }
      : { status: 404 },
  );

/** The LangSmith ingest API: /info (no compression offered), /runs/multipart and /runs/batch (500 with `fail`). */
const startLangSmith = (options: { fail?: boolean; multipart?: boolean } = {}): Promise<Double> =>
  startDouble((request) => {
    if (request.method === "GET" && request.path === "/info")
      return {
        status: 200,
        json: {
          version: "0.12.0",
          batch_ingest_config: { use_multipart_endpoint: options.multipart ?? true },
          instance_flags: {},
        },
      };
    if (request.method === "POST" && (request.path === "/runs/multipart" || request.path === "/runs/batch"))
      return options.fail ? { status: 500, json: { detail: "ingest is down" } } : { status: 202, json: {} };
    return { status: 404, json: { detail: "not found" } };
  });

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

// ---------------------------------------------------------------------------------------------------------
// Decoding what the doubles received.

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string; boolValue?: boolean };
}
interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  attributes: OtlpAttribute[];
  status?: { code?: number; message?: string };
}
interface ExportedSpan {
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
  scope: string;
}

const attributeMap = (attributes: OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(
    attributes.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue]),
  );

/** Every span of every OTLP/JSON export request. */
function exportedSpans(collector: Double): ExportedSpan[] {
  const spans: ExportedSpan[] = [];
  for (const request of collector.requests.filter((r) => r.path === "/v1/traces")) {
    const payload = JSON.parse(request.body.toString("utf8")) as {
      resourceSpans: {
        resource: { attributes: OtlpAttribute[] };
        scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
      }[];
    };
    for (const resourceSpans of payload.resourceSpans) {
      for (const scopeSpans of resourceSpans.scopeSpans) {
        for (const span of scopeSpans.spans) {
          spans.push({
            name: span.name,
            kind: span.kind,
            attributes: attributeMap(span.attributes),
            status: span.status ?? {},
            resource: attributeMap(resourceSpans.resource.attributes),
            scope: scopeSpans.scope.name,
          });
        }
      }
    }
  }
  return spans;
}

interface LangSmithRun {
  id: string;
  name?: string;
  run_type?: string;
  session_name?: string;
  tags?: string[];
  start_time?: unknown;
  end_time?: unknown;
  error?: string;
  inputs?: unknown;
  outputs?: unknown;
  extra?: { metadata?: Record<string, unknown> };
  /** The operations seen for the run (`post`, `patch`: the client merges both into one post when they share a batch). */
  operations: string[];
}

/** The runs the LangSmith double received, post and patch merged per run id (multipart or batch). */
async function receivedRuns(langsmith: Double): Promise<LangSmithRun[]> {
  const runs = new Map<string, LangSmithRun>();
  const apply = (operation: string, id: string, fields: Record<string, unknown>) => {
    const run = runs.get(id) ?? { id, operations: [] };
    Object.assign(run, fields);
    if (!run.operations.includes(operation) && (operation === "post" || operation === "patch"))
      run.operations.push(operation);
    runs.set(id, run);
  };
  for (const request of langsmith.requests) {
    if (request.method !== "POST") continue;
    if (request.path === "/runs/multipart") {
      const form = await new Response(new Uint8Array(request.body), {
        headers: { "content-type": String(request.headers["content-type"]) },
      }).formData();
      for (const [name, value] of form.entries()) {
        const [operation = "", id = "", field] = name.split(".");
        const text = typeof value === "string" ? value : await value.text();
        const parsed = JSON.parse(text) as unknown;
        apply(operation, id, field ? { [field]: parsed } : (parsed as Record<string, unknown>));
      }
    } else if (request.path === "/runs/batch") {
      const batch = JSON.parse(request.body.toString("utf8")) as Record<string, { id: string }[]>;
      for (const operation of ["post", "patch"])
        for (const run of batch[operation] ?? []) apply(operation, run.id, run);
    }
  }
  return [...runs.values()];
}

// ---------------------------------------------------------------------------------------------------------
// A real stack: the stdio test server as a child process, discovery, registry, policy, executor.

async function tracedStack(tracing: Tracing) {
  const logDir = mkdtempSync(join(tmpdir(), "agentforge-tracing-"));
  cleanups.push(() => rmSync(logDir, { recursive: true, force: true }));
  const manager = new MCPClientManager([stdioTestServer("alpha")], { logDir, shutdownGraceMs: 500 });
  cleanups.push(() => manager.closeAll());
  const registry = new MCPToolRegistry();
  registerDiscovered(registry, await discoverAll(manager));
  const policy = new MCPPermissionPolicy({ "doc-agent": ["alpha.*"] });
  const executor = new MCPToolExecutor({
    clientManager: manager,
    registry,
    policy,
    ...(tracing.tracer ? { tracer: tracing.tracer } : {}),
  });
  cleanups.push(() => executor.dispose());
  return executor;
}

/** Three calls carrying the secret: one succeeds, one gets an error result, one is denied. */
async function threeCalls(executor: MCPToolExecutor): Promise<string[]> {
  const outcomes: string[] = [];
  const ok = await executor.execute("doc-agent", "alpha.echo", { text: `echo ${SECRET}` });
  expect(ok.text).toBe(`echo ${SECRET}`);
  outcomes.push("ok");
  for (const [agent, identity, args] of [
    ["doc-agent", "alpha.fail", { message: `fail ${SECRET}` }],
    ["intruder", "alpha.echo", { text: `denied ${SECRET}` }],
  ] as const) {
    const error = await executor.execute(agent, identity, args).then(
      () => undefined,
      (reason: unknown) => reason as { code?: string },
    );
    outcomes.push(String(error?.code));
  }
  expect(outcomes).toEqual(["ok", "TOOL_ERROR", "TOOL_DENIED"]);
  return outcomes;
}

/** Every byte the doubles received, as text. */
const allBodies = (...doubles: Double[]): string =>
  doubles.flatMap((double) => double.requests.map((request) => request.body.toString("utf8"))).join("\n");

// ---------------------------------------------------------------------------------------------------------

describe("OpenTelemetry: OTLP/HTTP to a local collector", () => {
  it("one CLIENT span per call with names and MCP attributes, service.name, no argument value", async () => {
    const collector = await startCollector();
    const tracing = await startTracing({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: "agentforge-e2e",
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector-token=collector%20token",
      },
    });
    cleanups.push(() => tracing.shutdown());
    expect(tracing.backends).toEqual(["otel"]);
    const executor = await tracedStack(tracing);
    await threeCalls(executor);
    // The batch processor holds the spans until shutdown flushes them.
    await tracing.shutdown();

    const posts = collector.requests.filter((r) => r.method === "POST" && r.path === "/v1/traces");
    expect(posts.length).toBeGreaterThan(0);
    expect(collector.requests.length).toBe(posts.length);
    for (const post of posts) {
      expect(post.headers["content-type"]).toContain("application/json");
      expect(post.headers["x-collector-token"]).toBe("collector token");
    }
    const spans = exportedSpans(collector);
    expect(spans.map((s) => [s.name, s.attributes.agent, s.attributes["agentforge.outcome"]])).toEqual([
      ["tools/call echo", "doc-agent", "ok"],
      ["tools/call fail", "doc-agent", "tool_error"],
      ["tools/call echo", "intruder", "denied"],
    ]);
    for (const span of spans) {
      expect(span.kind).toBe(3); // OTLP SPAN_KIND_CLIENT
      expect(span.resource["service.name"]).toBe("agentforge-e2e");
      expect(span.scope).toBe("@agentforge/agent-runtime");
      expect(span.attributes).toMatchObject({
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "network.transport": "pipe",
        mcp_server: "alpha",
      });
      expect(span.attributes.mcp_tool).toBe(span.attributes["gen_ai.tool.name"]);
      expect(typeof span.attributes["gen_ai.tool.call.id"]).toBe("string");
    }
    const [ok, toolError, denied] = spans;
    expect(ok?.status.code ?? 0).toBe(0);
    expect(toolError?.status.code).toBe(2); // STATUS_CODE_ERROR
    expect(toolError?.attributes["error.type"]).toBe("tool_error");
    expect(denied?.status.code).toBe(2);
    expect(denied?.attributes["error.type"]).toBe("TOOL_DENIED");
    expect(allBodies(collector)).not.toContain(SECRET);
  });

  it("--otel with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT sends to that exact URL", async () => {
    const collector = await startCollector();
    const tracing = await startTracing({
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces` },
      otel: true,
      serviceName: "agentforge-serve",
    });
    cleanups.push(() => tracing.shutdown());
    const executor = await tracedStack(tracing);
    await executor.execute("doc-agent", "alpha.add", { a: 2, b: 3 });
    await tracing.shutdown();
    const spans = exportedSpans(collector);
    expect(spans.map((s) => s.name)).toEqual(["tools/call add"]);
    expect(spans[0]?.resource["service.name"]).toBe("agentforge-serve");
  });
});

describe.each([
  { endpoint: "/runs/multipart", multipart: true },
  { endpoint: "/runs/batch", multipart: false },
])("LangSmith: runs to a local double of the ingest API ($endpoint)", ({ endpoint, multipart }) => {
  it("one tool run `mcp:<identity>` per call, tagged server, tool and agent; no argument, result or key in any body", async () => {
    const langsmith = await startLangSmith({ multipart });
    const tracing = await startTracing({
      env: {
        LANGSMITH_TRACING: "true",
        LANGSMITH_API_KEY: API_KEY,
        LANGSMITH_ENDPOINT: langsmith.url,
        LANGSMITH_PROJECT: "agentforge-e2e",
      },
    });
    cleanups.push(() => tracing.shutdown());
    expect(tracing.backends).toEqual(["langsmith"]);
    const executor = await tracedStack(tracing);
    await threeCalls(executor);
    await tracing.shutdown();

    const ingest = langsmith.requests.filter((r) => r.method === "POST" && r.path.startsWith("/runs/"));
    expect(ingest.length).toBeGreaterThan(0);
    expect(ingest.every((r) => r.path === endpoint)).toBe(true);
    expect(langsmith.requests.every((r) => r.path === "/info" || r.path === endpoint)).toBe(true);
    for (const request of langsmith.requests) expect(request.headers["x-api-key"]).toBe(API_KEY);

    const runs = await receivedRuns(langsmith);
    const byAgentAndName = (name: string, agent: string) =>
      runs.find((run) => run.name === name && run.extra?.metadata?.agent === agent);
    expect(runs.map((run) => run.name).sort()).toEqual([
      "mcp:alpha.echo",
      "mcp:alpha.echo",
      "mcp:alpha.fail",
    ]);
    for (const run of runs) {
      expect(run.operations[0]).toBe("post");
      expect(run.run_type).toBe("tool");
      expect(run.session_name).toBe("agentforge-e2e");
      expect(run.end_time).toBeDefined();
      expect(run.tags).toEqual(
        expect.arrayContaining([
          "mcp_server:alpha",
          `mcp_tool:${run.name === "mcp:alpha.fail" ? "fail" : "echo"}`,
        ]),
      );
      expect(run.extra?.metadata).toMatchObject({ mcp_server: "alpha", transport: "stdio" });
      expect(typeof run.extra?.metadata?.call_id).toBe("string");
    }
    const ok = byAgentAndName("mcp:alpha.echo", "doc-agent");
    expect(ok?.tags).toContain("agent:doc-agent");
    expect(ok?.extra?.metadata).toMatchObject({
      outcome: "ok",
      mcp_identity: "alpha.echo",
      mcp_tool: "echo",
    });
    expect(ok?.error).toBeUndefined();
    const failed = byAgentAndName("mcp:alpha.fail", "doc-agent");
    expect(failed?.extra?.metadata).toMatchObject({ outcome: "tool_error", error_code: "TOOL_ERROR" });
    expect(failed?.error).toMatch(/^TOOL_ERROR: /);
    const denied = byAgentAndName("mcp:alpha.echo", "intruder");
    expect(denied?.tags).toContain("agent:intruder");
    expect(denied?.extra?.metadata).toMatchObject({ outcome: "denied", error_code: "TOOL_DENIED" });
    expect(denied?.error).toMatch(/^TOOL_DENIED: /);

    const bodies = allBodies(langsmith);
    expect(bodies).toContain("mcp:alpha.fail"); // the bodies were read as text: the checks below mean something
    expect(bodies).not.toContain(SECRET);
    expect(bodies).not.toContain(API_KEY);
  });
});

describe("both backends, and backends that fail", () => {
  it("with both switched on, every call reaches both", async () => {
    const collector = await startCollector();
    const langsmith = await startLangSmith();
    const tracing = await startTracing({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        LANGCHAIN_TRACING_V2: "true",
        LANGCHAIN_API_KEY: API_KEY,
        LANGCHAIN_ENDPOINT: langsmith.url,
      },
    });
    cleanups.push(() => tracing.shutdown());
    expect(tracing.backends).toEqual(["otel", "langsmith"]);
    const executor = await tracedStack(tracing);
    await threeCalls(executor);
    await tracing.shutdown();
    expect(exportedSpans(collector)).toHaveLength(3);
    const runs = await receivedRuns(langsmith);
    expect(runs).toHaveLength(3);
    expect(runs.every((run) => run.session_name === "default")).toBe(true);
    const bodies = allBodies(collector, langsmith);
    expect(bodies).not.toContain(SECRET);
    expect(bodies).not.toContain(API_KEY);
  });

  it("an unreachable collector and a failing LangSmith never break a call, and shutdown still returns", async () => {
    const langsmith = await startLangSmith({ fail: true });
    const tracing = await startTracing({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}`,
        LANGSMITH_TRACING: "true",
        LANGSMITH_API_KEY: API_KEY,
        LANGSMITH_ENDPOINT: langsmith.url,
      },
    });
    cleanups.push(() => tracing.shutdown());
    const executor = await tracedStack(tracing);
    await threeCalls(executor);
    await tracing.shutdown();
    // LangSmith was tried (and refused); nothing it was sent holds an argument or the key.
    expect(langsmith.requests.some((r) => r.path.startsWith("/runs/"))).toBe(true);
    expect(allBodies(langsmith)).not.toContain(SECRET);
    expect(allBodies(langsmith)).not.toContain(API_KEY);
  });
});
