// Why a saved run cannot be resumed: its folder no longer resolves to the folder it was started on (or
// lies outside the allowed base), or it is asked to resume with another roster than the one it started with.
import { MCPError } from "@agentforge/mcp-config";

/** Codes of the run errors (the CLI exits 1 for the first, 2 for the second; REST: 403 / 409). */
export type RunErrorCode = "RUN_FOLDER_NOT_ALLOWED" | "RUN_CONFIG_MISMATCH" | "RUN_SAVE_FAILED";

/**
 * A run's folder, resolved again at resume (symlinks followed), is not the real path recorded when the
 * run started — e.g. the folder was swapped for a symlink — or is outside the allowed base.
 */
export class RunFolderError extends MCPError<"RUN_FOLDER_NOT_ALLOWED"> {
  static override readonly errorName: string = "RunFolderError";
  /** The run concerned. */
  readonly runId: string;
  /** The folder recorded when the run started (a real path then). */
  readonly folder: string;
  /** What that path resolves to now (null when it no longer exists). */
  readonly realPath: string | null;
  /** The base every run's folder must be inside, when one applies (`agentforge serve --allowed-base`). */
  readonly allowedBase: string | null;

  constructor(options: {
    runId: string;
    folder: string;
    realPath: string | null;
    allowedBase?: string | undefined;
    cause?: unknown;
  }) {
    const { runId, folder, realPath } = options;
    const allowedBase = options.allowedBase ?? null;
    const why =
      realPath === null
        ? `its folder ${folder} no longer exists`
        : realPath !== folder
          ? `its folder ${folder} now resolves to ${realPath} (it was replaced by a symlink or moved)`
          : `its folder ${folder} is outside the allowed base ${allowedBase}`;
    super(
      `run ${runId} cannot be resumed: ${why}. A run only ever reads the real folder it was started on; restore that folder, or start a new run.`,
      { code: "RUN_FOLDER_NOT_ALLOWED", ...(options.cause !== undefined ? { cause: options.cause } : {}) },
    );
    this.runId = runId;
    this.folder = folder;
    this.realPath = realPath;
    this.allowedBase = allowedBase;
  }
}

/** `resume --config B` for a run that was started with roster A: refused, so a run's policy never changes. */
export class RunConfigMismatchError extends MCPError<"RUN_CONFIG_MISMATCH"> {
  static override readonly errorName: string = "RunConfigMismatchError";
  /** The run concerned. */
  readonly runId: string;
  /** The roster the run was started with (absolute path). */
  readonly recorded: string;
  /** The roster asked for now (absolute path). */
  readonly requested: string;

  constructor(options: { runId: string; recorded: string; requested: string; via: "--config" | "serve" }) {
    const { runId, recorded, requested } = options;
    const hint =
      options.via === "--config"
        ? "resume it without --config (it uses the recorded one), or start a new run with the other roster"
        : "resume it with `agentforge resume` (it uses the recorded roster), or serve with that roster";
    super(
      `run ${runId} was started with the roster ${recorded}, not ${requested}; a run keeps its roster (and so its policy) — ${hint}`,
      { code: "RUN_CONFIG_MISMATCH" },
    );
    this.runId = runId;
    this.recorded = recorded;
    this.requested = requested;
  }
}

/**
 * A run's state could not be saved (files or PostgreSQL refused the write). The run is stopped at once
 * (it could not be resumed from where it is) and fails with this error: never a silent "paused".
 */
export class RunSaveError extends MCPError<"RUN_SAVE_FAILED"> {
  static override readonly errorName: string = "RunSaveError";
  /** The run concerned. */
  readonly runId: string;
  /** What was being saved: the round after a tool round, or the run's final status. */
  readonly saving: "round" | "final";

  constructor(options: { runId: string; saving: "round" | "final"; store: string; cause: unknown }) {
    const why = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(
      `${why} — so run ${options.runId} could not be saved to ${options.store} (${options.saving === "round" ? "after a tool round" : "at its end"}) and was stopped. Fix the store (disk space, permissions, the database), then start the run again; its last saved round is kept.`,
      { code: "RUN_SAVE_FAILED", cause: options.cause },
    );
    this.runId = options.runId;
    this.saving = options.saving;
  }
}
