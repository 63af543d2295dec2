// Tracing you can switch on: OpenTelemetry (OTLP over HTTP) and LangSmith, one span/run per MCP tool call.
// Nothing here loads an exporter or an SDK unless it is turned on: the backends live in tracing-otel.ts and
// tracing-langsmith.ts and are imported lazily, so a CLI start with tracing off pays nothing.
import type { MCPToolSpan, MCPToolSpanEnd, MCPTracer } from "@agentforge/agent-runtime";
import { warnOnStderr } from "../shared/warnings.js";

/** A tracing backend. */
export type TracingBackend = "otel" | "langsmith";

/** Options of `startTracing`. */
export interface StartTracingOptions {
  /** Where the standard variables are read (`OTEL_*`, `LANGSMITH_*`, legacy `LANGCHAIN_*`). */
  env: NodeJS.ProcessEnv;
  /** `--otel`: turn the OpenTelemetry exporter on even without an `OTEL_EXPORTER_OTLP_*ENDPOINT`. */
  otel?: boolean;
  /** `service.name` when `OTEL_SERVICE_NAME` is not set (default `agentforge`). */
  serviceName?: string;
}

/** What `startTracing` started. */
export interface Tracing {
  /** The executor's tracer (pass it as `MCPToolExecutor`'s `tracer`), or undefined when tracing is off. */
  tracer: MCPTracer | undefined;
  /** Flush what is buffered and stop the exporters. Never throws; safe to call twice. */
  shutdown(): Promise<void>;
  /** The backends that are on. */
  backends: TracingBackend[];
  /** One line per setting that was ignored (e.g. LangSmith on without an API key); never a secret value. */
  notes: string[];
  /** One line per backend that is on, for a start-up log (where spans/runs go); never a secret value. */
  summary: string[];
}

/** The OpenTelemetry part of `TracingSettings`. */
export interface OTelTracingSettings {
  /** The OTLP/HTTP traces URL (`.../v1/traces`). */
  url: string;
  /** Where the URL came from: the variable name, or `default`. */
  urlSource: string;
  serviceName: string;
  /** Extra request headers (`OTEL_EXPORTER_OTLP_TRACES_HEADERS` / `OTEL_EXPORTER_OTLP_HEADERS`). */
  headers: Record<string, string>;
}

/** The LangSmith part of `TracingSettings`. */
export interface LangSmithTracingSettings {
  apiUrl: string;
  apiKey: string;
  project: string;
  workspaceId?: string;
}

/** What the environment asks for (see `tracingSettings`). */
export interface TracingSettings {
  otel?: OTelTracingSettings;
  langsmith?: LangSmithTracingSettings;
  notes: string[];
}

/** A tracing variable holds a value that cannot be used. */
export class TracingConfigError extends Error {
  readonly code = "TRACING_CONFIG_INVALID";
  constructor(
    /** The environment variable at fault. */
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = "TracingConfigError";
  }
}

/** The default LangSmith API. */
export const LANGSMITH_DEFAULT_ENDPOINT = "https://api.smith.langchain.com";
/** The default OTLP/HTTP traces URL (the standard collector port on this machine). */
export const OTLP_DEFAULT_TRACES_URL = "http://localhost:4318/v1/traces";

const value = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const text = env[name]?.trim();
  return text ? text : undefined;
};
const first = (env: NodeJS.ProcessEnv, names: readonly string[]): [string, string] | undefined => {
  for (const name of names) {
    const text = value(env, name);
    if (text !== undefined) return [name, text];
  }
  return undefined;
};
const isTrue = (text: string | undefined): boolean => text?.toLowerCase() === "true";

function httpUrl(variable: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TracingConfigError(variable, `${variable} is not a URL; expected e.g. http://localhost:4318`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TracingConfigError(
      variable,
      `${variable} must be an http:// or https:// URL (got a ${url.protocol} URL)`,
    );
  }
  return url.href;
}

