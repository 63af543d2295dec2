/**
 * DPoP (RFC 9449, MCP SEP-1932): when to use it, and the signing key. The proofs themselves, the
 * `DPoP` Authorization scheme and the nonce retries are the SDK's (`DpopSession`, and the transports'
 * `withDpopFromProvider` when a provider implements `dpop()`); this file decides whether a provider
 * offers a session at all, and keeps the key a stored token is bound to.
 *
 * The rule: DPoP is used when both sides offer it. The authorization server's metadata lists, in
 * `dpop_signing_alg_values_supported`, an algorithm we sign with (RFC 9449 §5.1), and the MCP server
 * says it takes DPoP tokens: a 401 with a `DPoP` challenge (RFC 9449 §7.1), or protected-resource
 * metadata with `dpop_signing_alg_values_supported` or `dpop_bound_access_tokens_required` (RFC 9728).
 * (An authorization server that offers DPoP in front of a Bearer-only MCP server would otherwise bind
 * tokens that server cannot take.) A token issued as `token_type: DPoP` is only ever presented with the
 * DPoP scheme and a fresh proof.
 */

import type { webcrypto } from "node:crypto";
import type { DpopAlg, DpopKeyPair, OAuthDiscoveryState } from "@modelcontextprotocol/client";
import { DpopSession, generateDpopKeyPair } from "@modelcontextprotocol/client";
import type { MCPOAuthDpopKey } from "../../oauth-token-store.js";
import type { Redactor } from "../shared/redactor.js";

/** The DPoP algorithms this client signs with, in order of preference (ECDSA: small keys, fast). */
const CURVES = { ES256: "P-256", ES384: "P-384", ES512: "P-521" } as const;
type EcAlg = keyof typeof CURVES;
const PREFERENCE: readonly EcAlg[] = ["ES256", "ES384", "ES512"];

type JWK = webcrypto.JsonWebKey;
type ServerMetadata = OAuthDiscoveryState["authorizationServerMetadata"];
type ResourceMetadata = OAuthDiscoveryState["resourceMetadata"];

/** Whether protected-resource metadata says the MCP server takes DPoP-bound tokens (RFC 9728 §2). */
export function resourceOffersDpop(metadata: ResourceMetadata | undefined): boolean {
  if (!metadata) return false;
  const algs = metadata.dpop_signing_alg_values_supported;
  return metadata.dpop_bound_access_tokens_required === true || (Array.isArray(algs) && algs.length > 0);
}

/** Whether a response is a 401 whose `WWW-Authenticate` holds a `DPoP` challenge (RFC 9449 §7.1). */
export function isDpopChallenge(response: Response): boolean {
  if (response.status !== 401) return false;
  const header = response.headers.get("www-authenticate") ?? "";
  // A scheme starts the header or follows a comma; `DPoP` alone or followed by its parameters.
  return /(?:^|,)\s*dpop(?=\s|,|$)/i.test(header);
}

/** The algorithm to sign DPoP proofs with for this authorization server, or undefined: no DPoP. */
export function dpopAlgorithm(metadata: ServerMetadata | undefined): EcAlg | undefined {
  const offered = (metadata as { dpop_signing_alg_values_supported?: unknown } | undefined)
    ?.dpop_signing_alg_values_supported;
  if (!Array.isArray(offered)) return undefined;
  return PREFERENCE.find((alg) => offered.includes(alg));
}

/** Whether tokens were issued DPoP-bound (RFC 9449 §5: `token_type` `DPoP`, case-insensitive). */
export function isDpopBound(tokens: { token_type?: string } | undefined): boolean {
  return tokens?.token_type?.toLowerCase() === "dpop";
}

/**
 * A new key pair for `alg`, in the form a token store keeps it (JWKs; the private one is secret),
 * made for the authorization server `issuer` (the key is never used with another one).
 */
export async function createDpopKey(alg: EcAlg, issuer?: string): Promise<MCPOAuthDpopKey> {
  const pair = await generateDpopKeyPair({ alg, extractable: true });
  const privateJwk = { ...(await globalThis.crypto.subtle.exportKey("jwk", pair.privateKey)) };
  const key: MCPOAuthDpopKey = {
    alg,
    publicJwk: { ...pair.publicJwk },
    privateJwk,
    thumbprint: pair.thumbprint,
  };
  if (issuer) key.issuer = issuer;
  return key;
}

/** The stored key as a signing key pair (imported non-extractable), or undefined if it is unusable. */
export async function restoreDpopKey(stored: MCPOAuthDpopKey): Promise<DpopKeyPair | undefined> {
  const curve = CURVES[stored.alg as EcAlg];
  if (!curve || stored.privateJwk.crv !== curve || !stored.thumbprint) return undefined;
  try {
    const algorithm = { name: "ECDSA", namedCurve: curve };
    const subtle = globalThis.crypto.subtle;
    const privateKey = await subtle.importKey("jwk", stored.privateJwk as JWK, algorithm, false, ["sign"]);
    const publicKey = await subtle.importKey("jwk", stored.publicJwk as JWK, algorithm, true, ["verify"]);
    return {
      privateKey,
      publicKey,
      publicJwk: stored.publicJwk as DpopKeyPair["publicJwk"],
      thumbprint: stored.thumbprint,
      alg: stored.alg as DpopAlg,
    };
  } catch {
    // A damaged key is the same as no key: its tokens are not used (see the providers).
    return undefined;
  }
}

/**
 * A session whose proofs `redactor` redacts: every proof of one key starts with the same protected
 * header (alg, typ, the public JWK), read here from one proof built for nobody.
 */
export async function redactedSession(
  session: Promise<DpopSession>,
  redactor: Redactor,
): Promise<DpopSession> {
  const ready = await session;
  const sample = await ready.buildProof({ htm: "GET", htu: "https://redaction.invalid/" });
  redactor.addJwsHeader(sample.split(".")[0]);
  return ready;
}

/**
 * The DPoP session of a client_credentials provider: chosen from the authorization server metadata
 * the SDK discovered, with a key that lives (non-extractable) as long as the provider; its tokens are
 * never stored.
 */
export class EphemeralDpop {
  private metadata: ServerMetadata | undefined;
  private resourceDpop = false;
  private session: Promise<DpopSession> | undefined;

  /** Called by the SDK with each discovery result. */
  discovered(state: OAuthDiscoveryState): void {
    this.metadata = state.authorizationServerMetadata;
    if (resourceOffersDpop(state.resourceMetadata)) this.resourceDpop = true;
  }

  /** Called with every answer: a `DPoP` challenge says the MCP server takes DPoP tokens. */
  answered(response: Response): void {
    if (isDpopChallenge(response)) this.resourceDpop = true;
  }

  /** The session once both sides offered DPoP (kept from then on, unless it failed to start). */
  get(redactor: Redactor): Promise<DpopSession> | undefined {
    if (this.session) return this.session;
    if (!this.resourceDpop) return undefined;
    const alg = dpopAlgorithm(this.metadata);
    if (!alg) return undefined;
    const session = redactedSession(DpopSession.create({ alg }), redactor);
    this.session = session;
    // A session that failed to start is not kept: the next request tries again.
    session.catch(() => {
      if (this.session === session) this.session = undefined;
    });
    return session;
  }
}
