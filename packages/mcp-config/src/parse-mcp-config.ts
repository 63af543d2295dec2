import { MCPConfigError, type MCPConfigIssue } from "./errors.js";
import { findGrantServerProblems } from "./grant-servers.js";
import { normalizePermissions, toServerConfig } from "./internal/config-output.js";
import { formatIssues, type KnownKeys, sortIssues } from "./internal/format-issues.js";
import { type ImportResult, importClientConfig } from "./internal/import-client-config.js";
import { objectSource } from "./internal/object-source.js";
import { parseFast } from "./internal/parse-fast.js";
import {
  DEFAULT_MAX_CONFIG_BYTES,
  formatPath,
  readSource,
  type SourceDocument,
} from "./internal/yaml-source.js";
import {
  authConfigSchema,
  configFileSchema,
  type MCPPermissionsConfig,
  type MCPServerConfig,
  serverEntrySchema,
} from "./schema.js";

/** Which dialect a config file was written in. */
export type MCPConfigFormat =
  /** Our own `servers:` list (mcp_servers.yaml). */
  | "agentforge"
  /** The `mcpServers` object of desktop and editor MCP clients (Claude Desktop, Cursor, ...). */
  | "mcpServers"
  /** VS Code's `servers` object (`.vscode/mcp.json`). */
  | "vscode";

/** An environment variable a loaded config reads. */
export interface MCPConfigVariable {
  /** The variable's NAME. */
  name: string;
  /** The server that reads it. */
  serverName: string;
  /** Where it is used, e.g. `env.GITHUB_TOKEN` or `auth.credential_env_var`. */
  field: string;
  /**
   * True when an imported file held a literal value here. The value was NOT carried over: export
   * the variable with that value before connecting.
   */
  replacedLiteral: boolean;
}

/** A parsed and validated config file. */
export interface MCPConfig {
  /** Every server, enabled or not, in file order. */
  servers: MCPServerConfig[];
  /** Agent -> allow/deny patterns from the optional `permissions:` section. */
  permissions: MCPPermissionsConfig;
  /** The dialect the file was written in. */
  format: MCPConfigFormat;
  /** The file path or label given as `source`. */
  source: string | undefined;
  /**
   * For imported files (`mcpServers`, VS Code): the variables the converted config reads, and which of
   * them replaced a literal value that must now be exported. Empty for our own format.
   */
  variables: MCPConfigVariable[];
  /** Non-fatal remarks about an import (renamed servers, ignored client-specific keys, ...). */
  warnings: MCPConfigIssue[];
}

/** Options of `parseMCPConfig`. */
export interface ParseMCPConfigOptions {
  /** File path or label used in error messages. */
  source?: string;
  /** What `${CONFIG_DIR}` expands to (the loader passes the file's folder). */
  configDir?: string;
  /** Refuse texts larger than this many UTF-8 bytes (default 1 MiB). */
  maxBytes?: number;
}

const TOP_KEYS = Object.keys(configFileSchema.shape);
const STDIO_KEYS = Object.keys(serverEntrySchema.options[0].shape);
const HTTP_KEYS = Object.keys(serverEntrySchema.options[1].shape);
const AUTH_KEYS = new Map(
  authConfigSchema.options.map((option) => {
    const shape = "shape" in option ? option.shape : {};
    return [String((shape as { type: { value: string } }).type.value), Object.keys(shape)];
  }),
);