/** `k1=v1,k2=v2` (values URL-encoded), the format of `OTEL_EXPORTER_OTLP_HEADERS`. */
function otlpHeaders(variable: string, text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const item of text.split(",")) {
    if (!item.trim()) continue;
    const at = item.indexOf("=");
    const key = at > 0 ? item.slice(0, at).trim() : "";
    if (!key) {
      // The text may hold a credential: name the variable and the entry's position, never its content.
      throw new TracingConfigError(
        variable,
        `${variable} must be a comma-separated list of key=value pairs; an entry has no key`,
      );
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new TracingConfigError(variable, `${variable}: the value of "${key}" is not valid URL encoding`);
    }
    headers[key] = decoded;
  }
  return headers;
}

/**
 * Read what the environment asks for, without starting anything. OpenTelemetry is on with `otel`, or when
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (+ `/v1/traces`) is
 * set, unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. LangSmith is on when
 * `LANGSMITH_TRACING=true` (or the legacy `LANGSMITH_TRACING_V2`, `LANGCHAIN_TRACING_V2`,
 * `LANGCHAIN_TRACING`) and an API key is set.
 * Throws `TracingConfigError` for an endpoint that is not an http(s) URL or malformed OTLP headers.
 */
export function tracingSettings(options: StartTracingOptions): TracingSettings {
  const { env } = options;
  const notes: string[] = [];
  const settings: TracingSettings = { notes };

  const endpoint = first(env, ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"]);
  if (options.otel || endpoint) {
    const exporters = value(env, "OTEL_TRACES_EXPORTER")?.toLowerCase();
    if (isTrue(value(env, "OTEL_SDK_DISABLED"))) {
      notes.push("OpenTelemetry tracing is off: OTEL_SDK_DISABLED=true");
    } else if (exporters === "none") {
      notes.push("OpenTelemetry tracing is off: OTEL_TRACES_EXPORTER=none");
    } else {
      let url = OTLP_DEFAULT_TRACES_URL;
      let urlSource = "default";
      if (endpoint) {
        const [name, text] = endpoint;
        url = httpUrl(name, text);
        urlSource = name;
        // The signal-specific variable is the full URL; the generic one is a base the signal path is appended to.
        if (name === "OTEL_EXPORTER_OTLP_ENDPOINT") url = `${url.replace(/\/+$/, "")}/v1/traces`;
      }
      const headerVariable = first(env, ["OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"]);
      const protocol = first(env, ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]);
      if (protocol && protocol[1] !== "http/json") {
        notes.push(`${protocol[0]}=${protocol[1]} is not supported; spans are sent as OTLP http/json`);
      }
      settings.otel = {
        url,
        urlSource,
        serviceName: value(env, "OTEL_SERVICE_NAME") ?? options.serviceName ?? "agentforge",
        headers: headerVariable ? otlpHeaders(headerVariable[0], headerVariable[1]) : {},
      };
    }
  }

  const switchedOn = first(env, [
    "LANGSMITH_TRACING",
    "LANGSMITH_TRACING_V2",
    "LANGCHAIN_TRACING_V2",
    "LANGCHAIN_TRACING",
  ]);
  if (switchedOn && isTrue(switchedOn[1])) {
    const apiKey = first(env, ["LANGSMITH_API_KEY", "LANGCHAIN_API_KEY"]);
    if (!apiKey) {
      notes.push(`LangSmith tracing is off: ${switchedOn[0]}=true but LANGSMITH_API_KEY is not set`);
    } else {
      const endpointVariable = first(env, ["LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT"]);
      const workspaceId = value(env, "LANGSMITH_WORKSPACE_ID");
      settings.langsmith = {
        apiUrl: endpointVariable
          ? httpUrl(endpointVariable[0], endpointVariable[1]).replace(/\/+$/, "")
          : LANGSMITH_DEFAULT_ENDPOINT,
        apiKey: apiKey[1],
        project: first(env, ["LANGSMITH_PROJECT", "LANGCHAIN_PROJECT"])?.[1] ?? "default",
        ...(workspaceId ? { workspaceId } : {}),
      };
    }
  }
  return settings;
}

const noopSpan: MCPToolSpan = { end: () => undefined };

/**
 * One tracer fanning out to several. A tracer that throws (on start or on end) is skipped for that call:
 * tracing never breaks a tool call. Undefined when the list is empty.
 */
