/**
 * The fetch every HTTP transport uses: undici 7's own fetch over one Agent per connection, with a short
 * idle keep-alive and ONE transparent retry of a request whose reused socket the server closed before
 * answering it.
 *
 * Why: a server closes a kept-alive socket when it has been idle for its keep-alive timeout (Node's
 * default is 5 s). If the client writes a request on that socket just as the server closes it, the
 * request fails with `fetch failed` (`other side closed`, `ECONNRESET`) without having been answered
 * (issue #24). Three layers deal with it:
 *
 * 1. undici 7 (not the undici 6 bundled with Node 20's global fetch) yields to the event loop once
 *    before it writes on an idle socket, so a close that arrived while the loop was busy is seen and the
 *    request goes out on a new socket (GHSA-35p6-xmwp-9g52). Under load the global fetch writes on such
 *    sockets. (A close that arrives while the loop handles the current batch of events is not seen.)
 * 2. Idle sockets are kept for at most IDLE_SOCKET_MS, below common server keep-alive timeouts, and
 *    below what a server announces in `Keep-Alive: timeout=N` minus undici's 2 s margin.
 * 3. What is left is a close already on its way when the request was written. That request is sent
 *    again, once, on a fresh connection, when all of these hold: the socket had carried an earlier
 *    request (reused), not one byte arrived on it after this request was written, and the failure is
 *    the socket closing or being reset (`UND_ERR_SOCKET`, `ECONNRESET`, `EPIPE`). Anything else — a
 *    fresh socket, a byte of the answer seen, a timeout, an abort, a second failure — is the caller's
 *    error, never retried: a `tools/call` that may have run is not sent twice.
 *    The client cannot see when the server received the bytes: a server that reads a request on a
 *    reused socket and then closes it without sending a byte (a crash in the middle of the request)
 *    looks exactly like the race above. So only a request that cannot do anything twice is sent again
 *    (`mayRepeat`): GET/DELETE, and JSON-RPC bodies whose requests are not `tools/call` — or call a tool
 *    its server annotates `readOnlyHint` or `idempotentHint`. Any other tool call fails as before
 *    (CONNECTION_LOST): running it twice would be worse than one failed call the caller can see.
 *    The pairing of a request with its socket (`starting` below) fails safe: when undici does not
 *    report the socket, nothing is retried.
 */
import { subscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { cleanText, emitProcessWarning } from "@agentforge/mcp-config";
import type { FetchLike } from "@modelcontextprotocol/client";
import { Agent, Client, type Dispatcher, fetch as undiciFetch } from "undici";
import { SignalFanout } from "./signal-fanout.js";

/**
 * How long an idle kept-alive socket is kept, in ms: below the keep-alive timeout of common servers
 * (Node's 5 s, uvicorn's 5 s, Apache's 5 s, gunicorn's 2 s) even with undici's coarse idle timer.
 */
export const IDLE_SOCKET_MS = 1_500;

/**
 * The most times one request's own signal is handed to this fetch: the SDK's DPoP nonce retry sends a
 * request again with the same init, and each send may be retried once here (see `mayRepeat`).
 */
const MAX_SENDS_OF_ONE_REQUEST = 4;

/** The socket failures that may be a server's keep-alive close racing the request. */
const CLOSED_CODES = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);

/** How one request went out: on which socket, whether it was reused, the socket's bytes read then. */
export interface Attempt {
  socket?: Socket;
  reused: boolean;
  bytesReadAtSend: number;
  /** Its socket had been idle too long: closed by us before one byte was written (see onSendHeaders). */
  stale?: boolean;
}

/** When each socket last finished an answer: it is idle from then until its next request. */
const idleSince = new WeakMap<Socket, number>();
/** The keep-alive timeout each socket's server announced (`Keep-Alive: timeout=N`), in ms. */
const serverIdleLimit = new WeakMap<Socket, number>();

/**
 * How long a socket may have been idle and still be written on, in ms: a second under the keep-alive
 * timeout its server announced, and IDLE_SOCKET_MS when it announced none (any server may then close
 * an idle socket soon: gunicorn after 2 s).
 */
export function staleAfterMs(announcedMs: number | undefined): number {
  return announcedMs === undefined ? IDLE_SOCKET_MS : Math.max(IDLE_SOCKET_MS, announcedMs - 1_000);
}

/** The `timeout=N` of a `Keep-Alive` response header, in ms. */
function announcedTimeout(headers: unknown): number | undefined {
  const value = (headers as Record<string, string | string[] | undefined> | undefined)?.["keep-alive"];
  const match = /(?:^|,)\s*timeout\s*=\s*(\d+)/i.exec(Array.isArray(value) ? value.join(",") : (value ?? ""));
  return match ? Number(match[1]) * 1000 : undefined;
}

