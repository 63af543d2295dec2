import { configVariables, type EnvSource, type MCPServerConfig } from "@agentforge/mcp-config";

/** What replaces a secret value in messages, events and log lines. */
export const REDACTED = "[REDACTED]";

/**
 * Values shorter than this are not treated as secrets: replacing `1` or `true` everywhere would garble
 * every message while protecting nothing.
 */
export const MIN_SECRET_LENGTH = 6;

/** Replaces known secret values in text. Secrets can be added later (e.g. OAuth tokens once issued). */
export class Redactor {
  private readonly secrets = new Set<string>();
  private ordered: string[] = [];

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** Add one secret value (ignored when empty or shorter than MIN_SECRET_LENGTH). */
  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    // Longest first, so a secret containing another is replaced whole.
    this.ordered = [...this.secrets].sort((a, b) => b.length - a.length);
  }

  /** Whether there is nothing to redact. */
  get empty(): boolean {
    return this.ordered.length === 0;
  }

  /** `text` with every secret value replaced by `[REDACTED]`. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.ordered) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }

  /** Whether `text` contains a secret value. */
  leaks(text: string): boolean {
    return this.ordered.some((secret) => text.includes(secret));
  }
}

/**
 * A redactor for one server: the current values of every environment variable its config reads
 * (placeholders, `env`, `headers`, `auth.*EnvVar`). Paths and ids are included too: better a redacted
 * path in a message than a leaked key.
 */
export function redactorFor(config: MCPServerConfig, env: EnvSource): Redactor {
  return new Redactor(configVariables(config).map(({ name }) => env[name]));
}

/**
 * `error` itself when nothing in its message or stack leaks a secret; otherwise a plain Error carrying
 * the redacted message (the original is dropped, since logging it as `cause` would print the secret).
 */
export function safeCause(error: unknown, redactor: Redactor): unknown {
  if (redactor.empty || !(error instanceof Error)) return error;
  const text = `${error.message}\n${error.stack ?? ""}`;
  let cause: unknown = (error as { cause?: unknown }).cause;
  let causeLeaks = false;
  for (let depth = 0; cause instanceof Error && depth < 5; depth++) {
    if (redactor.leaks(`${cause.message}\n${cause.stack ?? ""}`)) causeLeaks = true;
    cause = (cause as { cause?: unknown }).cause;
  }
  if (!redactor.leaks(text) && !causeLeaks) return error;
  const copy = new Error(redactor.redact(error.message));
  copy.name = error.name;
  copy.stack = redactor.redact(error.stack ?? "");
  return copy;
}