const knownKeys: KnownKeys = {
  at(path, data) {
    if (path.length === 0) return TOP_KEYS;
    let node: unknown = data;
    for (const segment of path) node = (node as Record<PropertyKey, unknown> | undefined)?.[segment];
    const record = node as Record<string, unknown> | undefined;
    if (path[0] === "servers" && path.length === 2) {
      return record?.transport === "http" ? HTTP_KEYS : STDIO_KEYS;
    }
    if (path[0] === "servers" && path[2] === "auth" && path.length === 3) {
      return AUTH_KEYS.get(String(record?.type));
    }
    if (path[0] === "permissions" && path.length === 2)
      return ["allow", "deny", "confirm", "confirm_destructive", "resources", "prompts", "tool_search"];
    if (path[0] === "permissions" && path.length === 3 && path[2] === "tool_search") {
      return ["mode", "threshold", "always_load", "max_searches"];
    }
    if (
      path[0] === "permissions" &&
      path.length === 4 &&
      path[2] === "tool_search" &&
      path[3] === "threshold"
    ) {
      return ["tools", "chars"];
    }
    if (
      path[0] === "permissions" &&
      path.length === 3 &&
      (path[2] === "resources" || path[2] === "prompts")
    ) {
      return ["allow", "deny", "confirm"];
    }
    return undefined;
  },
};

function duplicateNameIssues(data: unknown, doc: SourceDocument): MCPConfigIssue[] {
  const servers = (data as { servers?: unknown }).servers;
  if (!Array.isArray(servers)) return [];
  const firstIndex = new Map<string, number>();
  const issues: MCPConfigIssue[] = [];
  servers.forEach((server: unknown, index) => {
    const name = (server as { name?: unknown } | null)?.name;
    if (typeof name !== "string") return;
    const first = firstIndex.get(name);
    if (first === undefined) {
      firstIndex.set(name, index);
      return;
    }
    const firstPos = doc.locate(["servers", first, "name"]);
    const pos = doc.locate(["servers", index, "name"]);
    issues.push({
      path: `servers[${index}].name`,
      message: `duplicate server name "${name}" (first used by servers[${first}]${firstPos && doc.hasPositions !== false ? ` at line ${firstPos.line}` : ""}); names must be unique`,
      line: pos?.line,
      column: pos?.column,
    });
  });
  return issues;
}

function parseNative(doc: SourceDocument, options: ParseMCPConfigObjectOptions): MCPConfig {
  const { source } = options;
  const data = doc.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new MCPConfigError("Config must be a mapping with a top-level `servers:` list", {
      code: "CONFIG_INVALID",
      source,
      issues: [{ path: "", message: "expected a mapping with a `servers:` list", ...doc.locate([]) }],
    });
  }
  const result = configFileSchema.safeParse(data);
  const issues = sortIssues([
    ...(result.success ? [] : formatIssues(result.error.issues, doc, { knownKeys })),
    ...duplicateNameIssues(data, doc),
  ]);
  if (!result.success || issues.length > 0) {
    throw new MCPConfigError(
      `Invalid MCP server config (${issues.length} problem${issues.length === 1 ? "" : "s"})`,
      { code: "CONFIG_INVALID", source, issues },
    );
  }
  return {
    servers: result.data.servers.map((entry) => toServerConfig(entry, options.configDir)),
    permissions: normalizePermissions(result.data.permissions ?? {}),
    format: "agentforge",
    source,
    variables: [],
    warnings: [],
  };
}

function parseImported(
  doc: SourceDocument,
  imported: ImportResult,
  options: ParseMCPConfigObjectOptions,
): MCPConfig {
  const { source } = options;
  const result = configFileSchema.safeParse({ servers: imported.servers });
  if (!result.success) {
    const issues = formatIssues(result.error.issues, doc, {
      knownKeys,
      data: { servers: imported.servers },
      mapPath: (path) =>
        path[0] === "servers" && typeof path[1] === "number"
          ? [...(imported.sourcePaths[path[1]] ?? []), ...path.slice(2)]
          : path,
    });
    throw new MCPConfigError(
      `Invalid ${imported.format} config (${issues.length} problem${issues.length === 1 ? "" : "s"})`,
      { code: "CONFIG_INVALID", source, issues },
    );
  }
  return {
    servers: result.data.servers.map((entry) => toServerConfig(entry, options.configDir)),
    permissions: {},
    format: imported.format,
    source,
    variables: imported.variables,
    warnings: imported.warnings,
  };
}

/**
 * Parse and validate config text: our YAML/JSON `servers:` list, or an `mcpServers` / VS Code
 * `servers` JSON object from a desktop or editor MCP client (converted, secrets never carried over).
 * Throws `MCPConfigError` naming source, line, column and field path for every problem found.
 */
