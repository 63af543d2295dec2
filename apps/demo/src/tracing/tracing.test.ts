import type { MCPToolSpanEnd, MCPToolSpanStart, MCPTracer } from "@agentforge/agent-runtime";
import { describe, expect, it } from "vitest";
import {
  combineTracers,
  LANGSMITH_DEFAULT_ENDPOINT,
  OTLP_DEFAULT_TRACES_URL,
  startTracing,
  TracingConfigError,
  tracingSettings,
  tracingSummary,
} from "./tracing.js";
import { langSmithError, langSmithMetadata, langSmithTags } from "./tracing-langsmith.js";

const START: MCPToolSpanStart = {
  identity: "alpha.echo",
  serverName: "alpha",
  toolName: "echo",
  agent: "doc-agent",
  callId: "c-1",
  transport: "stdio",
};

function configError(run: () => unknown): TracingConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof TracingConfigError) return error;
    throw error;
  }
  throw new Error("expected a TracingConfigError");
}

describe("tracingSettings: OpenTelemetry", () => {
  it("is off with no variable and no flag", () => {
    expect(tracingSettings({ env: {} })).toEqual({ notes: [] });
    expect(tracingSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "  " } }).otel).toBeUndefined();
  });

  it("OTEL_EXPORTER_OTLP_ENDPOINT is a base: /v1/traces is appended", () => {
    for (const base of ["http://collector:4318", "http://collector:4318/"]) {
      expect(tracingSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: base } }).otel).toEqual({
        url: "http://collector:4318/v1/traces",
        urlSource: "OTEL_EXPORTER_OTLP_ENDPOINT",
        serviceName: "agentforge",
        headers: {},
      });
    }
    expect(
      tracingSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example/prefix" } }).otel?.url,
    ).toBe("https://otel.example/prefix/v1/traces");
  });

  it("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is and wins over the base", () => {
    const settings = tracingSettings({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces:9999/custom/path",
      },
    });
    expect(settings.otel?.url).toBe("http://traces:9999/custom/path");
    expect(settings.otel?.urlSource).toBe("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  });

  it("--otel alone sends to the standard local collector", () => {
    expect(tracingSettings({ env: {}, otel: true }).otel).toMatchObject({
      url: OTLP_DEFAULT_TRACES_URL,
      urlSource: "default",
    });
  });

  it("service.name: OTEL_SERVICE_NAME, then the option, then agentforge", () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
    expect(tracingSettings({ env: on }).otel?.serviceName).toBe("agentforge");
    expect(tracingSettings({ env: on, serviceName: "docs" }).otel?.serviceName).toBe("docs");
    expect(
      tracingSettings({ env: { ...on, OTEL_SERVICE_NAME: "from-env" }, serviceName: "docs" }).otel
        ?.serviceName,
    ).toBe("from-env");
  });

  it("reads the standard headers variable (signal-specific first, values URL-decoded)", () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "x-generic=1",
    };
    expect(tracingSettings({ env }).otel?.headers).toEqual({ "x-generic": "1" });
    expect(
      tracingSettings({
        env: { ...env, OTEL_EXPORTER_OTLP_TRACES_HEADERS: "Authorization=Bearer%20abc, x-team = a=b " },
      }).otel?.headers,
    ).toEqual({ Authorization: "Bearer abc", "x-team": "a=b" });
  });

  it("malformed headers name the variable and never echo the value", () => {
    const error = configError(() =>
      tracingSettings({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: "=s3cr3t-value" },
      }),
    );
    expect(error.code).toBe("TRACING_CONFIG_INVALID");
    expect(error.variable).toBe("OTEL_EXPORTER_OTLP_HEADERS");
    expect(error.message).not.toContain("s3cr3t-value");
  });

  it("an endpoint that is not an http(s) URL is a TracingConfigError naming the variable", () => {
    const notUrl = configError(() =>
      tracingSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318 nope" } }),
    );
    expect(notUrl).toMatchObject({ code: "TRACING_CONFIG_INVALID", variable: "OTEL_EXPORTER_OTLP_ENDPOINT" });
    expect(notUrl.message).toContain("OTEL_EXPORTER_OTLP_ENDPOINT");
    const grpc = configError(() =>
      tracingSettings({ env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "ftp://collector/v1/traces" } }),
    );
    expect(grpc.variable).toBe("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  });

  it("OTEL_SDK_DISABLED=true keeps it off, with a note", () => {
    const settings = tracingSettings({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "TRUE" },
      otel: true,
    });
    expect(settings.otel).toBeUndefined();
    expect(settings.notes).toEqual(["OpenTelemetry tracing is off: OTEL_SDK_DISABLED=true"]);
  });

  it("OTEL_TRACES_EXPORTER=none keeps it off, with a note", () => {
    const settings = tracingSettings({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" },
    });
    expect(settings.otel).toBeUndefined();
    expect(settings.notes).toEqual(["OpenTelemetry tracing is off: OTEL_TRACES_EXPORTER=none"]);
    expect(
      tracingSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "otlp" } })
        .otel,
    ).toBeDefined();
  });

  it("notes a protocol other than http/json", () => {
    const settings = tracingSettings({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
    });
    expect(settings.otel).toBeDefined();
    expect(settings.notes).toEqual([
      "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; spans are sent as OTLP http/json",
    ]);
    expect(
      tracingSettings({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      }).notes,
    ).toEqual([]);
  });
});

