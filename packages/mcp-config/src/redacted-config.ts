import { placeholderNames } from "./internal/placeholders.js";
import type { EnvSource } from "./resolve.js";
import type { MCPServerConfig } from "./schema.js";

/** An environment variable a server config reads, and whether it is set (never its value). */
export interface MCPConfigVariableStatus {
  /** The variable's NAME. */
  name: string;
  /** Where the config uses it, e.g. `env.WORKSPACE_ROOT`, `auth.credentialEnvVar`, `args[1]`. */
  field: string;
  /** Whether the variable is set (non-empty) in the environment that was checked. */
  set: boolean;
}

/** A server config safe to print or return from an API, plus the variables it reads. */
export type RedactedMCPServerConfig = MCPServerConfig & { variables: MCPConfigVariableStatus[] };

const BUILT_IN = new Set(["NODE", "CONFIG_DIR"]);

/** Every environment variable NAME the config reads, with the field that reads it. */
export function configVariables(config: MCPServerConfig): { name: string; field: string }[] {
  const out: { name: string; field: string }[] = [];
  const fromPlaceholders = (value: string | undefined, field: string) => {
    if (value === undefined) return;
    for (const name of placeholderNames(value)) if (!BUILT_IN.has(name)) out.push({ name, field });
  };
  if (config.transport === "stdio") {
    fromPlaceholders(config.command, "command");
    for (const [i, arg] of config.args.entries()) fromPlaceholders(arg, `args[${i}]`);
    fromPlaceholders(config.cwd, "cwd");
    for (const [local, name] of Object.entries(config.env)) out.push({ name, field: `env.${local}` });
  } else {
    fromPlaceholders(config.url, "url");
    for (const [header, name] of Object.entries(config.headers))
      out.push({ name, field: `headers.${header}` });
    for (const [key, value] of Object.entries(config.auth)) {
      if (key.endsWith("EnvVar") && typeof value === "string")
        out.push({ name: value, field: `auth.${key}` });
    }
  }
  return out;
}

// A URL may carry credentials when a config was built in code rather than loaded from a file.
function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url; // still holds placeholders: names only
  }
  if (parsed.username) parsed.username = "REDACTED";
  if (parsed.password) parsed.password = "REDACTED";
  for (const key of [...parsed.searchParams.keys()]) parsed.searchParams.set(key, "REDACTED");
  return parsed.search || parsed.username ? parsed.toString() : url;
}

/**
 * A copy of `config` for display: variable NAMES and whether each is set, never a value; URL
 * credentials and query values replaced by `REDACTED`.
 */
export function redactedConfig(
  config: MCPServerConfig,
  env: EnvSource = typeof process === "undefined" ? {} : process.env,
): RedactedMCPServerConfig {
  const variables = configVariables(config).map((v) => ({ ...v, set: Boolean(env[v.name]) }));
  const copy = structuredClone(config);
  if (copy.transport === "http") copy.url = redactUrl(copy.url);
  return { ...copy, variables };
}
