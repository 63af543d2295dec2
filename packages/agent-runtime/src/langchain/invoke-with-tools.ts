import type { MCPError } from "@agentforge/mcp-config";
import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import type { Callbacks } from "@langchain/core/callbacks/manager";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { DynamicStructuredTool } from "@langchain/core/tools";
import {
  confirmationAnswer,
  createConfirmationRun,
  type MCPConfirmationAnswer,
  type MCPConfirmationDecision,
  type MCPConfirmationRequest,
  type MCPConfirmationRun,
} from "../confirmation.js";
import { MCPInvalidArgumentsError } from "../errors.js";
import { checkRun } from "../internal/confirmation-gate.js";
import {
  SEARCH_TOOL_SCHEMA,
  type SearchOutcome,
  ToolSearchSession,
} from "../internal/tool-search-session.js";
import { reportUnknownTool } from "../internal/unknown-tool.js";
import { MAX_MCP_TOOL_ROUNDS, MAX_MODEL_TOOLS } from "../limits.js";
import type { MCPToolExecutor, MCPToolProgress } from "../mcp-tool-executor.js";
import { MCPToolNameMap, MODEL_TOOL_NAME_PATTERN } from "../mcp-tool-name-map.js";
import { toolErrorText } from "../tool-error-text.js";
import {
  type MCPToolSearchOption,
  type MCPToolSearchRecord,
  type MCPToolSearchState,
  resolveToolSearchSettings,
} from "../tool-search-settings.js";
import { type LangChainToolMedia, toLangChainTools } from "./to-langchain-tools.js";

/** One tool call made by the loop: plain data, safe to store and log (no arguments, no results). */
export interface ToolCallRecord {
  /** The MCP identity, `<server>.<tool>` (or the unknown name the model asked for). */
  identity: string;
  /** The name the model used. */
  modelName: string;
  /** The model's tool_call_id. */
  toolCallId: string;
  /** 1-based round the call belongs to. */
  round: number;
  durationMs: number;
  ok: boolean;
  /**
   * The error code when `ok` is false: TOOL_NOT_FOUND (a name not bound for this agent),
   * INVALID_ARGUMENTS (malformed JSON, not an object, or breaking the schema), TOOL_DENIED, TOOL_TIMEOUT,
   * TOOL_ERROR, TOOL_FAILED, TOOL_CANCELLED.
   */
  errorCode?: string;
}

/** The loop's state after a round: plain serializable data (no MCP or LangChain objects). */
export interface ToolLoopState {
  /** The conversation so far, in LangChain's stored-message form. */
  messages: StoredMessage[];
  /** Rounds completed. */
  round: number;
  calls: ToolCallRecord[];
  /** True once the final answer is in `messages`. */
  finished: boolean;
  /**
   * Tool search, when it is on for the run: the tools found so far (bound from the turn after they were
   * found) and the searches made. A run resumed from this state keeps searching, with these tools.
   */
  toolSearch?: MCPToolSearchState;
  /** The run's confirmation state: its id, requests made, tools confirmed for the run, answers used. */
  confirmation?: MCPConfirmationRun;
  /** Set while the run waits for a person to confirm tool calls (`confirmations: "pause"`). */
  pending?: ToolLoopPending;
}

/**
 * A round that waits for confirmations: the calls that wait (each with the request to show a person,
 * and the answer once given), and the tool messages of the round's other calls, which already ran.
 */
export interface ToolLoopPending {
  /** Tool messages (stored form) of the round's calls that ran. */
  results: StoredMessage[];
  /** The calls that wait, in the order the model made them. */
  confirmations: ToolLoopPendingCall[];
}

/** One call that waits for a person's confirmation. */
export interface ToolLoopPendingCall {
  /** The model's tool_call_id. */
  toolCallId: string;
  /** The name the model used. */
  modelName: string;
  /** What to show the person (its `callId` is what an answer names). */
  request: MCPConfirmationRequest;
  /** The answer, once given (the run goes on when every waiting call has one). */
  answer?: MCPConfirmationDecision;
}

