import { MCPError } from "@agentforge/mcp-config";
import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool, type ToolRunnableConfig } from "@langchain/core/tools";
import type { MCPConfirmationRequest } from "../confirmation.js";
import { MCPConfirmationError } from "../errors.js";
import { modelToolDescription } from "../internal/model-tool-definition.js";
import type {
  MCPExecuteOptions,
  MCPToolExecutor,
  MCPToolProgress,
  MCPToolResult,
} from "../mcp-tool-executor.js";
import { MCPToolNameMap } from "../mcp-tool-name-map.js";
import { toolErrorText } from "../tool-error-text.js";
import { type MCPMediaOptions, selectToolResultMedia } from "../tool-result-media.js";

/**
 * How images (and audio) of tool results reach a LangChain model:
 * - `"none"`: text only — each one a `[image/png, N bytes]` line (works with every model);
 * - `"blocks"`: the `ToolMessage` content becomes LangChain standard content blocks — a text block with
 *   the result's text, then `{ type: "image", mimeType, data }` blocks for the images that pass
 *   `selectToolResultMedia` (png/jpeg/gif/webp, valid base64, within 4 MiB per result). For models whose
 *   API takes images in tool results (Anthropic);
 * - `MCPMediaOptions`: `"blocks"` with your media types (e.g. audio) and byte budget.
 */
export type LangChainToolMedia = "none" | "blocks" | MCPMediaOptions;

/** Options of `toLangChainTools`. */
export interface ToLangChainToolsOptions {
  /** The name map to use (and extend); pass one to share names with `invokeWithTools`. */
  nameMap?: MCPToolNameMap;
  /** Images/audio in tool messages (default `"none"`: text only); see `LangChainToolMedia`. */
  media?: LangChainToolMedia;
  /** Receives each call's progress (coalesced; numbers only), see `MCPExecuteOptions.onProgress`. */
  onProgress?: (progress: MCPToolProgress) => void;
  /**
   * Further executor options per call (a run's `confirmationRun`, an answer given ahead as
   * `confirmation`, `deferConfirmation`, a `confirm` handler): called with the identity and the tool call's
   * id (undefined when the tool is invoked with bare arguments).
   */
  callOptions?: (call: {
    identity: string;
    toolCallId: string | undefined;
  }) => Pick<MCPExecuteOptions, "confirmationRun" | "confirmation" | "confirm" | "deferConfirmation">;
  /**
   * A call whose confirmation was deferred (`deferConfirmation`) and waits for a person: it was not made,
   * and the tool answers with a CONFIRMATION_REQUIRED error message — a loop that pauses keeps `request`
   * and drops that message.
   */
  onConfirmationPending?: (request: MCPConfirmationRequest, call: { toolCallId: string | undefined }) => void;
}

/** LangChain standard content blocks of a tool message. */
type ToolContentBlock =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; mimeType: string; data: string };

/** The tool message content of a result: its text, plus media blocks when `media` allows and there are any. */
function contentOf(result: MCPToolResult, media: MCPMediaOptions | undefined): string | ToolContentBlock[] {
  if (!media) return result.text;
  const parts = selectToolResultMedia(result.raw, media);
  if (parts.length === 0) return result.text;
  // Providers refuse empty text blocks: an empty text is left out.
  const blocks: ToolContentBlock[] = result.text.length > 0 ? [{ type: "text", text: result.text }] : [];
  for (const part of parts) blocks.push({ type: part.type, mimeType: part.mimeType, data: part.data });
  return blocks;
}

function mediaOptions(media: LangChainToolMedia | undefined): MCPMediaOptions | undefined {
  if (media === undefined || media === "none") return undefined;
  if (media === "blocks") return {};
  if (typeof media === "object" && media !== null) return media;
  throw new TypeError(
    `toLangChainTools: options.media must be "none", "blocks" or { mimeTypes?, maxBytes? }, got ${JSON.stringify(media)}`,
  );
}

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
  const media = mediaOptions(options.media);
  const onProgress = options.onProgress;
  return executor.allowedTools(agent, tools).map((descriptor) => {
    const name = nameMap.add(descriptor.identity);
    return new MCPStructuredTool({
      name,
      description: modelToolDescription(descriptor),
      schema: executor.inputSchemaOf(descriptor),
      responseFormat: "content_and_artifact",
      metadata: { mcpIdentity: descriptor.identity, mcpServer: descriptor.serverName },
      func: async (args: Record<string, unknown>, _runManager, config?: ToolRunnableConfig) => {
        let extra: ReturnType<NonNullable<ToLangChainToolsOptions["callOptions"]>> | undefined;
        try {
          extra = options.callOptions?.({
            identity: descriptor.identity,
            toolCallId: config?.toolCall?.id,
          });
          const result: MCPToolResult = await executor.execute(agent, descriptor.identity, args ?? {}, {
            ...extra,
            ...(config?.signal ? { signal: config.signal } : {}),
            ...(onProgress ? { onProgress } : {}),
          });
          return [contentOf(result, media), result];
        } catch (error) {
          if (!MCPError.isInstance(error) || config?.signal?.aborted) throw error;
          if (
            MCPConfirmationError.isInstance(error) &&
            error.code === "CONFIRMATION_REQUIRED" &&
            error.request !== undefined &&
            extra?.deferConfirmation === true
          ) {
            options.onConfirmationPending?.(error.request, { toolCallId: config?.toolCall?.id });
          }
          const text = toolErrorText(error, { nameMap });
          const callId = config?.toolCall?.id;
          if (!callId) return [text, undefined];
          return [new ToolMessage({ content: text, tool_call_id: callId, name, status: "error" }), undefined];
        }
      },
    });
  });
}
