import { MCPError } from "@agentforge/mcp-config";
import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool, type ToolRunnableConfig } from "@langchain/core/tools";
import { MCPToolExecutionError } from "./errors.js";
import type { MCPToolExecutor, MCPToolResult } from "./mcp-tool-executor.js";
import { MCPToolNameMap } from "./mcp-tool-name-map.js";

/** Options of `toLangChainTools`. */
export interface ToLangChainToolsOptions {
  /** The name map to use (and extend); pass one to share names with `invokeWithTools`. */
  nameMap?: MCPToolNameMap;
}

/**
 * The text an executor error becomes for the model: the stable code and what happened — for a tool's own
 * error result, the tool's (bounded) error text, so the model can correct its call.
 */
export function toolErrorText(error: MCPError): string {
  const detail =
    MCPToolExecutionError.isInstance(error) && error.toolErrorText !== undefined
      ? error.toolErrorText
      : error.message;
  return `Error (${error.code}): ${detail}`;
}

/**
 * MCP tools as `@langchain/core` structured tools for `agent`: only those the policy grants it, with
 * model-safe names (`filesystem__read_text_file`), the tool's JSON Schema as input schema, and every
 * invocation going through the executor — so the policy (checked again on every call), time and size
 * bounds, events and tracing all apply, and LangChain callbacks see each call as a tool run.
 * Executor errors come back as error `ToolMessage`s (when invoked with a tool call) the model can react to;
 * the MCP result travels as the message's `artifact`.
 */
export function toLangChainTools(
  executor: MCPToolExecutor,
  agent: string,
  tools: Iterable<MCPToolDescriptor>,
  options: ToLangChainToolsOptions = {},
): DynamicStructuredTool[] {
  const nameMap = options.nameMap ?? new MCPToolNameMap();
  return executor.allowedTools(agent, tools).map((descriptor) => {
    const name = nameMap.add(descriptor.identity);
    return new DynamicStructuredTool({
      name,
      description: descriptor.description ?? descriptor.title ?? `MCP tool ${descriptor.identity}`,
      schema: (descriptor.inputSchema ?? { type: "object", properties: {} }) as Record<string, unknown>,
      responseFormat: "content_and_artifact",
      metadata: { mcpIdentity: descriptor.identity, mcpServer: descriptor.serverName },
      func: async (args: Record<string, unknown>, _runManager, config?: ToolRunnableConfig) => {
        try {
          const result: MCPToolResult = await executor.execute(agent, descriptor.identity, args ?? {}, {
            ...(config?.signal ? { signal: config.signal } : {}),
          });
          return [result.text, result];
        } catch (error) {
          if (!MCPError.isInstance(error) || config?.signal?.aborted) throw error;
          const text = toolErrorText(error);
          const callId = config?.toolCall?.id;
          if (!callId) return [text, undefined];
          return [new ToolMessage({ content: text, tool_call_id: callId, name, status: "error" }), undefined];
        }
      },
    });
  });
}