/** An answer to a waiting call, for `invokeWithTools({ resume, confirmationAnswers })`. */
export interface ToolLoopConfirmationAnswer extends MCPConfirmationDecision {
  /** The `callId` of the request answered. */
  callId: string;
}

/**
 * How the last call (after `maxRounds` tool rounds) asks for an answer without running more tools.
 * - `"tool_choice_none"`: keep the tools defined and the history as is, with tool choice "none" (OpenAI
 *   `tool_choice: "none"`, Anthropic `{ type: "none" }`) — APIs that refuse tool blocks in a request
 *   defining no tools (Anthropic, Bedrock) accept this.
 * - `"text_history"`: call without tools, the tool turns rewritten as plain text (each tool call as a
 *   line in the assistant's text, the results as one user message) — accepted by any chat API.
 * - `"auto"` (default): `"tool_choice_none"` for `openai`, `azure_openai` and `anthropic` models (by
 *   `model._llmType()`), `"text_history"` for every other model.
 */
export type FinalCallStrategy = "tool_choice_none" | "text_history" | "auto";

/** Options of `invokeWithTools`. */
export interface InvokeWithToolsOptions {
  /** Candidate tools (e.g. `registry.list()`); only those the policy grants `agent` are bound. */
  tools: Iterable<MCPToolDescriptor>;
  executor: MCPToolExecutor;
  agent: string;
  /** Tool rounds before one last call without tools (default `MAX_MCP_TOOL_ROUNDS`, 3). */
  maxRounds?: number;
  signal?: AbortSignal;
  /** Continue from a saved state (e.g. in a new process) instead of starting from `messages`. */
  resume?: ToolLoopState;
  /** Called after every round with the state to persist. */
  onRound?: (state: ToolLoopState) => void | Promise<void>;
  /** Called after every tool call (for progress lines). */
  onToolCall?: (record: ToolCallRecord) => void;
  /** LangChain callbacks for the model and tool runs (LangSmith, tracers). */
  callbacks?: Callbacks;
  /** How the last call after `maxRounds` is made (default `"auto"`); see `FinalCallStrategy`. */
  finalCall?: FinalCallStrategy;
  /**
   * Images/audio of tool results in the tool messages (see `LangChainToolMedia`). `"auto"` (default):
   * `"blocks"` for Anthropic models (by `model._llmType()`: their API takes images in `tool_result`),
   * `"none"` for every other model — OpenAI Chat Completions accepts only text in tool messages.
   */
  media?: "auto" | LangChainToolMedia;
  /** Receives each tool call's progress (coalesced; numbers only), see `MCPExecuteOptions.onProgress`. */
  onProgress?: (progress: MCPToolProgress) => void;
  /**
   * Tool search (deferred loading): `"auto"`, `"on"`, `"off"`, or settings. When on, the model is given
   * the `alwaysLoad` tools and one tool, `search_tools(query, limit?)`; the tools it finds are bound
   * from its next turn on (and kept in the state), and every call is still checked by the policy. A turn
   * of searches only does not use up a tool round; a run may search `maxSearches` times. `auto` (the
   * default) turns it on when the agent's granted tools exceed the threshold (30 tools or 40,000
   * characters of definitions). Default: the executor's `toolSearchSettings(agent)` — the roster's
   * `tool_search:` for the agent, with a toolkit — which fields given here override.
   */
  toolSearch?: MCPToolSearchOption;
  /** Called after every tool search (plain data: never the query). */
  onToolSearch?: (record: MCPToolSearchRecord) => void;
  /**
   * Most tools on one model request (default `MAX_MODEL_TOOLS`, 128: OpenAI's limit). Tools over it are
   * left out, reported by an `MCP_TOOLS_LEFT_OUT` event on the executor.
   */
  maxTools?: number;
  /**
   * Run even when servers the agent is granted are unavailable, without their tools (default: the
   * executor's `degraded`, false — the loop then fails with the first such server's own error before the
   * model is called). An `MCP_WARNING` (SERVERS_UNAVAILABLE) says which servers are missing and why.
   */
  degraded?: boolean;
  /**
   * Calls that need a person's confirmation: `"ask"` (default) asks the executor's `confirm` handler
   * (no handler: the model gets a CONFIRMATION_REQUIRED error); `"pause"` asks no one — the run stops
   * with `status: "awaiting_confirmation"`, the waiting calls in `pending` and in the state (persist it,
   * show the requests), and goes on when resumed with `resume` and `confirmationAnswers`.
   */
  confirmations?: "ask" | "pause";
  /**
   * Answers to the waiting calls of `resume` (by the request's `callId`). Each is bound to the call it
   * answers (arguments, tool definition, run): a changed definition or arguments are refused. Calls still
   * without an answer keep the run waiting.
   */
  confirmationAnswers?: readonly ToolLoopConfirmationAnswer[];
  /** The run's id (its confirmation state is keyed by it; default: a random UUID, or the resumed run's). */
  runId?: string;
}

