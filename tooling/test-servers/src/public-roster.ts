// The public roster: the tool lists of 14 public MCP servers, recorded from their npm packages
// (scripts/record-public-rosters.mjs) or, for the git server (Python only), written from its documented
// interface. For tests and benches of large rosters; `replayServer` serves one of them over stdio.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { MCPStdioServerConfig } from "@agentforge/mcp-config";

/** Absolute path of the replay server script (`node <path> <roster.json>`). */
export const REPLAY_SERVER: string = fileURLToPath(new URL("../servers/replay-server.mjs", import.meta.url));

/** Folder of the recorded tool lists, one `<server>.json` per server. */
export const PUBLIC_ROSTER_DIR: string = fileURLToPath(new URL("../rosters/public/", import.meta.url));

/** A tool as its server listed it (`tools/list`), unchanged. */
export interface RecordedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** One server of the public roster. */
export interface RecordedServer {
  /** The roster name of the server (`github`, `google-maps`, ...). */
  server: string;
  /** Where the list comes from: recorded from an npm package (name, version, date), or documented. */
  source: { kind: "recorded" | "documented"; package: string; version?: string; how: string };
  tools: RecordedTool[];
}

/** Every server of the public roster, in name order. */
export function publicRoster(): RecordedServer[] {
  return readdirSync(PUBLIC_ROSTER_DIR)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => JSON.parse(readFileSync(`${PUBLIC_ROSTER_DIR}${name}`, "utf8")) as RecordedServer);
}

/** An enabled stdio `MCPServerConfig` serving the recorded tool list of `server` (calls answer with an error). */
export function replayServer(
  server: string,
  overrides: Partial<Omit<MCPStdioServerConfig, "transport">> = {},
): MCPStdioServerConfig {
  return {
    name: server,
    enabled: true,
    transport: "stdio",
    command: process.execPath,
    args: [REPLAY_SERVER, `${PUBLIC_ROSTER_DIR}${server}.json`],
    env: {},
    connectionTimeout: 60,
    toolTimeout: 30,
    resetTimeoutOnProgress: false,
    ...overrides,
  };
}
