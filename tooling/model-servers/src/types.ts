/**
 * The provider whose HTTP API a scripted server speaks.
 *
 * - `"openai"`: Chat Completions, `POST /v1/chat/completions` (the `openai` SDK under `@langchain/openai`).
 * - `"anthropic"`: Messages, `POST /v1/messages` (`@anthropic-ai/sdk` under `@langchain/anthropic`).
 * - `"ollama"`: Chat, `POST /api/chat` (the `ollama` JS client under `@langchain/ollama`).
 */
export type ModelProvider = "openai" | "anthropic" | "ollama";

/**
 * One tool call the scripted model makes.
 *
 * `args` is the normal form. `argsText` (when set, it wins over `args`) is the raw argument text the model
 * "wrote":
 * - openai: sent verbatim as `function.arguments` — malformed JSON is allowed and is the point: it lets a
 *   test check that the client lands it in LangChain's `invalid_tool_calls`;
 * - ollama: `function.arguments` is an object in Ollama's API, so text that parses to a JSON object is sent
 *   as that object, and anything else is sent verbatim as a JSON string (what a non-conforming
 *   Ollama-compatible server does);
 * - anthropic: `tool_use.input` is always an object, so the text must parse to a JSON object, otherwise the
 *   request fails with a script error (500).
 */
export interface ScriptedToolCall {
  /** Tool name as the model sends it (normally one of the request's `tools`, but not checked: a script may call an unknown tool on purpose). */
  name: string;
  /** Arguments object; defaults to `{}`. */
  args?: Record<string, unknown>;
  /** Raw argument text; see the interface docs for how each provider sends it. */
  argsText?: string;
  /** Call id; defaults to a fresh provider-style id (`call_…` for openai, `toolu_…` for anthropic; ollama sends an id only when given). */
  id?: string;
}

/**
 * One model reply. `text` and `toolCalls` may be combined (text first, as the providers do). A turn with
 * neither is an empty text reply. A turn with `toolCalls` ends with the provider's tool stop reason
 * (`tool_calls` / `tool_use`; Ollama reports `stop` either way), otherwise with the normal stop reason.
 */
export type ScriptedTurn = { text?: string; toolCalls?: ScriptedToolCall[] };

/**
 * A request as the server saw it, recorded for every request (accepted or not), in arrival order.
 */
export interface ReceivedRequest {
  /** Request path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  /** Request headers, names lower-cased, repeated headers joined with `", "`. */
  headers: Record<string, string>;
  /** Parsed JSON body; `undefined` when the body was empty or not valid JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: the body is whatever the client sent; tests inspect it freely.
  body: any;
  /**
   * The HTTP status the server answered. While a turn function runs it is still `200` (provisional); it is
   * final once the response has been sent.
   */
  status: number;
  /** For a non-2xx answer: the error message sent to the client (the same text as in the error body). */
  error?: string;
}

/** A running scripted provider server, listening on 127.0.0.1 on a free port. */
export interface ModelServer {
  provider: ModelProvider;
  /**
   * The base URL to give the client:
   * - openai → `http://127.0.0.1:P/v1` (ChatOpenAI `configuration.baseURL`, or env `OPENAI_BASE_URL`);
   * - anthropic → `http://127.0.0.1:P` (ChatAnthropic `anthropicApiUrl`, or env `ANTHROPIC_BASE_URL`; the
   *   client appends `/v1/messages`);
   * - ollama → `http://127.0.0.1:P` (ChatOllama `baseUrl`, or env `OLLAMA_BASE_URL`).
   */
  baseURL: string;
  /** Every request received, in order, including rejected ones (live array: it grows as requests arrive). */
  requests: ReceivedRequest[];
  /** How many turns of the script have been consumed so far. */
  readonly turnsConsumed: number;
  /** Stops listening and ends open connections. Safe to call more than once. */
  close(): Promise<void>;
}

/**
 * A turn, or a function that computes the turn from the accepted request (e.g. to echo back a tool result,
 * or to assert on the request). A function that throws makes the server answer a script error (500).
 */
export type ScriptEntry = ScriptedTurn | ((req: ReceivedRequest) => ScriptedTurn);

/** Options of {@link startModelServer}. */
export interface StartModelServerOptions {
  /**
   * The script: each accepted request consumes the next entry. A request that breaks a provider rule is
   * answered with that provider's error and consumes nothing. When the script is exhausted, requests get a
   * 500 with a provider-shaped error body saying so.
   */
  turns: ScriptEntry[];
  /** The only API key accepted (`Authorization: Bearer` for openai, `x-api-key` for anthropic). Default `"test-key"`. Ollama needs none. */
  apiKey?: string;
}
