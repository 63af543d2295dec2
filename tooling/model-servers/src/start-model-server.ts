import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ProviderAdapter, Rejection, Reply, RequestInfo } from "./internal/adapter.js";
import { anthropicAdapter } from "./internal/anthropic.js";
import { ollamaAdapter } from "./internal/ollama.js";
import { openaiAdapter } from "./internal/openai.js";
import type {
  ModelProvider,
  ModelServer,
  ReceivedRequest,
  ScriptedTurn,
  StartModelServerOptions,
} from "./types.js";

const ADAPTERS: Record<ModelProvider, ProviderAdapter> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  ollama: ollamaAdapter,
};

/** Request bodies above this size are refused (413) without being parsed. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

function headerRecord(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer | "too-large"> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(tooLarge ? "too-large" : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function sendRejection(res: ServerResponse, rejection: Rejection): void {
  const isText = typeof rejection.body === "string";
  const payload = isText ? String(rejection.body) : JSON.stringify(rejection.body);
  const headers: Record<string, string> = {
    "content-type": isText ? "text/plain; charset=utf-8" : "application/json",
    "content-length": String(Buffer.byteLength(payload)),
    ...rejection.headers,
  };
  // A script error is not a transient failure: tell the openai and anthropic SDKs not to retry it.
  if (rejection.status >= 500) headers["x-should-retry"] = "false";
  res.writeHead(rejection.status, headers);
  res.end(payload);
}

function sendReply(res: ServerResponse, reply: Reply): void {
  if (reply.kind === "json") {
    const payload = JSON.stringify(reply.body);
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(payload)),
      ...reply.headers,
    });
    res.end(payload);
    return;
  }
  res.writeHead(200, { "content-type": reply.contentType, "cache-control": "no-cache", ...reply.headers });
  for (const frame of reply.frames) res.write(frame);
  res.end();
}

/**
 * Starts a scripted model server for `provider` on 127.0.0.1 (a free port) that speaks that provider's HTTP
 * API and enforces its request rules, so a real client library can be pointed at it.
 *
 * Per request, in order: unknown path → the provider's 404; missing/wrong key → 401 (openai:
 * `Authorization: Bearer`, anthropic: `x-api-key`, plus a required `anthropic-version` header); body not
 * JSON → 400; a request that breaks a provider rule → that provider's 400 status and error body. None of
 * these consumes a turn. An accepted request consumes the next script entry and is answered with the
 * provider's response object, or its stream (openai/anthropic: SSE when `stream: true`; ollama: NDJSON
 * unless `stream: false`). An exhausted script, a turn function that throws, or a turn the model could not
 * produce for the request (tool calls under `tool_choice` none, no tool call when one is forced, an
 * anthropic `argsText` that is not a JSON object) → 500 with a provider-shaped body that starts with
 * "Script error" and the header `x-should-retry: false`; such a turn is consumed.
 *
 * Every request is recorded in `requests` with the status it got. LangChain's chat models retry 5xx on
 * their own; pass `maxRetries: 0` to them in tests that expect a 500.
 *
 * @example
 * ```ts
 * const server = await startModelServer("openai", {
 *   turns: [{ toolCalls: [{ name: "echo", args: { text: "hi" } }] }, { text: "done" }],
 * });
 * const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test-key", configuration: { baseURL: server.baseURL } });
 * // … model.bindTools([echo]).invoke(…) …
 * await server.close();
 * ```
 */
export async function startModelServer(
  provider: ModelProvider,
  options: StartModelServerOptions,
): Promise<ModelServer> {
  const adapter = ADAPTERS[provider];
  if (!adapter)
    throw new TypeError(
      `Unknown model provider ${JSON.stringify(provider)}; use "openai", "anthropic" or "ollama".`,
    );
  const apiKey = options.apiKey ?? "test-key";
  const turns = [...options.turns];
  const requests: ReceivedRequest[] = [];
  let consumed = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const info: RequestInfo = { method: req.method ?? "GET", path: url.pathname, headers: headerRecord(req) };
    const record: ReceivedRequest = { path: info.path, headers: info.headers, body: undefined, status: 200 };
    requests.push(record);

    const reject = (rejection: Rejection): void => {
      record.status = rejection.status;
      if (rejection.status >= 400) record.error = rejection.message;
      sendRejection(res, rejection);
    };

    const raw = await readBody(req);
    if (raw === "too-large") {
      reject(
        adapter.scriptError(
          `Request body larger than ${MAX_BODY_BYTES} bytes; the scripted server refuses it.`,
        ),
      );
      return;
    }
    const text = raw.toString("utf8");
    let body: unknown;
    let parseFailure: string | undefined;
    if (text.trim() !== "") {
      try {
        body = JSON.parse(text);
      } catch (error) {
        parseFailure = error instanceof Error ? error.message : String(error);
      }
    }
    record.body = body;

    const routed = adapter.route(info);
    if (routed) return reject(routed);
    const unauthenticated = adapter.authenticate(info, apiKey);
    if (unauthenticated) return reject(unauthenticated);
    if (parseFailure !== undefined) return reject(adapter.parseError(parseFailure));
    const invalid = adapter.validate(info, body);
    if (invalid) return reject(invalid);

    if (consumed >= turns.length) {
      return reject(
        adapter.scriptError(
          `Script error: the script is exhausted — all ${turns.length} scripted turn(s) were used, and this is request #${requests.length}. Add turns, or check why the client asked again.`,
        ),
      );
    }
    const entry = turns[consumed];
    consumed += 1;
    let turn: ScriptedTurn;
    try {
      turn = typeof entry === "function" ? entry(record) : (entry ?? {});
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return reject(
        adapter.scriptError(`Script error: the turn function for turn #${consumed} threw: ${detail}`),
      );
    }
    const wrongTurn = adapter.checkTurn(body, turn);
    if (wrongTurn) return reject(adapter.scriptError(wrongTurn));
    record.status = 200;
    sendReply(res, adapter.respond(body, turn));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const detail = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) sendRejection(res, adapter.scriptError(`Scripted server failure: ${detail}`));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;

  return {
    provider,
    baseURL: provider === "openai" ? `${origin}/v1` : origin,
    requests,
    get turnsConsumed() {
      return consumed;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
