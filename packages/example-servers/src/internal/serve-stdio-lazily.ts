// The stdio front of every bin: it answers the first messages of a session (initialize, the initialized
// notification, tools/list, ping) from a snapshot, with no SDK, zod or tool code loaded, and hands the
// connection to the real SDK server the moment anything else arrives (a tools/call, a malformed line, an
// unknown method, a second initialize...). A cold start then costs what Node.js itself costs.
//
// Identical behaviour is the rule: the front only answers messages that the SDK would accept and answer
// in exactly the same way (a conservative subset, checked below); everything else goes to the SDK, which
// first receives the initialize request and initialized notification the front answered (their replies
// are dropped), so its state is what it would have been had it served the session from the start.
// This module imports nothing but Node.js built-ins; keep it that way (a test checks what a bin loads).
// Even those are fetched with process.getBuiltinModule where they are needed: an ESM `import` of a
// built-in builds its whole namespace first (node:stream's also loads stream/promises), a cost paid
// before the first reply.
import type { PassThrough } from "node:stream";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/** What the front answers without the SDK, generated from the real server (see scripts/). */
export interface StdioSnapshot {
  /** The initialize result without `protocolVersion` (negotiated per request). */
  initialize: { capabilities: Record<string, unknown>; serverInfo: Record<string, unknown> };
  /** The tools/list result. */
  toolsList: { tools: Record<string, unknown>[] };
  /** The SDK's protocol versions: the latest, then every version it accepts. */
  protocolVersions: { latest: string; supported: readonly string[] };
}

/**
 * How to load the real server: called once, at the hand-over, with the stream that carries what the
 * client sent; returns the server and an SDK stdio transport reading that stream and writing stdout.
 */
export type LoadStdioServer = (
  input: PassThrough,
) => Promise<{ server: McpServer; transport: StdioServerTransport }>;

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

/** An initialize request whose params the SDK certainly accepts. */
function plainInitialize(params: unknown): params is { protocolVersion: string } {
  if (!isObject(params) || !keysWithin(params, ["protocolVersion", "capabilities", "clientInfo"])) {
    return false;
  }
  const info = params.clientInfo;
  return (
    isString(params.protocolVersion) &&
    plainCapabilities(params.capabilities) &&
    isObject(info) &&
    keysWithin(info, ["name", "version", "title", "websiteUrl", "description"]) &&
    isString(info.name) &&
    isString(info.version) &&
    optional(info.title, isString) &&
    optional(info.websiteUrl, isString) &&
    optional(info.description, isString)
  );
}

type FastMessage =
  | { kind: "initialize"; id: string | number; protocolVersion: string }
  | { kind: "initialized" }
  | { kind: "tools/list"; id: string | number }
  | { kind: "ping"; id: string | number };

/** Classify one line; undefined for anything the front leaves to the SDK. */
function classify(line: string, initialized: boolean): FastMessage | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(message) || message.jsonrpc !== "2.0") return undefined;
  const { id, method, params } = message;
  if ("id" in message) {
    if (!keysWithin(message, ["jsonrpc", "id", "method", "params"]) || !isRequestId(id)) return undefined;
    const requestId = id as string | number;
    if (method === "initialize" && !initialized && plainInitialize(params)) {
      return { kind: "initialize", id: requestId, protocolVersion: params.protocolVersion };
    }
    if (method === "ping" && optional(params, isEmptyObject)) return { kind: "ping", id: requestId };
    if (
      method === "tools/list" &&
      optional(params, (p) => isObject(p) && keysWithin(p, ["cursor"]) && optional(p.cursor, isString))
    ) {
      return { kind: "tools/list", id: requestId };
    }
    return undefined;
  }
  if (
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
}

/**
 * The front's answer to one line (without its newline) in a session that has (`initialized`) or has not
 * yet seen an initialize request; undefined when the line goes to the SDK.
 */
export function fastReply(
  snapshot: StdioSnapshot,
  line: string,
  initialized: boolean,
): FastReply | undefined {
  const message = classify(line, initialized);
  switch (message?.kind) {
    case undefined:
      return undefined;
    case "initialize": {
      const { latest, supported } = snapshot.protocolVersions;
      const protocolVersion = supported.includes(message.protocolVersion) ? message.protocolVersion : latest;
      const result = { protocolVersion, ...snapshot.initialize };
      return { kind: "initialize", id: message.id, reply: { result, jsonrpc: "2.0", id: message.id } };
    }
    case "tools/list":
      return { kind: "tools/list", reply: { result: snapshot.toolsList, jsonrpc: "2.0", id: message.id } };
    case "ping":
      return { kind: "ping", reply: { result: {}, jsonrpc: "2.0", id: message.id } };
    case "initialized":
      return { kind: "initialized" };
  }
}

/**
 * Serve this process's stdin/stdout: the first messages from `snapshot`, then, from the first message
 * the snapshot cannot answer, the server `load` returns (connected to a stream that carries what the
 * client sent). Stdout carries protocol messages only, so `console.log` is redirected to stderr.
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
  /** Raw lines the front answered that change the SDK server's state, replayed at the hand-over. */
  const replay: { line: Buffer; responseId?: string | number }[] = [];
  let initialized = false;
  let handing: Promise<void> | undefined;
  let loaded: McpServer | undefined;
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
      const fast = fastReply(snapshot, buffer.toString("utf8", 0, end).replace(/\r$/, ""), initialized);
      if (!fast) {
        handOver();
        return;
      }
      buffer = end + 1 < buffer.length ? buffer.subarray(end + 1) : undefined;
      if (fast.kind === "initialize") {
        initialized = true;
        replay.push({ line: raw, responseId: fast.id });
      } else if (fast.kind === "initialized") {
        replay.push({ line: raw });
      }
      if (fast.reply) send(fast.reply);
    }
  };

  const handOver = () => {
    if (handing) return;
    stdin.off("data", onData);
    stdin.pause();
    handing = (async () => {
      const input = new (process.getBuiltinModule("node:stream").PassThrough)();
      const { server, transport } = await load(input);
      loaded = server;
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
      await server.connect(transport);
      const onclose = transport.onclose;
      transport.onclose = () => {
        onclose?.();
        markClosed();
      };
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
      return loaded !== undefined;
    },
    async close() {
      closing = true;
      stdin.off("data", onData);
      if (handing) await handing.catch(() => undefined);
      await loaded?.close().catch(() => undefined);
      stdin.pause();
      markClosed();
    },
  };
}
