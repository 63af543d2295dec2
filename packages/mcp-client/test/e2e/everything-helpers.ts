// The official reference servers (@modelcontextprotocol/server-everything and server-memory) as real
// child processes: their entry files, configs for them, and the everything server over Streamable HTTP.
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import type { MCPHttpServerConfig, MCPStdioServerConfig } from "@agentforge/mcp-config";
import { httpTestServer } from "@agentforge/test-servers";

const require = createRequire(import.meta.url);

/** The everything server's entry (`node <it> stdio|streamableHttp`). */
export const EVERYTHING_SERVER = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);
/** The memory server's entry (stdio). */
export const MEMORY_SERVER = join(
  dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")),
  "dist/index.js",
);

/** A stdio config running the everything server. */
export function everythingStdio(
  name = "everything",
  overrides: Partial<MCPStdioServerConfig> = {},
): MCPStdioServerConfig {
  return {
    name,
    enabled: true,
    transport: "stdio",
    command: process.execPath,
    args: [EVERYTHING_SERVER, "stdio"],
    env: {},
    connectionTimeout: 60,
    toolTimeout: 60,
    resetTimeoutOnProgress: false,
    ...overrides,
  };
}

/** A stdio config running the memory server, keeping its graph in the file named by env var `fileVariable`. */
export function memoryStdio(name: string, fileVariable: string): MCPStdioServerConfig {
  return {
    name,
    enabled: true,
    transport: "stdio",
    command: process.execPath,
    args: [MEMORY_SERVER],
    env: { MEMORY_FILE_PATH: fileVariable },
    connectionTimeout: 60,
    toolTimeout: 60,
    resetTimeoutOnProgress: false,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A running everything server over Streamable HTTP. */
export interface RunningEverything {
  url: string;
  pid: number;
  config(name?: string, overrides?: Partial<MCPHttpServerConfig>): MCPHttpServerConfig;
  stop(): Promise<void>;
}

function startOnce(port: number): Promise<{ child: ChildProcess; ok: boolean; stderr: string }> {
  const child = spawn(process.execPath, [EVERYTHING_SERVER, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), 150_000);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      // Keep draining stderr (a full pipe would block the server), but stop collecting it.
      child.stderr?.removeAllListeners("data");
      child.stderr?.resume();
      child.removeAllListeners("exit");
      resolve({ child, ok, stderr });
    };
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (stderr.includes(`listening on port ${port}`)) done(true);
    });
    child.once("exit", () => done(false));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/** Spawn the everything server in Streamable HTTP mode on a free port, once it says it listens. */
export async function startEverythingHttp(): Promise<RunningEverything> {
  let last = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const { child, ok, stderr } = await startOnce(port);
    if (!ok) {
      last = stderr;
      await stopChild(child);
      continue;
    }
    const url = `http://127.0.0.1:${port}/mcp`;
    return {
      url,
      pid: child.pid as number,
      config: (name = "everything", overrides = {}) =>
        httpTestServer(name, url, { toolTimeout: 60, ...overrides }),
      stop: () => stopChild(child),
    };
  }
  throw new Error(`the everything server did not start over HTTP: ${last}`);
}
