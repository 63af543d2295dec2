// The zod-free way through a config document: our format or an imported client config, validated by
// `checkConfigFile`. Undefined when the document needs the schema (any problem, or a field the fast
// checker leaves to the schema); the caller then takes the zod path, which words the errors.

import { findGrantServerProblems } from "../grant-servers.js";
import type { MCPConfig, ParseMCPConfigObjectOptions } from "../parse-mcp-config.js";
import { checkConfigFile } from "./check-config-file.js";
import { normalizePermissions, toServerConfig } from "./config-output.js";
import { importClientConfig } from "./import-client-config.js";
import type { SourceDocument } from "./yaml-source.js";

function uniqueNames(servers: readonly Record<string, unknown>[]): boolean {
  const names = new Set(servers.map((server) => server.name));
  return names.size === servers.length;
}

/** The parsed config, or undefined when the zod path has to decide (and word the errors). */
export function parseFast(doc: SourceDocument, options: ParseMCPConfigObjectOptions): MCPConfig | undefined {
  const imported = importClientConfig(doc, options.source);
  const checked = checkConfigFile(imported ? { servers: imported.servers } : doc.data);
  if (!checked) return undefined;
  const servers = checked.servers as Record<string, unknown>[];
  if (!uniqueNames(servers)) return undefined;
  // A grant naming a server the roster lacks is a problem: the full path words it, with its position.
  const names = servers.map((server) => String(server.name));
  if (findGrantServerProblems(checked.permissions, names).length > 0) return undefined;
  return {
    servers: servers.map((entry) => toServerConfig(entry, options.configDir)),
    permissions: normalizePermissions(
      (checked.permissions ?? {}) as Parameters<typeof normalizePermissions>[0],
    ),
    format: imported ? imported.format : "agentforge",
    source: options.source,
    variables: imported ? imported.variables : [],
    warnings: imported ? imported.warnings : [],
  };
}
