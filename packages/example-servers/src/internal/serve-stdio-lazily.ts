// The stdio front of every bin: it answers the first messages of a connection from a snapshot, with no
// SDK, zod or tool code loaded — for a 2025-era client initialize, the initialized notification,
// tools/list and ping; for a 2026-07-28 client server/discover and tools/list carrying a plain
// per-request _meta envelope — and hands the connection to the SDK's stdio entry (`serveStdio`, which
// serves both eras) the moment anything else arrives (a tools/call, a malformed line, an unknown method,
// a second initialize, an unusual envelope...). A cold start then costs what Node.js itself costs.
//
// Identical behaviour is the rule: the front only answers messages that the SDK would accept and answer
// in exactly the same way (a conservative subset, checked below); everything else goes to the SDK, which
// first receives the lines the front answered that decided the connection's era (the opening message, a
// server/discover probe, initialize and the initialized notification; their replies are dropped), so its
// state is what it would have been had it served the connection from the start.
// This module imports nothing but Node.js built-ins; keep it that way (a test checks what a bin loads).
// Even those are fetched with process.getBuiltinModule where they are needed: an ESM `import` of a
// built-in builds its whole namespace first (node:stream's also loads stream/promises), a cost paid
// before the first reply.
import type { PassThrough } from "node:stream";
import type { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

/** What the front answers without the SDK, generated from the real server (see scripts/). */
export interface StdioSnapshot {
  /** The initialize result without `protocolVersion` (negotiated per request). */
  initialize: { capabilities: Record<string, unknown>; serverInfo: Record<string, unknown> };
  /** The `capabilities` of the server/discover result (2026-07-28). */
  discoverCapabilities: Record<string, unknown>;
  /** The tools/list result. */
  toolsList: { tools: Record<string, unknown>[] };
  /** The SDK's protocol versions (see protocol-versions.ts). */
  protocolVersions: ProtocolVersions;
}

/** The SDK's protocol versions, as the generated protocol-versions.ts holds them. */
export interface ProtocolVersions {
  /** 2025-era `initialize`: the latest version, then every version it accepts. */
  latest: string;
  supported: readonly string[];
  /** 2026-era revisions served with the per-request `_meta` envelope (server/discover's `supportedVersions`). */
  modern: readonly string[];
}

/**
 * How to load the real server: called once, at the hand-over, with the stream that carries what the
 * client sent; returns an SDK stdio transport reading that stream and writing stdout, and `serve`, which
 * starts the SDK's stdio entry on it (the front first wraps the transport's `send` and `close`).
 */
export type LoadStdioServer = (input: PassThrough) => Promise<{
  transport: StdioServerTransport;
  serve(): { close(): Promise<void> };
}>;

/** The handle `serveStdioLazily` returns (the same shape as `serveStdio`'s). */
export interface LazyStdioHandle {
  /** Resolves when the client goes away (stdin ends or the transport closes). */
  closed: Promise<void>;
  /** Close the server (if loaded) and stop reading. */
  close(): Promise<void>;
  /** Whether the real server has been loaded (for tests and diagnostics). */
  readonly loaded: boolean;
}

/** The SDK's stdio read buffer limit; a longer unterminated line is handed over (the SDK refuses it). */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const keysWithin = (value: Json, allowed: readonly string[]) =>
  Object.keys(value).every((key) => allowed.includes(key));

const isEmptyObject = (value: unknown) => isObject(value) && Object.keys(value).length === 0;

/** A request id the SDK accepts: a string or an integer. */
const isRequestId = (value: unknown) =>
  typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));

const optional = (value: unknown, check: (v: unknown) => boolean) => value === undefined || check(value);

const isObjectOf = (check: (v: unknown) => boolean) => (value: unknown) =>
  isObject(value) && Object.values(value).every(check);

/**
 * Client capabilities the SDK's schema certainly accepts. Unknown capability names are accepted (the
 * schema ignores them); known ones must have the declared shape; anything unusual is handed over.
 */
