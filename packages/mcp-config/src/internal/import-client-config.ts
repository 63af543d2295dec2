// Converting the `mcpServers` JSON of desktop/editor MCP clients, and VS Code's `servers` object, into
// our entries. Literal secret values are never carried over: each becomes an environment variable NAME
// the user is told to export.
import type { MCPConfigIssue } from "../errors.js";
import { MCPConfigError } from "../errors.js";
import type { MCPConfigFormat, MCPConfigVariable } from "../parse-mcp-config.js";
import { ENV_VAR_NAME_PATTERN } from "./names.js";
import { formatPath, type SourceDocument } from "./yaml-source.js";

export interface ImportResult {
  format: Exclude<MCPConfigFormat, "agentforge">;
  /** Entries in our snake_case file shape, ready for the schema. */
  servers: Record<string, unknown>[];
  /** Where each entry came from in the source, for error positions. */
  sourcePaths: PropertyKey[][];
  variables: MCPConfigVariable[];
  warnings: MCPConfigIssue[];
}

const HANDLED_KEYS = new Set([
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "serverUrl",
  "headers",
  "disabled",
  "description",
  "oauth",
  "protocolVersion",
  "protocol_version",
]);
// Keys other clients use for their own features; nothing to convert, so they are dropped quietly.
const CLIENT_KEYS = new Set([
  "autoApprove",
  "alwaysAllow",
  "disabledTools",
  "timeout",
  "transportType",
  "envFile",
  "dev",
  "gallery",
  "version",
  "name",
  "id",
]);
// Flags whose value is a credential: `--api-key=...`, or `--token` followed by the value as the next arg.
const SECRET_FLAG =
  /^(--?(?:[A-Za-z0-9]+[-_])*(?:token|secret|password|passwd|api-?key|apikey|access-?key))(=(.+))?$/i;
const WHOLE_REF = /^\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}$/;
const INPUT_REF = /^\$\{input:([^}]+)\}$/;

function envName(raw: string): string {
  const name = raw
    .toUpperCase()
    .replace(/[^A-Z0-9_]/g, "_")
    .replace(/_+/g, "_");
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

function serverName(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 64);
}

type Entry = Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * An entry's `oauth` block (as Claude Code and similar clients write it: `clientId`, `clientSecret`,
 * `callbackPort`, `scope`) as our `auth: { type: oauth, grant: authorization_code }`. Literal client ids
 * and secrets move to variables, like every other literal.
 */
function importOAuth(
  oauth: Record<string, unknown>,
  base: PropertyKey[],
  prefix: string,
  record: (field: string, variable: string, replacedLiteral: boolean) => void,
  warnings: MCPConfigIssue[],
  at: (path: PropertyKey[], message: string, key?: boolean) => MCPConfigIssue,
): Record<string, unknown> {
  const auth: Record<string, unknown> = { type: "oauth", grant: "authorization_code" };
  const variableFor = (value: unknown, field: string, suffix: string) => {
    const text = String(value);
    const ref = WHOLE_REF.exec(text)?.[1];
    const input = INPUT_REF.exec(text)?.[1];
    const variable = ref ?? (input ? envName(input) : `${prefix}_${suffix}`);
    record(`auth.${field}`, variable, !ref && !input);
    return variable;
  };
  for (const [key, value] of Object.entries(oauth)) {
    if (key === "clientId") auth.client_id_env_var = variableFor(value, "client_id_env_var", "CLIENT_ID");
    else if (key === "clientSecret")
      auth.client_secret_env_var = variableFor(value, "client_secret_env_var", "CLIENT_SECRET");
    else if (key === "callbackPort" || key === "redirectPort") auth.redirect_port = value;
    else if (key === "scope") auth.scope = value;
    else if (key === "scopes") auth.scope = Array.isArray(value) ? value.join(" ") : value;
    else if (key === "clientMetadataUrl") auth.client_metadata_url = value;
    else if (key === "issuer") auth.issuer = value;
    else warnings.push(at([...base, key], `unknown key "${key}" ignored`, true));
  }
  return auth;
}