/** How many requests each socket has carried (sockets of every keep-alive fetch). */
const requestsSent = new WeakMap<Socket, number>();
/**
 * The attempt whose request undici is writing right now. undici calls the handler's `onRequestStart`
 * and then, in the same synchronous step, publishes `undici:client:sendHeaders` with the socket just
 * before the first byte is written; the subscriber below pairs the two.
 */
let starting: Attempt | undefined;
let listening = false;

function onSendHeaders(message: unknown): void {
  const attempt = starting;
  starting = undefined;
  const socket = (message as { socket?: Socket }).socket;
  if (!attempt || !socket) return;
  const sent = requestsSent.get(socket) ?? 0;
  requestsSent.set(socket, sent + 1);
  attempt.socket = socket;
  attempt.reused = sent > 0;
  attempt.bytesReadAtSend = socket.bytesRead;
  const idle = idleSince.get(socket);
  idleSince.delete(socket);
  // undici closes an idle socket on a timer, which fires late when the event loop is busy: a socket idle
  // for nearly as long as its server keeps idle sockets (measured, not timed; staleAfterMs) may be the
  // one the server is closing right now. It is closed here, before one byte of the request is written,
  // and the request goes out again on a fresh connection — any request, as the server cannot have seen
  // it (seen at load 40: a tools/call on such a socket met the server's keep-alive close and failed
  // CONNECTION_LOST).
  if (
    attempt.reused &&
    idle !== undefined &&
    performance.now() - idle > staleAfterMs(serverIdleLimit.get(socket))
  ) {
    attempt.stale = true;
    socket.destroy();
  }
}

function listen(): void {
  if (listening) return;
  listening = true;
  subscribe("undici:client:sendHeaders", onSendHeaders);
}

/** A dispatch handler that marks its attempt as the one being written, and passes everything on. */
class SendWatch implements Dispatcher.DispatchHandler {
  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly attempt: Attempt,
  ) {}
  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    starting = this.attempt;
    this.inner.onRequestStart?.(controller, context);
  }
  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Parameters<NonNullable<Dispatcher.DispatchHandler["onRequestUpgrade"]>>[2],
    socket: Parameters<NonNullable<Dispatcher.DispatchHandler["onRequestUpgrade"]>>[3],
  ): void {
    this.inner.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }
  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Parameters<NonNullable<Dispatcher.DispatchHandler["onResponseStart"]>>[2],
    statusMessage?: string,
  ): void {
    const announced = announcedTimeout(headers);
    if (this.attempt.socket && announced !== undefined) serverIdleLimit.set(this.attempt.socket, announced);
    this.inner.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }
  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.inner.onResponseData?.(controller, chunk);
  }
  onResponseEnd(
    controller: Dispatcher.DispatchController,
    trailers: Parameters<NonNullable<Dispatcher.DispatchHandler["onResponseEnd"]>>[1],
  ): void {
    if (this.attempt.socket) idleSince.set(this.attempt.socket, performance.now());
    this.inner.onResponseEnd?.(controller, trailers);
  }
  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.inner.onResponseError?.(controller, error);
  }
}

/** The code of a fetch failure's cause (`fetch failed` wraps the socket error). */
function causeCode(error: unknown): unknown {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return cause?.code;
}

/**
 * Whether a failed attempt may be sent again: its reused socket closed or was reset before one byte
 * of the answer arrived. (A request is never retried after an abort: the abort is the failure.)
 */
export function closedBeforeAnswer(attempt: Attempt, error: unknown): boolean {
  return (
    attempt.reused &&
    attempt.socket !== undefined &&
    attempt.socket.bytesRead === attempt.bytesReadAtSend &&
    error instanceof TypeError &&
    CLOSED_CODES.has(causeCode(error) as string)
  );
}

/** Whether a tool may run twice without harm (its server's `readOnlyHint` / `idempotentHint`). */
export type RepeatableTool = (toolName: string) => boolean;

/** The JSON-RPC messages of a request body, or `undefined` when it is not JSON-RPC. */
function messagesOf(body: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return undefined;
  }
}

/**
 * Whether sending the request again cannot do anything twice: a request without a body (GET, DELETE),
 * or a JSON-RPC body in which every message is a response, a notification, or a request other than
 * `tools/call` (lists, reads, discovery, ping: nothing changes on the server) or a `tools/call` of a
 * tool `repeatableTool` vouches for. Anything else (a form, a stream, bytes) is not repeated.
 */
