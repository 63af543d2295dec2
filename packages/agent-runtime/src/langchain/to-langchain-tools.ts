import { MCPError } from "@agentforge/mcp-config";
import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool, type ToolRunnableConfig } from "@langchain/core/tools";
import type { MCPToolExecutor, MCPToolResult } from "../mcp-tool-executor.js";
import { MCPToolNameMap } from "../mcp-tool-name-map.js";
import { toolErrorText } from "../tool-error-text.js";

/** Options of `toLangChainTools`. */
export interface ToLangChainToolsOptions {
  /** The name map to use (and extend); pass one to share names with `invokeWithTools`. */
  nameMap?: MCPToolNameMap;
}

/** Tool descriptions from servers are cut to this many characters before they reach a model. */
const MAX_DESCRIPTION = 4000;

/** A JSON Schema every value satisfies. */
const ANY_INPUT: Record<string, unknown> = {};

/**
 * A structured tool whose input LangChain does not validate: `StructuredTool.call` checks `this.schema`
 * synchronously before anything else and throws `ToolInputParsingException` — which would end a tool loop
 * on one wrongly typed argument, with no event and nothing the model can read. Here the schema is kept
 * for binding (models see it), and the check is left to the executor, which answers with
 * INVALID_ARGUMENTS naming the fields.
 */
class MCPStructuredTool extends DynamicStructuredTool {
  // biome-ignore lint/suspicious/noExplicitAny: the signature of StructuredTool.call is generic.
  override call(arg: any, configArg?: any, tags?: string[]): Promise<any> {
    const schema = this.schema;
    this.schema = ANY_INPUT as typeof schema;
    try {
      // Not awaited on purpose: only the synchronous start of call() (the validation) sees ANY_INPUT.
      return super.call(arg, configArg, tags);
    } finally {
      this.schema = schema;
    }
  }
}

/**
 * MCP tools as `@langchain/core` structured tools for `agent`: only those the policy grants it, with
 * model-safe names (`filesystem__read_text_file`), the tool's input schema normalized for providers
 * (`normalizeToolInputSchema`: always an object schema, no `$ref` cycles), and every invocation going
 * through the executor — so the policy (checked again on every call), argument check, time and size
 * bounds, events and tracing all apply, and LangChain callbacks see each call as a tool run.
 * Arguments are NOT validated by LangChain (that would throw out of the tool); the executor refuses a
 * definite mismatch with INVALID_ARGUMENTS. Executor errors come back as error `ToolMessage`s (when
 * invoked with a tool call) the model can react to; the MCP result travels as the message's `artifact`.
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
    const given = descriptor.description ?? descriptor.title;
    const description =
      typeof given === "string" && given.length > MAX_DESCRIPTION
        ? `${given.slice(0, MAX_DESCRIPTION - 1)}…`
        : given;
    return new MCPStructuredTool({
      name,
      description:
        typeof description === "string" && description.length > 0
          ? description
          : `MCP tool ${descriptor.identity}`,
      schema: executor.inputSchemaOf(descriptor),
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
