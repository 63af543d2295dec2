import type { MCPInputRoundMode } from "@agentforge/mcp-client";
import { MCPEventEmitter, reportListenerError } from "@agentforge/mcp-config";
import type { MCPErrorCode } from "./errors.js";

/** Event names, as constants (also the keys of `MCPRuntimeEvents`). */
export const MCP_TOOL_CALL_STARTED = "MCP_TOOL_CALL_STARTED";
/** A call returned a non-error result. */
export const MCP_TOOL_CALL_COMPLETED = "MCP_TOOL_CALL_COMPLETED";
/** A call was denied, timed out, was cancelled, returned an error result, or failed. */
export const MCP_TOOL_CALL_FAILED = "MCP_TOOL_CALL_FAILED";
/**
 * A call in flight reported progress (the server's `notifications/progress`, coalesced: only increasing
 * values, at most one per `MCP_PROGRESS_INTERVAL_MS`). Numbers only, never the server's message text.
 */
export const MCP_TOOL_CALL_PROGRESS = "MCP_TOOL_CALL_PROGRESS";
/**
 * A call in flight got an `input_required` round (2026-07-28: the server asks for input — e.g. a form or
 * URL elicitation — in its answer, and the call is sent again with the answers): one event per round,
 * before it is answered. The round's number and modes only — never the server's message, schema, the
 * values given or its `requestState` (see `MCPToolInputRoundEvent`).
 */
export const MCP_TOOL_CALL_INPUT_ROUND = "MCP_TOOL_CALL_INPUT_ROUND";
/**
 * A call needs a person's confirmation and one was asked for (the `confirm` handler called, or the run
 * paused for an answer). Identities and why — never argument values (see
 * `MCPToolCallConfirmationRequestedEvent`).
 */
export const MCP_TOOL_CALL_CONFIRMATION_REQUESTED = "MCP_TOOL_CALL_CONFIRMATION_REQUESTED";
/**
 * A confirmation was settled: allowed or denied, by whom or by what (the handler, an answer given ahead,
 * a run-wide confirmation, a timeout, no handler, the run's limit), and how long it waited.
 */
export const MCP_TOOL_CALL_CONFIRMATION_RESOLVED = "MCP_TOOL_CALL_CONFIRMATION_RESOLVED";
/** A resource was read through the executor (or the read was denied or failed): one event per read. */
export const MCP_RESOURCE_READ = "MCP_RESOURCE_READ";
/** A prompt was got through the executor (or the request was denied or failed): one event per request. */
export const MCP_PROMPT_GET = "MCP_PROMPT_GET";
/** A registered tool came back from its server with a different definition. */
export const MCP_TOOL_DEFINITION_CHANGED = "MCP_TOOL_DEFINITION_CHANGED";

/** A server's tool list was rejected by the registry (e.g. a tool name listed twice): none of its tools are callable. */
export const MCP_SERVER_TOOLS_REJECTED = "MCP_SERVER_TOOLS_REJECTED";
/** A server whose tool list was rejected sent an acceptable one: its tools are callable again. */
export const MCP_SERVER_TOOLS_ACCEPTED = "MCP_SERVER_TOOLS_ACCEPTED";

/**
 * A tool search was made (`executor.searchTools`, or `search_tools` in a tool loop), refused (the run's
 * searches are used up) or failed: one event per search. It holds the query's length and the tools found,
 * never the query itself (see `MCPToolSearchEvent`).
 */
export const MCP_TOOL_SEARCH = "MCP_TOOL_SEARCH";
/**
 * A tool loop left granted tools out of a model request: more than the provider accepts in one request
 * (`MAX_MODEL_TOOLS`). Emitted when the set left out changes, not on every request.
 */
export const MCP_TOOLS_LEFT_OUT = "MCP_TOOLS_LEFT_OUT";

/**
 * Something an adopter should know that does not stop the call in hand: servers an agent is granted are
 * unavailable and it runs without them (degraded mode), a grant pattern matches no tool, an agent has no
 * grants. With no listener, a warning becomes a process warning (`process.emitWarning`), never silence.
 */
export const MCP_WARNING = "MCP_WARNING";
/**
 * A failure inside the runtime that no call could report: a listener of another event threw, keeping
 * the registry in step with a server failed. Nothing was dropped silently; with no listener, it becomes a
 * process warning.
 */
