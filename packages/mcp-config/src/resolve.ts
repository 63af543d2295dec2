import { MCPConfigError } from "./errors.js";
import { expandPlaceholders } from "./internal/placeholders.js";
import type { MCPHttpServerConfig, MCPServerConfig, MCPStdioServerConfig } from "./schema.js";

/** Environment lookups: `process.env` by default, or any plain record. */
export type EnvSource = Readonly<Record<string, string | undefined>>;

function defaultEnv(): EnvSource {
  return typeof process === "undefined" ? {} : process.env;
}

/** Options of `resolvePlaceholders`. */
export interface ResolvePlaceholdersOptions {
  /** Where `${VAR}` is looked up (default `process.env`). */
  env?: EnvSource;
  /** What `${NODE}` expands to (default `process.execPath`, the running Node.js). */
  nodePath?: string;
}

/**
 * Expand `${NODE}`, `${CONFIG_DIR}`, `${VAR}` and `${VAR:-default}` in `command`, `args`, `cwd` and
 * `url`. Returns a copy; the input is untouched. An unset variable without default throws
 * `MCPConfigError` (`CONFIG_VARIABLE_UNSET`) naming the server, the field and the variable — never a value.
 */
export function resolvePlaceholders<T extends MCPServerConfig>(
  config: T,
  options: ResolvePlaceholdersOptions = {},
): T {
  const env = options.env ?? defaultEnv();
  const lookup = (name: string): string | undefined => {
    if (name === "NODE")
      return options.nodePath ?? (typeof process === "undefined" ? undefined : process.execPath);
    if (name === "CONFIG_DIR") return config.configDir;
    return env[name];
  };
  const expand = (value: string, field: string): string => {
    const result = expandPlaceholders(value, lookup);
    if (typeof result === "string") return result;
    const hint =
      result.missing === "CONFIG_DIR"
        ? "${CONFIG_DIR} is only known for configs loaded from a file (or parsed with configDir)"
        : `set ${result.missing}, or write \${${result.missing}:-default}`;
    throw new MCPConfigError(
      `Server "${config.name}": ${field} uses \${${result.missing}}, which is not set; ${hint}`,
      { code: "CONFIG_VARIABLE_UNSET", serverName: config.name },
    );
  };
  if (config.transport === "stdio") {
    const stdio: MCPStdioServerConfig = {
      ...config,
      command: expand(config.command, "command"),
      args: config.args.map((arg, i) => expand(arg, `args[${i}]`)),
    };
    if (config.cwd !== undefined) stdio.cwd = expand(config.cwd, "cwd");
    return stdio as T;
  }
  const url = expand(config.url, "url");
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("protocol");
  } catch {
    throw new MCPConfigError(
      `Server "${config.name}": url is not an http:// or https:// URL once its placeholders are expanded`,
      { code: "CONFIG_INVALID", serverName: config.name },
    );
  }
  return { ...config, url } as T;
}

/**
 * The environment additions for a stdio server's child process: each `env` entry whose named variable
 * is set. Unset variables are omitted (the server then reports what it misses). `{}` for http servers.
 */
export function resolvedEnv(config: MCPServerConfig, env: EnvSource = defaultEnv()): Record<string, string> {
  if (config.transport !== "stdio") return {};
  const out: Record<string, string> = {};
  for (const [local, variable] of Object.entries(config.env)) {
    const value = env[variable];
    if (value !== undefined) out[local] = value;
  }
  return out;
}

/**
 * The request headers for an http server: its `headers` entries whose variables are set, plus the
 * auth header — `Authorization: Bearer <v>` (bearer), `<headerName ?? X-API-Key>: <v>` (api_key),
 * `<headerName ?? Authorization>: <v>` (custom_header). Unset variables give no header (the server then
 * answers 401, which the client reports clearly). oauth and mtls give `{}`: the client wires those.
 */
export function resolvedAuthHeaders(
  config: MCPServerConfig,
  env: EnvSource = defaultEnv(),
): Record<string, string> {
  if (config.transport !== "http") return {};
  const http: MCPHttpServerConfig = config;
  const out: Record<string, string> = {};
  for (const [header, variable] of Object.entries(http.headers)) {
    const value = env[variable];
    if (value) out[header] = value;
  }
  const auth = http.auth;
  if (auth.type === "bearer" || auth.type === "api_key" || auth.type === "custom_header") {
    const value = env[auth.credentialEnvVar];
    if (!value) return out;
    if (auth.type === "bearer") out.Authorization = `Bearer ${value}`;
    else if (auth.type === "api_key") out[auth.headerName ?? "X-API-Key"] = value;
    else out[auth.headerName ?? "Authorization"] = value;
  }
  return out;
}
