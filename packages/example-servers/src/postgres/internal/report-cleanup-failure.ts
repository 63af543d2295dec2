// Failures of the postgres server's own clean-up steps (restarting the embedded engine, resetting a dropped
// session, closing a replaced pool or a closed session's database) happen after the reply was decided, so
// no caller is waiting for them. They are reported as a process warning (stderr unless the host application listens for
// `process.on("warning")`), never dropped.
import { redact } from "./database-url.js";

/** The `code` of the process warning. */
export const CLEANUP_WARNING_CODE = "AGENTFORGE_POSTGRES_CLEANUP_FAILED";

/** Report a failed clean-up step; the message is redacted and cleaned of control characters. */
export function reportCleanupFailure(step: string, error: unknown, secrets: readonly string[] = []): void {
  const raw = error instanceof Error ? error.message : String(error);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const message = redact(raw, secrets).replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ");
  process.emitWarning(`postgres server: ${step} failed: ${message}`, { code: CLEANUP_WARNING_CODE });
}
