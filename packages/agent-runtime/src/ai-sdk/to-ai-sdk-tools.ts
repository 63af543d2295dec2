import { MCPError } from "@agentforge/mcp-config";
import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import {
  dynamicTool,
  type JSONSchema7,
  jsonSchema,
  NoSuchToolError,
  type StopCondition,
  type Tool,
  type ToolCallRepairFunction,
  type ToolSet,
} from "ai";
import { createConfirmationRun, type MCPConfirmationRun } from "../confirmation.js";
import { MCPInvalidArgumentsError } from "../errors.js";
import { checkRun } from "../internal/confirmation-gate.js";
import { modelToolDescription } from "../internal/model-tool-definition.js";
import { SEARCH_TOOL_SCHEMA, ToolSearchSession } from "../internal/tool-search-session.js";
import { reportUnknownTool } from "../internal/unknown-tool.js";
import { MAX_MCP_TOOL_ROUNDS, MAX_MODEL_TOOLS } from "../limits.js";
import type { MCPToolExecutor, MCPToolProgress, MCPToolResult } from "../mcp-tool-executor.js";
import { MCPToolNameMap } from "../mcp-tool-name-map.js";
import type { MCPToolkit } from "../mcp-toolkit.js";
import { toolErrorText } from "../tool-error-text.js";
import { type MCPMediaOptions, selectToolResultMedia } from "../tool-result-media.js";
import {
  type MCPToolSearchOption,
  type MCPToolSearchRecord,
  type MCPToolSearchState,
  resolveToolSearchSettings,
} from "../tool-search-settings.js";
import {
  type ApprovalContext,
  approvedAnswer,
  type MCPApprovalBindingStore,
  memoryApprovalBindingStore,
  needsApproval,
} from "./approvals.js";

/** Where the tools come from: a toolkit (discovers on first use) or an executor and its registry. */
export type MCPToolSource = MCPToolExecutor | Pick<MCPToolkit<never>, "executor" | "tools">;

/** Options of `toAISDKTools`. */
export interface ToAISDKToolsOptions {
  /** Candidate tools (default: every registered tool); only those the policy grants the agent are given. */
  tools?: Iterable<MCPToolDescriptor>;
  /** The name map to use (and extend); pass the same one to `reportInvalidToolCalls`. */
  nameMap?: MCPToolNameMap;
  /**
   * Images/audio of tool results for the model (default `"none"`: text only, each one a
   * `[image/png, N bytes]` line). `"content"`: the model output becomes AI SDK `content` — a text part
   * with the result's text, then `image-data` parts (audio: `file-data`) for the media that pass
   * `selectToolResultMedia` (png/jpeg/gif/webp, valid base64, within 4 MiB per result); the AI SDK
   * provider decides how its API receives them. `MCPMediaOptions`: `"content"` with your media types and budget.
   */
  media?: "none" | "content" | MCPMediaOptions;
  /** Receives each call's progress (coalesced; numbers only), see `MCPExecuteOptions.onProgress`. */
  onProgress?: (progress: MCPToolProgress) => void;
  /**
   * Tool search (deferred loading): `"auto"`, `"on"`, `"off"`, or settings (default: the executor's
   * `toolSearchSettings(agent)`: the roster's `tool_search:`, else `auto` above 30 tools or 40,000
   * characters of definitions). When on, the record holds the `alwaysLoad` tools and `search_tools`; the
   * tools a search finds are ADDED TO THE RECORD, so the AI SDK (which reads `tools` at every step) gives
   * them to the model from its next step on. Use one record per run, and
   * `stopWhen: stopAfterToolRounds(tools)` so that turns of searches only do not use up the rounds.
   */
  toolSearch?: MCPToolSearchOption;
  /** Continue a run's search: its state, from `toolSearchStateOf(tools)` of the run's record. */
  toolSearchState?: MCPToolSearchState;
  /** Called after every tool search (plain data: never the query). */
  onToolSearch?: (record: MCPToolSearchRecord) => void;
  /** Most tools in the record (default `MAX_MODEL_TOOLS`, 128); the rest are reported (`MCP_TOOLS_LEFT_OUT`). */
  maxTools?: number;
  /**
   * Give the tools even when servers the agent is granted are unavailable, without theirs (default: the
   * executor's `degraded`, false — `toAISDKTools` then rejects with the first such server's own error).
   * An `MCP_WARNING` (SERVERS_UNAVAILABLE) says which servers are missing and why.
   */
  degraded?: boolean;
  /**
   * Calls that need a person's confirmation (`confirm` patterns, `confirm_destructive`): `"ai-sdk"`
   * (default) marks them with the AI SDK's own `needsApproval`, so `generateText` / `streamText` stop with
   * a `tool-approval-request` for your application to show; when the SDK then runs an approved call, the
   * approval is checked against the call's binding (its arguments, the tool's definition, the run), and a
   * call whose approval was for other arguments is refused (CONFIRMATION_DENIED). `"executor"`: the
   * executor's `confirm` handler is asked instead (no handler: CONFIRMATION_REQUIRED to the model).
   */
  confirmations?: "ai-sdk" | "executor";
  /** The run's confirmation state (plain data, see `confirmationRunOf`): continue a run with it. */
  confirmationRun?: MCPConfirmationRun;
  /** The run's id, for a new confirmation state (default: a random UUID). */
  runId?: string;
  /**
   * Where the bindings of calls the AI SDK asked approval for are kept (default: in memory). Give one
   * backed by your database when approvals may be answered in another process.
   */
  approvalBindings?: MCPApprovalBindingStore;
}