export const MCP_INTERNAL_ERROR = "MCP_INTERNAL_ERROR";

/** How a call ended. */
export type MCPToolCallOutcome = "ok" | "tool_error" | "denied" | "timeout" | "cancelled" | "failed";

/** How a call that did not succeed ended. */
export type MCPFailedOutcome = Exclude<MCPToolCallOutcome, "ok">;

/**
 * The `errorCode` of a failure event: the code of the error thrown (`MCPErrorCode`), or `FAILED` when
 * what was thrown is not one of ours (a bug, or a foreign error; its message says what it was).
 */
export type MCPEventErrorCode = MCPErrorCode | "FAILED";

/** Who called what, shared by the events of one tool call. */
interface MCPToolCallBase {
  /** The identity called, `<server>.<tool>`. */
  identity: string;
  /** The server part of the identity. */
  serverName: string;
  /** The tool's name as its server lists it (the part after the server's dot). */
  toolName: string;
  /** The agent that called. */
  agent: string;
  /** Unique per call; pairs STARTED with COMPLETED/FAILED. */
  callId: string;
  /** ISO 8601 time of the event. */
  timestamp: string;
}

/** A call started (`MCP_TOOL_CALL_STARTED`). */
export interface MCPToolCallStartedEvent extends MCPToolCallBase {
  type: typeof MCP_TOOL_CALL_STARTED;
  outcome?: undefined;
  durationMs?: undefined;
  errorCode?: undefined;
  message?: undefined;
}

/** A call returned a non-error result (`MCP_TOOL_CALL_COMPLETED`). */
export interface MCPToolCallCompletedEvent extends MCPToolCallBase {
  type: typeof MCP_TOOL_CALL_COMPLETED;
  outcome: "ok";
  durationMs: number;
  errorCode?: undefined;
  message?: undefined;
}

/** A call was refused, denied, timed out, was cancelled, returned an error result, or failed (`MCP_TOOL_CALL_FAILED`). */
export interface MCPToolCallFailedEvent extends MCPToolCallBase {
  type: typeof MCP_TOOL_CALL_FAILED;
  outcome: MCPFailedOutcome;
  durationMs: number;
  /** The error's code (e.g. TOOL_DENIED, TOOL_TIMEOUT, COMMAND_NOT_FOUND). */
  errorCode: MCPEventErrorCode;
  /** The first line of the error's message; never tool output or arguments. */
  message: string;
}

/**
 * One tool call, as reported to listeners: an audit record. It never holds arguments, results or
 * secret values — only who called what, how it ended and how long it took. Tell the kinds apart by `type`.
 */
export type MCPToolCallEvent = MCPToolCallStartedEvent | MCPToolCallCompletedEvent | MCPToolCallFailedEvent;

/** Why a call needs confirmation: a `confirm` pattern, or its annotations under `confirm_destructive`. */
export type MCPConfirmationEventBasis = "pattern" | "annotations";

/** A confirmation was asked for (`MCP_TOOL_CALL_CONFIRMATION_REQUESTED`). */
export interface MCPToolCallConfirmationRequestedEvent extends MCPToolCallBase {
  type: typeof MCP_TOOL_CALL_CONFIRMATION_REQUESTED;
  /** The run's id, when the call belongs to a run (`confirmationRun`). */
  runId?: string;
  /** Why the call needs confirmation. */
  basis: MCPConfirmationEventBasis;
  /** The registry's fingerprint of the tool's definition the request is for. */
  fingerprint: string;
  /** False when no handler was asked: the run waits for an answer (`deferConfirmation`). */
  asked: boolean;
}

/**
 * What settled a confirmation: `handler` (the `confirm` handler answered), `answer` (an answer given
 * ahead with the call: a resumed run, an AI SDK approval), `run` (the tool was confirmed for the whole
 * run), `no-handler`, `timeout`, `handler-failed`, `invalid-answer` (the handler answered neither allow
 * nor deny), `binding-mismatch` (the answer was for another call), `replayed` (that answer was used
 * already), `limit` (the run's requests are used up), `cancelled` (the caller's signal),
 * `invalid-arguments` (arguments no person could be shown: not plain JSON data).
 */