export function mayRepeat(
  input: Parameters<FetchLike>[0],
  init: Parameters<FetchLike>[1],
  repeatableTool: RepeatableTool,
): boolean {
  if (typeof input !== "string" && !(input instanceof URL)) return false;
  const body = init?.body;
  if (body === undefined || body === null) return true;
  if (typeof body !== "string") return false;
  return (
    messagesOf(body)?.every((message) => {
      if (typeof message !== "object" || message === null) return false;
      const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
      if (method !== "tools/call") return true;
      return typeof params?.name === "string" && repeatableTool(params.name);
    }) === true
  );
}

/** A fetch with keep-alive handling, and what to close once its transport is closed. */
export interface KeepAliveFetch {
  fetch: FetchLike;
  /**
   * Close the sockets (waits for requests still running, as undici's `close()` does). A later request
   * opens new ones, which close after IDLE_SOCKET_MS idle.
   */
  close(): Promise<void>;
}

/** `connect` options of the sockets (the client certificate of an mTLS server). */
export type ConnectOptions = Exclude<Agent.Options["connect"], ((...args: never[]) => unknown) | undefined>;

/**
 * A keep-alive fetch for one connection; `connect` carries TLS options such as a client certificate,
 * `repeatableTool` says which tools may be called again after the race above (default: none).
 */
export function keepAliveFetch(
  connect?: ConnectOptions,
  repeatableTool: RepeatableTool = () => false,
): KeepAliveFetch {
  listen();
  const socketOptions = {
    keepAliveTimeout: IDLE_SOCKET_MS,
    keepAliveMaxTimeout: IDLE_SOCKET_MS,
    ...(connect ? { connect } : {}),
  };
  // Made on first use and again after close(): the fetch outlives its transport (a login's token
  // exchange runs after the attempt that asked for it was closed).
  let agent: Agent | undefined;
  // The fresh connections of retries: each used for one request, closed with the agent.
  const fresh = new Set<Client>();
  // A signal seen on more than MAX_SENDS_OF_ONE_REQUEST requests is the transport's long-lived one: it
  // reaches undici through a signal of each request's own (see signal-fanout.ts: undici would pile one
  // listener per request on it until garbage collection). A signal seen fewer times may be one request's
  // own (as 2026-07-28's transport passes), sent again by a retry: it goes as it is — a listener of ours
  // on such a signal could keep it, and all it holds, alive as long as the transport.
  const sightings = new WeakMap<AbortSignal, number>();
  const fanouts = new WeakMap<AbortSignal, SignalFanout>();
  const requestSignal = (signal: AbortSignal): AbortSignal => {
    const known = fanouts.get(signal);
    if (known) return known.signal();
    const seen = (sightings.get(signal) ?? 0) + 1;
    if (seen <= MAX_SENDS_OF_ONE_REQUEST) {
      sightings.set(signal, seen);
      return signal;
    }
    sightings.delete(signal);
    const fanout = new SignalFanout(signal);
    fanouts.set(signal, fanout);
    return fanout.signal();
  };
  const send = (input: Parameters<FetchLike>[0], init: Parameters<FetchLike>[1], via: Dispatcher) =>
    undiciFetch(input as string, {
      ...(init as object),
      ...(init?.signal ? { signal: requestSignal(init.signal) } : {}),
      dispatcher: via,
    }) as unknown as Promise<Response>;

  const fetch: FetchLike = async (input, init) => {
    const attempt: Attempt = { reused: false, bytesReadAtSend: 0 };
    agent ??= new Agent(socketOptions);
    const watched = agent.compose(
      (dispatch) => (options, handler) => dispatch(options, new SendWatch(handler, attempt)),
    );
    try {
      return await send(input, init, watched);
    } catch (error) {
      // A stale socket closed by us carried nothing: any request goes again. Otherwise only the race above,
      // and only a request that cannot do anything twice.
      const again =
        attempt.stale === true ||
        (closedBeforeAnswer(attempt, error) && mayRepeat(input, init, repeatableTool));
      if (!again || init?.signal?.aborted) throw error;
      const once = new Client(new URL(String(input)).origin, socketOptions);
      fresh.add(once);
      try {
        return await send(input, init, once);
      } finally {
        // One request per fresh connection: it closes once its answer has been read.
        fresh.delete(once);
        void once.close().catch((closeError: unknown) => {
          emitProcessWarning(
            `Closing a one-request HTTP connection failed: ${cleanText(String(closeError))}`,
            "AGENTFORGE_SOCKET_CLOSE_FAILED",
          );
        });
      }
    }
  };
  return {
    fetch,
    close: async () => {
      const closing = [...(agent ? [agent] : []), ...fresh];
      agent = undefined;
      fresh.clear();
      await Promise.all(closing.map((dispatcher) => dispatcher.close()));
    },
  };
}