function plainCapabilities(value: unknown): boolean {
  if (!isObject(value)) return false;
  const { experimental, extensions, sampling, elicitation, roots, tasks } = value;
  return (
    optional(experimental, isObjectOf(isObject)) &&
    optional(extensions, isObjectOf(isObject)) &&
    optional(sampling, (s) => isObject(s) && optional(s.context, isObject) && optional(s.tools, isObject)) &&
    optional(
      elicitation,
      (e) =>
        isObject(e) &&
        keysWithin(e, ["form", "url"]) &&
        optional(e.form, (f) => isObject(f) && optional(f.applyDefaults, (b) => typeof b === "boolean")) &&
        optional(e.url, isObject),
    ) &&
    optional(roots, (r) => isObject(r) && optional(r.listChanged, (b) => typeof b === "boolean")) &&
    optional(tasks, isEmptyObject)
  );
}

const isString = (value: unknown) => typeof value === "string";

/** A clientInfo (Implementation) the SDK's schema certainly accepts. */
function plainClientInfo(info: unknown): boolean {
  return (
    isObject(info) &&
    keysWithin(info, ["name", "version", "title", "websiteUrl", "description"]) &&
    isString(info.name) &&
    isString(info.version) &&
    optional(info.title, isString) &&
    optional(info.websiteUrl, isString) &&
    optional(info.description, isString)
  );
}

/** An initialize request whose params the SDK certainly accepts. */
function plainInitialize(params: unknown): params is { protocolVersion: string } {
  if (!isObject(params) || !keysWithin(params, ["protocolVersion", "capabilities", "clientInfo"])) {
    return false;
  }
  return (
    isString(params.protocolVersion) &&
    plainCapabilities(params.capabilities) &&
    plainClientInfo(params.clientInfo)
  );
}

const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";

/**
 * Whether `params` carry the 2026-07-28 envelope claim (the reserved protocol-version `_meta` key), valid
 * or not: such a message is never answered as a 2025-era one.
 */
function claimsEnvelope(params: unknown): boolean {
  return isObject(params) && isObject(params._meta) && PROTOCOL_VERSION_KEY in params._meta;
}

/**
 * Params (of server/discover, or of tools/list with `extra` keys allowed) whose `_meta` is a plain
 * per-request envelope the SDK certainly accepts: a supported modern version, plain client capabilities,
 * an optional plain clientInfo, and nothing else.
 */
function plainEnvelope(params: unknown, modern: readonly string[], extra: readonly string[] = []): boolean {
  if (!isObject(params) || !keysWithin(params, ["_meta", ...extra]) || !isObject(params._meta)) return false;
  const meta = params._meta;
  const version = meta[PROTOCOL_VERSION_KEY];
  return (
    keysWithin(meta, [PROTOCOL_VERSION_KEY, CLIENT_INFO_KEY, CLIENT_CAPABILITIES_KEY]) &&
    isString(version) &&
    modern.includes(version as string) &&
    plainCapabilities(meta[CLIENT_CAPABILITIES_KEY]) &&
    optional(meta[CLIENT_INFO_KEY], plainClientInfo)
  );
}

/**
 * Where a connection stands, as the SDK's stdio entry sees it: nothing yet; probed by server/discover
 * (not pinned: the client may still fall back to initialize); pinned to the 2025 era (by initialize or
 * any claim-less opening message); pinned to 2026-07-28 (by an enveloped request other than a probe).
 */
export type ConnectionEra = "new" | "probed" | "legacy" | "modern";

/** The front's view of a connection: its era, and whether a (2025) initialize was answered. */
export interface FrontState {
  era: ConnectionEra;
  initialized: boolean;
}

type FastMessage =
  | { kind: "initialize"; id: string | number; protocolVersion: string }
  | { kind: "initialized" }
  | { kind: "tools/list"; id: string | number; modern: boolean }
  | { kind: "ping"; id: string | number }
  | { kind: "server/discover"; id: string | number };

const isPlainCursorParams = (p: unknown) =>
  isObject(p) && keysWithin(p, ["cursor"]) && optional(p.cursor, isString);

