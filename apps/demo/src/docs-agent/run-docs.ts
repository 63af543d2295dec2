// The Documentation agent's job: read a folder only through the sandboxed filesystem MCP server, under the
// policy, and write a Markdown overview. Used by `agentforge docs`, `agentforge resume` and the REST API.
import { randomUUID } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { basename, resolve } from "node:path";
import {
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_STARTED,
  type MCPToolExecutor,
  type MCPToolProgress,
  type MCPToolSearchRecord,
  type MCPTracer,
} from "@agentforge/agent-runtime";
import {
  invokeWithTools,
  type ToolCallRecord,
  type ToolLoopState,
} from "@agentforge/agent-runtime/langchain";
import type { MCPElicitationHandler } from "@agentforge/mcp-client";
import { HumanMessage, type StoredMessage, SystemMessage } from "@langchain/core/messages";
import { Application, SHIPPED_CONFIG } from "../app/application.js";
import { DEFAULT_CONFIRMATION_TTL_MS } from "../run-store/confirmations.js";
import { FileRunRepository } from "../run-store/file-run-repository.js";
import type { RunRepository, StoredRun } from "../run-store/run-repository.js";
import { type DocsRun, RunStore } from "../run-store/run-store.js";
import { isInside } from "../shared/is-inside.js";
import { UsageError } from "../shared/usage-error.js";
import { answersFor, newConfirmation, type RunConfirmationMode } from "./run-confirmations.js";
import { RunConfigMismatchError, RunFolderError, RunSaveError } from "./run-errors.js";
import { runWorkspaceGuard } from "./run-workspace-guard.js";
import { chooseProvider, createModel, type Provider } from "./select-model.js";

export const DOCS_AGENT = "documentation";

/** Run-level events (tool-call events come from the executor). */
export type RunEvent =
  | {
      type: "run_started";
      runId: string;
      folder: string;
      model: Provider;
      resumed: boolean;
      /** The roster the run uses (absolute path). */
      configPath: string;
    }
  | { type: "server_unavailable"; runId: string; server: string; message: string }
  | { type: "round_saved"; runId: string; round: number }
  | {
      /**
       * The agent searched its tools (tool search is on for a large roster): the query's length and the
       * identities found, never the query.
       */
      type: "tool_search";
      runId: string;
      queryLength: number;
      found: string[];
      ok: boolean;
      errorCode?: string;
    }
  | {
      /**
       * A tool call reported progress (coalesced by the executor: at most one per 100 ms per call).
       * Numbers only: the server's progress message is tool output and never passed on.
       */
      type: "tool_progress";
      runId: string;
      /** `<server>.<tool>`. */
      identity: string;
      /** The call's id, as on its MCP_TOOL_CALL_* events. */
      callId: string;
      progress: number;
      /** The total, when the server gave a finite positive one. */
      total?: number;
    }
  | {
      /**
       * A server asked the user for input (MCP elicitation) and nobody could answer (no terminal): it was
       * declined. Server and mode only, never the request's text or fields.
       */
      type: "elicitation_declined";
      runId: string;
      server: string;
      mode: "form" | "url";
    }
  | {
      /**
       * A call needs a person's confirmation and the run stops until someone answers (`serve`): who
       * calls which tool, until when — never the arguments (GET /api/v1/confirmations shows the preview).
       */
      type: "confirmation_requested";
      runId: string;
      callId: string;
      identity: string;
      serverName: string;
      toolName: string;
      expiresAt: string;
    }
  | { type: "run_finished"; runId: string; status: DocsRun["status"]; calls: number; error?: string };

