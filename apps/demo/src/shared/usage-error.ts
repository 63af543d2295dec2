/** A mistake in how the CLI or API was called: exit code 2 (or HTTP 400), message shown as is. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
