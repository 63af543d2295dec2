/**
 * `grant: authorization_code`: an OAuthClientProvider for the SDK's `auth()` (discovery, registration,
 * PKCE, token exchange and refresh stay the SDK's), plus what the SDK leaves to the host: the token
 * store, the loopback redirect listener, the `state` check, scope step-up, and the time limit.
 *
 * Inside a connection attempt the provider only records that a login is needed (the SDK then throws
 * UnauthorizedError); the connection runs `completeLogin()` outside the connection timeout and retries.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type EnvSource, emitProcessWarning, type MCPAuthConfig } from "@agentforge/mcp-config";
import type {
  DpopKeyPair,
  FetchLike,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import {
  auth,
  DpopSession,
  extractWWWAuthenticateParams,
  isDpopNonceChallenge,
  type OAuthClientInformationContext,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from "@modelcontextprotocol/client";
import { MCPConnectionError } from "../../errors.js";
import {
  type MCPAuthorizeFunction,
  type MCPOAuthDpopKey,
  type MCPOAuthRecord,
  type MCPOAuthTokenStore,
  openInBrowser,
} from "../../oauth-token-store.js";
import { loginUrlProblem } from "../opener/browser-opener.js";
import { type Redactor, safeCause } from "../shared/redactor.js";
import {
  createDpopKey,
  dpopAlgorithm,
  isDpopBound,
  isDpopChallenge,
  redactedSession,
  resourceOffersDpop,
  restoreDpopKey,
} from "./dpop-key.js";

type OAuthAuth = Extract<MCPAuthConfig, { type: "oauth" }>;

/** How long a login may take by default (the user has to find the browser tab). */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;
/** Logins (first login plus scope step-ups) one connection attempt or one tool call may run. */
export const MAX_LOGINS_PER_OPERATION = 2;
const CALLBACK_PATH = "/callback";

export interface AuthorizationCodeOptions {
  serverName: string;
  url: string;
  auth: OAuthAuth;
  env: EnvSource;
  store: MCPOAuthTokenStore;
  redactor: Redactor;
  /** `false`: never interactive (fail with AUTH_REQUIRED). Undefined: the default when stdin is a TTY. */
  authorize: MCPAuthorizeFunction | false | undefined;
  loginTimeoutMs: number;
}

function scopeUnion(...lists: (string | undefined)[]): string | undefined {
  const all = new Set<string>();
  for (const list of lists) for (const scope of list?.split(/\s+/) ?? []) if (scope) all.add(scope);
  return all.size ? [...all].join(" ") : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function loopbackPort(information: OAuthClientInformationMixed | undefined): number | undefined {
  const uris = (information as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  if (!Array.isArray(uris)) return undefined;
  for (const uri of uris) {
    try {
      const parsed = new URL(String(uri));
      if (parsed.hostname === "127.0.0.1" && parsed.pathname === CALLBACK_PATH && parsed.port) {
        return Number(parsed.port);
      }
    } catch {
      // not a URL: ignored
    }
  }
  return undefined;
}

interface Redirect {
  code?: string;
  state?: string;
  /** RFC 9207: the authorization server's issuer, when it sends one. */
  iss?: string;
  error?: string;
  errorDescription?: string;
}

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><p>${text}</p>`;

/** The loopback listener that receives the authorization server's redirect. */
async function listenForRedirect(
  port: number,
  expectedState: string | undefined,
  serverName: string,
): Promise<{ redirect: Promise<Redirect>; close: () => Promise<void> }> {
  let settle: (redirect: Redirect) => void = () => {};
  const redirect = new Promise<Redirect>((resolve) => {
    settle = resolve;
  });
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== CALLBACK_PATH) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const result: Redirect = {};
    for (const [key, field] of [
      ["code", "code"],
      ["state", "state"],
      ["iss", "iss"],
      ["error", "error"],
      ["error_description", "errorDescription"],
    ] as const) {
      const value = url.searchParams.get(key);
      if (value !== null) result[field] = value;
    }
    // A redirect without the state this login sent is not this login's answer (a stray or forged
    // request from another program or web page): it is answered 400 and ignored, the login goes on.
    const ours = expectedState !== undefined && result.state === expectedState;
    const ok = ours && !result.error && result.code;
    res
      .writeHead(ok ? 200 : 400, { "content-type": "text/html; charset=utf-8", connection: "close" })
      .end(
        ok
          ? page(
              "Logged in",
              `The login for MCP server "${serverName}" is complete. You can close this window.`,
            )
          : page(
              "Login failed",
              `The login for MCP server "${serverName}" failed; see the application's output.`,
            ),
      );
    if (ours) settle(result);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    redirect,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The OAuth client of one `authorization_code` server, for one connection attempt or connection. */