/** What `search_tools` returns to the AI SDK: the model gets `text`; `found` are the identities found. */
export type MCPAISDKSearchOutput =
  | { ok: true; text: string; found: string[] }
  | { ok: false; text: string; errorCode: string; error: MCPError };

/** The tools `toAISDKTools` gives: MCP tools, and `search_tools` when tool search is on. */
export type MCPAISDKTools = Record<string, Tool<unknown, MCPAISDKToolOutput | MCPAISDKSearchOutput>>;

/** The search session of each record made with tool search on. */
const sessions = new WeakMap<object, ToolSearchSession>();
/** The confirmation state of each record. */
const runs = new WeakMap<object, MCPConfirmationRun>();

/**
 * The confirmation state of a record made by `toAISDKTools` (plain data: the run's id, its requests,
 * tools confirmed for the run, answers used), to save with the run and pass back as `confirmationRun`.
 */
export function confirmationRunOf(tools: object): MCPConfirmationRun | undefined {
  return runs.get(tools);
}

type ContentOutputPart =
  | { type: "text"; text: string }
  | { type: "image-data"; data: string; mediaType: string }
  | { type: "file-data"; data: string; mediaType: string };

function mediaOptions(media: ToAISDKToolsOptions["media"]): MCPMediaOptions | undefined {
  if (media === undefined || media === "none") return undefined;
  if (media === "content") return {};
  if (typeof media === "object" && media !== null) return media;
  throw new TypeError(
    `toAISDKTools: options.media must be "none", "content" or { mimeTypes?, maxBytes? }, got ${JSON.stringify(media)}`,
  );
}

/**
 * What an MCP tool returns to the AI SDK. The model gets `text` (as an error result when `ok` is false);
 * your code also gets the MCP result, or the executor's error with its stable `code`.
 */
export type MCPAISDKToolOutput =
  | { ok: true; text: string; result: MCPToolResult }
  | { ok: false; text: string; errorCode: string; error: MCPError };

function executorOf(source: MCPToolSource): MCPToolExecutor {
  return "executor" in source ? source.executor : source;
}

async function grantedTools(
  source: MCPToolSource,
  agent: string,
  candidates: Iterable<MCPToolDescriptor> | undefined,
  degraded: boolean | undefined,
): Promise<MCPToolDescriptor[]> {
  const executor = executorOf(source);
  const options = degraded !== undefined ? { degraded } : {};
  // A toolkit discovers first, and checks that the agent's servers are available (loud by default).
  if ("executor" in source) {
    const tools = await source.tools(agent, options);
    return candidates ? executor.allowedTools(agent, candidates) : tools;
  }
  executor.checkAvailability(agent, options);
  return executor.allowedTools(agent, candidates);
}

/**
 * The MCP tools `agent` may call, as Vercel AI SDK tools (`dynamicTool` + `jsonSchema`), keyed by
 * model-safe names (`filesystem__read_text_file`, see `MCPToolNameMap`). Every call goes through the
 * executor: the policy is checked again, arguments are checked against the tool's input schema (the AI
 * SDK does not validate them: a mismatch is answered with INVALID_ARGUMENTS naming the fields), the
 * server's timeouts apply, the result is capped, and the call is reported as events and a span. A refused
 * or failed call is returned to the model as an error result (`Error (<CODE>): ...`), never thrown out of
 * the run; only cancellation (the run's abort signal) propagates. Bound the rounds with
 * `stopWhen: stopAfterToolRounds(tools)` (or `stepCountIs(MAX_MCP_TOOL_ROUNDS + 1)`), and report unknown
 * tool names and unparsable arguments with `experimental_repairToolCall: reportInvalidToolCalls(...)`.
 * With many granted tools, tool search gives the model `search_tools` instead (see `toolSearch`).
 */
