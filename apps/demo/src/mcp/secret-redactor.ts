// Defence in depth for everything the management surface prints, returns or writes: the values of the
// variables a roster reads (credentials, tokens, URLs with passwords) are replaced by [REDACTED] in any
// output, in every form the library's redactor knows (raw, JSON-escaped, URL-encoded), even if a library
// or a server were to echo one. One redactor for the whole project: @agentforge/mcp-config's.
import {
  configVariables,
  createSecretRedactor,
  type MCPServerConfig,
  type SecretRedactor,
} from "@agentforge/mcp-config/core";

export type { SecretRedactor };

/**
 * A redactor for the values, in `env`, of every variable the servers' configs read, plus `extra`
 * values (e.g. the API token). Variables in `notSecret` (values the app sets itself, like the
 * workspace folder) are left alone. Values shorter than the library's minimum are ignored.
 */
export function secretRedactor(
  servers: readonly MCPServerConfig[],
  env: NodeJS.ProcessEnv,
  options: { extra?: readonly (string | undefined)[]; notSecret?: readonly string[] } = {},
): SecretRedactor {
  const skip = new Set(options.notSecret ?? []);
  const values: (string | undefined)[] = [...(options.extra ?? [])];
  for (const server of servers) {
    for (const variable of configVariables(server)) {
      if (!skip.has(variable.name)) values.push(env[variable.name]);
    }
  }
  return createSecretRedactor(values);
}