export class AuthorizationCodeProvider implements OAuthClientProvider {
  readonly clientMetadataUrl: string | undefined;
  private record: MCPOAuthRecord | undefined;
  private loaded = false;
  private port: number | undefined;
  private expectedState: string | undefined;
  private rediscover = false;
  private verifier: string | undefined;
  private stepUp = false;
  private pending: URL | undefined;
  private loginRun: Promise<void> | undefined;
  private readonly preRegistered: OAuthClientInformationMixed | undefined;
  /** The DPoP session of the record's key (one per key: its nonces are remembered per origin). */
  private dpopSession: { key: MCPOAuthDpopKey; session: Promise<DpopSession> } | undefined;

  constructor(private readonly options: AuthorizationCodeOptions) {
    const { auth, env } = options;
    this.clientMetadataUrl = auth.clientMetadataUrl;
    if (auth.clientIdEnvVar) {
      const clientId = env[auth.clientIdEnvVar];
      const secret = auth.clientSecretEnvVar ? env[auth.clientSecretEnvVar] : undefined;
      const missing = !clientId
        ? auth.clientIdEnvVar
        : auth.clientSecretEnvVar && !secret
          ? auth.clientSecretEnvVar
          : undefined;
      if (missing) {
        throw new MCPConnectionError(
          `MCP server "${options.serverName}": auth names ${missing}, which is not set; set it to the pre-registered OAuth client ${missing === auth.clientIdEnvVar ? "id" : "secret"}, or remove client_id_env_var to register the client dynamically`,
          { code: "SERVER_MISCONFIGURED", serverName: options.serverName },
        );
      }
      options.redactor.add(secret);
      this.preRegistered = {
        client_id: clientId as string,
        ...(secret ? { client_secret: secret } : {}),
        ...(auth.issuer ? { issuer: auth.issuer } : {}),
      };
    }
  }

  private get serverName(): string {
    return this.options.serverName;
  }

  private async load(): Promise<MCPOAuthRecord> {
    if (!this.loaded) {
      const stored = await this.options.store.get(this.serverName);
      this.record = stored && stored.url === this.options.url ? stored : undefined;
      this.loaded = true;
      this.options.redactor.add(this.record?.tokens?.access_token);
      this.options.redactor.add(this.record?.tokens?.refresh_token);
      this.options.redactor.add(this.record?.dpopKey?.privateJwk.d as string | undefined);
    }
    this.record ??= { url: this.options.url };
    return this.record;
  }

  private async persist(): Promise<void> {
    await this.options.store.set(this.serverName, await this.load());
  }

  /** Read the store and choose the redirect port: configured, the registered one, or a free one. */
  async prepare(): Promise<void> {
    const record = await this.load();
    this.port =
      this.options.auth.redirectPort ??
      loopbackPort(this.preRegistered ? undefined : record.clientInformation) ??
      (await freePort());
  }

