// biome-ignore-all assist/source/organizeImports: ordered by concern, like the root entry.
// @agentforge/agent-runtime/langchain: MCP tools as LangChain tools, and the bounded tool loop.
// Needs the optional peer @langchain/core; the root entry never loads it.

// ─── MCP tools as LangChain structured tools ────────────────────────────────────────────────────────
export {
  type LangChainToolMedia,
  type ToLangChainToolsOptions,
  toLangChainTools,
} from "./to-langchain-tools.js";

// ─── The bounded tool loop ──────────────────────────────────────────────────────────────────────────
export {
  type FinalCallStrategy,
  type InvokeWithToolsOptions,
  type InvokeWithToolsResult,
  invokeWithTools,
  type ToolCallRecord,
  type ToolLoopState,
  type ToolLoopPending,
  type ToolLoopPendingCall,
  type ToolLoopConfirmationAnswer,
} from "./invoke-with-tools.js";
