/**
 * Node-only entry (`@agentforge/mcp-config/node`): loading config files from disk.
 * The root entry stays free of filesystem access so it can be imported anywhere.
 */
import { open, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { MCPConfigError } from "./errors.js";
import { parseFast } from "./internal/parse-fast.js";
import { DEFAULT_MAX_CONFIG_BYTES, readSource } from "./internal/yaml-source.js";
import type { MCPConfig } from "./parse-mcp-config.js";
import type { MCPServerConfig } from "./schema.js";

/** Options of `loadMCPConfig`. */
export interface LoadMCPConfigOptions {
  /** Refuse files larger than this many bytes (default 1 MiB). */
  maxBytes?: number;
}

function errnoCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

/**
 * Read, parse and validate a config file (YAML, or JSON in our format, `mcpServers` or VS Code
 * `servers` form). `${CONFIG_DIR}` in the result expands to the file's folder.
 * Throws `MCPConfigError`: CONFIG_NOT_FOUND, CONFIG_UNREADABLE, CONFIG_TOO_LARGE, CONFIG_SYNTAX, CONFIG_INVALID.
 */
export async function loadMCPConfig(path: string, options: LoadMCPConfigOptions = {}): Promise<MCPConfig> {
  const file = resolve(path);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_CONFIG_BYTES;
  let text: string;
  try {
    const info = await stat(file);
    if (info.isDirectory()) {
      throw new MCPConfigError(`Config path ${file} is a directory; expected a YAML or JSON file`, {
        code: "CONFIG_UNREADABLE",
        source: file,
      });
    }
    if (info.size > maxBytes) {
      throw new MCPConfigError(
        `Config file ${file} is ${info.size} bytes, over the limit of ${maxBytes} bytes; an MCP server roster is a few kilobytes`,
        { code: "CONFIG_TOO_LARGE", source: file },
      );
    }
    // Read at most maxBytes + 1, so a file that grows after stat() is still refused without reading it all.
    const handle = await open(file, "r");
    try {
      const buffer = Buffer.alloc(Math.min(maxBytes + 1, Math.max(info.size, 0) + 1));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      text = buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (MCPConfigError.isInstance(error)) throw error;
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new MCPConfigError(`Config file ${file} does not exist`, {
        code: "CONFIG_NOT_FOUND",
        source: file,
        cause: error,
      });
    }
    const reason =
      code === "EACCES" || code === "EPERM"
        ? "permission denied"
        : code === "EISDIR"
          ? "it is a directory"
          : `I/O error ${code ?? "unknown"}`;
    throw new MCPConfigError(`Config file ${file} cannot be read: ${reason}`, {
      code: "CONFIG_UNREADABLE",
      source: file,
      cause: error,
    });
  }
  const parseOptions = { source: file, configDir: dirname(file), maxBytes };
  // A valid file is validated without zod (fast start for CLIs); the schema, and zod with it, is
  // loaded only when the file needs it — to word the errors of an invalid one, or for oauth entries.
  const fast = parseFast(readSource(text, file, maxBytes), parseOptions);
  if (fast) return fast;
  const { parseMCPConfig } = await import("./parse-mcp-config.js");
  return parseMCPConfig(text, parseOptions);
}

/** Load a config file and return its servers; see `loadMCPConfig`. */
export async function loadMCPServerConfigs(
  path: string,
  options: LoadMCPConfigOptions = {},
): Promise<MCPServerConfig[]> {
  return (await loadMCPConfig(path, options)).servers;
}
