import type {
  CallToolResult,
  DiscoveredTool,
  MCPCallToolOptions,
  MCPClientManager,
  MCPGetPromptResult,
  MCPInputRound,
  MCPReadResourceResult,
  Progress,
} from "@agentforge/mcp-client";
import { MCPRequestError, MCPTimeoutError, toolUnavailableReason } from "@agentforge/mcp-client";
import {
  configVariables,
  createSecretRedactor,
  emitProcessWarning,
  MCPError,
  reportListenerError,
  suggestName,
} from "@agentforge/mcp-config";
import {
  MCPPermissionDeniedError,
  type MCPPermissionPolicy,
  type MCPToolDescriptor,
  type MCPToolRegistry,
  parseToolIdentity,
} from "@agentforge/mcp-permissions";
import type { MCPConfirmationAnswer, MCPConfirmationRun, MCPConfirmHandler } from "./confirmation.js";
import {
  MCPInvalidArgumentsError,
  MCPToolExecutionError,
  MCPToolNotFoundError,
  MCPToolSearchError,
} from "./errors.js";
import {
  MCP_INTERNAL_ERROR,
  MCP_PROMPT_GET,
  MCP_RESOURCE_READ,
  MCP_SERVER_TOOLS_ACCEPTED,
  MCP_SERVER_TOOLS_REJECTED,
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_INPUT_ROUND,
  MCP_TOOL_CALL_PROGRESS,
  MCP_TOOL_CALL_STARTED,
  MCP_TOOL_DEFINITION_CHANGED,
  MCP_TOOL_SEARCH,
  MCP_WARNING,
  MCPEventDispatcher,
  type MCPEventErrorCode,
  type MCPFailedOutcome,
  type MCPPromptGetEvent,
  type MCPResourceReadEvent,
  type MCPRuntimeEventName,
  type MCPRuntimeListener,
  type MCPToolCallCompletedEvent,
  type MCPToolCallFailedEvent,
  type MCPToolCallOutcome,
  type MCPToolCallStartedEvent,
  type MCPToolInputRoundEvent,
  type MCPToolProgressEvent,
  type MCPToolSearchEvent,
  type MCPUnavailableServer,
  type MCPWarningEvent,
} from "./events.js";
import { checkRun, settleConfirmation } from "./internal/confirmation-gate.js";
import { decide, definitionsChars } from "./internal/tool-search-session.js";
import { createLexicalToolRanker } from "./lexical-tool-ranker.js";
import {
  MAX_MCP_CONFIRMATIONS_PER_RUN,
  MAX_MCP_RESULT_CHARS,
  MAX_MCP_TOOL_SEARCH_QUERY_CHARS,
  MAX_MCP_TOOL_SEARCH_RESULTS,
  MCP_CONFIRMATION_TIMEOUT_MS,
  MCP_PROGRESS_INTERVAL_MS,
  MCP_TOOL_SEARCH_RESULTS,
} from "./limits.js";
import { MCPToolNameMap } from "./mcp-tool-name-map.js";
import type { MCPToolRanker } from "./mcp-tool-ranker.js";
import { type MCPToolSpan, type MCPTracer, noopTracer } from "./mcp-tracer.js";
import { renderPromptMessages, renderResourceContents } from "./render-resource-prompt.js";
import { type MCPRawToolResult, type RenderedToolResult, renderToolResult } from "./render-tool-result.js";
import {
  checkToolArguments,
  type ModelToolInputSchema,
  normalizeToolInputSchema,
} from "./tool-input-schema.js";
import {
  type MCPToolSearchOption,
  type MCPToolSearchSettings,
  resolveToolSearchSettings,
} from "./tool-search-settings.js";

/** What the executor needs of a client manager (an `MCPClientManager` fits). */
export type MCPToolCallClient = Pick<MCPClientManager, "callTool" | "getConfig">;

/** What `readResource` / `getPrompt` also need of the client manager (an `MCPClientManager` has both). */
export type MCPResourceClient = Partial<Pick<MCPClientManager, "readResource" | "getPrompt">>;

/** Options of `MCPToolExecutor`. */
export interface MCPToolExecutorOptions {
  clientManager: MCPToolCallClient & MCPResourceClient;
  registry: MCPToolRegistry;
  policy: MCPPermissionPolicy;
  /** Where call events go (default: a new dispatcher, readable as `executor.events`). */
  events?: MCPEventDispatcher;
  /** One span per call (default: none). */
  tracer?: MCPTracer;
  /** Cap of the model-facing `text` in UTF-16 code units (default `MAX_MCP_RESULT_CHARS`, 8000). */
  maxResultChars?: number;
  /**
   * Check arguments against the tool's input schema before calling (default true). A definite mismatch
   * is refused locally with `MCPInvalidArgumentsError` (INVALID_ARGUMENTS, naming each field path) and
   * never sent; the check is conservative, so whatever it lets through the server still judges. With
   * false, only "arguments must be an object" is checked.
   */
  validateArguments?: boolean;
  /** Ranks tools for `searchTools` (default: `createLexicalToolRanker()`, in-process). */
  ranker?: MCPToolRanker;
  /**
   * Why a server cannot be used, when it cannot: its start or connection error (`MCPConnectionError`
   * COMMAND_NOT_FOUND, SERVER_MISCONFIGURED, ...), `MCPServerNotFoundError` SERVER_DISABLED, ... — or
   * undefined when it is available (or not known). The toolkit passes what its discovery found. With it,
   * `execute()` of a tool of an unavailable server throws that error (not TOOL_NOT_FOUND), and the tool
   * loops and `toolkit.tools()` fail with it unless `degraded` (see `checkAvailability`).
   */
  serverError?: (serverName: string) => MCPError | undefined;
  /**
   * Let tool loops run without the tools of unavailable servers (default false: they fail with the
   * server's error). Then an `MCP_WARNING` (SERVERS_UNAVAILABLE) says which servers are missing and why.
   */
  degraded?: boolean;
  /**
   * Each agent's tool-search settings for the tool loops (`toolSearchSettings(agent)`): one setting for
   * every agent, or a function of the agent (the toolkit passes the roster's `tool_search:`). Fields left
   * out get `MCP_TOOL_SEARCH_DEFAULTS`.
   */
  toolSearch?: MCPToolSearchOption | ((agent: string) => MCPToolSearchOption | undefined);
  /**
   * Asks a person to confirm a call the policy grants only with confirmation (a `confirm` pattern, or
   * `confirm_destructive` and the tool's annotations): gets the request (who, which tool, its title,
   * annotations and fingerprint, a safe argument preview, the call's binding) and an AbortSignal, and
   * answers `{ decision: "allow" | "deny", scope?, reason?, answeredBy? }`. Without it, such calls fail
   * with `MCPConfirmationError` CONFIRMATION_REQUIRED (a tool loop may pause instead). A handler that
   * throws or does not answer within `confirmationTimeoutMs` denies the call (CONFIRMATION_DENIED).
   */
  confirm?: MCPConfirmHandler;
  /** How long `confirm` may take before the call is denied (default `MCP_CONFIRMATION_TIMEOUT_MS`, 10 min). */
  confirmationTimeoutMs?: number;
  /**
   * Confirmation requests one run (`confirmationRun`) may make (default `MAX_MCP_CONFIRMATIONS_PER_RUN`,
   * 20); later ones fail with CONFIRMATION_LIMIT_REACHED without asking anyone.
   */
  maxConfirmationsPerRun?: number;
  /**
   * Replaces secret values in a confirmation's argument preview (a `SecretRedactor`'s `redact` fits; the
   * toolkit passes one with the whole roster's secrets). Default: the values of the environment variables
   * the called server's config reads.
   */
  redactSecrets?: (text: string) => string;
}

