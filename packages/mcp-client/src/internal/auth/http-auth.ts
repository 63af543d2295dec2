/**
 * OAuth and mTLS wiring for http servers. Credentials are read from the environment variables the
 * config NAMES, at connect time; their values go nowhere but the request they authenticate.
 */
import { createPrivateKey, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { EnvSource, MCPAuthConfig } from "@agentforge/mcp-config";
import type {
  DpopSession,
  FetchLike,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/client";
import { MCPConnectionError } from "../../errors.js";
import type { Redactor } from "../shared/redactor.js";
import { EphemeralDpop } from "./dpop-key.js";

type OAuthAuth = Extract<MCPAuthConfig, { type: "oauth" }>;
type MtlsAuth = Extract<MCPAuthConfig, { type: "mtls" }>;

function requireVariable(
  env: EnvSource,
  variable: string | undefined,
  field: string,
  what: string,
  serverName: string,
): string {
  const value = variable ? env[variable] : undefined;
  if (!value) {
    throw new MCPConnectionError(
      `MCP server "${serverName}": auth.${field} names ${variable ?? "no variable"}, which is not set; set it to ${what}`,
      { code: "SERVER_MISCONFIGURED", serverName },
    );
  }
  return value;
}

/**
 * Thrown by the pre-issued-token provider when the server asks for authorization anyway: the token is
 * missing, expired or wrong, and there is no way to get another one.
 */
export class AccessTokenRejectedError extends Error {
  constructor(readonly variable: string) {
    super(`the OAuth access token in ${variable} (auth.credentialEnvVar) was missing or rejected with 401`);
  }
}

/** An OAuthClientProvider that only presents a pre-issued access token (grant `access_token`). */
class PreIssuedTokenProvider implements OAuthClientProvider {
  constructor(
    private readonly token: string | undefined,
    private readonly variable: string,
  ) {}
  get redirectUrl(): undefined {
    return undefined;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "agentforge-mcp-client", redirect_uris: [], grant_types: [] };
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return undefined;
  }
  tokens(): OAuthTokens | undefined {
    return this.token ? { access_token: this.token, token_type: "Bearer" } : undefined;
  }
  saveTokens(): void {}
  // The SDK calls this first when the server answered 401: stop there, with a clear reason.
  discoveryState(): never {
    throw new AccessTokenRejectedError(this.variable);
  }
  redirectToAuthorization(): never {
    throw new AccessTokenRejectedError(this.variable);
  }
  saveCodeVerifier(): void {}
  codeVerifier(): never {
    throw new AccessTokenRejectedError(this.variable);
  }
}

/**
 * A client_credentials provider of the SDK (client secret or private_key_jwt) that registers every issued
 * token with the redactor and uses DPoP when both servers offer it (dpop-key.ts): the SDK hands every
 * discovery result to `saveDiscoveryState`, and the transport's fetch shows every answer to `observe`
 * (a `DPoP` challenge from the MCP server).
 */
function guarded<P extends ClientCredentialsProvider | PrivateKeyJwtProvider>(
  provider: P,
  redactor: Redactor,
): P & ObservingProvider {
  const dpop = new EphemeralDpop();
  const save = provider.saveTokens.bind(provider);
  return Object.assign(provider, {
    saveTokens(tokens: OAuthTokens): void {
      redactor.add(tokens.access_token);
      redactor.add(tokens.refresh_token);
      save(tokens);
    },
    saveDiscoveryState(state: OAuthDiscoveryState): void {
      dpop.discovered(state);
    },
    observe(response: Response): void {
      dpop.answered(response);
    },
    dpop(): Promise<DpopSession> | undefined {
      return dpop.get(redactor);
    },
  });
}

/** The JWS algorithm a private key signs with by default (RFC 7518 names). */
export function defaultSigningAlgorithm(key: KeyObject): string | undefined {
  switch (key.asymmetricKeyType) {
    case "rsa":
      return "RS256";
    case "rsa-pss":
      return "PS256";
    case "ed25519":
      return "EdDSA";
    case "ec": {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === "prime256v1" || curve === "P-256") return "ES256";
      if (curve === "secp384r1" || curve === "P-384") return "ES384";
      if (curve === "secp521r1" || curve === "P-521") return "ES512";
      return undefined;
    }
    default:
      return undefined;
  }
}

async function privateKeyJwtProvider(
  auth: OAuthAuth,
  env: EnvSource,
  serverName: string,
  redactor: Redactor,
  clientId: string,
): Promise<ObservingProvider> {
  const variable = auth.privateKeyFileEnvVar as string;
  const pem = await readPem(
    env,
    variable,
    "privateKeyFileEnvVar",
    "the private key (private_key_jwt)",
    serverName,
  );
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    throw new MCPConnectionError(
      `MCP server "${serverName}": the file named by ${variable} (auth.privateKeyFileEnvVar) is not a usable unencrypted PEM private key. Fix: point it at a PKCS#8, PKCS#1 or SEC1 PEM key without a passphrase.`,
      {
        code: "SERVER_MISCONFIGURED",
        serverName,
        cause: new Error((error as NodeJS.ErrnoException).code ?? "invalid key"),
      },
    );
  }
  const algorithm = auth.signingAlgorithm ?? defaultSigningAlgorithm(key);
  if (!algorithm) {
    throw new MCPConnectionError(
      `MCP server "${serverName}": cannot tell the signing algorithm of the ${key.asymmetricKeyType ?? "unknown"} key named by ${variable}. Fix: set auth.signing_algorithm.`,
      { code: "SERVER_MISCONFIGURED", serverName },
    );
  }
  // A JWK lets jose import every key form Node reads (PKCS#1, SEC1, PKCS#8) and EdDSA keys.
  const jwk = key.export({ format: "jwk" }) as Record<string, unknown>;
  return guarded(
    new PrivateKeyJwtProvider({
      clientId,
      privateKey: jwk,
      algorithm,
      clientName: "agentforge-mcp-client",
      ...(auth.scope ? { scope: auth.scope } : {}),
      ...(auth.issuer ? { expectedIssuer: auth.issuer } : {}),
    }),
    redactor,
  );
}

