import type { MCPToolCallOutcome } from "./events.js";

/** What a span is told about the call it covers. Never arguments, results or secrets. */
export interface MCPToolSpanStart {
  /** `<server>.<tool>`. */
  identity: string;
  serverName: string;
  /** The tool's name as its server lists it. */
  toolName: string;
  agent: string;
  callId: string;
  /** `stdio` or `http`, when known. */
  transport?: string;
}

/** How the call ended, for the span. */
export interface MCPToolSpanEnd {
  outcome: MCPToolCallOutcome;
  errorCode?: string;
  /** One line describing the failure. */
  message?: string;
}

/** One span per tool call. */
export interface MCPToolSpan {
  end(result: MCPToolSpanEnd): void;
}

/** Tracing hook of the executor: one span per call, tagged `mcp_server`, `mcp_tool`, `agent`. */
export interface MCPTracer {
  startToolSpan(start: MCPToolSpanStart): MCPToolSpan;
}

/** A tracer that records nothing (the default). */
export const noopTracer: MCPTracer = {
  startToolSpan: () => ({ end: () => undefined }),
};
