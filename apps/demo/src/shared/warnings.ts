// What the app reports when something it could not do must not stop the work in hand — an event or an
// audit line that could not be written, a shutdown step that failed. Never dropped: each one is a
// warning with a code, written to stderr (or wherever the caller's `warn` sends it).
import { writeErr } from "./terminal-safe.js";

/** What went wrong, as a stable code. */
export type AppWarningCode =
  /** An audit line could not be written (file or database). */
  | "AUDIT_WRITE_FAILED"
  /** A run event could not be stored (the SSE stream and the stored history miss it). */
  | "RUN_EVENT_WRITE_FAILED"
  /** A run's record could not be put back after a refused start or resume. */
  | "RUN_SAVE_FAILED"
  /** A saved run's file cannot be read as a run (it is left out of lists). */
  | "RUN_RECORD_UNREADABLE"
  /** A stored OAuth login cannot be read (it counts as "not logged in"). */
  | "TOKEN_FILE_UNREADABLE"
  /** A step of shutting down failed (the queue, tracing exporters, database connections). */
  | "SHUTDOWN_STEP_FAILED"
  /** A background check failed in a way it could not record itself. */
  | "BACKGROUND_TASK_FAILED"
  /** A listener the app calls (of declined elicitations) threw; the work went on. */
  | "LISTENER_FAILED";

/** One warning. */
export interface AppWarning {
  code: AppWarningCode;
  /** For the person reading the log: what failed and what it means. */
  message: string;
  cause?: unknown;
}

/** Where warnings go. */
export type WarningSink = (warning: AppWarning) => void;

/** The default sink: one line on stderr, `agentforge: warning CODE: message (cause)`. */
export const warnOnStderr: WarningSink = (warning) => {
  const cause =
    warning.cause === undefined
      ? ""
      : ` (${warning.cause instanceof Error ? warning.cause.message : String(warning.cause)})`;
  writeErr(`agentforge: warning ${warning.code}: ${warning.message}${cause}`);
};

/** A sink that writes `prefix: warning CODE: ...` lines through `log` (e.g. serve's logger). */
export function warnThrough(log: (line: string) => void, prefix = "agentforge"): WarningSink {
  return (warning) => {
    const cause =
      warning.cause === undefined
        ? ""
        : ` (${warning.cause instanceof Error ? warning.cause.message : String(warning.cause)})`;
    log(`${prefix}: warning ${warning.code}: ${warning.message}${cause}`);
  };
}