/** What `invokeWithTools` returns. */
export interface InvokeWithToolsResult {
  /**
   * `finished`: `message` is the final answer. `awaiting_confirmation` (with `confirmations: "pause"`):
   * the run waits for answers to `pending`; `state` is what to resume from.
   */
  status: "finished" | "awaiting_confirmation";
  /** The final answer (while awaiting confirmation: the model's message with the waiting calls). */
  message: AIMessage;
  /** The whole conversation, serializable. */
  transcript: StoredMessage[];
  calls: ToolCallRecord[];
  /** Tool rounds made (not counting the final tools-less call, nor turns of searches only). */
  rounds: number;
  /** Tool search, when it was on for the run: the tools found and the searches made. */
  toolSearch?: MCPToolSearchState;
  /** While awaiting confirmation: the requests to show a person (answer each by its `callId`). */
  pending?: MCPConfirmationRequest[];
  /** While awaiting confirmation: the state to resume from (also given to `onRound`). */
  state?: ToolLoopState;
}

const ERROR_CODE = /^Error \(([A-Z_]+)\)/;
const TOOL_CHOICE_NONE_MODELS = new Set(["openai", "azure_openai", "anthropic"]);
/** Models (by `_llmType()`) whose API takes images in tool results, as LangChain converts them. */
const MEDIA_IN_TOOL_RESULT_MODELS = new Set(["anthropic"]);
const NAME_LIMIT = 64;
const TEXT_ARGS_LIMIT = 2000;
const FINAL_NOTE =
  "(The tool budget is used up: no more tool calls are possible. Answer with what you have.)";

/** A tool call of a reply, made answerable: an id, a model-safe name, and whether its arguments parsed. */
interface PendingCall {
  id: string;
  name: string;
  args: unknown;
  /** Set when the provider could not parse the arguments (LangChain's `invalid_tool_calls`). */
  malformed: boolean;
}

function safeName(name: unknown): string {
  if (typeof name === "string" && MODEL_TOOL_NAME_PATTERN.test(name)) return name;
  const cleaned = typeof name === "string" ? name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, NAME_LIMIT) : "";
  return cleaned.length > 0 ? cleaned : "unnamed_tool";
}

function isArgsObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text of a message's content (string, or the text blocks of a block list). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) =>
      typeof block === "string"
        ? block
        : block && typeof block === "object" && (block as { type?: unknown }).type === "text"
          ? String((block as { text?: unknown }).text ?? "")
          : "",
    )
    .join("");
}

/**
 * Every tool call of a reply, each with an id and a model-safe name; when the reply holds calls that
 * lack an id, calls whose arguments did not parse (`invalid_tool_calls`) or unsafe names, the reply is
 * rewritten so that the history sent back lists exactly the calls that get an answer (providers refuse
 * a tool result for a call they do not see, and a call without a result). Malformed arguments are kept
 * out of the rewritten message (they may hold secrets): they become `{}`.
 */