  get redirectUrl(): string {
    return `http://127.0.0.1:${this.port ?? 0}${CALLBACK_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = (this.preRegistered as { client_secret?: string } | undefined)?.client_secret;
    return {
      client_name: "AgentForge MCP client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: secret ? "client_secret_basic" : "none",
      ...(this.options.auth.scope ? { scope: this.options.auth.scope } : {}),
    };
  }

  state(): string {
    this.expectedState = randomBytes(24).toString("base64url");
    return this.expectedState;
  }

  async clientInformation(
    context?: OAuthClientInformationContext,
  ): Promise<OAuthClientInformationMixed | undefined> {
    if (this.preRegistered) return this.preRegistered;
    const record = await this.load();
    // Credentials are keyed by issuer: a registration with another authorization server is never reused.
    if (!sameIssuer(record, context)) return undefined;
    return record.clientInformation;
  }

  async saveClientInformation(
    information: OAuthClientInformationMixed,
    context?: OAuthClientInformationContext,
  ): Promise<void> {
    if (this.preRegistered) return; // read from the environment every time; never stored
    this.options.redactor.add((information as { client_secret?: string }).client_secret);
    const record = await this.load();
    if (!sameIssuer(record, context)) delete record.tokens; // issued by the previous authorization server
    if (!keyFor(record, context?.issuer)) delete record.dpopKey; // made for the previous one
    if (context?.issuer) record.issuer = context.issuer;
    record.clientInformation = information;
    await this.persist();
  }

  async tokens(context?: OAuthClientInformationContext): Promise<OAuthTokens | undefined> {
    const record = await this.load();
    if (!sameIssuer(record, context)) return undefined;
    // A DPoP-bound access token is useless without its key (and must never go out as Bearer): without
    // a usable key only the refresh token is offered, so the SDK refreshes (or a login follows).
    const session = isDpopBound(record.tokens) ? await this.dpop() : undefined;
    let tokens = record.tokens;
    if (isDpopBound(tokens) && !session) tokens = tokens && { ...tokens, access_token: "" };
    if (!tokens || !this.stepUp) return tokens;
    // Stepping up: a refresh would only renew the scopes already granted, so the SDK must not see it.
    const { refresh_token: _dropped, ...rest } = tokens;
    return rest;
  }

  async saveTokens(tokens: OAuthTokens, context?: OAuthClientInformationContext): Promise<void> {
    this.options.redactor.add(tokens.access_token);
    this.options.redactor.add(tokens.refresh_token);
    const record = await this.load();
    if (!sameIssuer(record, context)) delete record.tokens;
    if (!keyFor(record, context?.issuer)) delete record.dpopKey;
    if (context?.issuer) record.issuer = context.issuer;
    // A refresh answer may leave the refresh token out: the old one stays valid then.
    record.tokens =
      tokens.refresh_token || !record.tokens?.refresh_token
        ? tokens
        : { ...tokens, refresh_token: record.tokens.refresh_token };
    this.stepUp = false;
    await this.persist();
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const granted = this.stepUp ? (await this.load()).tokens?.scope : undefined;
    const scope = scopeUnion(
      authorizationUrl.searchParams.get("scope") ?? undefined,
      granted,
      this.options.auth.scope,
    );
    if (scope) authorizationUrl.searchParams.set("scope", scope);
    this.pending = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.options.redactor.add(codeVerifier);
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no PKCE code verifier: the login was not started by this client");
    return this.verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    const record = await this.load();
    if (scope === "all" || scope === "tokens") {
      // Nothing is bound to the key any more: the next token gets a new one.
      delete record.tokens;
      delete record.dpopKey;
    }
    if (scope === "all" || scope === "client") delete record.clientInformation;
    if (scope === "all" || scope === "discovery") delete record.discoveryState;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    await this.persist();
  }

  /**
   * The DPoP session (the SDK then signs token requests and presents DPoP-bound tokens with the DPoP
   * scheme): when the record holds a key (a token may be bound to it), or when both the authorization
   * server and the MCP server offer DPoP (dpop-key.ts; a key is made and kept in the record with the
   * tokens).
   */
  dpop(): Promise<DpopSession | undefined> {
    const run = this.dpopRun.then(() => this.currentDpop());
    this.dpopRun = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  private dpopRun: Promise<void> = Promise.resolve();
  /** Whether the MCP server answered 401 with a `DPoP` challenge. */
  private resourceDpop = false;

  private async currentDpop(): Promise<DpopSession | undefined> {
    const record = await this.load();
    // A key made for another authorization server (SEP-2352 migration) is never shown to this one.
    const issuer = record.discoveryState?.authorizationServerMetadata?.issuer;
    const key = keyFor(record, issuer) ? record.dpopKey : undefined;
    if (key && this.dpopSession?.key === key) return this.dpopSession.session;
    const restored = key ? await restoreDpopKey(key) : undefined;
    if (key && restored) return this.remember(key, restored);
    if (key) {
      // Never the key itself in the text: only that it is unusable, and what follows.
      emitProcessWarning(
        `The stored DPoP key of MCP server "${this.options.serverName}" cannot be used (damaged or of an unknown kind); the tokens bound to it are dropped and a new login may be needed.`,
        "AGENTFORGE_DPOP_KEY_UNUSABLE",
      );
    }
    // No key, or one that cannot be used here: a DPoP-bound access token from the record is dead.
    const dropped = record.dpopKey !== undefined;
    const orphaned = isDpopBound(record.tokens) && record.tokens?.access_token;
    if (orphaned && record.tokens) record.tokens = { ...record.tokens, access_token: "" };
    delete record.dpopKey;
    // Both sides must offer DPoP (see dpop-key.ts) before a key is made.
    const resourceDpop = this.resourceDpop || resourceOffersDpop(record.discoveryState?.resourceMetadata);
    const alg = resourceDpop ? dpopAlgorithm(record.discoveryState?.authorizationServerMetadata) : undefined;
    if (alg) {
      record.dpopKey = await createDpopKey(alg, issuer);
      this.options.redactor.add(record.dpopKey.privateJwk.d as string | undefined);
    }
    if (alg || orphaned || dropped) await this.persist();
    const keyPair = record.dpopKey ? await restoreDpopKey(record.dpopKey) : undefined;
    return record.dpopKey && keyPair ? this.remember(record.dpopKey, keyPair) : undefined;
  }

  private remember(key: MCPOAuthDpopKey, keyPair: DpopKeyPair): Promise<DpopSession> {
    const session = redactedSession(DpopSession.create({ keyPair }), this.options.redactor);
    this.dpopSession = { key, session };
    // A session that failed to start is not kept: the next request tries again (the caller still
    // sees the failure through the promise it was handed).
    session.catch(() => {
      if (this.dpopSession?.session === session) this.dpopSession = undefined;
    });
    return session;
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    // After a 401 the server may name another authorization server: discover again (SEP-2352).
    if (this.rediscover) return undefined;
    return (await this.load()).discoveryState;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    this.rediscover = false;
    (await this.load()).discoveryState = state;
    await this.persist();
  }

  /**
   * Watches the MCP server's answers: a 401 means the cached discovery may be stale (the protected
   * resource may have moved to another authorization server); a 403 `insufficient_scope` means the
   * next login steps up; a 401 with a `DPoP` challenge means the server takes DPoP tokens.
   */
  observe(response: Response): void {
    // (A DPoP nonce challenge is answered by the SDK's retry; it says nothing about the discovery.)
    if (response.status === 401 && !isDpopNonceChallenge(response)) this.rediscover = true;
    if (isDpopChallenge(response)) this.resourceDpop = true;
    if (response.status !== 403) return;
    if (extractWWWAuthenticateParams(response).error === "insufficient_scope") this.stepUp = true;
  }

  /** Whether the SDK stopped at "a user must log in" (see `completeLogin`). */
  get loginPending(): boolean {
    return this.pending !== undefined;
  }

  /** Run the pending login: `authorize`, wait for the redirect, check `state`, exchange the code. */
  completeLogin(fetchFn: FetchLike | undefined, signal?: AbortSignal): Promise<void> {
    this.loginRun ??= this.login(fetchFn, signal).finally(() => {
      this.loginRun = undefined;
    });
    return this.loginRun;
  }

  private fail(code: "AUTH_REQUIRED" | "AUTH_FAILED" | "LOGIN_TIMEOUT", message: string, cause?: unknown) {
    return new MCPConnectionError(this.options.redactor.redact(message), {
      code,
      serverName: this.serverName,
      transport: "streamable-http",
      ...(cause !== undefined ? { cause: safeCause(cause, this.options.redactor) } : {}),
    });
  }

  private async login(fetchFn: FetchLike | undefined, signal?: AbortSignal): Promise<void> {
    const authorizationUrl = this.pending;
    this.pending = undefined;
    if (!authorizationUrl) return;
    const authorize =
      this.options.authorize === undefined
        ? process.stdin.isTTY
          ? openInBrowser
          : undefined
        : this.options.authorize || undefined;
    if (!authorize) {
      throw this.fail(
        "AUTH_REQUIRED",
        `MCP server "${this.serverName}" needs login: it asks for an OAuth login in a browser, and this process cannot ask for one (${this.options.authorize === false ? "authorize is false" : "stdin is not a terminal"}). Fix: log in first with the application's login command (the login is kept in the token store), or pass an authorize callback to MCPClientManager.`,
      );
    }
    // The URL is the authorization server's choice: never hand a file:, javascript:, custom-scheme
    // or plain-http-to-another-host URL to any authorize function (the default one opens a browser).
    const urlProblem = loginUrlProblem(authorizationUrl);
    if (urlProblem) {
      throw this.fail(
        "AUTH_FAILED",
        `The login URL for MCP server "${this.serverName}" was refused and not opened: ${urlProblem}. Fix: the authorization server's metadata (authorization_endpoint) must name an https URL; ask its operator, or check the server URL in the config.`,
      );
    }
    let listener: Awaited<ReturnType<typeof listenForRedirect>>;
    try {
      listener = await listenForRedirect(this.port ?? 0, this.expectedState, this.serverName);
    } catch (error) {
      throw this.fail(
        "AUTH_FAILED",
        `MCP server "${this.serverName}": cannot listen for the login redirect on ${this.redirectUrl} (${(error as NodeJS.ErrnoException).code ?? "error"}). Fix: free that port or choose another redirect_port.`,
        error,
      );
    }
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const limit = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              this.fail(
                "LOGIN_TIMEOUT",
                `The login for MCP server "${this.serverName}" was not completed within ${Math.round(this.options.loginTimeoutMs / 1000)} s: no redirect reached ${this.redirectUrl}. Fix: open the login URL again (reconnect) and finish the login in the browser.`,
              ),
            ),
          this.options.loginTimeoutMs,
        );
        if (signal) {
          onAbort = () =>
            reject(this.fail("AUTH_FAILED", `The login for MCP server "${this.serverName}" was cancelled.`));
          if (signal.aborted) onAbort();
          else signal.addEventListener("abort", onAbort, { once: true });
        }
      });
      limit.catch(() => {});
      const redirectUrl = this.redirectUrl;
      await Promise.race([
        Promise.resolve(authorize(authorizationUrl, { serverName: this.serverName, redirectUrl })),
        limit,
      ]);
      const redirect = await Promise.race([listener.redirect, limit]);
      if (redirect.error) {
        const description = redirect.errorDescription ? ` (${redirect.errorDescription})` : "";
        throw this.fail(
          "AUTH_FAILED",
          `The login for MCP server "${this.serverName}" was refused by the authorization server: ${redirect.error}${description}.`,
        );
      }
      if (!this.expectedState || redirect.state !== this.expectedState) {
        throw this.fail(
          "AUTH_FAILED",
          `The login redirect for MCP server "${this.serverName}" carried a state that this client did not send; it was refused (possible cross-site request forgery). Fix: start the login again.`,
        );
      }
      if (!redirect.code) {
        throw this.fail(
          "AUTH_FAILED",
          `The login redirect for MCP server "${this.serverName}" carried no code.`,
        );
      }
      this.options.redactor.add(redirect.code);
      try {
        await auth(this, {
          serverUrl: this.options.url,
          authorizationCode: redirect.code,
          // RFC 9207: checked by the SDK against the issuer this login was started with (present when
          // the authorization server says it sends one; any `iss` it sends must match).
          ...(redirect.iss !== undefined ? { iss: redirect.iss } : {}),
          ...(fetchFn ? { fetchFn } : {}),
        });
      } catch (error) {
        throw this.fail(
          "AUTH_FAILED",
          `MCP server "${this.serverName}": the authorization server refused to exchange the login code for a token: ${error instanceof Error ? error.message : String(error)}.`,
          error,
        );
      }
    } finally {
      if (timer) clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
      this.expectedState = undefined;
      this.verifier = undefined;
      await listener.close();
    }
  }
}

/**
 * Whether the record's DPoP key (if any) may be used with the authorization server `issuer`: it was
 * made for it. A key stored without its issuer counts as made for the record's issuer; when either
 * side is unknown there is nothing to compare.
 */
function keyFor(record: MCPOAuthRecord, issuer: string | undefined): boolean {
  const keyIssuer = record.dpopKey?.issuer ?? record.issuer;
  return !record.dpopKey || !issuer || !keyIssuer || keyIssuer === issuer;
}

/** Whether the stored credentials belong to the authorization server the SDK resolved (or either is unknown). */
function sameIssuer(record: MCPOAuthRecord, context: OAuthClientInformationContext | undefined): boolean {
  return !context?.issuer || !record.issuer || record.issuer === context.issuer;
}

/** Whether an error chain holds the SDK's UnauthorizedError (the flow stopped for a login). */
export function isUnauthorizedError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === "object" && depth < 8; depth++) {
    if ((current as Error).constructor?.name === "UnauthorizedError") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