/** Options of `searchTools`. */
export interface MCPSearchToolsOptions {
  /** Most tools to return (default `MCP_TOOL_SEARCH_RESULTS`, 5; at most `MAX_MCP_TOOL_SEARCH_RESULTS`, 10). */
  limit?: number;
  /** Candidate tools (default: every registered tool); only those the policy grants the agent are searched. */
  tools?: Iterable<MCPToolDescriptor>;
  /** Abandons the search (a custom ranker may be slow). */
  signal?: AbortSignal;
}

/** Whether the tool loops would turn tool search on for an agent, and why (`toolSearchStatus`). */
export interface MCPToolSearchStatus {
  /** Search on: the model would get `search_tools` (and the always-loaded tools) instead of every tool. */
  on: boolean;
  /** Why, in one line (e.g. "138 granted tools are more than 30"). */
  reason: string;
  settings: MCPToolSearchSettings;
  /** The agent's granted tools among the candidates. */
  tools: number;
  /** Characters of their definitions as a model gets them (names, descriptions, input schemas). */
  chars: number;
}

/** A tool found by `searchTools`, with its score (higher is better; comparable within one search only). */
export interface MCPToolSearchHit {
  tool: MCPToolDescriptor;
  score: number;
}

/** What `searchTools` found. */
export interface MCPToolSearchResult {
  /** Pairs the result with its `MCP_TOOL_SEARCH` event. */
  searchId: string;
  /** Best first; at most `limit`; only tools the agent may call. */
  hits: MCPToolSearchHit[];
  /** How many tools were searched (the agent's granted, registered ones among the candidates). */
  candidates: number;
  durationMs: number;
}

/**
 * Progress of one call in flight, as given to `onProgress`: which call, and numbers — never the server's
 * progress message (it is tool output).
 */
export interface MCPToolProgress {
  /** `<server>.<tool>`. */
  identity: string;
  /** The call's id, as on its events. */
  callId: string;
  /** Progress so far: finite, and larger than the last value reported for this call. */
  progress: number;
  /** The total, when the server gave a finite positive one. */
  total?: number;
}

/** Options of one call. */
export interface MCPExecuteOptions {
  /** Cancels the call; the server is sent an MCP cancellation. */
  signal?: AbortSignal;
  /**
   * Receives the call's progress (the server's `notifications/progress`), coalesced: only increasing
   * values, at most one per `MCP_PROGRESS_INTERVAL_MS` (a value reaching the total always once). A
   * listener that throws never breaks the call. `MCP_TOOL_CALL_PROGRESS` events carry the same.
   */
  onProgress?: (progress: MCPToolProgress) => void;
  /**
   * The run this call belongs to (see `createConfirmationRun`): its confirmations count against the run's
   * bound, `scope: "run"` answers are kept in it, and its id is part of every binding. Plain data, updated
   * in place: keep it in the run's state.
   */
  confirmationRun?: MCPConfirmationRun;
  /**
   * An answer to this call's confirmation given ahead (a run resumed after a person answered, an AI SDK
   * approval): used instead of asking, if its `binding` is this call's; otherwise the call is refused.
   */
  confirmation?: MCPConfirmationAnswer;
  /** Ask with this handler instead of the executor's `confirm`. */
  confirm?: MCPConfirmHandler;
  /**
   * Do not ask anyone: a call that needs confirmation fails with CONFIRMATION_REQUIRED carrying the
   * `request`, and its confirmation stays open (no RESOLVED event) — for a run that pauses and comes back
   * with the answer as `confirmation`.
   */
  deferConfirmation?: boolean;
}

/** The result of a successful call: the raw MCP result intact, plus its bounded model-facing text. */
export interface MCPToolResult {
  /** `<server>.<tool>`. */
  identity: string;
  serverName: string;
  toolName: string;
  /** Pairs the result with its events. */
  callId: string;
  /** The SDK's result as received: content, structuredContent (validated against the output schema), isError. */
  raw: CallToolResult;
  /** What to give a model: text parts, summaries of binary parts, capped with `... [N characters truncated]`. */
  text: string;
  /** Whether `text` was capped. */
  truncated: boolean;
  /** Length of the full rendering before the cap. */
  originalLength: number;
  durationMs: number;
}

/** A resource read through the executor: the client's (bounded) result, plus its capped model-facing text. */
export interface MCPResourceReadResult {
  serverName: string;
  /** The URI read. */
  uri: string;
  /** Pairs the result with its `MCP_RESOURCE_READ` event. */
  callId: string;
  /** What `MCPClientManager.readResource` returned (already bounded by `MAX_CONTENT_CHARS`). */
  raw: MCPReadResourceResult;
  /** What to give a model: `[resource <uri>]` and the text of each part, binary parts summarised, cleaned, capped. */
  text: string;
  truncated: boolean;
  originalLength: number;
  durationMs: number;
}

/** A prompt got through the executor: the client's (bounded) result, plus its capped text. */
export interface MCPPromptGetResult {
  serverName: string;
  /** The prompt's name. */
  name: string;
  /** Pairs the result with its `MCP_PROMPT_GET` event. */
  callId: string;
  /** What `MCPClientManager.getPrompt` returned (messages bounded by the client). */
  raw: MCPGetPromptResult;
  /** The messages as text (`[user]` / `[assistant]` and their content), cleaned, capped. */
  text: string;
  truncated: boolean;
  originalLength: number;
  durationMs: number;
}

/** Options of `readResource` and `getPrompt`. */
export interface MCPAccessOptions {
  /** Abandons the request; the server is sent an MCP cancellation. */
  signal?: AbortSignal;
}

const MESSAGE_LIMIT = 300;

