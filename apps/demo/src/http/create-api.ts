// The Hono app of `agentforge serve`: the /mcp page, /api/v1/mcp/* and /api/v1/runs/*.
import { MCPConfigError, MCPError } from "@agentforge/mcp-config";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { streamSSE } from "hono/streaming";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { MCPManagement } from "../mcp/mcp-management.js";
import { type ErrorView, errorViewOf } from "../mcp/mcp-views.js";
import { UnknownServerError } from "../mcp/unknown-server-error.js";
import type { RunEventRecord } from "../run-store/run-event-log.js";
import { writeErr } from "../shared/terminal-safe.js";
import { ApiError } from "./api-error.js";
import {
  answerConfirmationSchema,
  getPromptSchema,
  parseBody,
  readResourceSchema,
  resumeRunSchema,
  startRunSchema,
} from "./body-schemas.js";
import type { ConfirmationDesk } from "./confirmation-desk.js";
import { requestGuard } from "./request-guard.js";
import type { RunManager } from "./run-manager.js";
import type { StaticAsset } from "./static-assets.js";

/**
 * `GET /api/v1/mcp/servers/{name}/tools` for a server this process has not listed yet: no tools, the last
 * health error if any, and the request that lists them (`POST` the same path).
 */
export interface UnlistedToolsView {
  tools: [];
  servers: [{ name: string; status: "not_listed"; toolCount: null; error: ErrorView | null }];
  list: { method: "POST"; href: string };
}

/**
 * `GET /api/v1/mcp/servers/{name}/resources|prompts` for a server this process is not connected to: a GET
 * never starts a server, so nothing is listed; `connect` is the request that connects it.
 */
export interface NotConnectedView {
  server: string;
  status: "not_connected";
  connect: { method: "POST"; href: string };
}

/** Most characters of a `cursor` query parameter (servers' cursors are opaque, but not megabytes). */
const MAX_CURSOR_CHARS = 4096;

/** What the API is built from. */
export interface ApiDependencies {
  management: MCPManagement;
  runs: RunManager;
  /** Pending confirmations and their answers (absent: the confirmation routes answer 404). */
  confirmations?: ConfirmationDesk;
  /** Who answers a confirmation through this API (`token:<fingerprint>` or `loopback`). */
  answeredBy?: string;
  /** The /mcp page's files (see `loadStaticAssets`). */
  assets: Map<string, StaticAsset>;
  /** Bearer token every /api request must carry, if set. */
  token: string | undefined;
  /** Accepted Host header values (undefined: any). */
  allowedHosts: () => Set<string> | undefined;
  /** Where unexpected errors are logged (default stderr). */
  log?: (line: string) => void;
  /** Interval of SSE keep-alive comments (default 15 s). */
  keepAliveMs?: number;
  /** What `GET /api/v1/health` says about this process. */
  instance?: () => InstanceView;
  /** True once the server is stopping: every POST answers 503 SHUTTING_DOWN. */
  stopping?: () => boolean;
}

/** `GET /api/v1/health`: this `serve` process. */
export interface InstanceView {
  status: "ok" | "stopping";
  /** Random per process (runs record it as `ownerInstance`). */
  instanceId: string;
  pid: number;
  startedAt: string;
  /** Where runs are kept: `files` or `postgres`. */
  store: "files" | "postgres";
  runs: { active: number; max: number };
  /** Health polling interval (ms), or null when off. */
  healthIntervalMs: number | null;
  /** Watching the config file for changes (`--watch-config`). */
  watchConfig: boolean;
}

const MAX_BODY_BYTES = 64 * 1024;

/**
 * mcp-client errors of one request on a working connection, answered with their own code: the server
 * offers no resources/prompts (409), refused the request (JSON-RPC error, 502), sent a reply too large or
 * not MCP (502), or took too long (504).
 */
const MCP_REQUEST_ERRORS = new Map<string, number>([
  ["CAPABILITY_NOT_SUPPORTED", 409],
  ["RPC_ERROR", 502],
  ["REPLY_TOO_LARGE", 502],
  ["INVALID_REPLY", 502],
  ["REQUEST_TIMEOUT", 504],
]);