export function parseMCPConfig(text: string, options: ParseMCPConfigOptions = {}): MCPConfig {
  return parseSourceDocument(
    readSource(text, options.source, options.maxBytes ?? DEFAULT_MAX_CONFIG_BYTES),
    options,
  );
}

/** Options of `parseMCPConfigObject`. */
export interface ParseMCPConfigObjectOptions {
  /** A label for error messages, e.g. "createMCPToolkit config". */
  source?: string;
  /** What `${CONFIG_DIR}` expands to. */
  configDir?: string;
}

/**
 * Validate a config written in code: the object a YAML or JSON file gives once parsed (snake_case keys,
 * a `servers:` list, an optional `permissions:` section; an `mcpServers` or VS Code `servers` object is
 * converted as from a file). Same checks, defaults, field paths and messages as `parseMCPConfig` — it
 * is the same code path — but no text round trip and no line/column (issues carry none). The input must
 * be plain data (objects, arrays, strings, numbers, booleans, null; keys whose value is `undefined`
 * count as absent); it is copied, never modified. Throws `MCPConfigError` (`CONFIG_INVALID`).
 */
export function parseMCPConfigObject(input: unknown, options: ParseMCPConfigObjectOptions = {}): MCPConfig {
  const doc = objectSource(input, options.source);
  let config: MCPConfig;
  try {
    config = parseSourceDocument(doc, options);
  } catch (error) {
    if (!MCPConfigError.isInstance(error) || error.issues.length === 0) throw error;
    // The order the issues came in is the object's; lines and columns would point nowhere.
    throw new MCPConfigError(summaryOf(error), {
      code: error.code,
      source: error.source,
      issues: error.issues.map(withoutPosition),
      ...(error.serverName === undefined ? {} : { serverName: error.serverName }),
    });
  }
  return { ...config, warnings: config.warnings.map(withoutPosition) };
}

// The summary line an MCPConfigError was built with (its message minus " in <source>" and the issues).
function summaryOf(error: MCPConfigError): string {
  let summary = error.message.split("\n")[0] ?? error.message;
  if (error.issues.length > 0 && summary.endsWith(":")) summary = summary.slice(0, -1);
  const where = ` in ${error.source}`;
  return error.source && summary.endsWith(where) ? summary.slice(0, -where.length) : summary;
}

function withoutPosition({ path, message }: MCPConfigIssue): MCPConfigIssue {
  return { path, message };
}

function parseSourceDocument(doc: SourceDocument, options: ParseMCPConfigObjectOptions): MCPConfig {
  const fast = parseFast(doc, options);
  const imported = fast ? undefined : importClientConfig(doc, options.source);
  const config = fast ?? (imported ? parseImported(doc, imported, options) : parseNative(doc, options));
  checkGrantServers(config, doc, options.source);
  return config;
}

/**
 * A grant that names a server the roster does not define is a mistake (a typo, a renamed server): it
 * would silently grant nothing. Reported like any other problem of the file, with its position.
 */
function checkGrantServers(config: MCPConfig, doc: SourceDocument, source: string | undefined): void {
  const raw = (doc.data as { permissions?: unknown } | null)?.permissions;
  const problems = findGrantServerProblems(
    raw,
    config.servers.map((server) => server.name),
  );
  if (problems.length === 0) return;
  const issues = sortIssues(
    problems.map((problem) => {
      const path = ["permissions", ...problem.path];
      return { path: formatPath(path), message: problem.message, ...doc.locate(path) };
    }),
  );
  throw new MCPConfigError(
    `Invalid MCP server config (${issues.length} problem${issues.length === 1 ? "" : "s"})`,
    { code: "CONFIG_INVALID", source, issues },
  );
}

/** Parse config text and return its servers; see `parseMCPConfig` for the accepted formats. */
export function parseMCPServerConfigs(text: string, options: ParseMCPConfigOptions = {}): MCPServerConfig[] {
  return parseMCPConfig(text, options).servers;
}