/** A URI for an audit record: without its query and fragment (they may carry tokens), and bounded. */
function auditUri(uri: string): string {
  const cut = uri.search(/[?#]/);
  const bare = cut === -1 ? uri : uri.slice(0, cut);
  return bare.length > MESSAGE_LIMIT ? `${bare.slice(0, MESSAGE_LIMIT - 1)}…` : bare;
}

/** One line of an error for an audit event: never its later lines (stderr tails) and never too long. */
function eventMessage(error: unknown, redact?: string): string {
  let text = error instanceof Error ? error.message : String(error);
  if (redact) text = text.split(redact).join("");
  const line = text.split("\n")[0] ?? "";
  return line.length > MESSAGE_LIMIT ? `${line.slice(0, MESSAGE_LIMIT - 1)}…` : line;
}

// Call ids are UUID-shaped: the first four groups of a random UUID per process, then a counter as the
// last group — unique per process, and far cheaper than a fresh UUID per call.
// The counter is written as 12 hex digits: the last two come from a table, the rest (with the prefix)
// are formatted once per 256 calls — `toString(16)` of every counter was a tenth of the executor's cost.
const CALL_ID_PREFIX = globalThis.crypto.randomUUID().slice(0, 24);
const LOW_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
let callCounter = 0;
let callIdHeadOf = -1;
let callIdHead = "";
function newCallId(): string {
  callCounter++;
  const high = Math.floor(callCounter / 256);
  if (high !== callIdHeadOf) {
    callIdHeadOf = high;
    callIdHead = `${CALL_ID_PREFIX}${high.toString(16).padStart(10, "0")}`;
  }
  return `${callIdHead}${LOW_HEX[callCounter % 256]}`;
}

/** What a call id given back with a confirmation answer may look like. */
const CALL_ID = /^[A-Za-z0-9_-]{1,100}$/;

let lastMs = 0;
let lastIso = "";
/** ISO 8601 now; reused within one millisecond (calls come in bursts, and toISOString is not free). */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

/** `Omit` over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What a resource read's or prompt request's events share (`uri` or `promptName`, by kind). */
interface AccessBase {
  serverName: string;
  agent: string;
  callId: string;
  uri?: string;
  promptName?: string;
}

/** What `MCPPermissionDeniedError` is constructed from. */
type MCPPermissionDeniedErrorOptions = ConstructorParameters<typeof MCPPermissionDeniedError>[0];

/** A policy decision, or the deny-by-default answer for a policy that cannot decide resources or prompts. */
type AccessDecision = {
  allowed: boolean;
  reason: string;
  matchedPattern?: string;
  resourceUri?: string;
  confirmation?: string;
};

function renderedFields(rendered: RenderedToolResult) {
  return { text: rendered.text, truncated: rendered.truncated, originalLength: rendered.originalLength };
}

/** The code a failure event carries: the error's own, or FAILED for what is not one of ours. */
function codeOf(error: unknown): MCPEventErrorCode {
  return MCPError.isInstance(error) ? (error.code as MCPEventErrorCode) : "FAILED";
}

/** The audit outcome of a client error. */
function outcomeOf(error: unknown): MCPFailedOutcome {
  if (MCPTimeoutError.isInstance(error)) return "timeout";
  if (MCPRequestError.isInstance(error) && error.code === "REQUEST_CANCELLED") return "cancelled";
  return "failed";
}

interface CallContext {
  identity: string;
  serverName: string;
  toolName: string;
  agent: string;
  callId: string;
  started: number;
  span: MCPToolSpan | undefined;
}

// Events are built as whole object literals: on the V8 of Node 20, `{ ...base, more }` costs about a
// microsecond per object (and leaves garbage), which on every call was most of the executor's own cost.

/** The STARTED event of a call. */
function startedEvent(call: CallContext): MCPToolCallStartedEvent {
  return {
    type: MCP_TOOL_CALL_STARTED,
    identity: call.identity,
    serverName: call.serverName,
    toolName: call.toolName,
    agent: call.agent,
    callId: call.callId,
    timestamp: isoNow(),
  };
}

/** The COMPLETED event of a call. */
function completedEvent(call: CallContext, durationMs: number): MCPToolCallCompletedEvent {
  return {
    type: MCP_TOOL_CALL_COMPLETED,
    identity: call.identity,
    serverName: call.serverName,
    toolName: call.toolName,
    agent: call.agent,
    callId: call.callId,
    timestamp: isoNow(),
    outcome: "ok",
    durationMs,
  };
}

/** The FAILED event of a call. */
function failedEvent(
  call: CallContext,
  outcome: MCPFailedOutcome,
  errorCode: MCPEventErrorCode,
  message: string,
): MCPToolCallFailedEvent {
  return {
    type: MCP_TOOL_CALL_FAILED,
    identity: call.identity,
    serverName: call.serverName,
    toolName: call.toolName,
    agent: call.agent,
    callId: call.callId,
    timestamp: isoNow(),
    outcome,
    durationMs: elapsed(call.started),
    errorCode,
    message,
  };
}

/**
 * The one place tool calls happen. On every call: registry lookup (`MCPToolNotFoundError`), the policy's
 * decision — never cached, never taken from the caller (`MCPPermissionDeniedError`; a denied call never
 * reaches the server), the call with the server's timeouts and concurrency limit and the caller's
 * AbortSignal (`MCPTimeoutError`, `MCPToolExecutionError` TOOL_CANCELLED), error results and protocol
 * failures mapped (`MCPToolExecutionError` TOOL_ERROR/TOOL_FAILED), and the result bounded for the model.
 * Every call emits STARTED then COMPLETED or FAILED, and gets one span.
 */
export class MCPToolExecutor {
  /** The event bus calls are reported on. */
  readonly events: MCPEventDispatcher;
  readonly registry: MCPToolRegistry;
  #policy: MCPPermissionPolicy;
  readonly #client: MCPToolCallClient & MCPResourceClient;
  readonly #tracer: MCPTracer;
  readonly #maxResultChars: number;
  readonly #validateArguments: boolean;
  readonly #schemas = new WeakMap<MCPToolDescriptor, ModelToolInputSchema>();
  readonly #unsubscribe: (() => void)[];
  readonly #ranker: MCPToolRanker;
  readonly #toolSearch: MCPToolExecutorOptions["toolSearch"];
  readonly #serverError: ((serverName: string) => MCPError | undefined) | undefined;
  readonly #degraded: boolean;
  /** Warnings already given (each once), bounded. */
  readonly #warned = new Set<string>();
  readonly #confirm: MCPConfirmHandler | undefined;
  /** Per run: the confirmation being settled (see #oneAtATime). */
  readonly #confirming = new Map<string, Promise<void>>();
  readonly #confirmationTimeoutMs: number;
  readonly #maxConfirmationsPerRun: number;
  readonly #redactSecrets: ((text: string) => string) | undefined;

  constructor(options: MCPToolExecutorOptions) {
    const max = options.maxResultChars ?? MAX_MCP_RESULT_CHARS;
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(`MCPToolExecutor: maxResultChars must be a positive integer, got ${String(max)}`);
    }
    this.#client = options.clientManager;
    this.registry = options.registry;
    this.#policy = options.policy;
    this.events = options.events ?? new MCPEventDispatcher();
    this.#tracer = options.tracer ?? noopTracer;
    this.#maxResultChars = max;
    this.#validateArguments = options.validateArguments ?? true;
    if (options.ranker !== undefined && typeof options.ranker?.rank !== "function") {
      throw new TypeError("MCPToolExecutor: ranker must have a rank(query, tools, options) method");
    }
    this.#ranker = options.ranker ?? createLexicalToolRanker();
    this.#toolSearch = options.toolSearch;
    // A setting for every agent is checked now; a function's answers when they are asked for.
    if (typeof options.toolSearch !== "function") {
      resolveToolSearchSettings([options.toolSearch], "MCPToolExecutor: toolSearch");
    }
    this.#serverError = typeof options.serverError === "function" ? options.serverError : undefined;
    this.#degraded = options.degraded === true;
    if (options.confirm !== undefined && typeof options.confirm !== "function") {
      throw new TypeError("MCPToolExecutor: confirm must be a function (request, { signal }) => decision");
    }
    this.#confirm = options.confirm;
    const timeout = options.confirmationTimeoutMs ?? MCP_CONFIRMATION_TIMEOUT_MS;
    if (!Number.isInteger(timeout) || timeout < 1) {
      throw new RangeError(
        `MCPToolExecutor: confirmationTimeoutMs must be a positive integer, got ${String(timeout)}`,
      );
    }
    this.#confirmationTimeoutMs = timeout;
    const most = options.maxConfirmationsPerRun ?? MAX_MCP_CONFIRMATIONS_PER_RUN;
    if (!Number.isInteger(most) || most < 0) {
      throw new RangeError(
        `MCPToolExecutor: maxConfirmationsPerRun must be a whole number, got ${String(most)}`,
      );
    }
    this.#maxConfirmationsPerRun = most;
    if (options.redactSecrets !== undefined && typeof options.redactSecrets !== "function") {
      throw new TypeError("MCPToolExecutor: redactSecrets must be a function (text) => text");
    }
    this.#redactSecrets = options.redactSecrets;
    this.#unsubscribe = [
      this.registry.on("definitionChanged", (change) =>
        this.events.emit(MCP_TOOL_DEFINITION_CHANGED, {
          type: MCP_TOOL_DEFINITION_CHANGED,
          identity: change.identity,
          serverName: change.serverName,
          toolName: change.toolName,
          previousFingerprint: change.previousFingerprint,
          fingerprint: change.fingerprint,
          timestamp: new Date().toISOString(),
        }),
      ),
      this.registry.on("serverRejected", (rejection) =>
        this.events.emit(MCP_SERVER_TOOLS_REJECTED, {
          type: MCP_SERVER_TOOLS_REJECTED,
          serverName: rejection.serverName,
          timestamp: rejection.rejectedAt,
          errorCode: rejection.error.code,
          identity: rejection.error.identity,
          message: eventMessage(rejection.error),
        }),
      ),
      this.registry.on("serverAccepted", ({ serverName }) =>
        this.events.emit(MCP_SERVER_TOOLS_ACCEPTED, {
          type: MCP_SERVER_TOOLS_ACCEPTED,
          serverName,
          timestamp: new Date().toISOString(),
        }),
      ),
      // A registry listener (of this executor or anyone's) that failed: reported, never dropped.
      this.registry.on("listenerError", ({ event, error }) =>
        this.events.emit(MCP_INTERNAL_ERROR, {
          type: MCP_INTERNAL_ERROR,
          code: "LISTENER_FAILED",
          timestamp: new Date().toISOString(),
          message: `A listener of the registry's ${event} event failed (${eventMessage(error)})`,
          error,
          event,
        }),
      ),
    ];
  }

  /**
   * Subscribe to one of the executor's events (`MCP_TOOL_CALL_STARTED`, ...); returns the function that
   * unsubscribes. The same as `executor.events.on`.
   */
  on<E extends MCPRuntimeEventName>(event: E, listener: MCPRuntimeListener<E>): () => void {
    return this.events.on(event, listener);
  }

  /**
   * Why `serverName` cannot be used, when it cannot (see the `serverError` option): its start or
   * connection error, or SERVER_DISABLED. Undefined when it is available, or when nothing is known.
   */
  serverError(serverName: string): MCPError | undefined {
    if (!this.#serverError || typeof serverName !== "string") return undefined;
    try {
      const error = this.#serverError(serverName);
      return MCPError.isInstance(error) ? error : undefined;
    } catch (error) {
      this.events.emit(MCP_INTERNAL_ERROR, {
        type: MCP_INTERNAL_ERROR,
        code: "LISTENER_FAILED",
        timestamp: new Date().toISOString(),
        message: `The executor's serverError function failed for server "${serverName}" (${eventMessage(error)})`,
        error,
      });
      return undefined;
    }
  }

  /**
   * The servers `agent`'s tool grants name (`<server>.<tool>` patterns) that cannot be used, each with
   * its error — in the order the grants name them. Empty without a `serverError` source.
   */
  unavailableServers(agent: string): { serverName: string; error: MCPError }[] {
    if (!this.#serverError) return [];
    const out: { serverName: string; error: MCPError }[] = [];
    for (const serverName of this.#grantedServers(agent)) {
      const error = this.serverError(serverName);
      if (error) out.push({ serverName, error });
    }
    return out;
  }

  /** The servers named by `agent`'s allow and confirm patterns, once each, in grant order. */
  #grantedServers(agent: string): string[] {
    const grant = this.policy.toJSON()[String(agent)];
    const servers = new Set<string>();
    for (const pattern of [...(grant?.allow ?? []), ...(grant?.confirm ?? [])]) {
      const dot = pattern.indexOf(".");
      if (dot > 0) servers.add(pattern.slice(0, dot));
    }
    return [...servers];
  }

  /**
   * What the tool loops (and `toolkit.tools`) check before they hand an agent its tools. A server the
   * agent is granted that cannot be used fails the call with THAT server's error (`MCPConnectionError`
   * COMMAND_NOT_FOUND, SERVER_MISCONFIGURED, `MCPServerNotFoundError` SERVER_DISABLED, ...: code, cause
   * and what to fix) — unless `degraded` (the option here, else the executor's), which instead reports
   * an `MCP_WARNING` (SERVERS_UNAVAILABLE) naming each missing server and why. An agent with no grants
   * at all gets an `MCP_WARNING` (AGENT_NOT_GRANTED, with the closest granted name).
   */
  checkAvailability(agent: string, options: { degraded?: boolean } = {}): void {
    const name = String(agent);
    if (!this.policy.agents().includes(name)) {
      const suggestion = suggestName(name, this.policy.agents());
      this.warn({
        code: "AGENT_NOT_GRANTED",
        agent: name,
        message: `Agent "${name}" has no grants, so it gets no tools (deny by default)${suggestion ? `: did you mean "${suggestion}"?` : "."} Grant it tools in permissions: (or createMCPToolkit's permissions).`,
        ...(suggestion ? { suggestion } : {}),
      });
      return;
    }
    const missing = this.unavailableServers(name);
    if (missing.length === 0) return;
    const first = missing[0] as { serverName: string; error: MCPError };
    if (!(options.degraded ?? this.#degraded)) throw first.error;
    const servers: MCPUnavailableServer[] = missing.map(({ serverName, error }) => ({
      serverName,
      errorCode: codeOf(error),
      message: eventMessage(error),
    }));
    this.warn({
      code: "SERVERS_UNAVAILABLE",
      agent: name,
      servers,
      message: `Agent "${name}" runs without the tools of ${servers.length === 1 ? "server" : "servers"} ${servers.map((s) => `"${s.serverName}"`).join(", ")} (degraded mode): ${servers.map((s) => `${s.serverName}: ${s.message}`).join(" | ")}`,
    });
  }

  /**
   * Report a warning as an `MCP_WARNING` event — once per distinct warning for this executor. With no
   * listener it becomes a process warning (`process.emitWarning`, code `AGENTFORGE_<CODE>`), never silence.
   */
  warn(warning: DistributiveOmit<MCPWarningEvent, "type" | "timestamp">): void {
    const key = `${warning.code}\u0000${warning.agent}\u0000${warning.message}`;
    if (this.#warned.has(key)) return;
    if (this.#warned.size >= 1000) this.#warned.clear();
    this.#warned.add(key);
    const event = { ...warning, type: MCP_WARNING, timestamp: isoNow() } as MCPWarningEvent;
    if (this.events.listenerCount(MCP_WARNING) > 0) {
      this.events.emit(MCP_WARNING, event);
      return;
    }
    emitProcessWarning(event.message, `AGENTFORGE_${event.code}`);
  }

  /** Forget the warnings given, so that each is given again (the toolkit calls it after a discovery). */
  resetWarnings(): void {
    this.#warned.clear();
  }

  /** Confirmation requests one run may make (the `maxConfirmationsPerRun` option). */
  get maxConfirmationsPerRun(): number {
    return this.#maxConfirmationsPerRun;
  }

  /** The permission policy every call is checked against. */
  get policy(): MCPPermissionPolicy {
    return this.#policy;
  }

  /**
   * Check every later call against `policy` instead (e.g. after a config reload changed the
   * `permissions:` section). Calls already past their check are not affected.
   */
  usePolicy(policy: MCPPermissionPolicy): void {
    const methods = ["decide", "decideResource", "decidePrompt", "allowedTools", "agents", "toJSON"] as const;
    if (methods.some((method) => typeof policy?.[method] !== "function")) {
      throw new TypeError("MCPToolExecutor.usePolicy: expected an MCPPermissionPolicy");
    }
    this.#policy = policy;
  }

  /**
   * The input schema of a tool as given to models (see `normalizeToolInputSchema`): always an object
   * schema, bounded and acyclic. Cached per registered definition.
   */
  inputSchemaOf(tool: MCPToolDescriptor): ModelToolInputSchema {
    let schema = this.#schemas.get(tool);
    if (!schema) {
      schema = normalizeToolInputSchema(tool.inputSchema);
      this.#schemas.set(tool, schema);
    }
    return schema;
  }

  /**
   * Report a call refused before it reached the executor's checks — an unknown tool name or malformed
   * arguments from a model — exactly like a failed call (STARTED, then FAILED with the error's code, and a
   * span), and return the error. One place emits call events, so audits see these too.
   */
  reject<E extends MCPError>(agent: string, identity: string, error: E): E {
    const call = this.#begin(String(agent), String(identity));
    try {
      this.#fail(call, error.code === "TOOL_DENIED" ? "denied" : "failed", error);
    } catch {
      // #fail throws the error it reported; here it is returned instead.
    }
    return error;
  }

  /**
   * `agent`'s tool-search settings (the executor's `toolSearch` option, over `MCP_TOOL_SEARCH_DEFAULTS`),
   * which the tool loops use when they are given no `toolSearch` of their own.
   */
  toolSearchSettings(agent: string): MCPToolSearchSettings {
    const given = typeof this.#toolSearch === "function" ? this.#toolSearch(agent) : this.#toolSearch;
    return resolveToolSearchSettings([given], `tool_search of agent "${String(agent)}"`);
  }

  /**
   * Whether a tool loop would turn tool search on for `agent` over `tools` (default: every registered
   * tool), with `toolSearch` over its settings, and why: the figures `auto` compares with the threshold.
   */
  toolSearchStatus(
    agent: string,
    options: { tools?: Iterable<MCPToolDescriptor>; toolSearch?: MCPToolSearchOption } = {},
  ): MCPToolSearchStatus {
    const settings = resolveToolSearchSettings(
      [this.toolSearchSettings(agent), options.toolSearch],
      "MCPToolExecutor.toolSearchStatus: toolSearch",
    );
    const granted = this.allowedTools(agent, options.tools);
    const chars = definitionsChars(this, granted, new MCPToolNameMap());
    const { active, reason } = decide({ settings, granted }, chars);
    return { on: active, reason, settings, tools: granted.length, chars };
  }

  /**
   * Find the tools `agent` may use that best match `query` (what the agent wants to do, in words). Only
   * the agent's granted, registered tools are ranked — by the executor's ranker (in-process lexical
   * ranking by default: no network, no model) — and whatever the ranker returns is checked again, so a
   * search never reveals a tool the agent may not call. The query is cut to
   * `MAX_MCP_TOOL_SEARCH_QUERY_CHARS`. Reported as one `MCP_TOOL_SEARCH` event (the query's length and
   * the identities found; never the query). A ranker that throws gives `MCPToolSearchError`
   * SEARCH_FAILED; an aborted `signal` rejects with its reason.
   */
  async searchTools(
    agent: string,
    query: string,
    options: MCPSearchToolsOptions = {},
  ): Promise<MCPToolSearchResult> {
    if (typeof query !== "string") {
      throw new TypeError(`MCPToolExecutor.searchTools: query must be a string, got ${typeof query}`);
    }
    const limit = options.limit ?? MCP_TOOL_SEARCH_RESULTS;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MCP_TOOL_SEARCH_RESULTS) {
      throw new RangeError(
        `MCPToolExecutor.searchTools: limit must be an integer from 1 to ${MAX_MCP_TOOL_SEARCH_RESULTS}, got ${String(limit)}`,
      );
    }
    const started = performance.now();
    const base = { agent: String(agent), searchId: newCallId(), queryLength: query.length, limit };
    const candidates = this.allowedTools(base.agent, options.tools);
    const byIdentity = new Map(candidates.map((tool) => [tool.identity, tool]));
    const text =
      query.length > MAX_MCP_TOOL_SEARCH_QUERY_CHARS
        ? query.slice(0, MAX_MCP_TOOL_SEARCH_QUERY_CHARS)
        : query;
    let ranked: readonly { identity: string; score: number }[];
    try {
      options.signal?.throwIfAborted();
      ranked =
        text.trim() === ""
          ? []
          : await this.#ranker.rank(text, candidates, {
              limit,
              ...(options.signal ? { signal: options.signal } : {}),
            });
      options.signal?.throwIfAborted();
      if (!Array.isArray(ranked)) throw new TypeError("the ranker did not return a list");
    } catch (error) {
      const aborted = options.signal?.aborted === true;
      const failure = aborted
        ? error
        : new MCPToolSearchError(
            `Tool search for agent "${base.agent}" failed in the ranker: ${eventMessage(error)}`,
            { code: "SEARCH_FAILED", agent: base.agent, cause: error },
          );
      this.#emitSearch(base, started, candidates.length, [], aborted ? "cancelled" : "failed", failure);
      throw failure;
    }
    // Only tools among the candidates, each once, with a finite score: a ranker cannot reveal a tool.
    const hits: MCPToolSearchHit[] = [];
    for (const entry of ranked) {
      const tool = byIdentity.get((entry as { identity?: unknown } | null)?.identity as string);
      if (!tool || hits.some((h) => h.tool === tool)) continue;
      const score = Number((entry as { score?: unknown }).score);
      hits.push({ tool, score: Number.isFinite(score) ? score : 0 });
      if (hits.length === limit) break;
    }
    const durationMs = this.#emitSearch(
      base,
      started,
      candidates.length,
      hits.map((h) => h.tool.identity),
      "ok",
    );
    return { searchId: base.searchId, hits, candidates: candidates.length, durationMs };
  }

  /**
   * Report a search refused before it ran — the run's searches used up (SEARCH_LIMIT_REACHED), or
   * `search_tools` arguments a model got wrong (INVALID_ARGUMENTS) — as an `MCP_TOOL_SEARCH` event, and
   * return the error. `queryLength` is the length of the query, when there was one.
   */
  rejectSearch<E extends MCPError>(agent: string, queryLength: number, error: E): E {
    this.#emitSearch(
      { agent: String(agent), searchId: newCallId(), queryLength, limit: 0 },
      performance.now(),
      0,
      [],
      "failed",
      error,
    );
    return error;
  }

  #emitSearch(
    base: Pick<MCPToolSearchEvent, "agent" | "searchId" | "queryLength" | "limit">,
    started: number,
    candidates: number,
    identities: string[],
    outcome: MCPToolCallOutcome,
    error?: unknown,
  ): number {
    const durationMs = elapsed(started);
    if (this.events.listenerCount(MCP_TOOL_SEARCH) === 0) return durationMs;
    const fields = {
      type: MCP_TOOL_SEARCH as typeof MCP_TOOL_SEARCH,
      ...base,
      timestamp: isoNow(),
      candidates,
      identities,
      durationMs,
    };
    const event: MCPToolSearchEvent =
      outcome === "ok"
        ? { ...fields, outcome }
        : { ...fields, outcome, errorCode: codeOf(error), message: eventMessage(error) };
    this.events.emit(MCP_TOOL_SEARCH, event);
    return durationMs;
  }

  /**
   * The registered tools (all, or those given) that the policy grants `agent` and that can be called:
   * a tool its server lists but the client cannot run (e.g. task-only on a 2026-07-28 connection, see
   * mcp-client's `toolUnavailableReason`) is left out, so it is never offered to a model.
   */
  allowedTools<T extends MCPToolDescriptor>(agent: string, tools?: Iterable<T>): T[] {
    return this.policy
      .allowedTools(agent, tools ?? (this.registry.list() as T[]))
      .filter((tool) => toolUnavailableReason(tool as Pick<DiscoveredTool, "problems">) === undefined);
  }

  /** Call `identity` as `agent` with `args`; see the class description for every check applied. */
  async execute(
    agent: string,
    identity: string,
    args: Record<string, unknown> = {},
    options: MCPExecuteOptions = {},
  ): Promise<MCPToolResult> {
    const call = this.#begin(String(agent), String(identity), options.confirmation?.callId);
    const tool = this.registry.get(identity);
    if (!tool) return this.#fail(call, "failed", this.#notFound(call));
    const decision = this.policy.decide(agent, identity, tool);
    if (!decision.allowed) {
      return this.#fail(
        call,
        "denied",
        new MCPPermissionDeniedError({
          agent: call.agent,
          kind: "tool",
          identity: call.identity,
          serverName: call.serverName,
          toolName: call.toolName,
          reason: decision.reason,
          ...(decision.matchedPattern ? { matchedPattern: decision.matchedPattern } : {}),
        }),
      );
    }
    const issues = checkToolArguments(
      this.#validateArguments ? this.inputSchemaOf(tool) : { type: "object" },
      args,
    );
    if (issues.length > 0)
      return this.#fail(call, "failed", new MCPInvalidArgumentsError(call.identity, issues));
    const basis = decision.confirmation;
    if (basis) {
      try {
        const run = checkRun(options.confirmationRun);
        await this.#oneAtATime(run?.runId, () =>
          settleConfirmation(
            {
              events: this.events,
              handler: this.#confirm,
              timeoutMs: this.#confirmationTimeoutMs,
              maxPerRun: this.#maxConfirmationsPerRun,
              redact: this.#redactSecrets ?? this.#serverSecrets(call.serverName),
            },
            call,
            {
              tool,
              args,
              basis,
              reason: decision.reason,
              fingerprint: this.registry.fingerprint(call.identity) ?? "",
              run,
              answer: options.confirmation,
              handler: typeof options.confirm === "function" ? options.confirm : this.#confirm,
              defer: options.deferConfirmation === true,
              signal: options.signal,
            },
          ),
        );
      } catch (error) {
        return this.#fail(
          call,
          MCPError.isInstance(error) && error.code === "TOOL_CANCELLED" ? "cancelled" : "denied",
          error,
        );
      }
    }
    let raw: CallToolResult;
    try {
      raw = await this.#client.callTool(
        call.serverName,
        call.toolName,
        args,
        this.#callOptions(call, options),
      );
    } catch (error) {
      return this.#failCall(call, error);
    }
    const rendered = renderToolResult(raw as MCPRawToolResult, this.#maxResultChars);
    if (raw.isError) {
      return this.#fail(
        call,
        "tool_error",
        new MCPToolExecutionError(
          `Tool "${call.identity}" returned an error result (its text is in toolErrorText)`,
          {
            code: "TOOL_ERROR",
            identity: call.identity,
            serverName: call.serverName,
            toolName: call.toolName,
            toolErrorText: rendered.text,
          },
        ),
        "the tool returned an error result",
      );
    }
    const durationMs = elapsed(call.started);
    if (this.events.listenerCount(MCP_TOOL_CALL_COMPLETED) > 0) {
      this.events.emit(MCP_TOOL_CALL_COMPLETED, completedEvent(call, durationMs));
    }
    call.span?.end({ outcome: "ok" });
    return {
      identity: call.identity,
      serverName: call.serverName,
      toolName: call.toolName,
      callId: call.callId,
      raw,
      text: rendered.text,
      truncated: rendered.truncated,
      originalLength: rendered.originalLength,
      durationMs,
    };
  }

  /**
   * Read the resource `uri` of server `serverName` as `agent`: the policy's `decideResource` first, on
   * every read (`MCPPermissionDeniedError` TOOL_DENIED — deny by default; the server never sees a denied
   * read), then `clientManager.readResource` with your signal (errors as the client's: `MCPTimeoutError`,
   * `MCPRequestError`, `MCPCapabilityError` CAPABILITY_NOT_SUPPORTED, ...). The model-facing `text` is
   * cleaned and capped at `maxResultChars` like a tool result's. Reported as one `MCP_RESOURCE_READ` event.
   */
  async readResource(
    agent: string,
    serverName: string,
    uri: string,
    options: MCPAccessOptions = {},
  ): Promise<MCPResourceReadResult> {
    const started = performance.now();
    const base = {
      serverName: String(serverName),
      agent: String(agent),
      callId: newCallId(),
      uri: typeof uri === "string" ? auditUri(uri) : "",
    };
    // The URI's query and fragment (they may carry tokens) are cut from every audit message.
    const cut = typeof uri === "string" ? uri.search(/[?#]/) : -1;
    const secret = cut === -1 ? undefined : uri.slice(cut);
    const decision: AccessDecision = this.policy.decideResource(base.agent, base.serverName, uri);
    // What is read is what was decided on: the canonical spelling, when the policy gives it.
    const target = decision.allowed && typeof decision.resourceUri === "string" ? decision.resourceUri : uri;
    const read = this.#client.readResource;
    const raw = await this.#access(
      MCP_RESOURCE_READ,
      base,
      started,
      decision,
      { kind: "resource", identity: `${base.serverName}:${base.uri}`, uri: base.uri },
      () => {
        if (typeof read !== "function")
          throw new TypeError("MCPToolExecutor.readResource: the client manager has no readResource");
        return read.call(
          this.#client,
          base.serverName,
          target,
          options.signal ? { signal: options.signal } : {},
        );
      },
      secret,
    );
    const rendered = renderResourceContents(raw.contents, this.#maxResultChars);
    const durationMs = this.#accessDone(MCP_RESOURCE_READ, base, started);
    return {
      serverName: base.serverName,
      uri: target,
      callId: base.callId,
      raw,
      ...renderedFields(rendered),
      durationMs,
    };
  }

  /**
   * Get the prompt `name` of server `serverName` with `args` as `agent`: the policy's `decidePrompt` first,
   * on every request (`MCPPermissionDeniedError` TOOL_DENIED — deny by default), then
   * `clientManager.getPrompt` with your signal (errors as the client's). `text` is the messages as
   * cleaned, capped text. Reported as one `MCP_PROMPT_GET` event (never the arguments).
   */
  async getPrompt(
    agent: string,
    serverName: string,
    name: string,
    args?: Record<string, string>,
    options: MCPAccessOptions = {},
  ): Promise<MCPPromptGetResult> {
    const started = performance.now();
    const prompt = typeof name === "string" ? name.slice(0, MESSAGE_LIMIT) : "";
    const base = {
      serverName: String(serverName),
      agent: String(agent),
      callId: newCallId(),
      promptName: prompt,
    };
    const decision: AccessDecision = this.policy.decidePrompt(base.agent, base.serverName, name);
    const get = this.#client.getPrompt;
    const raw = await this.#access(
      MCP_PROMPT_GET,
      base,
      started,
      decision,
      { kind: "prompt", identity: `${base.serverName}.${prompt}`, promptName: prompt },
      () => {
        if (typeof get !== "function")
          throw new TypeError("MCPToolExecutor.getPrompt: the client manager has no getPrompt");
        return get.call(
          this.#client,
          base.serverName,
          name,
          args,
          options.signal ? { signal: options.signal } : {},
        );
      },
    );
    const rendered = renderPromptMessages(raw.messages, this.#maxResultChars);
    const durationMs = this.#accessDone(MCP_PROMPT_GET, base, started);
    return {
      serverName: base.serverName,
      name,
      callId: base.callId,
      raw,
      ...renderedFields(rendered),
      durationMs,
    };
  }

  /**
   * What a resource read and a prompt request share: a denied one fails with `MCPPermissionDeniedError`
   * (never reaching the server), an allowed one runs `request`; either failure is reported as the access
   * event (with `redact` cut from its message) and thrown.
   */
  async #access<R>(
    event: typeof MCP_RESOURCE_READ | typeof MCP_PROMPT_GET,
    base: AccessBase,
    started: number,
    given: AccessDecision,
    subject: Pick<MCPPermissionDeniedErrorOptions, "kind" | "identity" | "uri" | "promptName">,
    request: () => Promise<R>,
    redact?: string,
  ): Promise<R> {
    let decision = given;
    if (decision.allowed && decision.confirmation) {
      // A confirm pattern of resources or prompts: a read or prompt request cannot ask a person yet, so it
      // is refused (never made without the confirmation its grant asks for).
      decision = {
        allowed: false,
        reason: `${decision.reason}; resource reads and prompt requests that need a person's confirmation are refused (they cannot be confirmed yet): grant them with allow, or leave them out`,
        ...(decision.matchedPattern ? { matchedPattern: decision.matchedPattern } : {}),
      };
    }
    if (!decision.allowed) {
      const denied = new MCPPermissionDeniedError({
        agent: base.agent,
        serverName: base.serverName,
        ...subject,
        reason: decision.reason,
        ...(decision.matchedPattern ? { matchedPattern: decision.matchedPattern } : {}),
      });
      return this.#accessFailed(event, base, started, "denied", denied, redact);
    }
    try {
      return await request();
    } catch (error) {
      return this.#accessFailed(event, base, started, outcomeOf(error), error, redact);
    }
  }

  #accessDone(
    event: typeof MCP_RESOURCE_READ | typeof MCP_PROMPT_GET,
    base: AccessBase,
    started: number,
  ): number {
    const durationMs = elapsed(started);
    if (this.events.listenerCount(event) > 0)
      this.#emitAccess(event, { type: event, ...base, timestamp: isoNow(), outcome: "ok", durationMs });
    return durationMs;
  }

  /** An access event: `base` holds the field of its kind (`uri` or `promptName`). */
  #emitAccess(
    event: typeof MCP_RESOURCE_READ | typeof MCP_PROMPT_GET,
    payload: AccessBase & { type: typeof event; timestamp: string; durationMs: number } & (
        | { outcome: "ok" }
        | { outcome: MCPFailedOutcome; errorCode: MCPEventErrorCode; message: string }
      ),
  ): void {
    if (event === MCP_RESOURCE_READ) this.events.emit(event, payload as MCPResourceReadEvent);
    else this.events.emit(event, payload as MCPPromptGetEvent);
  }

  #accessFailed(
    event: typeof MCP_RESOURCE_READ | typeof MCP_PROMPT_GET,
    base: AccessBase,
    started: number,
    outcome: MCPFailedOutcome,
    error: unknown,
    redact?: string,
  ): never {
    this.#emitAccess(event, {
      type: event,
      ...base,
      timestamp: isoNow(),
      outcome,
      durationMs: elapsed(started),
      errorCode: codeOf(error),
      // A server's or the policy's message may quote the whole URI: its query stays out of the audit trail.
      message: eventMessage(error, redact),
    });
    throw error;
  }

  /**
   * The manager's call options: the signal, and a progress relay only when someone listens (no
   * allocation beyond today's on the hot path otherwise).
   */
  #callOptions(call: CallContext, options: MCPExecuteOptions): MCPCallToolOptions {
    const onProgress = typeof options.onProgress === "function" ? options.onProgress : undefined;
    const rounds = this.events.listenerCount(MCP_TOOL_CALL_INPUT_ROUND) > 0;
    if (!onProgress && !rounds && this.events.listenerCount(MCP_TOOL_CALL_PROGRESS) === 0) {
      return options.signal ? { signal: options.signal } : {};
    }
    const callOptions: MCPCallToolOptions = options.signal ? { signal: options.signal } : {};
    if (onProgress || this.events.listenerCount(MCP_TOOL_CALL_PROGRESS) > 0)
      callOptions.onprogress = this.#progressRelay(call, onProgress);
    if (rounds) callOptions.onInputRound = (round) => this.#inputRound(call, round);
    return callOptions;
  }

  /** One `input_required` round of a call: its number and modes, nothing the server or a person said. */
  #inputRound(call: CallContext, round: MCPInputRound): void {
    // Rounds are rare: the STARTED event's fields, spread, are cheap enough here.
    const event: MCPToolInputRoundEvent = {
      ...startedEvent(call),
      type: MCP_TOOL_CALL_INPUT_ROUND,
      round: round.round,
      modes: [...round.modes],
    };
    this.events.emit(MCP_TOOL_CALL_INPUT_ROUND, event);
  }

  /**
   * Coalesces a server's progress notifications: a value is passed on only when it is a finite number
   * larger than the last one passed on, and at least `MCP_PROGRESS_INTERVAL_MS` after it — except the
   * first value that reaches the total, passed on once. A server sending 100k notifications thus costs
   * listeners a handful of calls. The server's `message` is never passed on.
   */
  #progressRelay(call: CallContext, onProgress: ((p: MCPToolProgress) => void) | undefined) {
    let last = Number.NEGATIVE_INFINITY;
    let lastAt = Number.NEGATIVE_INFINITY;
    let reachedTotal = false;
    return (update: Progress): void => {
      const progress = (update as { progress?: unknown } | undefined)?.progress;
      if (typeof progress !== "number" || !Number.isFinite(progress) || progress <= last) return;
      const given = (update as { total?: unknown }).total;
      const total = typeof given === "number" && Number.isFinite(given) && given > 0 ? given : undefined;
      const now = performance.now();
      const completes = total !== undefined && progress >= total && !reachedTotal;
      if (!completes && now - lastAt < MCP_PROGRESS_INTERVAL_MS) return;
      if (completes) reachedTotal = true;
      last = progress;
      lastAt = now;
      if (onProgress) {
        try {
          const returned: unknown = onProgress({
            identity: call.identity,
            callId: call.callId,
            progress,
            ...(total !== undefined ? { total } : {}),
          });
          if (returned && typeof (returned as Promise<unknown>).then === "function")
            (returned as Promise<unknown>).then(undefined, (error: unknown) =>
              this.#listenerFailed("onProgress", error),
            );
        } catch (error) {
          // A progress listener never breaks the call (nor does a promise it returns that rejects):
          // its failure is reported instead.
          this.#listenerFailed("onProgress", error);
        }
      }
      if (this.events.listenerCount(MCP_TOOL_CALL_PROGRESS) > 0) {
        const event: MCPToolProgressEvent = {
          type: MCP_TOOL_CALL_PROGRESS,
          identity: call.identity,
          serverName: call.serverName,
          toolName: call.toolName,
          agent: call.agent,
          callId: call.callId,
          timestamp: isoNow(),
          progress,
        };
        if (total !== undefined) event.total = total;
        this.events.emit(MCP_TOOL_CALL_PROGRESS, event);
      }
    };
  }

  /**
   * Not registered. The message lists only tools the asking agent may call, and says why a server's
   * tools are missing only to an agent granted the identity asked for — nothing about the roster leaks.
   */
  #notFound(call: CallContext): MCPError {
    // A tool of a server that cannot be used: the server's own error (why it did not start, and what
    // to fix), told only to an agent granted the identity asked for.
    const serverError = call.serverName ? this.serverError(call.serverName) : undefined;
    if (serverError && this.policy.decide(call.agent, call.identity).allowed) return serverError;
    const known = this.policy.allowedTools(call.agent, this.registry.list()).map((t) => t.identity);
    const rejection =
      call.serverName && typeof this.registry.rejection === "function"
        ? this.registry.rejection(call.serverName)
        : undefined;
    const granted = rejection !== undefined && this.policy.decide(call.agent, call.identity).allowed;
    return new MCPToolNotFoundError(
      call.identity,
      known,
      granted
        ? {
            reason: `Server "${call.serverName}" is connected, but its tool list was rejected (${eventMessage(rejection.error)}), so none of its tools can be called until the server is fixed.`,
          }
        : {},
    );
  }

  #begin(agent: string, identity: string, callId?: unknown): CallContext {
    const parsed = parseToolIdentity(identity);
    const serverName = parsed?.serverName ?? "";
    const toolName = parsed?.toolName ?? identity;
    const call: CallContext = {
      identity,
      serverName,
      toolName,
      agent,
      // A call answering a confirmation reports under the request's id (well-formed ids only).
      callId: typeof callId === "string" && CALL_ID.test(callId) ? callId : newCallId(),
      started: 0,
      span: undefined,
    };
    if (this.events.listenerCount(MCP_TOOL_CALL_STARTED) > 0) {
      this.events.emit(MCP_TOOL_CALL_STARTED, startedEvent(call));
    }
    if (this.#tracer !== noopTracer) {
      const transport = this.#transportOf(serverName);
      call.span = this.#tracer.startToolSpan({
        identity,
        serverName,
        toolName,
        agent,
        callId: call.callId,
        ...(transport ? { transport } : {}),
      });
    }
    call.started = performance.now();
    return call;
  }

  #failCall(call: CallContext, error: unknown): never {
    if (MCPTimeoutError.isInstance(error)) return this.#fail(call, "timeout", error);
    if (MCPRequestError.isInstance(error) && error.code === "REQUEST_CANCELLED") {
      return this.#fail(
        call,
        "cancelled",
        new MCPToolExecutionError(`Call to "${call.identity}" was cancelled by the caller`, {
          code: "TOOL_CANCELLED",
          identity: call.identity,
          serverName: call.serverName,
          toolName: call.toolName,
          cause: error,
        }),
      );
    }
    if (MCPRequestError.isInstance(error)) {
      return this.#fail(
        call,
        "failed",
        new MCPToolExecutionError(`Call to "${call.identity}" failed: ${eventMessage(error)}`, {
          code: "TOOL_FAILED",
          identity: call.identity,
          serverName: call.serverName,
          toolName: call.toolName,
          ...(error.rpcCode !== undefined ? { rpcCode: error.rpcCode } : {}),
          cause: error,
        }),
      );
    }
    return this.#fail(call, "failed", error);
  }

  #fail(call: CallContext, outcome: MCPFailedOutcome, error: unknown, message = eventMessage(error)): never {
    const errorCode = codeOf(error);
    this.events.emit(MCP_TOOL_CALL_FAILED, failedEvent(call, outcome, errorCode, message));
    call.span?.end({ outcome, errorCode, message });
    throw error;
  }

  /** A caller's callback failed: an `MCP_INTERNAL_ERROR` (LISTENER_FAILED), or a process warning. */
  #listenerFailed(listener: string, error: unknown): void {
    if (this.events.listenerCount(MCP_INTERNAL_ERROR) === 0) {
      reportListenerError(error, listener);
      return;
    }
    this.events.emit(MCP_INTERNAL_ERROR, {
      type: MCP_INTERNAL_ERROR,
      code: "LISTENER_FAILED",
      timestamp: isoNow(),
      message: `The ${listener} callback failed (${eventMessage(error)}); the call went on.`,
      error,
      event: listener,
    });
  }

  /** Stop forwarding the registry's definition changes and rejections to `events`. */
  dispose(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  /**
   * Confirmations of one run are settled one after another: a person is asked one thing at a time, and
   * a `scope: "run"` answer covers the run's next calls of that tool, even calls the model made at once.
   */
  async #oneAtATime(runId: string | undefined, settle: () => Promise<void>): Promise<void> {
    if (runId === undefined) return settle();
    const before = this.#confirming.get(runId);
    const mine = (before ?? Promise.resolve()).then(settle);
    // The queue goes on whatever this one's outcome; the outcome itself is awaited (and thrown) below.
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    this.#confirming.set(runId, tail);
    try {
      await mine;
    } finally {
      if (this.#confirming.get(runId) === tail) this.#confirming.delete(runId);
    }
  }

  /** The secret values the config of `serverName` reads from the environment, as a redact function. */
  #serverSecrets(serverName: string): ((text: string) => string) | undefined {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
    if (!env) return undefined;
    try {
      const redactor = createSecretRedactor(
        configVariables(this.#client.getConfig(serverName)).map(({ name }) => env[name]),
      );
      return redactor.empty ? undefined : (text) => redactor.redact(text);
    } catch {
      // No config for this server (a custom client): nothing known to redact.
      return undefined;
    }
  }

  #transportOf(server: string): string | undefined {
    try {
      return this.#client.getConfig(server).transport;
    } catch {
      return undefined;
    }
  }
}
