// @agentforge/agent-runtime/otel: OpenTelemetry spans for tool calls (needs @opentelemetry/api).
export { createOpenTelemetryTracer, type OpenTelemetryTracerOptions } from "./open-telemetry-tracer.js";