/** Classify one line; undefined for anything the front leaves to the SDK. */
function classify(line: string, state: FrontState, modern: readonly string[]): FastMessage | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(message) || message.jsonrpc !== "2.0") return undefined;
  const { id, method, params } = message;
  const legacyOk = state.era === "new" || state.era === "legacy";
  if ("id" in message) {
    if (!keysWithin(message, ["jsonrpc", "id", "method", "params"]) || !isRequestId(id)) return undefined;
    const requestId = id as string | number;
    if (claimsEnvelope(params)) {
      if (state.era === "legacy") return undefined;
      if (method === "server/discover" && plainEnvelope(params, modern)) {
        return { kind: "server/discover", id: requestId };
      }
      if (
        method === "tools/list" &&
        plainEnvelope(params, modern, ["cursor"]) &&
        optional((params as Json).cursor, isString)
      ) {
        return { kind: "tools/list", id: requestId, modern: true };
      }
      return undefined;
    }
    if (
      method === "initialize" &&
      (state.era === "new" || state.era === "probed") &&
      plainInitialize(params)
    ) {
      return { kind: "initialize", id: requestId, protocolVersion: params.protocolVersion };
    }
    if (!legacyOk) return undefined;
    if (method === "ping" && optional(params, isEmptyObject)) return { kind: "ping", id: requestId };
    if (method === "tools/list" && optional(params, isPlainCursorParams)) {
      return { kind: "tools/list", id: requestId, modern: false };
    }
    return undefined;
  }
  if (
    state.era === "legacy" &&
    state.initialized &&
    method === "notifications/initialized" &&
    keysWithin(message, ["jsonrpc", "method", "params"]) &&
    optional(params, isEmptyObject)
  ) {
    return { kind: "initialized" };
  }
  return undefined;
}

/** What the front does with one line: its reply (none for a notification), or undefined to hand over. */
export interface FastReply {
  kind: FastMessage["kind"];
  id?: string | number;
  reply?: Record<string, unknown>;
  /** The connection's state once the line is taken. */
  state: FrontState;
  /**
   * Whether the SDK must see this line at the hand-over to reach the same state (it opened, probed or
   * pinned the connection, or is initialize / the initialized notification); its reply is then dropped.
   */
  replay: boolean;
}

/** A 2026-07-28 result as the SDK sends it: the result's own fields, then the cache fields and identity. */
function modernResult(snapshot: StdioSnapshot, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    ...fields,
    resultType: "complete",
    ttlMs: 0,
    cacheScope: "private",
    _meta: { [SERVER_INFO_KEY]: snapshot.initialize.serverInfo },
  };
}

/**
 * The front's answer to one line (without its newline) in a connection in `state`; undefined when the
 * line goes to the SDK.
 */
export function fastReply(snapshot: StdioSnapshot, line: string, state: FrontState): FastReply | undefined {
  const versions = snapshot.protocolVersions;
  const message = classify(line, state, versions.modern);
  const reply = (id: string | number, result: unknown) => ({ result, jsonrpc: "2.0", id });
  switch (message?.kind) {
    case undefined:
      return undefined;
    case "initialize": {
      const protocolVersion = versions.supported.includes(message.protocolVersion)
        ? message.protocolVersion
        : versions.latest;
      const result = { protocolVersion, ...snapshot.initialize };
      return {
        kind: "initialize",
        id: message.id,
        reply: reply(message.id, result),
        state: { era: "legacy", initialized: true },
        replay: true,
      };
    }
    case "server/discover":
      return {
        kind: "server/discover",
        id: message.id,
        reply: reply(
          message.id,
          modernResult(snapshot, {
            supportedVersions: versions.modern,
            capabilities: snapshot.discoverCapabilities,
          }),
        ),
        state: { era: state.era === "new" ? "probed" : state.era, initialized: state.initialized },
        replay: state.era === "new",
      };
    case "tools/list":
      return {
        kind: "tools/list",
        id: message.id,
        reply: reply(
          message.id,
          message.modern ? modernResult(snapshot, snapshot.toolsList) : snapshot.toolsList,
        ),
        state: { era: message.modern ? "modern" : "legacy", initialized: state.initialized },
        replay: state.era === "new" || state.era === "probed",
      };
    case "ping":
      return {
        kind: "ping",
        id: message.id,
        reply: reply(message.id, {}),
        state: { era: "legacy", initialized: state.initialized },
        replay: state.era === "new",
      };
    case "initialized":
      return { kind: "initialized", state, replay: true };
  }
}