/** Recognise the client formats; undefined means "our own format". */
export function importClientConfig(
  doc: SourceDocument,
  source: string | undefined,
): ImportResult | undefined {
  const data = doc.data;
  if (!isRecord(data)) return undefined;
  let format: ImportResult["format"];
  let rootKey: string;
  if (isRecord(data.mcpServers)) {
    format = "mcpServers";
    rootKey = "mcpServers";
  } else if (isRecord(data.servers)) {
    format = "vscode";
    rootKey = "servers";
  } else {
    return undefined;
  }
  const entries = Object.entries(data[rootKey] as Record<string, unknown>);
  const problems: MCPConfigIssue[] = [];
  const warnings: MCPConfigIssue[] = [];
  const at = (path: PropertyKey[], message: string, key = false): MCPConfigIssue => ({
    path: formatPath(path),
    message,
    ...doc.locate(path, { key }),
  });

  // A literal env key used by one server keeps its own name; shared keys get the server as prefix.
  const literalKeyUse = new Map<string, number>();
  for (const [, entry] of entries) {
    if (!isRecord(entry) || !isRecord(entry.env)) continue;
    for (const [key, value] of Object.entries(entry.env)) {
      if (!(typeof value === "string" && (WHOLE_REF.test(value) || INPUT_REF.test(value)))) {
        literalKeyUse.set(key, (literalKeyUse.get(key) ?? 0) + 1);
      }
    }
  }

  const servers: Record<string, unknown>[] = [];
  const sourcePaths: PropertyKey[][] = [];
  const variables: MCPConfigVariable[] = [];
  const usedNames = new Map<string, string>();

  for (const [originalName, rawEntry] of entries) {
    const base: PropertyKey[] = [rootKey, originalName];
    if (!isRecord(rawEntry)) {
      problems.push(at(base, "expected a mapping describing the server"));
      continue;
    }
    const entry: Entry = rawEntry;
    const name = serverName(originalName);
    if (!name) {
      problems.push(
        at(
          base,
          `"${originalName}" cannot be turned into a server name (lowercase letters, digits, '-' and '_')`,
          true,
        ),
      );
      continue;
    }
    const clash = usedNames.get(name);
    if (clash !== undefined) {
      problems.push(
        at(base, `"${originalName}" and "${clash}" both become server name "${name}"; rename one`, true),
      );
      continue;
    }
    usedNames.set(name, originalName);
    if (name !== originalName) {
      warnings.push(
        at(base, `server "${originalName}" is named "${name}" (its display_name keeps the original)`, true),
      );
    }
    for (const key of Object.keys(entry)) {
      if (HANDLED_KEYS.has(key)) continue;
      if (!CLIENT_KEYS.has(key)) warnings.push(at([...base, key], `unknown key "${key}" ignored`, true));
    }

    const prefix = envName(name);
    const record = (field: string, variable: string, replacedLiteral: boolean) =>
      variables.push({ name: variable, serverName: name, field, replacedLiteral });

    // `${env:X}` -> `${X}`, `${input:id}` -> `${ID}`; VS Code's folder variables -> our placeholders.
    const convertString = (value: string, field: string) =>
      value.replace(/\$\{([^}]*)\}/g, (whole, body: string) => {
        if (body.startsWith("env:")) return `\${${body.slice(4)}}`;
        if (body.startsWith("input:")) {
          const variable = envName(body.slice(6));
          record(field, variable, false);
          return `\${${variable}}`;
        }
        if (body === "workspaceFolder") return "${CONFIG_DIR}/..";
        if (body === "userHome") return "${HOME}";
        return whole;
      });

    const out: Record<string, unknown> = { name, enabled: entry.disabled !== true };
    if (name !== originalName) out.display_name = originalName;
    if (typeof entry.description === "string") out.description = entry.description;
    // Which MCP revision to speak (`auto`, `2025-11-25`, `2026-07-28`); the schema checks the value.
    const protocolVersion = entry.protocolVersion ?? entry.protocol_version;
    if (protocolVersion !== undefined) out.protocol_version = protocolVersion;
    const url = entry.url ?? entry.serverUrl;
    const type = entry.type;
    const isHttp =
      type === "http" ||
      type === "sse" ||
      type === "streamable-http" ||
      type === "streamableHttp" ||
      (type === undefined && url !== undefined && entry.command === undefined);
    if (type !== undefined && !isHttp && type !== "stdio") {
      problems.push(at([...base, "type"], 'expected type "stdio", "http", "sse" or "streamable-http"'));
      continue;
    }
    out.transport = isHttp ? "http" : "stdio";

    if (isHttp) {
      out.url = typeof url === "string" ? convertString(url, "url") : url;
      if (entry.headers !== undefined) {
        if (!isRecord(entry.headers)) {
          problems.push(at([...base, "headers"], "expected a mapping of header name to value"));
          continue;
        }
        const headers: Record<string, string> = {};
        for (const [header, value] of Object.entries(entry.headers)) {
          const text = String(value);
          const bearer = /^bearer\s+(.*)$/i.exec(text);
          if (header.toLowerCase() === "authorization" && bearer) {
            const token = bearer[1] ?? "";
            const ref = WHOLE_REF.exec(token)?.[1];
            const input = INPUT_REF.exec(token)?.[1];
            const variable = ref ?? (input ? envName(input) : `${prefix}_TOKEN`);
            out.auth = { type: "bearer", credential_env_var: variable };
            record("auth.credential_env_var", variable, !ref && !input);
            continue;
          }
          const ref = WHOLE_REF.exec(text)?.[1];
          const input = INPUT_REF.exec(text)?.[1];
          const variable = ref ?? (input ? envName(input) : `${prefix}_${envName(header)}`);
          headers[header] = variable;
          record(`headers.${header}`, variable, !ref && !input);
        }
        out.headers = headers;
      }
      if (entry.oauth !== undefined) {
        if (!isRecord(entry.oauth)) {
          problems.push(
            at([...base, "oauth"], "expected a mapping (clientId, clientSecret, callbackPort, scope)"),
          );
          continue;
        }
        if (out.auth !== undefined) {
          warnings.push(
            at([...base, "oauth"], `"oauth" ignored: an Authorization header already authenticates`, true),
          );
        } else {
          out.auth = importOAuth(entry.oauth, [...base, "oauth"], prefix, record, warnings, at);
        }
      }
      for (const key of ["command", "args", "env", "cwd"]) {
        if (entry[key] !== undefined)
          warnings.push(at([...base, key], `"${key}" ignored: the server is reached over http`, true));
      }
    } else {
      out.command =
        typeof entry.command === "string" ? convertString(entry.command, "command") : entry.command;
      if (entry.args !== undefined) {
        if (!Array.isArray(entry.args)) {
          out.args = entry.args;
        } else {
          const args: unknown[] = [];
          entry.args.forEach((arg: unknown, i) => {
            const previous = args[i - 1];
            const flag = typeof arg === "string" ? SECRET_FLAG.exec(arg) : null;
            const afterFlag =
              typeof previous === "string" && SECRET_FLAG.exec(previous) && !previous.includes("=");
            if (typeof arg !== "string") {
              args.push(arg);
            } else if (arg.includes("${")) {
              args.push(convertString(arg, `args[${i}]`));
            } else if (flag?.[3] !== undefined || (afterFlag && !arg.startsWith("-"))) {
              // A credential passed on the command line: keep the flag, move the value to a variable.
              const flagName = flag?.[1] ?? String(previous);
              const variable = `${prefix}_${envName(flagName.replace(/^-+/, ""))}`;
              args.push(flag?.[3] !== undefined ? `${flagName}=\${${variable}}` : `\${${variable}}`);
              record(`args[${i}]`, variable, true);
            } else {
              args.push(arg);
            }
          });
          out.args = args;
        }
      }
      if (typeof entry.cwd === "string") out.cwd = convertString(entry.cwd, "cwd");
      if (entry.env !== undefined) {
        if (!isRecord(entry.env)) {
          problems.push(at([...base, "env"], "expected a mapping of variable name to value"));
          continue;
        }
        const env: Record<string, string> = {};
        for (const [key, value] of Object.entries(entry.env)) {
          if (!ENV_VAR_NAME_PATTERN.test(key)) {
            problems.push(
              at([...base, "env", key], `"${key}" is not a valid environment variable name`, true),
            );
            continue;
          }
          const text = typeof value === "string" ? value : undefined;
          const ref = text ? WHOLE_REF.exec(text)?.[1] : undefined;
          const input = text ? INPUT_REF.exec(text)?.[1] : undefined;
          const variable =
            ref ?? (input ? envName(input) : (literalKeyUse.get(key) ?? 0) > 1 ? `${prefix}_${key}` : key);
          env[key] = variable;
          record(`env.${key}`, variable, !ref && !input);
        }
        out.env = env;
      }
      if (entry.url !== undefined || entry.headers !== undefined) {
        warnings.push(
          at(base, `"url"/"headers" ignored: the server is launched with a command (stdio)`, true),
        );
      }
    }
    servers.push(out);
    sourcePaths.push(base);
  }

  if (problems.length > 0) {
    throw new MCPConfigError(`Invalid ${format} config`, {
      code: "CONFIG_INVALID",
      source,
      issues: problems,
    });
  }
  return { format, servers, sourcePaths, variables, warnings };
}