export type MCPConfirmationSource =
  | "handler"
  | "answer"
  | "run"
  | "no-handler"
  | "timeout"
  | "handler-failed"
  | "invalid-answer"
  | "binding-mismatch"
  | "replayed"
  | "limit"
  | "cancelled"
  | "invalid-arguments";

/** A confirmation was settled (`MCP_TOOL_CALL_CONFIRMATION_RESOLVED`). */
export interface MCPToolCallConfirmationResolvedEvent extends MCPToolCallBase {
  type: typeof MCP_TOOL_CALL_CONFIRMATION_RESOLVED;
  /** The run's id, when the call belongs to a run. */
  runId?: string;
  /** Whether the call went ahead. */
  decision: "allow" | "deny";
  /** `run`: the tool is confirmed for the rest of the run. */
  scope: "call" | "run";
  /** What settled it. */
  source: MCPConfirmationSource;
  /** Who answered, as the answer said (`answeredBy`), cleaned and bounded; absent when not said. */
  answeredBy?: string;
  /** How long the confirmation waited, in milliseconds (0 when nothing was asked). */
  waitedMs: number;
}

/** Progress of a call in flight: who calls what, and numbers — never the server's progress message. */
export interface MCPToolProgressEvent extends MCPToolCallBase {
  type: typeof MCP_TOOL_CALL_PROGRESS;
  /** Progress so far: a finite number, larger than the last one reported for this call. */
  progress: number;
  /** The total, when the server gave a finite positive one. */
  total?: number;
}

/**
 * One `input_required` round of a call in flight: who calls what, the round's number and what it asks
 * for by mode (`elicitation.form`, `elicitation.url`, `sampling`, `roots`, `other`) — never content.
 */
export interface MCPToolInputRoundEvent extends MCPToolCallBase {
  type: typeof MCP_TOOL_CALL_INPUT_ROUND;
  /** 1 for the call's first round, counting up (the client allows 8). */
  round: number;
  /** One mode per input request of the round, sorted; empty when the round only carries state. */
  modes: MCPInputRoundMode[];
}

/** What a request's events share: an ok outcome, or a failed one with its code and message. */
export type MCPOutcomeFields =
  | { outcome: "ok"; errorCode?: undefined; message?: undefined }
  | {
      outcome: MCPFailedOutcome;
      /** The error's code (e.g. TOOL_DENIED, TOOL_TIMEOUT, CAPABILITY_NOT_SUPPORTED). */
      errorCode: MCPEventErrorCode;
      /** A one-line description of the failure; never content. */
      message: string;
    };

/** Who asked which server, shared by resource reads and prompt requests. */
interface MCPAccessBase {
  /** The server asked. */
  serverName: string;
  agent: string;
  /** Unique per request. */
  callId: string;
  /** ISO 8601 time of the event. */
  timestamp: string;
  durationMs: number;
}

/** A resource read (`MCP_RESOURCE_READ`): never the content, nor the URI's query or fragment. */
export type MCPResourceReadEvent = MCPAccessBase & {
  type: typeof MCP_RESOURCE_READ;
  /** The URI read, without its query (`?...`) and fragment (`#...`). */
  uri: string;
  promptName?: undefined;
} & MCPOutcomeFields;

/** A prompt request (`MCP_PROMPT_GET`): never the prompt's arguments or messages. */
export type MCPPromptGetEvent = MCPAccessBase & {
  type: typeof MCP_PROMPT_GET;
  /** The prompt's name as its server lists it. */
  promptName: string;
  uri?: undefined;
} & MCPOutcomeFields;

/** One resource read or prompt request, as reported to listeners: an audit record. */
export type MCPAccessEvent = MCPResourceReadEvent | MCPPromptGetEvent;

/** A definition change of a registered tool (the registry's `definitionChanged`). */
export interface MCPToolDefinitionChangedEvent {
  type: typeof MCP_TOOL_DEFINITION_CHANGED;
  /** The tool whose definition changed, `<server>.<tool>`. */
  identity: string;
  serverName: string;
  /** The tool's name as its server lists it. */
  toolName: string;
  previousFingerprint: string;
  fingerprint: string;
  timestamp: string;
}

