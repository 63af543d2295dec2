// Defence in depth for everything the management surface prints or returns: the values of the variables
// a roster reads (credentials, tokens, URLs with passwords) are replaced by [REDACTED] in any output,
// even if a library or a server were to echo one. mcp-client already redacts its own messages.
import { configVariables, type MCPServerConfig } from "@agentforge/mcp-config";

/** Shorter values are not treated as secrets (they would redact ordinary words), as in mcp-client. */
const MIN_SECRET_LENGTH = 6;

/** Replaces known secret values in text. */
export interface SecretRedactor {
  /** `text` with every known secret value replaced by `[REDACTED]`. */
  redact(text: string): string;
}

/**
 * A redactor for the values, in `env`, of every variable the servers' configs read, plus `extra`
 * values (e.g. the API token). Variables in `notSecret` (values the app sets itself, like the
 * workspace folder) are left alone.
 */
export function secretRedactor(
  servers: readonly MCPServerConfig[],
  env: NodeJS.ProcessEnv,
  options: { extra?: readonly (string | undefined)[]; notSecret?: readonly string[] } = {},
): SecretRedactor {
  const skip = new Set(options.notSecret ?? []);
  const values = new Set<string>();
  for (const server of servers) {
    for (const variable of configVariables(server)) {
      const value = env[variable.name];
      if (!skip.has(variable.name) && value && value.length >= MIN_SECRET_LENGTH) values.add(value);
    }
  }
  for (const value of options.extra ?? []) if (value && value.length >= MIN_SECRET_LENGTH) values.add(value);
  // Also the form a value takes inside a JSON string (quotes, backslashes, control characters escaped).
  for (const value of [...values]) values.add(JSON.stringify(value).slice(1, -1));
  // Longest first, so a secret that contains another is replaced whole.
  const ordered = [...values].sort((a, b) => b.length - a.length);
  return {
    redact(text) {
      let out = text;
      for (const value of ordered) if (out.includes(value)) out = out.split(value).join("[REDACTED]");
      return out;
    },
  };
}
