/** A usage mistake: the bin prints it with the usage text and exits with code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
