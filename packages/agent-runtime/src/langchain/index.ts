// @agentforge/agent-runtime/langchain: MCP tools as LangChain tools, and the bounded tool loop.
// Needs the optional peer @langchain/core; the root entry never loads it.

export {
  type FinalCallStrategy,
  type InvokeWithToolsOptions,
  type InvokeWithToolsResult,
  invokeWithTools,
  type ToolCallRecord,
  type ToolLoopState,
} from "../invoke-with-tools.js";
export { type ToLangChainToolsOptions, toLangChainTools, toolErrorText } from "../to-langchain-tools.js";
