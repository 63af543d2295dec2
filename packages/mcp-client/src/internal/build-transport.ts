import { join, resolve } from "node:path";
import {
  type EnvSource,
  MCPConfigError,
  type MCPHttpServerConfig,
  type MCPServerConfig,
  resolvedAuthHeaders,
  resolvedEnv,
  resolvePlaceholders,
} from "@agentforge/mcp-config";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CreateTransportOptions } from "../create-transport.js";
import { MCPConnectionError, type MCPConnectionKind } from "../errors.js";
import { DEFAULT_MAX_MESSAGE_BYTES, MCPStdioTransport } from "../mcp-stdio-transport.js";
import { MCPMemoryTokenStore } from "../oauth-token-store.js";
import { AuthorizationCodeProvider, DEFAULT_LOGIN_TIMEOUT_MS } from "./authorization-code.js";
import { mtlsFetch, oauthProvider } from "./http-auth.js";
import { type Redactor, redactorFor } from "./redactor.js";

/** Variables every stdio child inherits (the same safe list as the SDK): nothing else leaks in implicitly. */
export const DEFAULT_INHERITED_ENV: readonly string[] =
  process.platform === "win32"
    ? [
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PROCESSOR_ARCHITECTURE",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "USERNAME",
        "USERPROFILE",
        "PROGRAMFILES",
      ]
    : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/** Default folder of the per-server stderr logs, relative to the working directory. */
export const DEFAULT_LOG_DIR = "logs/mcp";

/** What the manager needs besides the transport: its kind, the redactor, and a stderr-aware handle. */
export interface BuiltTransport {
  transport: Transport;
  kind: MCPConnectionKind;
  redactor: Redactor;
  stdio: MCPStdioTransport | undefined;
  /** Resources to release after the transport closed (the mTLS dispatcher). */
  dispose: () => Promise<void>;
  /** `grant: authorization_code`: the provider that can run a pending login. */
  oauth?: AuthorizationCodeProvider;
  /** The fetch the transport uses (for the login's token exchange). */
  fetch?: FetchLike;
}

function childEnvironment(config: MCPServerConfig, env: EnvSource, inherit: readonly string[]) {
  const out: Record<string, string> = {};
  for (const name of [...DEFAULT_INHERITED_ENV, ...inherit]) {
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

interface HttpTransport {
  transport: Transport;
  dispose: () => Promise<void>;
  oauth?: AuthorizationCodeProvider;
  fetch?: FetchLike;
}

async function httpTransport(
  config: MCPHttpServerConfig,
  kind: "streamable-http" | "sse",
  env: EnvSource,
  redactor: Redactor,
  options: CreateTransportOptions,
): Promise<HttpTransport> {
  const headers = resolvedAuthHeaders(config, env);
  const auth = config.auth;
  let fetch: FetchLike | undefined;
  let dispose = async () => {};
  let authProvider: OAuthClientProvider | undefined;
  let oauth: AuthorizationCodeProvider | undefined;
  if (auth.type === "mtls") {
    const mtls = await mtlsFetch(auth, env, config.name);
    fetch = mtls.fetch;
    dispose = mtls.close;
  } else if (auth.type === "oauth" && auth.grant === "authorization_code") {
    oauth = new AuthorizationCodeProvider({
      serverName: config.name,
      url: config.url,
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
    // Watch the server's answers for 403 insufficient_scope (scope step-up).
    fetch = async (url, init) => {
      const response = await globalThis.fetch(url, init);
      provider.observe(response);
      return response;
    };
  } else if (auth.type === "oauth") {
    authProvider = await oauthProvider(auth, env, config.name, redactor);
  }
  const transportOptions = {
    requestInit: { headers },
    ...(fetch ? { fetch } : {}),
    ...(authProvider ? { authProvider } : {}),
  };
  const url = new URL(config.url);
  const transport =
    kind === "sse"
      ? new SSEClientTransport(url, transportOptions)
      : new StreamableHTTPClientTransport(url, transportOptions);
  return { transport, dispose, ...(oauth ? { oauth } : {}), ...(fetch ? { fetch } : {}) };
}

/** The manager's transport factory: the transport plus what it needs to report failures. */
export async function buildTransport(
  config: MCPServerConfig,
  options: CreateTransportOptions = {},
): Promise<BuiltTransport> {
  const env = options.env ?? process.env;
  const redactor = redactorFor(config, env);
  if (config.transport === "stdio") {
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
    return { transport: stdio, kind: "stdio", redactor, stdio, dispose: async () => {} };
  }
  const kind = options.http ?? "streamable-http";
  const http = await httpTransport(resolved(config, options, redactor), kind, env, redactor, options);
  return { ...http, kind, redactor, stdio: undefined };
}