describe("tracingSettings: LangSmith", () => {
  const KEY = "lsv2_pt_unit-test-key";

  it("is on with LANGSMITH_TRACING=true and a key; endpoint, project and workspace from the env", () => {
    expect(
      tracingSettings({
        env: {
          LANGSMITH_TRACING: "true",
          LANGSMITH_API_KEY: KEY,
          LANGSMITH_ENDPOINT: "https://eu.api.smith.langchain.com/",
          LANGSMITH_PROJECT: "docs-runs",
          LANGSMITH_WORKSPACE_ID: "ws-1",
        },
      }).langsmith,
    ).toEqual({
      apiUrl: "https://eu.api.smith.langchain.com",
      apiKey: KEY,
      project: "docs-runs",
      workspaceId: "ws-1",
    });
  });

  it("defaults: the public endpoint and the `default` project", () => {
    expect(tracingSettings({ env: { LANGSMITH_TRACING: "true", LANGSMITH_API_KEY: KEY } }).langsmith).toEqual(
      {
        apiUrl: LANGSMITH_DEFAULT_ENDPOINT,
        apiKey: KEY,
        project: "default",
      },
    );
  });

  it("accepts the legacy LANGCHAIN_* variables", () => {
    expect(
      tracingSettings({
        env: {
          LANGCHAIN_TRACING_V2: "true",
          LANGCHAIN_API_KEY: KEY,
          LANGCHAIN_ENDPOINT: "http://127.0.0.1:1984",
          LANGCHAIN_PROJECT: "legacy",
        },
      }).langsmith,
    ).toEqual({ apiUrl: "http://127.0.0.1:1984", apiKey: KEY, project: "legacy" });
  });

  it("is off when not switched on, or switched off", () => {
    expect(tracingSettings({ env: { LANGSMITH_API_KEY: KEY } }).langsmith).toBeUndefined();
    expect(
      tracingSettings({ env: { LANGSMITH_TRACING: "false", LANGSMITH_API_KEY: KEY } }).langsmith,
    ).toBeUndefined();
  });

  it("switched on without a key: off, with a note that names the variable only", () => {
    const settings = tracingSettings({ env: { LANGSMITH_TRACING: "true" } });
    expect(settings.langsmith).toBeUndefined();
    expect(settings.notes).toEqual([
      "LangSmith tracing is off: LANGSMITH_TRACING=true but LANGSMITH_API_KEY is not set",
    ]);
  });

  it("a bad LANGSMITH_ENDPOINT is a TracingConfigError", () => {
    expect(
      configError(() =>
        tracingSettings({
          env: { LANGSMITH_TRACING: "true", LANGSMITH_API_KEY: KEY, LANGSMITH_ENDPOINT: "not a url" },
        }),
      ).variable,
    ).toBe("LANGSMITH_ENDPOINT");
  });
});

