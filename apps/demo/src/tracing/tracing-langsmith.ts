// The LangSmith backend of `startTracing` (loaded only when it is on): each MCP tool call is one run
// `mcp:<identity>` of type `tool`, posted when the call starts and patched when it ends. A run carries who
// called what and how it ended; its inputs and outputs stay empty (the client is told to hide them too).
import type { MCPToolSpanEnd, MCPToolSpanStart, MCPTracer } from "@agentforge/agent-runtime";
import { Client } from "langsmith/client";
import { RunTree } from "langsmith/run_trees";
import { warnOnStderr } from "../shared/warnings.js";
import type { LangSmithTracingSettings, TracingBackendHandle } from "./tracing.js";

/** The tags of a call's run: server, tool and agent. */
export function langSmithTags(start: MCPToolSpanStart): string[] {
  return [`mcp_server:${start.serverName}`, `mcp_tool:${start.toolName}`, `agent:${start.agent}`];
}

/** The metadata of a call's run when it starts (outcome and error code are added when it ends). */
export function langSmithMetadata(start: MCPToolSpanStart): Record<string, string> {
  return {
    mcp_identity: start.identity,
    mcp_server: start.serverName,
    mcp_tool: start.toolName,
    agent: start.agent,
    call_id: start.callId,
    ...(start.transport ? { transport: start.transport } : {}),
  };
}

/** The run's error line for a failed call (the executor's one-line message, never tool output). */
export function langSmithError(result: MCPToolSpanEnd): string | undefined {
  if (result.outcome === "ok") return undefined;
  const code = result.errorCode ?? result.outcome;
  return result.message ? `${code}: ${result.message}` : code;
}

/** Start the LangSmith client for these settings. */
export function startLangSmithBackend(settings: LangSmithTracingSettings): TracingBackendHandle {
  // After shutdown gave up waiting (an API that is down), every request of this client fails at once with
  // an error the client does not retry: its retries must not keep the process alive for minutes.
  const closed = new AbortController();
  const closedError = () => new Error("AbortError: LangSmith tracing was shut down");
  const fetchImplementation: typeof fetch = async (input, init) => {
    if (closed.signal.aborted) throw closedError();
    const signal = init?.signal ? AbortSignal.any([init.signal, closed.signal]) : closed.signal;
    try {
      return await fetch(input, { ...init, signal });
    } catch (error) {
      if (closed.signal.aborted) throw closedError();
      throw error;
    }
  };
  const client = new Client({
    fetchImplementation,
    // Two retries (about 5 s of back-off) ride out a blip; more would only delay an exit when the API is down.
    callerOptions: { maxRetries: 2 },
    apiUrl: settings.apiUrl,
    apiKey: settings.apiKey,
    ...(settings.workspaceId ? { workspaceId: settings.workspaceId } : {}),
    // Decided here, not by other LANGSMITH_* variables of the process.
    tracingMode: "langsmith",
    // No process environment or runtime details in the runs' metadata: only what the tracer sets.
    omitTracedRuntimeInfo: true,
    hideInputs: true,
    hideOutputs: true,
    disablePromptCache: true,
  });
  const pending = new Set<Promise<void>>();
  const track = (work: Promise<void>): void => {
    const settled: Promise<void> = work
      .catch((cause: unknown) =>
        warnOnStderr({ code: "BACKGROUND_TASK_FAILED", message: "a LangSmith run could not be sent", cause }),
      )
      .finally(() => pending.delete(settled));
    pending.add(settled);
  };
  const tracer: MCPTracer = {
    startToolSpan(start) {
      const run = new RunTree({
        name: `mcp:${start.identity}`,
        run_type: "tool",
        project_name: settings.project,
        client,
        tracingEnabled: true,
        inputs: {},
        tags: langSmithTags(start),
        metadata: langSmithMetadata(start),
      });
      const posted = run.postRun();
      track(posted);
      return {
        end(result) {
          const endTime = Date.now();
          track(
            posted.then(async () => {
              await run.end(undefined, langSmithError(result), endTime, {
                outcome: result.outcome,
                ...(result.errorCode ? { error_code: result.errorCode } : {}),
              });
              await run.patchRun();
            }),
          );
        },
      };
    },
  };
  return {
    tracer,
    async shutdown() {
      // Calls that ended are patched after their post; then the client sends what it has queued.
      while (pending.size > 0) await Promise.all([...pending]);
      await client.awaitPendingTraceBatches();
    },
    abort() {
      closed.abort();
    },
  };
}
