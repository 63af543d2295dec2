// biome-ignore-all assist/source/organizeImports: this file is the package's manual; its sections are ordered by concern, not by path.
// @agentforge/agent-runtime: the governed runtime for MCP tools in LLM agents.
// No framework is loaded from here: LangChain is on `./langchain`, the Vercel AI SDK on `./ai-sdk`,
// OpenTelemetry on `./otel`, reading a config file on `./node`.

// ─── Start here: the whole MCP stack in one step ────────────────────────────────────────────────────
export { createMCPToolkit } from "./create-mcp-toolkit.js";
export type {
  CreateMCPToolkitOptions,
  MCPToolkit,
  MCPToolkitConfig,
  MCPToolkitConfigInput,
  MCPToolkitDiscovery,
  MCPToolkitExecutorOptions,
  MCPToolkitHealth,
  MCPToolkitListOptions,
  MCPToolkitToolsOptions,
  MCPGrantWarning,
} from "./mcp-toolkit.js";

// ─── Defaults ───────────────────────────────────────────────────────────────────────────────────────
export {
  MAX_MCP_RESULT_CHARS,
  MAX_MCP_TOOL_ROUNDS,
  MCP_PROGRESS_INTERVAL_MS,
  MAX_MODEL_TOOLS,
  MCP_TOOL_SEARCH_RESULTS,
  MAX_MCP_TOOL_SEARCH_RESULTS,
  MAX_MCP_TOOL_SEARCH_QUERY_CHARS,
  MAX_MCP_CONFIRMATIONS_PER_RUN,
  MCP_CONFIRMATION_TIMEOUT_MS,
  MAX_MCP_CONFIRMATION_PREVIEW_CHARS,
} from "./limits.js";

// ─── The executor: every tool call, policy-checked and bounded ──────────────────────────────────────
export {
  type MCPAccessOptions,
  type MCPExecuteOptions,
  type MCPPromptGetResult,
  type MCPResourceClient,
  type MCPResourceReadResult,
  type MCPSearchToolsOptions,
  type MCPToolCallClient,
  MCPToolExecutor,
  type MCPToolExecutorOptions,
  type MCPToolProgress,
  type MCPToolResult,
  type MCPToolSearchHit,
  type MCPToolSearchResult,
  type MCPToolSearchStatus,
} from "./mcp-tool-executor.js";

// ─── Confirmation: a person confirms a call before it is made ───────────────────────────────────────
export {
  argumentsPreview,
  canonicalJson,
  confirmationAnswer,
  confirmationBinding,
  createConfirmationRun,
  type MCPArgumentsPreviewOptions,
  type MCPConfirmationAnnotations,
  type MCPConfirmationAnswer,
  type MCPConfirmationBindingInput,
  type MCPConfirmationDecision,
  type MCPConfirmationDecisionValue,
  type MCPConfirmationRequest,
  type MCPConfirmationRun,
  type MCPConfirmationScope,
  type MCPConfirmHandler,
  type MCPConfirmHandlerOptions,
} from "./confirmation.js";

// ─── Tool search: finding the right tools among many, under the policy ─────────────────────────────
export {
  type MCPRankedTool,
  type MCPToolRanker,
  type MCPToolRankOptions,
  toolSearchText,
} from "./mcp-tool-ranker.js";
export {
  createLexicalToolRanker,
  type LexicalFieldWeights,
  type LexicalToolRankerOptions,
} from "./lexical-tool-ranker.js";
export {
  MCP_TOOL_SEARCH_DEFAULTS,
  type MCPToolSearchConfig,
  type MCPToolSearchMode,
  type MCPToolSearchOption,
  type MCPToolSearchRecord,
  type MCPToolSearchSettings,
  type MCPToolSearchState,
} from "./tool-search-settings.js";

// ─── Keeping a registry in step with the servers ────────────────────────────────────────────────────
export {
  type MCPRejectedServer,
  type RegisterDiscoveredResult,
  registerDiscovered,
  type SyncRegistryOptions,
  syncRegistry,
} from "./sync-registry.js";