describe("LangSmith run fields", () => {
  it("tags server, tool and agent; metadata adds identity, call id and transport", () => {
    expect(langSmithTags(START)).toEqual(["mcp_server:alpha", "mcp_tool:echo", "agent:doc-agent"]);
    expect(langSmithMetadata(START)).toEqual({
      mcp_identity: "alpha.echo",
      mcp_server: "alpha",
      mcp_tool: "echo",
      agent: "doc-agent",
      call_id: "c-1",
      transport: "stdio",
    });
    const { transport: _, ...noTransport } = START;
    expect(langSmithMetadata(noTransport)).not.toHaveProperty("transport");
  });

  it("the error line is the code and the executor's one-line message; none for a success", () => {
    expect(langSmithError({ outcome: "ok" })).toBeUndefined();
    expect(
      langSmithError({ outcome: "denied", errorCode: "TOOL_DENIED", message: "agent may not call it" }),
    ).toBe("TOOL_DENIED: agent may not call it");
    expect(langSmithError({ outcome: "timeout" })).toBe("timeout");
  });
});

/** A tracer that records what it was told. */
function recording(): MCPTracer & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    startToolSpan(start) {
      log.push(`start ${start.identity}`);
      return { end: (result: MCPToolSpanEnd) => void log.push(`end ${result.outcome}`) };
    },
  };
}

describe("combineTracers", () => {
  it("is undefined for no tracer", () => {
    expect(combineTracers([])).toBeUndefined();
  });

  it("fans out start and end to every tracer, and ends each span once", () => {
    const a = recording();
    const b = recording();
    const span = combineTracers([a, b])?.startToolSpan(START);
    span?.end({ outcome: "ok" });
    span?.end({ outcome: "failed" });
    expect(a.log).toEqual(["start alpha.echo", "end ok"]);
    expect(b.log).toEqual(a.log);
  });

  it("a tracer that throws on start or on end never breaks the call nor the other tracers", () => {
    const good = recording();
    const throwsOnStart: MCPTracer = {
      startToolSpan() {
        throw new Error("backend down");
      },
    };
    const throwsOnEnd: MCPTracer = {
      startToolSpan: () => ({
        end() {
          throw new Error("backend down");
        },
      }),
    };
    const returnsNothing = { startToolSpan: () => undefined } as unknown as MCPTracer;
    const tracer = combineTracers([throwsOnStart, throwsOnEnd, returnsNothing, good]);
    const span = tracer?.startToolSpan(START);
    expect(() => span?.end({ outcome: "tool_error", errorCode: "TOOL_ERROR" })).not.toThrow();
    expect(good.log).toEqual(["start alpha.echo", "end tool_error"]);
  });
});

describe("tracingSummary", () => {
  it("one line per backend, without credentials in URLs and without the API key", () => {
    const KEY = "lsv2_pt_summary-key";
    const lines = tracingSummary(
      tracingSettings({
        env: {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://user:pass@otel.example/v1/traces?token=t0k",
          OTEL_SERVICE_NAME: "svc",
          LANGSMITH_TRACING: "true",
          LANGSMITH_API_KEY: KEY,
          LANGSMITH_PROJECT: "p1",
        },
      }),
    );
    expect(lines).toEqual([
      "OpenTelemetry: spans to https://otel.example/v1/traces (OTLP http/json, service.name svc)",
      `LangSmith: runs to project "p1" at ${LANGSMITH_DEFAULT_ENDPOINT}`,
    ]);
    expect(lines.join("\n")).not.toMatch(/pass|t0k|lsv2/);
    expect(tracingSummary({ notes: [] })).toEqual([]);
  });
});

describe("startTracing", () => {
  it("with nothing switched on: no tracer, no backend, and shutdown resolves", async () => {
    const tracing = await startTracing({ env: {} });
    expect(tracing.tracer).toBeUndefined();
    expect(tracing.backends).toEqual([]);
    expect(tracing.summary).toEqual([]);
    await expect(tracing.shutdown()).resolves.toBeUndefined();
    await expect(tracing.shutdown()).resolves.toBeUndefined();
  });

  it("rejects with the TracingConfigError of a bad variable", async () => {
    await expect(startTracing({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "::" } })).rejects.toMatchObject({
      code: "TRACING_CONFIG_INVALID",
      variable: "OTEL_EXPORTER_OTLP_ENDPOINT",
    });
  });
});
