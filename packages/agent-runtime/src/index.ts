// @agentforge/agent-runtime: the governed runtime for MCP tools — executor, events, tracing, tool loop.

// Errors
export {
  type MCPArgumentIssue,
  MCPInvalidArgumentsError,
  type MCPRuntimeErrorCode,
  MCPToolExecutionError,
  MCPToolNotFoundError,
} from "./errors.js";
// Events
export {
  MCP_SERVER_TOOLS_ACCEPTED,
  MCP_SERVER_TOOLS_REJECTED,
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_STARTED,
  MCP_TOOL_DEFINITION_CHANGED,
  MCPEventDispatcher,
  type MCPRuntimeEventName,
  type MCPRuntimeEvents,
  type MCPServerToolsEvent,
  type MCPToolCallEvent,
  type MCPToolCallOutcome,
  type MCPToolDefinitionChangedEvent,
} from "./events.js";
// LangChain
export {
  type FinalCallStrategy,
  type InvokeWithToolsOptions,
  type InvokeWithToolsResult,
  invokeWithTools,
  type ToolCallRecord,
  type ToolLoopState,
} from "./invoke-with-tools.js";
// Executor
export {
  type MCPExecuteOptions,
  type MCPToolCallClient,
  MCPToolExecutor,
  type MCPToolExecutorOptions,
  type MCPToolResult,
} from "./mcp-tool-executor.js";
export { MCPToolNameMap, MODEL_TOOL_NAME_PATTERN, modelToolName } from "./mcp-tool-name-map.js";
// Tracing
export {
  type MCPToolSpan,
  type MCPToolSpanEnd,
  type MCPToolSpanStart,
  type MCPTracer,
  noopTracer,
} from "./mcp-tracer.js";
export {
  type MCPContentPart,
  type MCPRawToolResult,
  type RenderedToolResult,
  renderToolResult,
  truncateText,
} from "./render-tool-result.js";
export {
  type MCPRejectedServer,
  type RegisterDiscoveredResult,
  registerDiscovered,
  type SyncRegistryOptions,
  syncRegistry,
} from "./sync-registry.js";
export { type ToLangChainToolsOptions, toLangChainTools, toolErrorText } from "./to-langchain-tools.js";
export {
  checkToolArguments,
  type ModelToolInputSchema,
  normalizeToolInputSchema,
  type ToolArgumentIssue,
} from "./tool-input-schema.js";