export async function toAISDKTools(
  source: MCPToolSource,
  agent: string,
  options: ToAISDKToolsOptions = {},
): Promise<MCPAISDKTools> {
  const executor = executorOf(source);
  const nameMap = options.nameMap ?? new MCPToolNameMap();
  const media = mediaOptions(options.media);
  const onProgress = options.onProgress;
  const maxTools = options.maxTools ?? MAX_MODEL_TOOLS;
  if (!Number.isInteger(maxTools) || maxTools < 1) {
    throw new RangeError(`toAISDKTools: maxTools must be an integer >= 1, got ${String(maxTools)}`);
  }
  const settings = resolveToolSearchSettings(
    [executor.toolSearchSettings(agent), options.toolSearch],
    "toAISDKTools: toolSearch",
  );
  const granted = await grantedTools(source, agent, options.tools, options.degraded);
  const session = new ToolSearchSession({
    executor,
    agent,
    granted,
    settings,
    nameMap,
    maxTools,
    ...(options.toolSearchState ? { resume: { started: true, toolSearch: options.toolSearchState } } : {}),
  });
  const confirmations = options.confirmations ?? "ai-sdk";
  if (confirmations !== "ai-sdk" && confirmations !== "executor") {
    throw new TypeError(
      `toAISDKTools: confirmations must be "ai-sdk" or "executor", got ${JSON.stringify(confirmations)}`,
    );
  }
  const approvals: ApprovalContext = {
    executor,
    agent,
    run: checkRun(options.confirmationRun) ?? createConfirmationRun(options.runId),
    store: options.approvalBindings ?? memoryApprovalBindingStore(),
  };
  type AnyOutput = MCPAISDKToolOutput | MCPAISDKSearchOutput;
  const toolOf = (descriptor: MCPToolDescriptor): Tool<unknown, AnyOutput> => {
    const identity = descriptor.identity;
    return dynamicTool({
      description: modelToolDescription(descriptor),
      // No `validate`: the AI SDK passes the arguments through, and the executor checks them.
      inputSchema: jsonSchema(executor.inputSchemaOf(descriptor) as JSONSchema7),
      metadata: { mcpIdentity: identity, mcpServer: descriptor.serverName },
      ...(confirmations === "ai-sdk"
        ? {
            needsApproval: (
              input: unknown,
              { toolCallId, messages }: { toolCallId: string; messages: unknown[] },
            ) => needsApproval(approvals, descriptor, input, toolCallId, messages),
          }
        : {}),
      execute: async (input, { abortSignal, toolCallId, messages }): Promise<MCPAISDKToolOutput> => {
        try {
          const answer =
            confirmations === "ai-sdk" ? await approvedAnswer(approvals, toolCallId, messages) : undefined;
          const result = await executor.execute(agent, identity, (input ?? {}) as Record<string, unknown>, {
            ...(abortSignal ? { signal: abortSignal } : {}),
            ...(onProgress ? { onProgress } : {}),
            confirmationRun: approvals.run,
            ...(answer ? { confirmation: answer } : {}),
          });
          return { ok: true, text: result.text, result };
        } catch (error) {
          if (!MCPError.isInstance(error) || abortSignal?.aborted) throw error;
          return { ok: false, text: toolErrorText(error, { nameMap }), errorCode: error.code, error };
        }
      },
      toModelOutput: ({ output }) => {
        const out = output as MCPAISDKToolOutput;
        if (!out.ok) return { type: "error-text", value: out.text };
        const parts = media && out.result ? selectToolResultMedia(out.result.raw, media) : [];
        if (parts.length === 0) return { type: "text", value: out.text };
        const value: ContentOutputPart[] = out.text.length > 0 ? [{ type: "text", text: out.text }] : [];
        for (const part of parts) {
          value.push({
            type: part.type === "image" ? "image-data" : "file-data",
            data: part.data,
            mediaType: part.mimeType,
          });
        }
        return { type: "content", value };
      },
    }) as Tool<unknown, AnyOutput>;
  };
  const tools: MCPAISDKTools = {};
  const mcpNames = new Set<string>();
  const searchTool = dynamicTool({
    description: session.searchDescription(),
    inputSchema: jsonSchema(SEARCH_TOOL_SCHEMA as unknown as JSONSchema7),
    execute: async (input, { abortSignal, toolCallId, messages }): Promise<MCPAISDKSearchOutput> => {
      // The AI SDK's step: one assistant message per step so far.
      const step = messages.filter((m) => m.role === "assistant").length + 1;
      const outcome = await session.search(input, step, toolCallId, abortSignal);
      options.onToolSearch?.(outcome.record);
      sync();
      return outcome.ok
        ? { ok: true, text: outcome.text, found: outcome.record.found }
        : {
            ok: false,
            text: outcome.text,
            errorCode: outcome.error?.code ?? "SEARCH_FAILED",
            error: outcome.error as MCPError,
          };
    },
    toModelOutput: ({ output }) => {
      const out = output as MCPAISDKSearchOutput;
      return out.ok ? { type: "text", value: out.text } : { type: "error-text", value: out.text };
    },
  }) as Tool<unknown, AnyOutput>;
  /** The record holds exactly what the session binds now (it grows as searches find tools). */
  const sync = () => {
    const { tools: descriptors, search } = session.bound();
    const wanted = new Set<string>();
    for (const descriptor of descriptors) {
      const name = nameMap.add(descriptor.identity);
      wanted.add(name);
      if (!mcpNames.has(name)) {
        tools[name] = toolOf(descriptor);
        mcpNames.add(name);
      }
    }
    for (const name of mcpNames) {
      if (!wanted.has(name)) {
        delete tools[name];
        mcpNames.delete(name);
      }
    }
    if (search) tools[session.searchName] = searchTool;
    else delete tools[session.searchName];
  };
  sync();
  if (session.active) sessions.set(tools, session);
  runs.set(tools, approvals.run);
  return tools;
}