function answerableCalls(reply: AIMessage, round: number): { message: AIMessage; calls: PendingCall[] } {
  const calls: PendingCall[] = [];
  let rewrite = false;
  const seen = new Set<string>();
  const idFor = (id: unknown): string => {
    let out = typeof id === "string" && id.length > 0 && id.length <= 256 ? id : "";
    if (!out || seen.has(out)) {
      rewrite = true;
      out = `call_${round}_${calls.length + 1}`;
      while (seen.has(out)) out = `${out}_`;
    }
    seen.add(out);
    return out;
  };
  for (const call of reply.tool_calls ?? []) {
    const name = safeName(call.name);
    if (name !== call.name) rewrite = true;
    calls.push({ id: idFor(call.id), name, args: call.args, malformed: false });
  }
  for (const call of reply.invalid_tool_calls ?? []) {
    rewrite = true;
    calls.push({ id: idFor(call.id), name: safeName(call.name), args: {}, malformed: true });
  }
  if (!rewrite) return { message: reply, calls };
  const { tool_calls: _raw, function_call: _fn, ...kwargs } = reply.additional_kwargs ?? {};
  const message = new AIMessage({
    // Provider tool blocks in the content are dropped: the converters rebuild them from `tool_calls`.
    content:
      typeof reply.content === "string"
        ? reply.content
        : reply.content.filter((block) => !["tool_use", "function_call"].includes(String(block.type))),
    tool_calls: calls.map((c) => ({
      id: c.id,
      name: c.name,
      args: !c.malformed && isArgsObject(c.args) ? c.args : {},
      type: "tool_call" as const,
    })),
    additional_kwargs: kwargs,
    response_metadata: reply.response_metadata,
    ...(reply.id ? { id: reply.id } : {}),
    ...(reply.usage_metadata ? { usage_metadata: reply.usage_metadata } : {}),
  });
  return { message, calls };
}

/** A reply without tool calls (on the final call, tool calls are never run): its text only. */
function withoutToolCalls(reply: AIMessage): AIMessage {
  if ((reply.tool_calls?.length ?? 0) === 0 && (reply.invalid_tool_calls?.length ?? 0) === 0) {
    if (
      typeof reply.content === "string" ||
      !reply.content.some((b) => (b as { type?: string }).type === "tool_use")
    )
      return reply;
  }
  return new AIMessage({
    content: textOf(reply.content),
    response_metadata: reply.response_metadata,
    ...(reply.id ? { id: reply.id } : {}),
    ...(reply.usage_metadata ? { usage_metadata: reply.usage_metadata } : {}),
  });
}

function argsText(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args ?? {}) ?? "{}";
  } catch {
    text = "{}";
  }
  return text.length > TEXT_ARGS_LIMIT ? `${text.slice(0, TEXT_ARGS_LIMIT - 1)}…` : text;
}

/**
 * The history with every tool turn as plain text: an assistant message with tool calls becomes its text
 * plus one line per call; the tool results that follow become one user message. Other messages are kept.
 */