/** A server's tool list was rejected (see `MCPToolRegistry.rejection`): none of its tools are callable. */
export interface MCPServerToolsRejectedEvent {
  type: typeof MCP_SERVER_TOOLS_REJECTED;
  serverName: string;
  timestamp: string;
  /** Why the list was rejected (a name listed twice, an identity of another server). */
  errorCode: "TOOL_DUPLICATE";
  /** The contested identity, `<server>.<tool>`. */
  identity: string;
  /** Why, in one line. */
  message: string;
}

/** A server whose tool list was rejected sent an acceptable one. */
export interface MCPServerToolsAcceptedEvent {
  type: typeof MCP_SERVER_TOOLS_ACCEPTED;
  serverName: string;
  timestamp: string;
}

/** A server's tool list rejected or accepted again. */
export type MCPServerToolsEvent = MCPServerToolsRejectedEvent | MCPServerToolsAcceptedEvent;

/**
 * One tool search, as reported to listeners: an audit record. The query is model-written text (it may
 * quote the user), so, like a tool call's arguments, it is never recorded: only its length, and which
 * tools were found — what the agent learned about.
 */
export type MCPToolSearchEvent = {
  type: typeof MCP_TOOL_SEARCH;
  agent: string;
  /** Unique per search. */
  searchId: string;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** Length of the query in characters (before it was cut to `MAX_MCP_TOOL_SEARCH_QUERY_CHARS`). */
  queryLength: number;
  /** Most tools asked for. */
  limit: number;
  /** How many tools were searched: the agent's granted, available ones (0 when refused). */
  candidates: number;
  /** The identities found (`<server>.<tool>`), best first; empty when refused or failed. */
  identities: string[];
  durationMs: number;
} & MCPOutcomeFields;

/** Granted tools a tool loop left out of its model requests, and why. */
export interface MCPToolsLeftOutEvent {
  type: typeof MCP_TOOLS_LEFT_OUT;
  agent: string;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** The identities left out (`<server>.<tool>`). */
  identities: string[];
  /** The most tools a request may carry (`MAX_MODEL_TOOLS` or the loop's `maxTools`). */
  limit: number;
  /** Why, in one line. */
  reason: string;
}

/** A server an agent is granted that cannot be used, and why (its own error's code and message). */
export interface MCPUnavailableServer {
  serverName: string;
  /** The server's error code: COMMAND_NOT_FOUND, SERVER_MISCONFIGURED, SERVER_DISABLED, HTTP_UNAUTHORIZED, ... */
  errorCode: MCPEventErrorCode;
  /** The first line of the server's error message (cause first, with what to fix). */
  message: string;
}

/** The kinds of warnings (`MCP_WARNING`). */
export type MCPWarningCode =
  /** Servers the agent is granted are unavailable; it runs without their tools (degraded mode). */
  | "SERVERS_UNAVAILABLE"
  /** A grant pattern of the agent matches no tool its server lists. */
  | "GRANT_MATCHES_NO_TOOL"
  /** Tools were asked for an agent that has no grants (deny by default: it gets none). */
  | "AGENT_NOT_GRANTED";

interface MCPWarningBase {
  type: typeof MCP_WARNING;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** The agent concerned. */
  agent: string;
  /** The whole warning in words, cause first. */
  message: string;
}

/** A warning (`MCP_WARNING`); tell the kinds apart by `code`. */
export type MCPWarningEvent =
  | (MCPWarningBase & {
      code: "SERVERS_UNAVAILABLE";
      /** The unavailable servers, each with why. */
      servers: MCPUnavailableServer[];
    })
  | (MCPWarningBase & {
      code: "GRANT_MATCHES_NO_TOOL";
      /** The pattern, as written in the grant. */
      pattern: string;
      /** A tool identity close to the pattern, if one is. */
      suggestion?: string;
    })
  | (MCPWarningBase & {
      code: "AGENT_NOT_GRANTED";
      /** A granted agent whose name is close, if one is. */
      suggestion?: string;
    });

/** The kinds of internal failures (`MCP_INTERNAL_ERROR`). */
export type MCPInternalErrorCode =
  /** A listener of another event threw, or its promise rejected. */
  | "LISTENER_FAILED"
  /** Bringing the registry in step with a server's new tool list failed. */
  | "REGISTRY_SYNC_FAILED";