export interface RunDocsOptions {
  /** The folder to document (new runs). */
  folder?: string;
  /** The run to continue (`resume`). */
  resumeId?: string;
  /** offline | openai | anthropic | ollama (default: from the environment, else offline). */
  model?: string;
  maxRounds?: number;
  /** Save and stop after this many tool rounds (resume later). */
  pauseAfter?: number;
  /**
   * The roster. A new run records it (absolute path; default the shipped roster); a resumed run uses the
   * recorded one, and a different one here is refused with `RunConfigMismatchError`.
   */
  configPath?: string;
  /** Who chose `configPath`, for the mismatch message: the `--config` flag (default) or `agentforge serve`. */
  configSource?: "--config" | "serve";
  /**
   * Real path every run's folder must be inside (`agentforge serve --allowed-base`). At resume the recorded
   * folder is resolved again and must still be that real folder (and inside this base): `RunFolderError`.
   */
  allowedBase?: string;
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onToolCall?: (record: ToolCallRecord) => void;
  onEvent?: (event: RunEvent) => void;
  /**
   * Called once the run's executor is ready (the REST API forwards its tool-call events: with a shared
   * Application each run has an executor of its own, so its events are that run's only).
   */
  onExecutor?: (executor: MCPToolExecutor) => void;
  /**
   * Run on this Application (`agentforge serve`: one MCP stack shared by every run) instead of creating
   * one and shutting it down at the end. Its workspace servers are rooted at a base above the run's
   * folder, so the run's calls go through `runWorkspaceGuard` (paths outside the folder are refused).
   */
  application?: Application;
  /** Where the run is saved (default: the files under `stateDir`). */
  repository?: RunRepository;
  /** The `serve` instance running it (recorded as `ownerInstance`). */
  instanceId?: string;
  /** One span per tool call when the run creates its own Application (`--otel`). */
  tracer?: MCPTracer;
  /**
   * Asks the user when a server requests input during a tool call (`agentforge docs` on a TTY). Without
   * it, requests are declined (`elicitation_declined` event). Used when the run creates its own
   * Application; a shared one (`serve`) has its own policy (decline).
   */
  elicitation?: MCPElicitationHandler;
  /**
   * How calls that need a person's confirmation (`confirm` grants) are answered: `ask` a handler (the
   * terminal prompt), or `pause` the run `awaiting_confirmation` with the request stored until someone
   * answers (`serve`). Without it such calls are refused (CONFIRMATION_REQUIRED) and the model is told.
   */
  confirmation?: RunConfirmationMode;
}

export interface RunDocsResult {
  run: StoredRun;
  document: string | undefined;
  calls: ToolCallRecord[];
  transcript: StoredMessage[];
}

const PAUSE = Symbol("pause");

function systemPrompt(root: string): string {
  return [
    "You are the Documentation agent. You can read files only through the tools you were given, which are",
    `sandboxed to ${root}. Explore the folder (list it, look at its tree, read its key files) and then write a`,
    "Markdown overview with the sections Purpose, Layout, Key files and How to run. State only what the files",
    "show; say so when something is unknown. Reply with the Markdown document only.",
  ].join(" ");
}