// ─── Events: the audit trail ────────────────────────────────────────────────────────────────────────
export {
  MCP_TOOL_CALL_STARTED,
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_PROGRESS,
  MCP_TOOL_CALL_INPUT_ROUND,
  MCP_TOOL_CALL_CONFIRMATION_REQUESTED,
  MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
  MCP_TOOL_DEFINITION_CHANGED,
  MCP_RESOURCE_READ,
  MCP_PROMPT_GET,
  MCP_SERVER_TOOLS_REJECTED,
  MCP_SERVER_TOOLS_ACCEPTED,
  MCP_TOOL_SEARCH,
  MCP_TOOLS_LEFT_OUT,
  MCP_WARNING,
  MCP_INTERNAL_ERROR,
  MCPEventDispatcher,
  type MCPEventDispatcherOptions,
  type MCPAccessEvent,
  type MCPConfirmationEventBasis,
  type MCPConfirmationSource,
  type MCPEventErrorCode,
  type MCPFailedOutcome,
  type MCPInternalErrorCode,
  type MCPInternalErrorEvent,
  type MCPOutcomeFields,
  type MCPPromptGetEvent,
  type MCPResourceReadEvent,
  type MCPRuntimeEvent,
  type MCPRuntimeEventName,
  type MCPRuntimeEvents,
  type MCPRuntimeListener,
  type MCPServerToolsAcceptedEvent,
  type MCPServerToolsEvent,
  type MCPServerToolsRejectedEvent,
  type MCPToolCallCompletedEvent,
  type MCPToolCallConfirmationRequestedEvent,
  type MCPToolCallConfirmationResolvedEvent,
  type MCPToolCallEvent,
  type MCPToolCallFailedEvent,
  type MCPToolCallOutcome,
  type MCPToolCallStartedEvent,
  type MCPToolDefinitionChangedEvent,
  type MCPToolInputRoundEvent,
  type MCPToolProgressEvent,
  type MCPToolSearchEvent,
  type MCPToolsLeftOutEvent,
  type MCPUnavailableServer,
  type MCPWarningCode,
  type MCPWarningEvent,
} from "./events.js";

// ─── Tracing (OpenTelemetry spans: `./otel`) ────────────────────────────────────────────────────────
export {
  type MCPToolSpan,
  type MCPToolSpanEnd,
  type MCPToolSpanStart,
  type MCPTracer,
  noopTracer,
} from "./mcp-tracer.js";

// ─── What a model sees: names, input schemas, results, errors (for writing an adapter) ─────────────
export { MCPToolNameMap, MODEL_TOOL_NAME_PATTERN, modelToolName } from "./mcp-tool-name-map.js";
export {
  checkToolArguments,
  type ModelToolInputSchema,
  normalizeToolInputSchema,
  type ToolArgumentIssue,
} from "./tool-input-schema.js";
export {
  isForAssistant,
  type MCPContentPart,
  type MCPRawToolResult,
  type RenderedToolResult,
  renderToolResult,
} from "./render-tool-result.js";
export { cleanModelText } from "./clean-model-text.js";
export {
  MAX_MCP_MEDIA_BYTES,
  MCP_MODEL_IMAGE_TYPES,
  type MCPMediaOptions,
  type MCPMediaPart,
  selectToolResultMedia,
} from "./tool-result-media.js";
export { type ToolErrorTextOptions, toolErrorText } from "./tool-error-text.js";

// ─── Errors: every class an adopter may catch, from every package, in one import ────────────────────
export {
  type MCPArgumentIssue,
  MCPConfirmationError,
  type MCPConfirmationErrorCode,
  type MCPErrorCode,
  MCPInvalidArgumentsError,
  type MCPRuntimeErrorCode,
  MCPToolExecutionError,
  MCPToolkitClosedError,
  MCPToolNotFoundError,
  MCPToolSearchError,
} from "./errors.js";
// The root and the config's error (@agentforge/mcp-config).
export {
  MCPError,
  MCPConfigError,
  type MCPConfigErrorCode,
  type MCPConfigIssue,
} from "@agentforge/mcp-config";
// Servers that cannot be found, started or reached, and requests that fail (@agentforge/mcp-client).
export {
  MCPCapabilityError,
  MCPConnectionError,
  MCPRequestError,
  MCPServerNotFoundError,
  MCPTimeoutError,
  type MCPClientErrorCode,
} from "@agentforge/mcp-client";
// Denied requests and rejected tool lists (@agentforge/mcp-permissions).
export {
  MCPApprovalsSnapshotError,
  MCPDuplicateToolError,
  MCPPermissionDeniedError,
  type MCPPermissionsErrorCode,
} from "@agentforge/mcp-permissions";