export function combineTracers(tracers: readonly MCPTracer[]): MCPTracer | undefined {
  if (tracers.length === 0) return undefined;
  const list = [...tracers];
  return {
    startToolSpan(start) {
      const spans: MCPToolSpan[] = [];
      for (const tracer of list) {
        try {
          spans.push(tracer.startToolSpan(start) ?? noopSpan);
        } catch {
          // This backend records nothing for this call; the call goes on.
        }
      }
      let ended = false;
      return {
        end(result: MCPToolSpanEnd) {
          if (ended) return;
          ended = true;
          for (const span of spans) {
            try {
              span.end(result);
            } catch {
              // Same as above: a broken backend loses this span, nothing else.
            }
          }
        },
      };
    },
  };
}

/** A started backend. */
export interface TracingBackendHandle {
  tracer: MCPTracer;
  /** Flush what is buffered. */
  shutdown(): Promise<void>;
  /** Called once `shutdown` settled or its time ran out: drop whatever is still pending. */
  abort?(): void;
}

/** A URL for a log line: no user info, query or fragment (they may hold credentials). */
function displayUrl(text: string): string {
  const url = new URL(text);
  return `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
}

/** What `startTracing` would turn on, one line per backend, without secrets. */
export function tracingSummary(settings: TracingSettings): string[] {
  const lines: string[] = [];
  if (settings.otel) {
    lines.push(
      `OpenTelemetry: spans to ${displayUrl(settings.otel.url)} (OTLP http/json, service.name ${settings.otel.serviceName})`,
    );
  }
  if (settings.langsmith) {
    lines.push(
      `LangSmith: runs to project "${settings.langsmith.project}" at ${displayUrl(settings.langsmith.apiUrl)}`,
    );
  }
  return lines;
}

/** Flushing one backend waits at most this long (an unreachable collector must not hold the process). */
const SHUTDOWN_LIMIT_MS = 15_000;

async function stopBackend(handle: TracingBackendHandle): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SHUTDOWN_LIMIT_MS);
    timer.unref();
  });
  try {
    const work = (async () => handle.shutdown())();
    const reported = work.catch((cause: unknown) =>
      warnOnStderr({
        code: "SHUTDOWN_STEP_FAILED",
        message: "a tracing back end did not flush its spans",
        cause,
      }),
    );
    await Promise.race([reported, limit]);
  } finally {
    clearTimeout(timer);
    try {
      handle.abort?.();
    } catch {
      // Nothing more to stop.
    }
  }
}

/**
 * Turn tracing on as the environment (and `--otel`) asks: see `tracingSettings`. Each MCP call becomes an
 * OpenTelemetry CLIENT span `tools/call <tool>` exported over OTLP/HTTP (JSON) with `service.name`
 * `OTEL_SERVICE_NAME` (default `agentforge`), and/or a LangSmith run `mcp:<identity>` (run type `tool`,
 * tagged with server, tool and agent). Neither ever holds arguments, results or credentials.
 * `shutdown()` flushes both.
 */
export async function startTracing(options: StartTracingOptions): Promise<Tracing> {
  const settings = tracingSettings(options);
  const handles: TracingBackendHandle[] = [];
  const backends: TracingBackend[] = [];
  try {
    if (settings.otel) {
      const { startOpenTelemetryBackend } = await import("./tracing-otel.js");
      handles.push(startOpenTelemetryBackend(settings.otel));
      backends.push("otel");
    }
    if (settings.langsmith) {
      const { startLangSmithBackend } = await import("./tracing-langsmith.js");
      handles.push(startLangSmithBackend(settings.langsmith));
      backends.push("langsmith");
    }
  } catch (error) {
    await Promise.all(handles.map(stopBackend));
    throw error;
  }
  let stopped: Promise<void> | undefined;
  return {
    tracer: combineTracers(handles.map((handle) => handle.tracer)),
    backends,
    notes: settings.notes,
    summary: tracingSummary(settings),
    shutdown() {
      stopped ??= Promise.all(handles.map(stopBackend)).then(() => undefined);
      return stopped;
    },
  };
}