const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Build the app; it holds no resources of its own (the management and runs do). */
export function createApi(deps: ApiDependencies): Hono {
  const { management, runs } = deps;
  const log = deps.log ?? writeErr;
  const keepAliveMs = deps.keepAliveMs ?? 15_000;
  const app = new Hono();

  const json = (
    c: Context,
    value: unknown,
    status: ContentfulStatusCode = 200,
    headers: Record<string, string> = {},
  ) =>
    c.body(management.json(value), status, { "content-type": "application/json; charset=utf-8", ...headers });

  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, "BODY_TOO_LARGE", `the request body is over ${MAX_BODY_BYTES} bytes`);
    },
  });

  const bodyText = async (c: Context): Promise<string> => {
    const text = await c.req.text();
    const type = c.req.header("content-type") ?? "";
    if (text.trim() !== "" && !/^application\/json\b/i.test(type)) {
      throw new ApiError(
        415,
        "UNSUPPORTED_MEDIA_TYPE",
        "send the body as JSON with Content-Type: application/json",
      );
    }
    return text;
  };

  app.use("*", async (c, next) => {
    await next();
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    if (c.req.path.startsWith("/api/")) c.header("Cache-Control", "no-store");
  });
  app.use("*", requestGuard({ token: deps.token, allowedHosts: deps.allowedHosts }));
  app.use("/api/*", async (c, next) => {
    if (c.req.method !== "GET" && deps.stopping?.()) {
      throw new ApiError(
        503,
        "SHUTTING_DOWN",
        "the server is shutting down; try again once it is back",
        {},
        {
          "Retry-After": "10",
        },
      );
    }
    await next();
  });

  // This process.
  app.get("/api/v1/health", (c) => {
    if (!deps.instance) throw new ApiError(404, "NOT_FOUND", "no instance information");
    const view = deps.instance();
    return json(c, view, view.status === "ok" ? 200 : 503);
  });

  // The page.
  const page = (name: string) => (c: Context) => {
    const asset = deps.assets.get(name) as StaticAsset;
    const headers: Record<string, string> = { ETag: asset.etag, "Cache-Control": "no-cache" };
    if (name === "index.html") headers["Content-Security-Policy"] = PAGE_CSP;
    if (c.req.header("if-none-match") === asset.etag) return c.body(null, 304, headers);
    return c.body(asset.body, 200, { "content-type": asset.contentType, ...headers });
  };
  app.get("/", (c) => c.redirect("/mcp"));
  app.get("/mcp", page("index.html"));
  app.get("/mcp/", (c) => c.redirect("/mcp"));
  app.get("/mcp/mcp.js", page("mcp.js"));
  app.get("/mcp/mcp.css", page("mcp.css"));

  // MCP servers.
  app.get("/api/v1/mcp/servers", (c) => json(c, { servers: management.liveServers() }));
  app.get("/api/v1/mcp/servers/:name", async (c) =>
    json(c, await management.inspect(c.req.param("name"), { connect: false })),
  );
  // GET answers from what this process already knows and never starts or connects a server (a GET can be
  // sent by any page: an <img> tag, a prefetch); listing a server's tools live is a POST.
  const enabledServer = (name: string) => {
    if (!management.server(name).enabled) {
      throw new ApiError(
        409,
        "SERVER_DISABLED",
        `MCP server "${name}" is disabled (enabled: false in the config)`,
      );
    }
    return name;
  };
  app.get("/api/v1/mcp/servers/:name/tools", async (c) => {
    const name = enabledServer(c.req.param("name"));
    if (management.app.manager.cachedTools(name) === undefined) {
      const view: UnlistedToolsView = {
        tools: [],
        servers: [
          {
            name,
            status: "not_listed",
            toolCount: null,
            error: management.lastHealth(name)?.error ?? null,
          },
        ],
        list: { method: "POST", href: `/api/v1/mcp/servers/${encodeURIComponent(name)}/tools` },
      };
      return json(c, view);
    }
    // Cached: `tools(..., { cached: true })` answers from the cache without any I/O.
    return json(c, await management.tools(name, { cached: true }));
  });
  app.post("/api/v1/mcp/servers/:name/tools", async (c) => {
    const name = enabledServer(c.req.param("name"));
    const view = await management.tools(name);
    const failed = view.servers.find((s) => s.status === "failed");
    if (failed?.error) {
      throw new ApiError(
        502,
        "SERVER_UNAVAILABLE",
        `MCP server "${name}" could not list its tools (${failed.error.code})`,
        {
          serverError: failed.error,
        },
      );
    }
    return json(c, view);
  });
  // Resources and prompts. GETs list over a connection this process already has (a running server is
  // asked, none is started: `not_connected` otherwise); reads and prompts are POSTs and connect as needed.
  const cursorOf = (c: Context): string | undefined => {
    const cursor = c.req.query("cursor");
    if (cursor === undefined || cursor === "") return undefined;
    if (cursor.length > MAX_CURSOR_CHARS) {
      throw new ApiError(400, "INVALID_BODY", `cursor must be at most ${MAX_CURSOR_CHARS} characters`, {
        issues: [{ path: "cursor", message: `expected at most ${MAX_CURSOR_CHARS} characters` }],
      });
    }
    return cursor;
  };
  const notConnected = (name: string): NotConnectedView => ({
    server: name,
    status: "not_connected",
    connect: { method: "POST", href: `/api/v1/mcp/servers/${encodeURIComponent(name)}/health-check` },
  });
  app.get("/api/v1/mcp/servers/:name/resources", async (c) => {
    const name = enabledServer(c.req.param("name"));
    const cursor = cursorOf(c);
    if (!management.connected(name))
      return json(c, { ...notConnected(name), resources: [], nextCursor: null });
    return json(c, { status: "ok", ...(await management.resources(name, cursor)) });
  });
  app.get("/api/v1/mcp/servers/:name/prompts", async (c) => {
    const name = enabledServer(c.req.param("name"));
    const cursor = cursorOf(c);
    if (!management.connected(name)) return json(c, { ...notConnected(name), prompts: [], nextCursor: null });
    return json(c, { status: "ok", ...(await management.prompts(name, cursor)) });
  });
  app.post("/api/v1/mcp/servers/:name/resources/read", limit, async (c) => {
    const name = enabledServer(c.req.param("name"));
    const body = parseBody(readResourceSchema, await bodyText(c));
    return json(c, await management.readResource(name, body.uri));
  });
  app.post("/api/v1/mcp/servers/:name/prompts/get", limit, async (c) => {
    const name = enabledServer(c.req.param("name"));
    const body = parseBody(getPromptSchema, await bodyText(c));
    return json(c, await management.getPrompt(name, body.name, body.arguments ?? {}));
  });
  app.post("/api/v1/mcp/servers/:name/health-check", async (c) => {
    const name = c.req.param("name");
    return json(c, { name, ...(await management.check(name)) });
  });
  app.post("/api/v1/mcp/servers/:name/reconnect", async (c) =>
    json(c, await management.reconnect(c.req.param("name"))),
  );
  app.post("/api/v1/mcp/servers/:name/test", async (c) => {
    const name = c.req.param("name");
    management.server(name);
    return json(c, await management.test(name));
  });
  app.get("/api/v1/mcp/health", (c) =>
    json(c, {
      servers: management.names().map((name) => ({ name, health: management.lastHealth(name) })),
    }),
  );
  app.post("/api/v1/mcp/health-check", async (c) => json(c, await management.checkAll()));
  app.post("/api/v1/mcp/refresh", async (c) => json(c, await management.refresh()));
  app.post("/api/v1/mcp/reload", async (c) => {
    try {
      return json(c, await management.reload());
    } catch (error) {
      if (MCPConfigError.isInstance(error)) {
        throw new ApiError(
          422,
          "CONFIG_RELOAD_FAILED",
          `the config file was not applied (the running roster stays): ${error.message}`,
          { issues: error.issues ?? [] },
        );
      }
      throw error;
    }
  });

  // Docs runs.
  app.post("/api/v1/runs", limit, async (c) => {
    const body = parseBody(startRunSchema, await bodyText(c));
    const view = await runs.start(body);
    return json(c, view, 202, { Location: view.links.self });
  });
  app.get("/api/v1/runs", async (c) => {
    const raw = c.req.query("limit") ?? "50";
    if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > 1000) {
      throw new ApiError(400, "INVALID_BODY", `limit must be an integer from 1 to 1000, got "${raw}"`, {
        issues: [{ path: "limit", message: "expected an integer from 1 to 1000" }],
      });
    }
    return json(c, { runs: await runs.list(Number(raw)), active: runs.activeCount, maxRuns: runs.maxRuns });
  });
  app.get("/api/v1/runs/:id", async (c) => json(c, await runs.get(c.req.param("id"))));
  app.post("/api/v1/runs/:id/resume", limit, async (c) => {
    const id = c.req.param("id");
    await runs.get(id);
    const body = parseBody(resumeRunSchema, await bodyText(c));
    const view = await runs.resume(id, body);
    return json(c, view, 202, { Location: view.links.self });
  });
  // Confirmations of sensitive tool calls that unattended runs wait for.
  const desk = () => {
    if (!deps.confirmations) throw new ApiError(404, "NOT_FOUND", "confirmations are not served here");
    return deps.confirmations;
  };
  app.get("/api/v1/confirmations", async (c) => {
    const raw = c.req.query("limit") ?? "200";
    if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > 1000) {
      throw new ApiError(400, "INVALID_BODY", `limit must be an integer from 1 to 1000, got "${raw}"`, {
        issues: [{ path: "limit", message: "expected an integer from 1 to 1000" }],
      });
    }
    return json(c, { confirmations: await desk().pending(Number(raw)) });
  });
  app.post("/api/v1/runs/:id/confirmations/:callId", limit, async (c) => {
    const id = c.req.param("id");
    await runs.get(id);
    const body = parseBody(answerConfirmationSchema, await bodyText(c));
    const view = await desk().answer(id, c.req.param("callId"), body, deps.answeredBy ?? "loopback");
    return json(c, view, view.resumed ? 202 : 200);
  });
  app.get("/api/v1/runs/:id/events", async (c) => {
    const id = c.req.param("id");
    const raw = c.req.header("last-event-id") ?? c.req.query("lastEventId") ?? "0";
    if (!/^\d{1,15}$/.test(raw.trim())) {
      await runs.get(id); // an unknown run is a 404 first
      throw new ApiError(
        400,
        "INVALID_LAST_EVENT_ID",
        `Last-Event-ID must be a non-negative integer (an event id), got "${raw}"`,
      );
    }
    const after = Number(raw.trim());
    const queue: (RunEventRecord | null)[] = [];
    let wake: (() => void) | undefined;
    const feed = await runs.events(id, after, (event) => {
      queue.push(event);
      wake?.();
    });
    c.header("X-Accel-Buffering", "no");
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => wake?.());
      let sent = after;
      let ended = !feed.live;
      // For a run another instance just finished: when the last event arrived.
      let settled = Date.now();
      const send = async (event: RunEventRecord, live = true) => {
        if (event.id <= sent) {
          // The live copy of a run_finished already sent in the replay (the subscription starts before
          // the replay is read): it is the current one, and it ends the stream.
          if (live && event.type === "run_finished") ended = true;
          return;
        }
        sent = event.id;
        await stream.writeSSE({
          id: String(event.id),
          event: event.type,
          data: management.redactor.redact(JSON.stringify(event.data)),
        });
        // A live run_finished ends the stream (replayed ones belong to earlier stretches of the run).
        if (live && event.type === "run_finished") ended = true;
      };
      try {
        for (const event of feed.replay) await send(event, false);
        while (!stream.aborted) {
          while (queue.length > 0) {
            const event = queue.shift();
            if (event === null) {
              // The run stopped here: its last events may still be on their way through the store's
              // notifications; send what is stored, then end.
              for (const stored of await feed.catchUp(sent)) await send(stored);
              ended = true;
            } else if (event) {
              await send(event);
              settled = Date.now();
            }
          }
          if (ended) break;
          if (feed.settleMs !== undefined && Date.now() - settled >= feed.settleMs) break;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(
              resolve,
              feed.settleMs !== undefined ? Math.min(keepAliveMs, feed.settleMs) : keepAliveMs,
            );
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
          if (queue.length === 0 && !stream.aborted) await stream.write(": keep-alive\n\n");
        }
      } catch (error) {
        // A client that went away mid-write is normal; anything else is logged, never sent.
        if (!stream.aborted)
          log(
            management.redactor.redact(
              `agentforge serve: event stream of run ${id} failed: ${String(error)}`,
            ),
          );
      } finally {
        feed.stop();
      }
    });
  });

  app.notFound((c) =>
    json(c, new ApiError(404, "NOT_FOUND", `no route ${c.req.method} ${c.req.path}`).toJSON(), 404),
  );
  app.onError((error, c) => {
    let api: ApiError;
    if (error instanceof ApiError) api = error;
    else if (error instanceof UnknownServerError)
      api = new ApiError(404, "SERVER_NOT_FOUND", error.message, { known: error.known });
    else if (MCPError.isInstance(error) && error.code === "SERVER_DISABLED")
      api = new ApiError(409, "SERVER_DISABLED", error.message);
    else if (MCPError.isInstance(error) && MCP_REQUEST_ERRORS.has(error.code)) {
      // The server is up but refused or could not answer this request (no such resource, a prompt's
      // arguments, no resources at all): a stable code of its own, with the server's words redacted.
      const details = error as { serverName?: unknown; capability?: unknown; rpcCode?: unknown };
      return json(
        c,
        {
          error: {
            code: error.code,
            message: error.message.split("\n")[0] ?? "",
            ...(typeof details.serverName === "string" ? { serverName: details.serverName } : {}),
            ...(typeof details.capability === "string" ? { capability: details.capability } : {}),
            ...(typeof details.rpcCode === "number" ? { rpcCode: details.rpcCode } : {}),
          },
        },
        MCP_REQUEST_ERRORS.get(error.code) as ContentfulStatusCode,
      );
    } else if (MCPError.isInstance(error)) {
      api = new ApiError(502, "SERVER_UNAVAILABLE", error.message.split("\n")[0] ?? "", {
        serverError: errorViewOf(error),
      });
    } else {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(management.redactor.redact(`agentforge serve: ${c.req.method} ${c.req.path} failed: ${detail}`));
      api = new ApiError(500, "INTERNAL", "internal error; see the server's log");
    }
    return json(c, api.toJSON(), api.status, api.headers);
  });
  return app;
}
