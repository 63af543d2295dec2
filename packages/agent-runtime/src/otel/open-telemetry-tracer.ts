import { SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import type { MCPToolSpan, MCPToolSpanStart, MCPTracer } from "../mcp-tracer.js";

/** Options of `createOpenTelemetryTracer`. */
export interface OpenTelemetryTracerOptions {
  /** The OTel tracer to use (default: `trace.getTracer("@agentforge/agent-runtime")`). */
  tracer?: Tracer;
}

/**
 * An `MCPTracer` that follows the OpenTelemetry semantic conventions for MCP: a CLIENT span named
 * `tools/call <tool>` with `mcp.method.name`, `gen_ai.tool.name`, `gen_ai.operation.name`,
 * `network.transport`, plus `mcp_server`, `mcp_tool` and `agent`. A tool result with `isError` and every
 * failure set the span status to ERROR with `error.type` (`tool_error`, or the error code).
 */
export function createOpenTelemetryTracer(options: OpenTelemetryTracerOptions = {}): MCPTracer {
  const tracer = options.tracer ?? trace.getTracer("@agentforge/agent-runtime");
  return {
    startToolSpan(start: MCPToolSpanStart): MCPToolSpan {
      const span = tracer.startSpan(`tools/call ${start.toolName}`, {
        kind: SpanKind.CLIENT,
        attributes: {
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": start.toolName,
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.call.id": start.callId,
          ...(start.transport ? { "network.transport": start.transport === "stdio" ? "pipe" : "tcp" } : {}),
          mcp_server: start.serverName,
          mcp_tool: start.toolName,
          agent: start.agent,
        },
      });
      return {
        end(result) {
          span.setAttribute("agentforge.outcome", result.outcome);
          if (result.outcome !== "ok") {
            span.setAttribute(
              "error.type",
              result.outcome === "tool_error" ? "tool_error" : (result.errorCode ?? result.outcome),
            );
            span.setStatus({
              code: SpanStatusCode.ERROR,
              ...(result.message ? { message: result.message } : {}),
            });
          }
          span.end();
        },
      };
    },
  };
}
