// The OpenTelemetry backend of `startTracing` (loaded only when it is on): a tracer provider of its own
// (not registered globally), a batch span processor and the OTLP/HTTP exporter (JSON).
import { createOpenTelemetryTracer } from "@agentforge/agent-runtime/otel";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { OTelTracingSettings, TracingBackendHandle } from "./tracing.js";

/** Start the OTLP exporter for these settings. */
export function startOpenTelemetryBackend(settings: OTelTracingSettings): TracingBackendHandle {
  const exporter = new OTLPTraceExporter({ url: settings.url, headers: settings.headers });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = createOpenTelemetryTracer({ tracer: provider.getTracer("@agentforge/agent-runtime") });
  return {
    tracer,
    async shutdown() {
      // shutdown() flushes the batch processor before it stops the exporter.
      await provider.shutdown();
    },
  };
}
