// What each bin's stdio front answers before the SDK is loaded: the generated initialize and tools/list
// data of every server (default options), with the few texts and bounds that depend on the options
// recomputed. test/stdio-snapshots.test.ts compares every one with the live server, for several options.

import { type FilesystemLimits, readMediaFileDescription } from "../filesystem/filesystem-limits.js";
import { FILESYSTEM_TOOLS_SNAPSHOT } from "../filesystem/tools-snapshot.js";
import { LOCAL_TOOLS_SNAPSHOT } from "../local-tools/tools-snapshot.js";
import {
  executeQueryDescription,
  maxRowsDescription,
  type PostgresLimits,
} from "../postgres/postgres-options.js";
import { POSTGRES_TOOLS_SNAPSHOT } from "../postgres/tools-snapshot.js";
import { SEQUENTIAL_THINKING_TOOLS_SNAPSHOT } from "../sequential-thinking/tools-snapshot.js";
import { PROTOCOL_VERSIONS } from "./protocol-versions.js";
import type { StdioSnapshot } from "./serve-stdio-lazily.js";
import { VERSION } from "./version.js";

/**
 * A server's `initialize` (without version negotiation), `server/discover` capabilities and
 * `tools/list` results, as generated.
 */
export interface ToolsSnapshot {
  name: string;
  capabilities: Record<string, unknown>;
  discoverCapabilities: Record<string, unknown>;
  tools: Record<string, unknown>[];
}

type Tool = Record<string, unknown>;

function toolNamed(tools: Tool[], name: string): Tool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`the tools snapshot has no tool "${name}"`);
  return tool;
}

function property(tool: Tool, name: string): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, Record<string, unknown>> } | undefined;
  const found = schema?.properties?.[name];
  if (!found) throw new Error(`the tools snapshot's ${String(tool.name)} has no argument "${name}"`);
  return found;
}

function build(data: ToolsSnapshot, adjust?: (tools: Tool[]) => void): StdioSnapshot {
  const tools = structuredClone(data.tools);
  adjust?.(tools);
  return {
    initialize: {
      capabilities: data.capabilities,
      serverInfo: { name: data.name, version: VERSION },
    },
    discoverCapabilities: data.discoverCapabilities,
    toolsList: { tools },
    protocolVersions: PROTOCOL_VERSIONS,
  };
}

/** The local-tools server's snapshot. */
export const localToolsSnapshot = (): StdioSnapshot => build(LOCAL_TOOLS_SNAPSHOT);

/** The sequential-thinking server's snapshot. */
export const sequentialThinkingSnapshot = (): StdioSnapshot => build(SEQUENTIAL_THINKING_TOOLS_SNAPSHOT);

/** The filesystem server's snapshot for these limits. */
export const filesystemSnapshot = (limits: FilesystemLimits): StdioSnapshot =>
  build(FILESYSTEM_TOOLS_SNAPSHOT, (tools) => {
    toolNamed(tools, "read_media_file").description = readMediaFileDescription(limits.maxMediaBytes);
  });

/** The postgres server's snapshot for these limits. */
export const postgresSnapshot = (limits: PostgresLimits): StdioSnapshot =>
  build(POSTGRES_TOOLS_SNAPSHOT, (tools) => {
    const query = toolNamed(tools, "execute_query");
    query.description = executeQueryDescription(limits);
    const maxRows = property(query, "max_rows");
    maxRows.default = limits.defaultMaxRows;
    maxRows.maximum = limits.maxRowsLimit;
    maxRows.description = maxRowsDescription(limits);
  });
