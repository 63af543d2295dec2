import { MCPError } from "@agentforge/mcp-config";
import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import {
  dynamicTool,
  type JSONSchema7,
  jsonSchema,
  NoSuchToolError,
  type Tool,
  type ToolCallRepairFunction,
} from "ai";
import { MCPInvalidArgumentsError, MCPToolNotFoundError } from "../errors.js";
import type { MCPToolExecutor, MCPToolProgress, MCPToolResult } from "../mcp-tool-executor.js";
import { MCPToolNameMap } from "../mcp-tool-name-map.js";
import type { MCPToolkit } from "../mcp-toolkit.js";
import { toolErrorText } from "../tool-error-text.js";
import { type MCPMediaOptions, selectToolResultMedia } from "../tool-result-media.js";

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

/** Tool descriptions from servers are cut to this many characters before they reach a model. */
const MAX_DESCRIPTION = 4000;

function executorOf(source: MCPToolSource): MCPToolExecutor {
  return "executor" in source ? source.executor : source;
}

async function grantedTools(
  source: MCPToolSource,
  agent: string,
  candidates: Iterable<MCPToolDescriptor> | undefined,
): Promise<MCPToolDescriptor[]> {
  const executor = executorOf(source);
  if (candidates) return executor.allowedTools(agent, candidates);
  return "executor" in source ? source.tools(agent) : executor.allowedTools(agent);
}

function describe(descriptor: MCPToolDescriptor): string {
  const given = descriptor.description ?? descriptor.title;
  if (typeof given !== "string" || given.length === 0) return `MCP tool ${descriptor.identity}`;
  return given.length > MAX_DESCRIPTION ? `${given.slice(0, MAX_DESCRIPTION - 1)}…` : given;
}

/**
 * The MCP tools `agent` may call, as Vercel AI SDK tools (`dynamicTool` + `jsonSchema`), keyed by
 * model-safe names (`filesystem__read_text_file`, see `MCPToolNameMap`). Every call goes through the
 * executor: the policy is checked again, arguments are checked against the tool's input schema (the AI
 * SDK does not validate them: a mismatch is answered with INVALID_ARGUMENTS naming the fields), the
 * server's timeouts apply, the result is capped, and the call is reported as events and a span. A refused
 * or failed call is returned to the model as an error result (`Error (<CODE>): ...`), never thrown out of
 * the run; only cancellation (the run's abort signal) propagates. Bound the rounds with
 * `stopWhen: stepCountIs(MAX_MCP_TOOL_ROUNDS + 1)`, and report unknown tool names and unparsable
 * arguments with `experimental_repairToolCall: reportInvalidToolCalls(...)`.
 */
export async function toAISDKTools(
  source: MCPToolSource,
  agent: string,
  options: ToAISDKToolsOptions = {},
): Promise<Record<string, Tool<unknown, MCPAISDKToolOutput>>> {
  const executor = executorOf(source);
  const nameMap = options.nameMap ?? new MCPToolNameMap();
  const media = mediaOptions(options.media);
  const onProgress = options.onProgress;
  const tools: Record<string, Tool<unknown, MCPAISDKToolOutput>> = {};
  for (const descriptor of await grantedTools(source, agent, options.tools)) {
    const name = nameMap.add(descriptor.identity);
    const identity = descriptor.identity;
    tools[name] = dynamicTool({
      description: describe(descriptor),
      // No `validate`: the AI SDK passes the arguments through, and the executor checks them.
      inputSchema: jsonSchema(executor.inputSchemaOf(descriptor) as JSONSchema7),
      metadata: { mcpIdentity: identity, mcpServer: descriptor.serverName },
      execute: async (input, { abortSignal }): Promise<MCPAISDKToolOutput> => {
        try {
          const result = await executor.execute(agent, identity, (input ?? {}) as Record<string, unknown>, {
            ...(abortSignal ? { signal: abortSignal } : {}),
            ...(onProgress ? { onProgress } : {}),
          });
          return { ok: true, text: result.text, result };
        } catch (error) {
          if (!MCPError.isInstance(error) || abortSignal?.aborted) throw error;
          return { ok: false, text: toolErrorText(error), errorCode: error.code, error };
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
    }) as Tool<unknown, MCPAISDKToolOutput>;
  }
  return tools;
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
      executor.reject(
        agent,
        identity ?? toolCall.toolName,
        new MCPToolNotFoundError(toolCall.toolName, Object.keys(tools)),
      );
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