/**
 * The tool-search state of a record made by `toAISDKTools` with tool search on — the tools found so far
 * and the searches made, plain data — to save with the run and pass back as `toolSearchState` when it
 * continues; undefined when search is off for that record.
 */
export function toolSearchStateOf(tools: object): MCPToolSearchState | undefined {
  return sessions.get(tools)?.state();
}

/**
 * A `stopWhen` for `generateText` / `streamText`: stop after `maxRounds` tool rounds and one more step
 * for the answer (like `stepCountIs(maxRounds + 1)`), where a step whose tool calls are all searches
 * (`search_tools` of this record) does not count — searches are bounded by `maxSearches` instead.
 */
export function stopAfterToolRounds<T extends ToolSet>(
  tools: T,
  maxRounds: number = MAX_MCP_TOOL_ROUNDS,
): StopCondition<T> {
  if (!Number.isInteger(maxRounds) || maxRounds < 0) {
    throw new RangeError(`stopAfterToolRounds: maxRounds must be an integer >= 0, got ${String(maxRounds)}`);
  }
  const searchName = sessions.get(tools)?.searchName;
  return ({ steps }) =>
    steps.filter(
      (step) =>
        searchName === undefined ||
        step.toolCalls.length === 0 ||
        !step.toolCalls.every((call) => call.toolName === searchName),
    ).length >=
    maxRounds + 1;
}

/**
 * An `experimental_repairToolCall` for `generateText` / `streamText` that repairs nothing but reports what
 * the AI SDK refuses before a tool runs — a tool name the agent was not given, arguments that are not
 * JSON — to the executor (STARTED + FAILED with TOOL_NOT_FOUND or INVALID_ARGUMENTS, and a span), so the
 * audit trail sees every call the model attempted. The AI SDK then answers the model with an error
 * result, as without it. Pass the `nameMap` given to `toAISDKTools`.
 */
export function reportInvalidToolCalls(
  source: MCPToolSource,
  agent: string,
  options: { nameMap: MCPToolNameMap },
): ToolCallRepairFunction<Record<string, Tool>> {
  const executor = executorOf(source);
  return async ({ toolCall, tools, error }) => {
    const identity = options.nameMap.toIdentity(toolCall.toolName);
    if (NoSuchToolError.isInstance(error) || identity === undefined || !(toolCall.toolName in tools)) {
      // Reported with the identity the name stands for (DENIED for a tool the agent may not use).
      reportUnknownTool(executor, agent, toolCall.toolName, Object.keys(tools));
    } else {
      executor.reject(
        agent,
        identity,
        new MCPInvalidArgumentsError(identity, [
          { path: "(root)", message: "is not valid JSON: send the arguments as one JSON object" },
        ]),
      );
    }
    return null;
  };
}
