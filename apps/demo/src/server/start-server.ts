// `agentforge serve` without the command line: wire the management, the runs and the API, listen, and
// close it all again.
import { realpathSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { UsageError } from "../internal/usage-error.js";
import { MCPManagement } from "../mcp/mcp-management.js";
import { createApi } from "./create-api.js";
import { allowedHostsFor, assertServable } from "./request-guard.js";
import { RunManager } from "./run-manager.js";
import { loadStaticAssets } from "./static-assets.js";

/** Options of `startServer`. */
export interface StartServerOptions {
  /** Interface to bind (default 127.0.0.1); anything but loopback requires `token`. */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
  /** Server roster (default: the shipped one). */
  configPath?: string;
  /** State folder (runs, event logs, server logs, health records; default `.agentforge`). */
  stateDir?: string;
  /** Runs may only document folders under this one (default: the working directory). */
  allowedBase?: string;
  /** Bearer token every /api request must carry (required off loopback). */
  token?: string;
  /** Accepted Host header values (default on loopback: the bound address). */
  allowedHosts?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Check every server's health once at start, in the background (default true). */
  checkOnStart?: boolean;
}

/** A running server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The real path runs are confined to. */
  allowedBase: string;
  management: MCPManagement;
  /** Pause active runs, close connections, end every MCP server. */
  close(): Promise<void>;
}

function realFolder(path: string): string {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new UsageError(`--allowed-base ${path} does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new UsageError(`--allowed-base ${path} is not a folder`);
  return real;
}

/** Start the REST API and the /mcp page. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const token = options.token || undefined;
  assertServable(host, token);
  const allowedBase = realFolder(options.allowedBase ?? ".");
  const env = options.env ?? process.env;
  const stateDir = options.stateDir ?? ".agentforge";
  const assets = loadStaticAssets();
  const management = await MCPManagement.open({
    ...(options.configPath ? { configPath: options.configPath } : {}),
    stateDir,
    env,
    workspace: allowedBase,
    secrets: [token],
  });
  const runs = new RunManager({
    allowedBase,
    stateDir: management.app.stateDir,
    configPath: management.configPath,
    env,
  });
  let allowedHosts: Set<string> | undefined;
  const app = createApi({ management, runs, assets, token, allowedHosts: () => allowedHosts });
  const server = createAdaptorServer({ fetch: app.fetch });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await management.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  allowedHosts = allowedHostsFor(host, port, options.allowedHosts);
  if (options.checkOnStart !== false) void management.checkAll().catch(() => undefined);
  const urlHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    allowedBase,
    management,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await runs.close();
        if ("closeAllConnections" in server) server.closeAllConnections();
        await closed;
        await management.close();
      })();
      return closing;
    },
  };
}