function textHistory(history: BaseMessage[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  let results: string[] = [];
  const flush = () => {
    if (results.length === 0) return;
    out.push(new HumanMessage(results.join("\n\n")));
    results = [];
  };
  for (const message of history) {
    if (ToolMessage.isInstance(message)) {
      const status = message.status === "error" ? "error" : "result";
      results.push(
        `[Tool ${status} for call ${message.tool_call_id} (${message.name ?? "tool"})]\n${textOf(message.content)}`,
      );
      continue;
    }
    flush();
    if (
      AIMessage.isInstance(message) &&
      ((message.tool_calls?.length ?? 0) > 0 || typeof message.content !== "string")
    ) {
      const lines = [textOf(message.content)].filter((t) => t.length > 0);
      for (const call of message.tool_calls ?? []) {
        lines.push(
          `[Called tool ${call.name} (call ${call.id ?? "?"}) with arguments ${argsText(call.args)}]`,
        );
      }
      out.push(new AIMessage(lines.join("\n")));
      continue;
    }
    out.push(message);
  }
  if (results.length > 0) {
    results.push(FINAL_NOTE);
    flush();
  }
  return out;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted", "AbortError");
}

/**
 * A bounded agent tool loop: bind the tools the policy grants `agent`, run every tool call of a round
 * (concurrently) through the executor, feed back `ToolMessage`s with the same `tool_call_id`, and after
 * `maxRounds` rounds make one last call that runs no tools (see `FinalCallStrategy`; tool calls in that
 * reply are dropped and its text is the answer). Nothing a model sends ends the run: an unknown tool
 * name (TOOL_NOT_FOUND), arguments that are malformed JSON, not an object or break the schema
 * (INVALID_ARGUMENTS), and every executor error come back as error tool messages the model can correct,
 * each reported as an MCP_TOOL_CALL_FAILED event. Only cancellation and model errors propagate. With no
 * granted tools it is a single plain model call.
 *
 * With many granted tools, tool search (`toolSearch`, on by default above the threshold) gives the model
 * `search_tools` instead of every definition; see `InvokeWithToolsOptions.toolSearch`. At most
 * `maxTools` tools are bound on any request.
 */
export async function invokeWithTools(
  model: BaseChatModel,
  messages: BaseMessage[],
  options: InvokeWithToolsOptions,
): Promise<InvokeWithToolsResult> {
  const { executor, agent, signal, callbacks } = options;
  const maxRounds = options.maxRounds ?? MAX_MCP_TOOL_ROUNDS;
  if (!Number.isInteger(maxRounds) || maxRounds < 0) {
    throw new RangeError(`invokeWithTools: maxRounds must be an integer >= 0, got ${String(maxRounds)}`);
  }
  const maxTools = options.maxTools ?? MAX_MODEL_TOOLS;
  if (!Number.isInteger(maxTools) || maxTools < 1) {
    throw new RangeError(`invokeWithTools: maxTools must be an integer >= 1, got ${String(maxTools)}`);
  }
  const settings = resolveToolSearchSettings(
    [executor.toolSearchSettings(agent), options.toolSearch],
    "invokeWithTools: toolSearch",
  );
  const history: BaseMessage[] = options.resume
    ? mapStoredMessagesToChatMessages(options.resume.messages)
    : [...messages];
  const calls: ToolCallRecord[] = options.resume ? [...options.resume.calls] : [];
  let round = options.resume?.round ?? 0;
  const pauseMode = options.confirmations === "pause";
  if (options.confirmations !== undefined && options.confirmations !== "ask" && !pauseMode) {
    throw new TypeError(
      `invokeWithTools: confirmations must be "ask" or "pause", got ${JSON.stringify(options.confirmations)}`,
    );
  }
  const confirmationRun: MCPConfirmationRun =
    checkRun(options.resume?.confirmation) ?? createConfirmationRun(options.runId);
  let pending: ToolLoopPending | undefined = options.resume?.pending;
  /** Requests deferred in the round being run: toolCallId -> request. */
  const deferred = new Map<string, MCPConfirmationRequest>();
  /** Answers given ahead for the calls being run: toolCallId -> answer. */
  const answers = new Map<string, MCPConfirmationAnswer>();
  const config = { ...(signal ? { signal } : {}), ...(callbacks ? { callbacks } : {}) };
  // A granted server that did not start fails the run here, with its own error (unless degraded):
  // never a model call that quietly runs without the agent's tools.
  executor.checkAvailability(agent, options.degraded !== undefined ? { degraded: options.degraded } : {});
  const granted = executor.allowedTools(agent, options.tools);
  const nameMap = new MCPToolNameMap();
  const session = new ToolSearchSession({
    executor,
    agent,
    granted,
    settings,
    nameMap,
    maxTools,
    ...(options.resume
      ? {
          resume: {
            started: options.resume.messages.length > 0,
            ...(options.resume.toolSearch ? { toolSearch: options.resume.toolSearch } : {}),
          },
        }
      : {}),
  });
  const finish = (message: AIMessage): InvokeWithToolsResult => {
    const toolSearch = session.state();
    return {
      status: "finished",
      message,
      transcript: mapChatMessagesToStoredMessages(history),
      calls,
      rounds: round,
      ...(toolSearch ? { toolSearch } : {}),
    };
  };
  const last = history.at(-1);
  if (options.resume?.finished && last instanceof AIMessage) return finish(last);

  const tools = toLangChainTools(executor, agent, granted, {
    nameMap,
    media: pickMedia(model, options.media ?? "auto"),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    callOptions: ({ toolCallId }) => {
      const answer = toolCallId === undefined ? undefined : answers.get(toolCallId);
      return {
        confirmationRun,
        ...(pauseMode ? { deferConfirmation: true } : {}),
        ...(answer ? { confirmation: answer } : {}),
      };
    },
    onConfirmationPending: (request, { toolCallId }) => {
      if (toolCallId !== undefined) deferred.set(toolCallId, request);
    },
  });
  const byName = new Map(tools.map((t) => [t.name, t]));
  if (tools.length === 0) {
    const answer = await model.invoke(history, config);
    history.push(answer);
    return finish(answer as AIMessage);
  }
  if (typeof model.bindTools !== "function") {
    throw new TypeError(`invokeWithTools: the model (${model._llmType()}) does not support bindTools`);
  }
  const searchTool = session.active
    ? new DynamicStructuredTool({
        name: session.searchName,
        description: session.searchDescription(),
        schema: SEARCH_TOOL_SCHEMA as unknown as Record<string, unknown>,
        // Never run by LangChain: the loop answers search calls itself (see runSearch).
        func: async () => "Error (TOOL_FAILED): search_tools runs inside invokeWithTools only",
      })
    : undefined;
  /** The tools of the next model request: what the session binds, plus search_tools while searches are left. */
  const boundTools = (): DynamicStructuredTool[] => {
    const { tools: descriptors, search } = session.bound();
    const list: DynamicStructuredTool[] = [];
    for (const descriptor of descriptors) {
      const tool = byName.get(nameMap.toModelName(descriptor.identity) ?? "");
      if (tool) list.push(tool);
    }
    if (search && searchTool) list.push(searchTool);
    return list;
  };

  const refused = (call: PendingCall, identity: string, error: MCPError): ToolMessage =>
    new ToolMessage({
      content: toolErrorText(executor.reject(agent, identity, error), { nameMap }),
      tool_call_id: call.id,
      name: call.name,
      status: "error",
    });

  type CallOutcome = { message: ToolMessage; record?: ToolCallRecord; search?: MCPToolSearchRecord };

  const runSearch = async (call: PendingCall): Promise<CallOutcome> => {
    const outcome: SearchOutcome = await session.search(
      call.malformed ? undefined : call.args,
      round + 1,
      call.id,
      signal,
    );
    options.onToolSearch?.(outcome.record);
    return {
      message: new ToolMessage({
        content: outcome.text,
        tool_call_id: call.id,
        name: call.name,
        status: outcome.ok ? "success" : "error",
      }),
      search: outcome.record,
    };
  };

  const runCall = async (call: PendingCall, bound: ReadonlySet<string>): Promise<CallOutcome> => {
    if (searchTool && call.name === searchTool.name) return runSearch(call);
    const started = performance.now();
    // Only the tools of this turn's request can be called (a granted tool not yet found is unknown).
    const tool = bound.has(call.name) ? byName.get(call.name) : undefined;
    const identity = tool ? nameMap.toIdentity(call.name) : undefined;
    const toolCallId = call.id;
    let message: ToolMessage;
    let reportedIdentity = identity;
    let reportedCode: string | undefined;
    if (!tool || identity === undefined) {
      // The model is told the name is not one of its tools; the audit trail gets the identity (and a
      // DENIED call when it names a tool the agent may not use).
      const unknown = reportUnknownTool(executor, agent, call.name, [...bound]);
      reportedIdentity = unknown.identity;
      reportedCode = unknown.reported.code;
      message = new ToolMessage({
        content: toolErrorText(unknown.forModel),
        tool_call_id: call.id,
        name: call.name,
        status: "error",
      });
    } else if (call.malformed) {
      message = refused(
        call,
        identity,
        new MCPInvalidArgumentsError(identity, [
          { path: "(root)", message: "is not valid JSON: send the arguments as one JSON object" },
        ]),
      );
    } else {
      const toolCall: ToolCall = {
        id: toolCallId,
        name: call.name,
        args: call.args as Record<string, unknown>,
        type: "tool_call",
      };
      message = (await tool.invoke(toolCall, config)) as ToolMessage;
    }
    const ok = message.status !== "error";
    const text = typeof message.content === "string" ? message.content : "";
    const record: ToolCallRecord = {
      identity: reportedIdentity ?? call.name,
      modelName: call.name,
      toolCallId,
      round: round + 1,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      ok,
      ...(ok ? {} : { errorCode: reportedCode ?? ERROR_CODE.exec(text)?.[1] ?? "TOOL_FAILED" }),
    };
    options.onToolCall?.(record);
    return { message, record };
  };

  // Hand the state to the caller after every round (and turn of searches), and once more with the answer.
  const currentState = (finished: boolean): ToolLoopState => {
    const toolSearch = session.state();
    return {
      messages: mapChatMessagesToStoredMessages(history),
      round,
      calls: [...calls],
      finished,
      ...(toolSearch ? { toolSearch } : {}),
      confirmation: confirmationRun,
      ...(pending ? { pending } : {}),
    };
  };
  const saveState = async (finished: boolean) => {
    await options.onRound?.(currentState(finished));
  };
  /** Stop and wait for answers: the state (saved through onRound) holds the waiting calls. */
  const awaitConfirmation = async (reply: AIMessage): Promise<InvokeWithToolsResult> => {
    const state = currentState(false);
    await options.onRound?.(state);
    const toolSearch = session.state();
    return {
      status: "awaiting_confirmation",
      message: reply,
      transcript: state.messages,
      calls,
      rounds: round,
      ...(toolSearch ? { toolSearch } : {}),
      pending: (pending?.confirmations ?? []).filter((c) => !c.answer).map((c) => c.request),
      state,
    };
  };
  /** The round's tool messages in the order of the model's calls; the round is done. */
  const completeRound = (messagesById: Map<string, ToolMessage>, order: readonly string[]) => {
    for (const id of order) {
      const message = messagesById.get(id);
      if (message) history.push(message);
    }
    pending = undefined;
    round++;
  };

  // A resumed run that waits for confirmations: take the answers, then run the calls that waited.
  if (pending) {
    const waiting = pending;
    const given = options.confirmationAnswers ?? [];
    waiting.confirmations = waiting.confirmations.map((entry) => {
      const answer = given.find((a) => a?.callId === entry.request.callId);
      if (!answer || entry.answer) return entry;
      if (answer.decision !== "allow" && answer.decision !== "deny") {
        throw new TypeError(
          `invokeWithTools: the answer for call ${JSON.stringify(answer.callId)} must be { decision: "allow" | "deny" }`,
        );
      }
      const { callId: _callId, ...decision } = answer;
      return { ...entry, answer: decision };
    });
    const reply = history.at(-1);
    if (!(reply instanceof AIMessage)) {
      throw new TypeError(
        "invokeWithTools: a state waiting for confirmations must end with the model's reply",
      );
    }
    if (waiting.confirmations.some((entry) => !entry.answer)) return awaitConfirmation(reply);
    signal?.throwIfAborted();
    const byId = new Map<string, ToolMessage>();
    for (const message of mapStoredMessagesToChatMessages(waiting.results)) {
      if (ToolMessage.isInstance(message)) byId.set(message.tool_call_id, message);
    }
    const names = new Set(boundTools().map((t) => t.name));
    const toolCalls = answerableCalls(reply, round + 1).calls;
    for (const entry of waiting.confirmations) {
      answers.set(
        entry.toolCallId,
        confirmationAnswer(entry.request, entry.answer as MCPConfirmationDecision),
      );
    }
    const outcomes = await Promise.all(
      waiting.confirmations.map((entry) => {
        const call = toolCalls.find((c) => c.id === entry.toolCallId) ?? {
          id: entry.toolCallId,
          name: entry.modelName,
          args: {},
          malformed: false,
        };
        return runCall(call, names);
      }),
    );
    if (signal?.aborted) throw abortError(signal);
    answers.clear();
    for (const { message, record } of outcomes) {
      byId.set(message.tool_call_id, message);
      if (record) calls.push(record);
    }
    completeRound(
      byId,
      toolCalls.map((c) => c.id),
    );
    await saveState(false);
  }

  let bound = boundTools();
  while (round < maxRounds && bound.length > 0) {
    signal?.throwIfAborted();
    const { message: reply, calls: toolCalls } = answerableCalls(
      (await model.bindTools(bound).invoke(history, config)) as AIMessage,
      round + 1,
    );
    history.push(reply);
    if (toolCalls.length === 0) {
      await saveState(true);
      return finish(reply);
    }
    const names = new Set(bound.map((t) => t.name));
    deferred.clear();
    const results = await Promise.all(toolCalls.map((call) => runCall(call, names)));
    if (signal?.aborted) throw abortError(signal);
    if (deferred.size > 0) {
      // Some calls wait for a person: keep what ran, and stop until the answers come.
      const ran = results.filter(({ message }) => !deferred.has(message.tool_call_id));
      for (const { record } of ran) if (record) calls.push(record);
      pending = {
        results: mapChatMessagesToStoredMessages(ran.map(({ message }) => message)),
        confirmations: toolCalls
          .filter((call) => deferred.has(call.id))
          .map((call) => ({
            toolCallId: call.id,
            modelName: call.name,
            request: deferred.get(call.id) as MCPConfirmationRequest,
          })),
      };
      deferred.clear();
      return awaitConfirmation(reply);
    }
    // Records and messages in the order the model asked for them, whatever order they finished in.
    for (const { message, record } of results) {
      history.push(message);
      if (record) calls.push(record);
    }
    // A turn of searches only (each counted against maxSearches) does not use up a tool round.
    const searchesOnly = results.every((r) => r.search?.counted === true);
    if (!searchesOnly) round++;
    await saveState(false);
    bound = boundTools();
  }
  signal?.throwIfAborted();
  const answer = withoutToolCalls(
    await finalCall(model, bound, history, config, options.finalCall ?? "auto"),
  );
  history.push(answer);
  await saveState(true);
  return finish(answer);
}

function llmType(model: BaseChatModel): string {
  try {
    return model._llmType();
  } catch {
    return ""; // A model without a type: treated like an unknown provider.
  }
}

/** What `media: "auto"` means for a model. */
function pickMedia(model: BaseChatModel, media: "auto" | LangChainToolMedia): LangChainToolMedia {
  if (media !== "auto") return media;
  return MEDIA_IN_TOOL_RESULT_MODELS.has(llmType(model)) ? "blocks" : "none";
}

/** The strategy `"auto"` picks for a model. */
function pickStrategy(
  model: BaseChatModel,
  strategy: FinalCallStrategy,
): "tool_choice_none" | "text_history" {
  if (strategy !== "auto") return strategy;
  // A model without a type gets the strategy every API accepts.
  return TOOL_CHOICE_NONE_MODELS.has(llmType(model)) ? "tool_choice_none" : "text_history";
}

async function finalCall(
  model: BaseChatModel,
  tools: Parameters<NonNullable<BaseChatModel["bindTools"]>>[0],
  history: BaseMessage[],
  config: Record<string, unknown>,
  strategy: FinalCallStrategy,
): Promise<AIMessage> {
  if (
    pickStrategy(model, strategy) === "tool_choice_none" &&
    typeof model.bindTools === "function" &&
    tools.length > 0
  ) {
    let bound: ReturnType<NonNullable<BaseChatModel["bindTools"]>> | undefined;
    try {
      bound = model.bindTools(tools, { tool_choice: "none" });
    } catch {
      // This model does not take tool_choice "none": fall back to plain text.
    }
    if (bound) return (await bound.invoke(history, config)) as AIMessage;
  }
  return (await model.invoke(textHistory(history), config)) as AIMessage;
}