/** A failure inside the runtime that no call could report (`MCP_INTERNAL_ERROR`). */
export interface MCPInternalErrorEvent {
  type: typeof MCP_INTERNAL_ERROR;
  code: MCPInternalErrorCode;
  /** ISO 8601 time of the event. */
  timestamp: string;
  /** What failed, in one line. */
  message: string;
  /** What was thrown. */
  error: unknown;
  /** LISTENER_FAILED: the event whose listener failed. */
  event?: string;
  /** REGISTRY_SYNC_FAILED: the server whose tool list could not be taken in. */
  serverName?: string;
}

/** Every event the runtime emits, and its payload. */
export interface MCPRuntimeEvents {
  MCP_TOOL_CALL_STARTED: MCPToolCallStartedEvent;
  MCP_TOOL_CALL_COMPLETED: MCPToolCallCompletedEvent;
  MCP_TOOL_CALL_FAILED: MCPToolCallFailedEvent;
  MCP_TOOL_CALL_PROGRESS: MCPToolProgressEvent;
  MCP_TOOL_CALL_INPUT_ROUND: MCPToolInputRoundEvent;
  MCP_TOOL_CALL_CONFIRMATION_REQUESTED: MCPToolCallConfirmationRequestedEvent;
  MCP_TOOL_CALL_CONFIRMATION_RESOLVED: MCPToolCallConfirmationResolvedEvent;
  MCP_RESOURCE_READ: MCPResourceReadEvent;
  MCP_PROMPT_GET: MCPPromptGetEvent;
  MCP_TOOL_DEFINITION_CHANGED: MCPToolDefinitionChangedEvent;
  MCP_SERVER_TOOLS_REJECTED: MCPServerToolsRejectedEvent;
  MCP_SERVER_TOOLS_ACCEPTED: MCPServerToolsAcceptedEvent;
  MCP_TOOL_SEARCH: MCPToolSearchEvent;
  MCP_TOOLS_LEFT_OUT: MCPToolsLeftOutEvent;
  MCP_WARNING: MCPWarningEvent;
  MCP_INTERNAL_ERROR: MCPInternalErrorEvent;
}

/** The name of a runtime event. */
export type MCPRuntimeEventName = keyof MCPRuntimeEvents;

/** Any runtime event: a union discriminated by `type` (the event's name). */
export type MCPRuntimeEvent = MCPRuntimeEvents[MCPRuntimeEventName];

/** A listener of one runtime event. */
export type MCPRuntimeListener<E extends MCPRuntimeEventName> = (event: MCPRuntimeEvents[E]) => unknown;

/** Options of `MCPEventDispatcher`. */
export interface MCPEventDispatcherOptions {
  /**
   * Where a listener that throws (or whose promise rejects) goes. Default: an `MCP_INTERNAL_ERROR` event
   * (LISTENER_FAILED) when someone listens to those, else a process warning.
   */
  onListenerError?: (error: unknown, event: MCPRuntimeEventName) => void;
}

/**
 * The typed event bus of the runtime (an `MCPEventEmitter` of `MCPRuntimeEvents`): `on(event, listener)`
 * returns the function that unsubscribes. A listener that throws, or returns a promise that rejects,
 * never breaks the call that emitted the event: it is reported as `MCP_INTERNAL_ERROR` (LISTENER_FAILED),
 * or as a process warning when nobody listens to those.
 */
export class MCPEventDispatcher extends MCPEventEmitter<MCPRuntimeEvents> {
  constructor(options: MCPEventDispatcherOptions = {}) {
    const custom = options.onListenerError;
    if (custom !== undefined && typeof custom !== "function") {
      throw new TypeError("MCPEventDispatcher: onListenerError must be a function");
    }
    super({
      onListenerError:
        custom ??
        ((error, event) => {
          if (event === MCP_INTERNAL_ERROR || this.listenerCount(MCP_INTERNAL_ERROR) === 0) {
            reportListenerError(error, event);
            return;
          }
          const reason = error instanceof Error ? error.message : String(error);
          this.emit(MCP_INTERNAL_ERROR, {
            type: MCP_INTERNAL_ERROR,
            code: "LISTENER_FAILED",
            timestamp: new Date().toISOString(),
            message: `A listener of ${event} failed (${reason.split("\n")[0]?.slice(0, 300)}); the other listeners and the call were not affected.`,
            error,
            event,
          });
        }),
    });
  }
}