function resolveFolder(folder: string): string {
  let real: string;
  try {
    real = realpathSync(folder);
  } catch {
    throw new UsageError(`folder "${folder}" does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new UsageError(`"${folder}" is not a folder`);
  return real;
}

/** The path a roster is known by: its real path when it exists, else the absolute path. */
function rosterPath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/**
 * Resolve a saved run's folder again, as at start: it must still be the real folder recorded then (a
 * folder swapped for a symlink resolves elsewhere) and, with an allowed base, inside it.
 */
export function recheckRunFolder(run: Pick<DocsRun, "id" | "folder">, allowedBase?: string): string {
  let real: string | null = null;
  let cause: unknown;
  try {
    real = realpathSync(run.folder);
  } catch (error) {
    cause = error;
  }
  const refuse = () =>
    new RunFolderError({ runId: run.id, folder: run.folder, realPath: real, allowedBase, cause });
  if (real === null || real !== run.folder) throw refuse();
  if (allowedBase !== undefined && !isInside(allowedBase, real)) throw refuse();
  if (!statSync(real).isDirectory()) throw refuse();
  return real;
}

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function loadRun(store: RunRepository, id: string, stateDir: string): Promise<StoredRun> {
  if (!RUN_ID.test(id)) throw new UsageError(`"${id}" is not a run id (a UUID printed when the run started)`);
  const run = await store.load(id);
  if (!run)
    throw new UsageError(
      `no saved run ${id} in ${store.kind === "files" ? new RunStore(stateDir).dir : "the run database"}`,
    );
  return run;
}

export async function runDocs(options: RunDocsOptions): Promise<RunDocsResult> {
  const env = options.env ?? process.env;
  const stateDir = options.stateDir ?? ".agentforge";
  const store = options.repository ?? new FileRunRepository(stateDir);
  const resumed = options.resumeId !== undefined;
  const existing = options.resumeId ? await loadRun(store, options.resumeId, stateDir) : undefined;
  if (existing?.status === "finished") {
    return {
      run: existing,
      document: existing.document,
      calls: existing.state.calls,
      transcript: existing.state.messages,
    };
  }
  const folder = existing
    ? recheckRunFolder(existing, options.allowedBase)
    : resolveFolder(options.folder ?? ".");
  const requestedConfig = options.configPath ? rosterPath(options.configPath) : undefined;
  if (existing?.configPath && requestedConfig && rosterPath(existing.configPath) !== requestedConfig) {
    throw new RunConfigMismatchError({
      runId: existing.id,
      recorded: existing.configPath,
      requested: requestedConfig,
      via: options.configSource ?? "--config",
    });
  }
  // Runs saved before the roster was recorded resume with the one given now (else the shipped one).
  const configPath = existing?.configPath ?? requestedConfig ?? rosterPath(SHIPPED_CONFIG);
  const provider =
    existing && options.model === undefined ? existing.model : chooseProvider(options.model, env);
  const maxRounds = options.maxRounds ?? existing?.maxRounds ?? 3;
  const model = await createModel(provider, { root: folder, folderName: basename(folder), env });
  const now = new Date().toISOString();
  const emptyState: ToolLoopState = { messages: [], round: 0, calls: [], finished: false };
  const owner = options.instanceId !== undefined ? { ownerInstance: options.instanceId } : {};
  const run: StoredRun = existing
    ? { ...existing, model: provider, configPath, status: "running", ...owner }
    : {
        id: randomUUID(),
        agent: DOCS_AGENT,
        folder,
        model: provider,
        configPath,
        maxRounds,
        status: "running",
        createdAt: now,
        updatedAt: now,
        state: emptyState,
        ...owner,
      };
  const storeName = store.kind === "files" ? `the run files in ${stateDir}` : "the run database";
  const saveFinal = async (value: StoredRun): Promise<void> => {
    try {
      await store.save(value);
    } catch (cause) {
      throw new RunSaveError({ runId: value.id, saving: "final", store: storeName, cause });
    }
  };
  await saveFinal(run);
  options.onEvent?.({
    type: "run_started",
    runId: run.id,
    folder,
    model: provider,
    resumed,
    configPath,
  });

  const shared = options.application;
  let app: Application;
  try {
    app =
      shared ??
      (await Application.create({
        configPath,
        stateDir,
        env: {
          ...env,
          AGENTFORGE_WORKSPACE: folder,
          AGENTFORGE_DISABLE_THOUGHT_LOGGING: env.AGENTFORGE_DISABLE_THOUGHT_LOGGING ?? "true",
        },
        discover: false,
        ...(options.tracer ? { tracer: options.tracer } : {}),
        ...(options.elicitation ? { elicitation: options.elicitation } : {}),
        ...(options.confirmation?.kind === "ask" ? { confirm: options.confirmation.confirm } : {}),
        onElicitationDeclined: ({ serverName, mode }) =>
          options.onEvent?.({ type: "elicitation_declined", runId: run.id, server: serverName, mode }),
      }));
  } catch (error) {
    // The run was announced: record why it could not start, so it never stays "running".
    const message = error instanceof Error ? error.message : String(error);
    // A save that fails now is reported beside the reason the run could not start (which is thrown).
    let reported = message;
    try {
      await saveFinal({ ...run, status: "failed", error: message });
    } catch (saveError) {
      reported = `${message} (and: ${(saveError as RunSaveError).message})`;
    }
    options.onEvent?.({ type: "run_finished", runId: run.id, status: "failed", calls: 0, error: reported });
    throw error;
  }
  // A run's own executor. On a shared stack its calls to the workspace servers are confined to its
  // folder by the guard (the servers themselves are rooted at the allowed base).
  const executor = shared ? app.runExecutor(runWorkspaceGuard(app.manager, folder)) : app.executor;
  // On a shared stack (`serve`), a declined elicitation is this run's when this run has a call in flight
  // on the server that asked (a server asks while one of its tools runs).
  const stopDeclined = shared
    ? recordDeclinedElicitations(app, executor, run.id, options.onEvent)
    : undefined;
  const controller = new AbortController();
  // Unattended: calls that need a person's confirmation stop the run; a resumed run brings the answers
  // stored for its waiting calls (each only when its binding is the waiting call's).
  const pause = options.confirmation?.kind === "pause" ? options.confirmation : undefined;
  // A run saved waiting (by `serve`, or resumed here) goes on with the answers stored for its calls.
  const confirmationAnswers = existing?.state.pending
    ? answersFor(existing.state, await store.confirmations(existing.id))
    : [];

  const onOuterAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  // Saves are chained, so an older round never overwrites a newer one. A save that fails stops the run
  // (it could no longer be resumed from where it is) and the run fails with RunSaveError.
  let saveFailure: RunSaveError | undefined;
  let saving: Promise<void> = Promise.resolve();
  const saveLater = (value: StoredRun) => {
    saving = saving.then(async () => {
      if (saveFailure) return;
      try {
        await store.save(value);
      } catch (cause) {
        saveFailure = new RunSaveError({ runId: run.id, saving: "round", store: storeName, cause });
        controller.abort(saveFailure);
      }
    });
  };

  try {
    options.onExecutor?.(executor);
    // Start only what this agent may use, in parallel; an unreachable server is reported, never fatal.
    const granted = Application.serversGrantedTo(app.config, DOCS_AGENT);
    await Promise.all(
      granted.map(async (server) => {
        try {
          const { rejected } = app.registry.replaceServer(server, await app.manager.listTools(server));
          // A tool list the registry refuses (a name listed twice...) leaves the server without tools.
          if (rejected) {
            options.onEvent?.({
              type: "server_unavailable",
              runId: run.id,
              server,
              message: rejected.message,
            });
          }
        } catch (error) {
          const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
          options.onEvent?.({ type: "server_unavailable", runId: run.id, server, message });
        }
      }),
    );
    const messages = [
      new SystemMessage(systemPrompt(folder)),
      new HumanMessage(`Document the folder at ${folder}.`),
    ];
    let state = run.state;
    try {
      const result = await invokeWithTools(model, messages, {
        tools: app.registry.list(),
        executor,
        agent: DOCS_AGENT,
        maxRounds,
        signal: controller.signal,
        ...(existing && existing.state.messages.length > 0 ? { resume: existing.state } : {}),
        runId: run.id,
        ...(pause ? { confirmations: "pause" as const } : {}),
        ...(confirmationAnswers.length > 0 ? { confirmationAnswers } : {}),
        ...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
        onToolSearch: ({ queryLength, found, ok, errorCode }: MCPToolSearchRecord) =>
          options.onEvent?.({
            type: "tool_search",
            runId: run.id,
            queryLength,
            found,
            ok,
            ...(errorCode ? { errorCode } : {}),
          }),
        ...(options.onEvent
          ? {
              onProgress: ({ identity, callId, progress, total }: MCPToolProgress) => {
                const event: RunEvent = { type: "tool_progress", runId: run.id, identity, callId, progress };
                if (total !== undefined) event.total = total;
                options.onEvent?.(event);
              },
            }
          : {}),
        onRound: (next) => {
          state = next;
          saveLater({ ...run, state });
          // The final answer is reported by run_finished; round_saved is for completed tool rounds.
          if (!next.finished) options.onEvent?.({ type: "round_saved", runId: run.id, round: next.round });
          if (options.pauseAfter !== undefined && !next.finished && next.round >= options.pauseAfter)
            controller.abort(PAUSE);
        },
      });
      if (result.status === "awaiting_confirmation") {
        // Stopped for a person: each waiting call's request is stored (what the person is shown), the
        // run is saved awaiting_confirmation with the loop's state (the waiting calls, what already ran).
        await saving;
        if (saveFailure) throw saveFailure;
        for (const request of result.pending ?? []) {
          const record = await store.requestConfirmation(
            newConfirmation(run.id, request),
            pause?.ttlMs ?? DEFAULT_CONFIRMATION_TTL_MS,
          );
          options.onEvent?.({
            type: "confirmation_requested",
            runId: run.id,
            callId: record.callId,
            identity: record.identity,
            serverName: record.serverName,
            toolName: record.toolName,
            expiresAt: record.expiresAt,
          });
        }
        const awaiting: StoredRun = {
          ...run,
          status: "awaiting_confirmation",
          state: result.state ?? state,
        };
        await saveFinal(awaiting);
        options.onEvent?.({
          type: "run_finished",
          runId: run.id,
          status: "awaiting_confirmation",
          calls: result.calls.length,
        });
        return { run: awaiting, document: undefined, calls: result.calls, transcript: result.transcript };
      }
      const content = result.message.content;
      const document = typeof content === "string" ? content : JSON.stringify(content);
      const finished: StoredRun = {
        ...run,
        status: "finished",
        document,
        state: {
          messages: result.transcript,
          round: result.rounds,
          calls: result.calls,
          finished: true,
          ...(result.toolSearch ? { toolSearch: result.toolSearch } : {}),
          ...(state.confirmation ? { confirmation: state.confirmation } : {}),
        },
      };
      await saving;
      if (saveFailure) throw saveFailure;
      await saveFinal(finished);
      options.onEvent?.({
        type: "run_finished",
        runId: run.id,
        status: "finished",
        calls: result.calls.length,
      });
      return { run: finished, document, calls: result.calls, transcript: result.transcript };
    } catch (caught) {
      await saving;
      // A failed save is the reason, whatever the loop saw after the run was stopped for it.
      const error = saveFailure ?? caught;
      // Stopped on purpose (--pause-after, or the service stopping): saved paused, resumable.
      const paused = controller.signal.aborted && !saveFailure;
      const reason = paused ? "paused" : error instanceof Error ? error.message : String(error);
      const saved: StoredRun = {
        ...run,
        state,
        status: paused ? "paused" : "failed",
        ...(paused ? {} : { error: reason }),
      };
      let finalFailure: RunSaveError | undefined;
      try {
        await saveFinal(saved);
      } catch (failure) {
        finalFailure = failure as RunSaveError;
      }
      const failure = finalFailure && !saveFailure ? finalFailure : error;
      options.onEvent?.({
        type: "run_finished",
        runId: run.id,
        status: finalFailure ? "failed" : saved.status,
        calls: state.calls.length,
        ...(paused && !finalFailure
          ? {}
          : { error: failure instanceof Error ? failure.message : String(failure) }),
      });
      if (paused && !finalFailure) {
        return { run: saved, document: undefined, calls: state.calls, transcript: state.messages };
      }
      throw failure;
    }
  } finally {
    options.signal?.removeEventListener("abort", onOuterAbort);
    stopDeclined?.();
    if (shared) executor.dispose();
    else await app.shutdown();
  }
}

/**
 * Report each elicitation request the shared Application declines as an `elicitation_declined` event of
 * this run, when this run has a call in flight on the server that asked (counted from its executor's
 * call events). Returns the function that stops it.
 */
function recordDeclinedElicitations(
  app: Application,
  executor: MCPToolExecutor,
  runId: string,
  onEvent: RunDocsOptions["onEvent"],
): () => void {
  const inFlight = new Map<string, number>();
  const change = (serverName: string, by: number) => {
    const next = (inFlight.get(serverName) ?? 0) + by;
    if (next > 0) inFlight.set(serverName, next);
    else inFlight.delete(serverName);
  };
  const stops = [
    executor.events.on(MCP_TOOL_CALL_STARTED, ({ serverName }) => change(serverName, 1)),
    executor.events.on(MCP_TOOL_CALL_COMPLETED, ({ serverName }) => change(serverName, -1)),
    executor.events.on(MCP_TOOL_CALL_FAILED, ({ serverName }) => change(serverName, -1)),
    app.onElicitationDeclined(({ serverName, mode }) => {
      if (inFlight.has(serverName))
        onEvent?.({ type: "elicitation_declined", runId, server: serverName, mode });
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
