import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import type { Callbacks } from "@langchain/core/callbacks/manager";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import {
  AIMessage,
  type BaseMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import type { MCPToolExecutor } from "./mcp-tool-executor.js";
import { MCPToolNameMap } from "./mcp-tool-name-map.js";
import { toLangChainTools } from "./to-langchain-tools.js";

/** One tool call made by the loop: plain data, safe to store and log (no arguments, no results). */
export interface ToolCallRecord {
  /** The MCP identity, `<server>.<tool>` (or the unknown name the model asked for). */
  tool: string;
  /** The name the model used. */
  modelName: string;
  /** The model's tool_call_id. */
  toolCallId: string;
  /** 1-based round the call belongs to. */
  round: number;
  durationMs: number;
  ok: boolean;
  /** The executor's error code when `ok` is false (e.g. TOOL_DENIED), or UNKNOWN_TOOL. */
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
}

/** Options of `invokeWithTools`. */
export interface InvokeWithToolsOptions {
  /** Candidate tools (e.g. `registry.list()`); only those the policy grants `agent` are bound. */
  tools: Iterable<MCPToolDescriptor>;
  executor: MCPToolExecutor;
  agent: string;
  /** Tool rounds before one last call without tools (default 3). */
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
}

/** What `invokeWithTools` returns. */
export interface InvokeWithToolsResult {
  /** The final answer. */
  message: AIMessage;
  /** The whole conversation, serializable. */
  transcript: StoredMessage[];
  calls: ToolCallRecord[];
  /** Tool rounds made (not counting the final tools-less call). */
  rounds: number;
}

const ERROR_CODE = /^Error \(([A-Z_]+)\)/;

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted", "AbortError");
}

/**
 * A bounded agent tool loop: bind the tools the policy grants `agent`, run every tool call of a round
 * (concurrently) through the executor, feed back `ToolMessage`s with the same `tool_call_id` (executor
 * errors as error tool messages the model can react to; other errors propagate), and after `maxRounds`
 * rounds make one last call without tools. With no granted tools it is a single plain model call.
 */
export async function invokeWithTools(
  model: BaseChatModel,
  messages: BaseMessage[],
  options: InvokeWithToolsOptions,
): Promise<InvokeWithToolsResult> {
  const { executor, agent, signal, callbacks } = options;
  const maxRounds = options.maxRounds ?? 3;
  if (!Number.isInteger(maxRounds) || maxRounds < 0) {
    throw new RangeError(`invokeWithTools: maxRounds must be an integer >= 0, got ${String(maxRounds)}`);
  }
  const history: BaseMessage[] = options.resume
    ? mapStoredMessagesToChatMessages(options.resume.messages)
    : [...messages];
  const calls: ToolCallRecord[] = options.resume ? [...options.resume.calls] : [];
  let round = options.resume?.round ?? 0;
  const config = { ...(signal ? { signal } : {}), ...(callbacks ? { callbacks } : {}) };
  const finish = (message: AIMessage): InvokeWithToolsResult => ({
    message,
    transcript: mapChatMessagesToStoredMessages(history),
    calls,
    rounds: round,
  });
  const last = history.at(-1);
  if (options.resume?.finished && last instanceof AIMessage) return finish(last);

  const nameMap = new MCPToolNameMap();
  const tools = toLangChainTools(executor, agent, options.tools, { nameMap });
  const byName = new Map(tools.map((t) => [t.name, t]));
  if (tools.length === 0) {
    const answer = await model.invoke(history, config);
    history.push(answer);
    return finish(answer as AIMessage);
  }
  if (typeof model.bindTools !== "function") {
    throw new TypeError(`invokeWithTools: the model (${model._llmType()}) does not support bindTools`);
  }
  const bound = model.bindTools(tools);

  const runCall = async (
    call: ToolCall,
    index: number,
  ): Promise<{ message: ToolMessage; record: ToolCallRecord }> => {
    const started = performance.now();
    const tool = byName.get(call.name);
    const toolCallId = call.id ?? `call_${round + 1}_${index + 1}`;
    let message: ToolMessage;
    if (!tool) {
      message = new ToolMessage({
        content: `Error (UNKNOWN_TOOL): there is no tool named "${call.name}". Available tools: ${[...byName.keys()].join(", ")}.`,
        tool_call_id: toolCallId,
        name: call.name,
        status: "error",
      });
    } else {
      message = (await tool.invoke({ ...call, id: toolCallId, type: "tool_call" }, config)) as ToolMessage;
    }
    const ok = message.status !== "error";
    const text = typeof message.content === "string" ? message.content : "";
    const record: ToolCallRecord = {
      tool: nameMap.toIdentity(call.name) ?? call.name,
      modelName: call.name,
      toolCallId,
      round: round + 1,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      ok,
      ...(ok ? {} : { errorCode: ERROR_CODE.exec(text)?.[1] ?? "TOOL_FAILED" }),
    };
    options.onToolCall?.(record);
    return { message, record };
  };

  // Hand the state to the caller after every round, and once more with the final answer.
  const saveState = async (finished: boolean) =>
    options.onRound?.({
      messages: mapChatMessagesToStoredMessages(history),
      round,
      calls: [...calls],
      finished,
    });

  while (round < maxRounds) {
    signal?.throwIfAborted();
    const reply = (await bound.invoke(history, config)) as AIMessage;
    history.push(reply);
    const toolCalls = reply.tool_calls ?? [];
    if (toolCalls.length === 0) {
      await saveState(true);
      return finish(reply);
    }
    const results = await Promise.all(toolCalls.map(runCall));
    if (signal?.aborted) throw abortError(signal);
    // Records and messages in the order the model asked for them, whatever order they finished in.
    for (const { message, record } of results) {
      history.push(message);
      calls.push(record);
    }
    round++;
    await saveState(false);
  }
  signal?.throwIfAborted();
  const answer = (await model.invoke(history, config)) as AIMessage;
  history.push(answer);
  await saveState(true);
  return finish(answer);
}
