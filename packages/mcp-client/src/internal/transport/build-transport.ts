import { join, resolve } from "node:path";
import {
  type EnvSource,
  MCPConfigError,
  type MCPHttpServerConfig,
  type MCPServerConfig,
  type MCPStdioServerConfig,
  resolvedAuthHeaders,
  resolvedEnv,
  resolvePlaceholders,
} from "@agentforge/mcp-config";
import type { FetchLike, OAuthClientProvider } from "@modelcontextprotocol/client";
import { SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { DEFAULT_INHERITED_ENV_VARS, getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { MCPConnectionError } from "../../errors.js";
import { DEFAULT_MAX_MESSAGE_BYTES, MCPStdioTransport } from "../../mcp-stdio-transport.js";
import { MCPMemoryTokenStore } from "../../oauth-token-store.js";
import type { CreateTransportOptions } from "../../types.js";
import { AuthorizationCodeProvider, DEFAULT_LOGIN_TIMEOUT_MS } from "../auth/authorization-code.js";
import { credentialFingerprint } from "../auth/credential-fingerprint.js";
import { boundedAuthFetch, mtlsConnectOptions, oauthProvider } from "../auth/http-auth.js";
import { type Redactor, redactorFor } from "../shared/redactor.js";
import { keepAliveFetch, type RepeatableTool } from "./keep-alive-fetch.js";

/** Variables every stdio child inherits: the SDK's own safe list, nothing else leaks in implicitly. */
export const DEFAULT_INHERITED_ENV: readonly string[] = DEFAULT_INHERITED_ENV_VARS;

/**
 * Where per-server stderr logs go unless a folder is given: nowhere (no files in the caller's working
 * directory); stderr is kept in memory for the tails that error messages end with.
 */
export const DEFAULT_LOG_DIR: string | false = false;

/** What every built transport carries besides the SDK transport. */
interface BuiltCommon {
  redactor: Redactor;
  /** Resources to release after the transport closed (the HTTP sockets). */
  dispose: () => Promise<void>;
  /** The fingerprint of the credential requests go out with now (`""`: none); see credential-fingerprint.ts. */
  credential: () => Promise<string>;
}

/** A stdio transport: the transport is the stderr-aware `MCPStdioTransport` itself. */
export interface BuiltStdio extends BuiltCommon {
  kind: "stdio";
  transport: MCPStdioTransport;
  stdio: MCPStdioTransport;
  oauth?: undefined;
  fetch?: undefined;
}

/** What both HTTP transports carry for `grant: authorization_code` logins. */
interface BuiltHttpCommon extends BuiltCommon {
  stdio?: undefined;
  /** `grant: authorization_code`: the provider that can run a pending login. */
  oauth?: AuthorizationCodeProvider;
  /** The fetch the transport uses (also for the login's token exchange). */
  fetch: FetchLike;
}

/** A Streamable HTTP transport (it has a session to terminate). */
export interface BuiltStreamableHttp extends BuiltHttpCommon {
  kind: "streamable-http";
  transport: StreamableHTTPClientTransport;
}

/** A legacy HTTP+SSE transport. */
export interface BuiltSse extends BuiltHttpCommon {
  kind: "sse";
  transport: SSEClientTransport;
}

/** An HTTP transport of either kind. */
export type BuiltHttp = BuiltStreamableHttp | BuiltSse;
/** Which HTTP transport to build. */
export type HttpTransportKind = BuiltHttp["kind"];

/** What the manager needs besides the transport: its kind (the discriminant), the redactor, the stdio handle. */
export type BuiltTransport = BuiltStdio | BuiltHttp;

/**
 * The environment of a stdio child: the SDK's default inherited variables (`getDefaultEnvironment()`
 * when names are looked up in `process.env`; the same names, filtered the same way, from another env
 * source), the extra `inherit` names, then the server's own `env`.
 */
export function childEnvironment(
  config: MCPServerConfig,
  env: EnvSource,
  inherit: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = env === process.env ? getDefaultEnvironment() : {};
  const names = env === process.env ? inherit : [...DEFAULT_INHERITED_ENV, ...inherit];
  for (const name of names) {
    const value = env[name];
    // Skip exported shell functions, as the SDK does.
    if (value !== undefined && !value.startsWith("()")) out[name] = value;
  }
  return { ...out, ...resolvedEnv(config, env) };
}

function resolved<T extends MCPServerConfig>(
  config: T,
  options: CreateTransportOptions,
  redactor: Redactor,
): T {
  try {
    return resolvePlaceholders(config, {
      ...(options.env ? { env: options.env } : {}),
      ...(options.nodePath ? { nodePath: options.nodePath } : {}),
    });
  } catch (error) {
    if (!MCPConfigError.isInstance(error)) throw error;
    throw new MCPConnectionError(redactor.redact(error.message), {
      code: "SERVER_MISCONFIGURED",
      serverName: config.name,
      transport: config.transport === "stdio" ? "stdio" : "streamable-http",
      cause: error,
    });
  }
}

/** An HTTP transport of `kind` for an http server config (placeholders resolved, auth wired). */
export async function buildHttpTransport(
  config: MCPHttpServerConfig,
  kind: HttpTransportKind,
  options: CreateTransportOptions = {},
  repeatableTool?: RepeatableTool,
): Promise<BuiltHttp> {
  const env = options.env ?? process.env;
  const redactor = redactorFor(config, env);
  const resolvedConfig = resolved(config, options, redactor);
  const headers = resolvedAuthHeaders(resolvedConfig, env);
  const auth = resolvedConfig.auth;
  let authProvider: OAuthClientProvider | undefined;
  let oauth: AuthorizationCodeProvider | undefined;
  const tls = auth.type === "mtls" ? await mtlsConnectOptions(auth, env, config.name) : undefined;
  let observe: ((response: Response) => void) | undefined;
  if (auth.type === "oauth" && auth.grant === "authorization_code") {
    oauth = new AuthorizationCodeProvider({
      serverName: config.name,
      url: resolvedConfig.url,
      auth,
      env,
      store: options.tokenStore ?? new MCPMemoryTokenStore(),
      redactor,
      authorize: options.authorize,
      loginTimeoutMs: options.loginTimeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS,
    });
    await oauth.prepare();
    authProvider = oauth;
    const provider = oauth;
    observe = (response) => provider.observe(response);
  } else if (auth.type === "oauth") {
    const provider = await oauthProvider(auth, env, config.name, redactor);
    authProvider = provider;
    // client_credentials: a DPoP challenge from the MCP server is one of the two DPoP signals.
    if (provider.observe) observe = (response) => provider.observe?.(response);
  }
  // One undici Agent per connection (with the client certificate for mtls): short idle keep-alive,
  // one retry of a request whose reused socket the server closed before answering (keep-alive-fetch.ts).
  const sockets = keepAliveFetch(tls, repeatableTool);
  let fetch: FetchLike = sockets.fetch;
  if (observe) {
    const watch = observe;
    // Watch the server's answers: 403 insufficient_scope (scope step-up), DPoP challenges.
    fetch = async (url, init) => {
      const response = await sockets.fetch(url, init);
      watch(response);
      return response;
    };
  }
  // OAuth: every answer that is not the MCP endpoint's own (metadata, registration, tokens) is bounded.
  if (auth.type === "oauth") fetch = boundedAuthFetch(fetch, resolvedConfig.url, config.name);
  const transportOptions = {
    requestInit: { headers },
    fetch,
    ...(authProvider ? { authProvider } : {}),
  };
  // The identity the requests go out with (never the secret): list-cache entries are kept under it.
  const credential = credentialFingerprint({
    headers,
    ...(authProvider ? { provider: authProvider } : {}),
    // The client certificate (base64 of the PEM file) of an mtls server.
    ...(tls ? { certificate: Buffer.from(tls.cert).toString("base64") } : {}),
  });
  const common = { redactor, dispose: sockets.close, fetch, credential, ...(oauth ? { oauth } : {}) };
  const url = new URL(resolvedConfig.url);
  return kind === "sse"
    ? { ...common, kind, transport: new SSEClientTransport(url, transportOptions) }
    : { ...common, kind, transport: new StreamableHTTPClientTransport(url, transportOptions) };
}

/** A stdio transport for a stdio server config (placeholders resolved, minimal env, stderr log). */
export function buildStdioTransport(
  config: MCPStdioServerConfig,
  options: CreateTransportOptions = {},
): BuiltStdio {
  const env = options.env ?? process.env;
  const redactor = redactorFor(config, env);
  const launch = resolved(config, options, redactor);
  const logDir = options.logDir ?? DEFAULT_LOG_DIR;
  const stdio = new MCPStdioTransport({
    command: launch.command,
    args: launch.args,
    env: childEnvironment(config, env, options.inheritEnv ?? []),
    ...(launch.cwd !== undefined ? { cwd: launch.cwd } : {}),
    serverName: config.name,
    stderrLogPath: logDir === false ? false : join(resolve(logDir), `${config.name}.stderr.log`),
    maxMessageBytes: config.maxMessageBytes ?? options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    redactor,
    ...(options.shutdownGraceMs !== undefined ? { shutdownGraceMs: options.shutdownGraceMs } : {}),
  });
  return {
    kind: "stdio",
    transport: stdio,
    stdio,
    redactor,
    dispose: async () => {},
    credential: async () => "",
  };
}

/** The transport for one server config (`options.http` picks the HTTP kind). */
export async function buildTransport(
  config: MCPServerConfig,
  options: CreateTransportOptions = {},
): Promise<BuiltTransport> {
  if (config.transport === "stdio") return buildStdioTransport(config, options);
  return buildHttpTransport(config, options.http ?? "streamable-http", options);
}