/** An auth provider that may want to see the MCP server's answers (`observe`). */
export type ObservingProvider = OAuthClientProvider & { observe?(response: Response): void };

/** The SDK auth provider for an `oauth` auth config with grant `access_token` or `client_credentials`. */
export async function oauthProvider(
  auth: OAuthAuth,
  env: EnvSource,
  serverName: string,
  redactor: Redactor,
): Promise<ObservingProvider> {
  if (auth.grant === "access_token") {
    const variable = auth.credentialEnvVar ?? "(unset)";
    return new PreIssuedTokenProvider(
      auth.credentialEnvVar ? env[auth.credentialEnvVar] : undefined,
      variable,
    );
  }
  const clientId = requireVariable(
    env,
    auth.clientIdEnvVar,
    "clientIdEnvVar",
    "the OAuth client id",
    serverName,
  );
  if (auth.privateKeyFileEnvVar) {
    return privateKeyJwtProvider(auth, env, serverName, redactor, clientId);
  }
  const clientSecret = requireVariable(
    env,
    auth.clientSecretEnvVar,
    "clientSecretEnvVar",
    "the OAuth client secret",
    serverName,
  );
  return guarded(
    new ClientCredentialsProvider({
      clientId,
      clientSecret,
      clientName: "agentforge-mcp-client",
      ...(auth.scope ? { scope: auth.scope } : {}),
      ...(auth.issuer ? { expectedIssuer: auth.issuer } : {}),
    }),
    redactor,
  );
}

async function readPem(env: EnvSource, variable: string, field: string, what: string, serverName: string) {
  const path = requireVariable(env, variable, field, `the PATH of ${what}`, serverName);
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "I/O error";
    throw new MCPConnectionError(
      `MCP server "${serverName}": cannot read ${what} from the file named by ${variable} (auth.${field}): ${code}`,
      { code: "SERVER_MISCONFIGURED", serverName, cause: error },
    );
  }
}

/** The client certificate, key, optional CA and passphrase of an `mtls` server, as TLS connect options. */
export interface MtlsConnectOptions {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
  passphrase?: string;
}

/**
 * The TLS options of an `mtls` server: the certificate, key and (optional) CA read from the files whose
 * paths the config's variables name. The HTTP transport's undici Agent connects with them.
 */
export async function mtlsConnectOptions(
  auth: MtlsAuth,
  env: EnvSource,
  serverName: string,
): Promise<MtlsConnectOptions> {
  const cert = await readPem(
    env,
    auth.certFileEnvVar,
    "certFileEnvVar",
    "the client certificate",
    serverName,
  );
  const key = await readPem(env, auth.keyFileEnvVar, "keyFileEnvVar", "the client key", serverName);
  const ca = auth.caFileEnvVar
    ? await readPem(env, auth.caFileEnvVar, "caFileEnvVar", "the CA bundle", serverName)
    : undefined;
  const passphrase = auth.passphraseEnvVar
    ? requireVariable(
        env,
        auth.passphraseEnvVar,
        "passphraseEnvVar",
        "the client key's passphrase",
        serverName,
      )
    : undefined;
  return { cert, key, ...(ca ? { ca } : {}), ...(passphrase ? { passphrase } : {}) };
}

/** The largest answer accepted from an authorization server (metadata, registration, token). */
export const MAX_AUTH_BODY_BYTES = 1024 * 1024;

/**
 * `inner`, with every answer from a URL other than the MCP endpoint itself (the OAuth metadata,
 * registration and token endpoints) read to at most MAX_AUTH_BODY_BYTES: a larger one (declared or
 * streamed) fails the request instead of being read whole. The MCP endpoint's answers (SSE streams) pass.
 */
export function boundedAuthFetch(inner: FetchLike, mcpUrl: string, serverName: string): FetchLike {
  const endpoint = new URL(mcpUrl);
  const isMcp = (target: URL) => target.origin === endpoint.origin && target.pathname === endpoint.pathname;
  return async (url, init) => {
    const response = await inner(url, init);
    const target = new URL(typeof url === "string" || url instanceof URL ? url : (url as Request).url);
    if (isMcp(target) || !response.body) return response;
    const tooLarge = () =>
      new MCPConnectionError(
        `MCP server "${serverName}": the answer of ${target.origin}${target.pathname} is larger than ${MAX_AUTH_BODY_BYTES} bytes; it was refused unread.`,
        { code: "AUTH_FAILED", serverName },
      );
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declared > MAX_AUTH_BODY_BYTES) {
      await response.body.cancel().catch((cancelError: unknown) => {
        // The refusal below is the failure the caller sees; the cancel error adds nothing to it.
        void cancelError;
      });
      throw tooLarge();
    }
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > MAX_AUTH_BODY_BYTES) {
        await reader.cancel().catch((cancelError: unknown) => {
          void cancelError;
        });
        throw tooLarge();
      }
      chunks.push(value);
    }
    return new Response(Buffer.concat(chunks), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
