// biome-ignore-all assist/source/organizeImports: ordered by concern, like the root entry.
// @agentforge/agent-runtime/ai-sdk: MCP tools as Vercel AI SDK tools. Needs the optional peer `ai`
// (^6 || ^7); the root entry never loads it.

// ─── MCP tools as AI SDK tools ──────────────────────────────────────────────────────────────────────
export {
  type MCPAISDKSearchOutput,
  type MCPAISDKToolOutput,
  type MCPAISDKTools,
  type MCPToolSource,
  type ToAISDKToolsOptions,
  toAISDKTools,
} from "./to-ai-sdk-tools.js";

// ─── Tool search in an AI SDK run: the rounds, and the state to continue a run ─────────────────────
export { stopAfterToolRounds, toolSearchStateOf } from "./to-ai-sdk-tools.js";

// ─── Reporting calls the AI SDK refuses before a tool runs ──────────────────────────────────────────
export { reportInvalidToolCalls } from "./to-ai-sdk-tools.js";

// ─── Confirmation through the AI SDK's approval flow: the run's state, where bindings are kept ────
export { confirmationRunOf } from "./to-ai-sdk-tools.js";
export { type MCPApprovalBindingStore, memoryApprovalBindingStore } from "./approvals.js";
