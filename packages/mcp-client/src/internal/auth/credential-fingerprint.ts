/**
 * Which credential a request goes out with, as a SHA-256 fingerprint (never the secret itself): the
 * static auth headers, the OAuth access token the provider holds right now, the mTLS certificate. Two
 * requests with the same fingerprint are in the same authorization context (what `cacheScope:
 * "private"` results are kept apart by).
 */
import { createHash } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/client";

/** What a transport authenticates with. */
export interface CredentialParts {
  /** Headers sent with every request (Authorization, API keys, configured headers). */
  headers?: Record<string, string>;
  /** The OAuth provider; its current access token is read on each call. */
  provider?: OAuthClientProvider;
  /** The client certificate (PEM) of mTLS. */
  certificate?: string;
}

/** A function giving the fingerprint of the credential in use now (`""` when there is none). */
export function credentialFingerprint(parts: CredentialParts): () => Promise<string> {
  const fixed = Object.entries(parts.headers ?? {})
    .map(([name, value]) => [name.toLowerCase(), value])
    .sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));
  return async () => {
    const token = parts.provider ? (await parts.provider.tokens())?.access_token : undefined;
    if (fixed.length === 0 && token === undefined && parts.certificate === undefined) return "";
    return createHash("sha256")
      .update(JSON.stringify([fixed, token ?? null, parts.certificate ?? null]))
      .digest("hex");
  };
}
