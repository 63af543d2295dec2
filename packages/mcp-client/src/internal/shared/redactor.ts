import {
  configVariables,
  type EnvSource,
  type MCPServerConfig,
  MIN_SECRET_LENGTH,
  REDACTED_MARKER,
  SecretRedactor,
} from "@agentforge/mcp-config";

/** What replaces a secret value in messages, events and log lines. */
export const REDACTED = REDACTED_MARKER;

export { MIN_SECRET_LENGTH };

/**
 * Replaces known secret values in text: the one redactor of `@agentforge/mcp-config` (raw, JSON-escaped
 * and URL-encoded forms; a streaming form for stderr). Secrets can be added later (OAuth tokens).
 */
export class Redactor extends SecretRedactor {
  readonly #proofHeaders = new Set<string>();

  /**
   * Redact every compact JWS whose protected header (first segment) is `segment`, whole: the DPoP
   * proofs one key signs share it, while every proof is new (one per request), so they are matched by
   * their header instead of being added one by one.
   */
  addJwsHeader(segment: string | undefined): void {
    if (segment && /^[A-Za-z0-9_-]{16,}$/.test(segment)) this.#proofHeaders.add(segment);
  }

  override get empty(): boolean {
    return super.empty && this.#proofHeaders.size === 0;
  }

  override redact(text: string): string {
    let out = super.redact(text);
    if (typeof out !== "string") return out;
    for (const segment of this.#proofHeaders) {
      if (!out.includes(segment)) continue;
      out = out.replace(new RegExp(`${segment}(?:\\.[A-Za-z0-9_-]*){0,2}`, "g"), REDACTED_MARKER);
    }
    return out;
  }

  override leaks(text: string): boolean {
    if (super.leaks(text)) return true;
    return typeof text === "string" && [...this.#proofHeaders].some((segment) => text.includes(segment));
  }
}

/**
 * A redactor for one server: the current values of every environment variable its config reads
 * (placeholders, `env`, `headers`, `auth.*EnvVar`). Paths and ids are included too: better a redacted
 * path in a message than a leaked key.
 */
export function redactorFor(config: MCPServerConfig, env: EnvSource): Redactor {
  const redactor = new Redactor(configVariables(config).map(({ name }) => env[name]));
  if (config.transport === "http" && config.auth.type === "oauth") {
    const id = config.auth.clientIdEnvVar ? env[config.auth.clientIdEnvVar] : undefined;
    const secret = config.auth.clientSecretEnvVar ? env[config.auth.clientSecretEnvVar] : undefined;
    for (const form of basicCredentials(id, secret)) redactor.add(form);
  }
  return redactor;
}

/**
 * The `Authorization: Basic` forms of a client id and secret (RFC 6749 §2.3.1: each form-urlencoded,
 * then `id:secret` in base64; and the plain form some servers use): an authorization server that echoes
 * the header back must not leak the secret through them.
 */
export function basicCredentials(id: string | undefined, secret: string | undefined): string[] {
  if (!id || !secret) return [];
  const encoded = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
  return [
    ...new Set([
      Buffer.from(`${encoded(id)}:${encoded(secret)}`).toString("base64"),
      Buffer.from(`${id}:${secret}`).toString("base64"),
    ]),
  ];
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