/**
 * Serve this process's stdin/stdout: the first messages from `snapshot`, then, from the first message
 * the snapshot cannot answer, the SDK's stdio entry on the transport `load` returns (reading a stream
 * that carries what the client sent). Stdout carries protocol messages only, so `console.log` is
 * redirected to stderr.
 */
export function serveStdioLazily(snapshot: StdioSnapshot, load: LoadStdioServer): LazyStdioHandle {
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const stdin = process.stdin;
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  stdin.once("end", () => markClosed());
  stdin.once("close", () => markClosed());

  let buffer: Buffer | undefined;
  /** Raw lines the front answered that the SDK must see to reach the same state, replayed at the hand-over. */
  const replay: { line: Buffer; responseId?: string | number }[] = [];
  let state: FrontState = { era: "new", initialized: false };
  let handing: Promise<void> | undefined;
  let serving: { close(): Promise<void> } | undefined;
  let closing = false;

  const send = (message: Json) => {
    process.stdout.write(`${JSON.stringify(message)}\n`);
  };

  const onData = (chunk: Buffer) => {
    buffer = buffer ? Buffer.concat([buffer, chunk]) : chunk;
    while (buffer && !handing) {
      const end: number = buffer.indexOf(10);
      if (end === -1) {
        if (buffer.length > MAX_LINE_BYTES) handOver();
        return;
      }
      const raw = buffer.subarray(0, end + 1);
      const fast = fastReply(snapshot, buffer.toString("utf8", 0, end).replace(/\r$/, ""), state);
      if (!fast) {
        handOver();
        return;
      }
      buffer = end + 1 < buffer.length ? buffer.subarray(end + 1) : undefined;
      state = fast.state;
      if (fast.replay)
        replay.push(fast.id === undefined ? { line: raw } : { line: raw, responseId: fast.id });
      if (fast.reply) send(fast.reply);
    }
  };

  const handOver = () => {
    if (handing) return;
    stdin.off("data", onData);
    stdin.pause();
    handing = (async () => {
      const input = new (process.getBuiltinModule("node:stream").PassThrough)();
      const { transport, serve } = await load(input);
      // Replies to the replayed requests were already sent by the front: drop them, once each.
      const pending = new Map<string | number, () => void>();
      const sendToClient = transport.send.bind(transport);
      transport.send = (message) => {
        if (isObject(message) && "id" in message && !("method" in message)) {
          const id = message.id as string | number;
          const done = pending.get(id);
          if (done) {
            pending.delete(id);
            done();
            return Promise.resolve();
          }
        }
        return sendToClient(message);
      };
      const closeTransport = transport.close.bind(transport);
      transport.close = async () => {
        await closeTransport();
        markClosed();
      };
      serving = serve();
      for (const { line, responseId } of replay) {
        if (responseId === undefined) {
          input.write(line);
          continue;
        }
        await new Promise<void>((resolve) => {
          pending.set(responseId, resolve);
          input.write(line);
        });
      }
      if (closing) return;
      if (buffer) input.write(buffer);
      buffer = undefined;
      stdin.pipe(input, { end: false });
      stdin.resume();
    })();
    handing.catch((error: unknown) => {
      process.stderr.write(
        `cannot load the server: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    });
  };

  stdin.on("data", onData);
  return {
    closed,
    get loaded() {
      return serving !== undefined;
    },
    async close() {
      closing = true;
      stdin.off("data", onData);
      if (handing) await handing.catch(() => undefined);
      await serving?.close().catch((error: unknown) => {
        process.stderr.write(
          `closing the server failed: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      });
      stdin.pause();
      markClosed();
    },
  };
}
