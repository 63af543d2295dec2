// Launching the built bins as real child processes, and connecting the SDK client (v2, either protocol
// era; or v1, 2025 only) to them.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioClientTransportV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/**
 * How the v2 client picks the protocol era: `auto` probes with server/discover and uses 2026-07-28 when
 * the server serves it (our servers do), `legacy` is the 2025 initialize handshake (the SDK's default),
 * `2026-07-28` pins the new revision (no fallback).
 */
export type Era = "auto" | "legacy" | "2026-07-28";

const negotiation = (era: Era) => ({
  versionNegotiation: { mode: era === "2026-07-28" ? { pin: era } : era },
});

/** Absolute path of a built bin, e.g. `binPath("local-tools")`. */
export const binPath = (name: string) => fileURLToPath(new URL(`../../dist/bin/${name}.js`, import.meta.url));

/** A running bin started by a test; `stop()` is idempotent and waits for the exit. */
export interface RunningBin {
  child: ChildProcess;
  stderr: () => string;
  /** The `listening on` URL (HTTP mode only). */
  url: string;
  stop(): Promise<void>;
}

const running = new Set<RunningBin>();

/** Stop every bin a test file started; call from afterEach so failures leave no process behind. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((bin) => bin.stop()));
}

/** Start a bin and wait for its ready line on stderr (`ready on stdio` or `listening on <url>`). */
export function startBin(
  name: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; stdin?: "pipe" | "ignore" } = {},
): Promise<RunningBin> {
  const child = spawn(process.execPath, [binPath(name), ...args], {
    env: { ...process.env, ...options.env },
    stdio: [options.stdin ?? "pipe", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const bin: RunningBin = {
    child,
    stderr: () => stderr,
    url: "",
    async stop() {
      running.delete(bin);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
  running.add(bin);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void bin.stop();
      reject(new Error(`${name} did not become ready in time; stderr:\n${stderr}`));
    }, options.timeoutMs ?? 150_000); // PGlite start-up has taken over 30 s on a busy CI machine
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      stderr += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url || stderr.includes("ready on stdio")) {
        clearTimeout(timer);
        bin.url = url ?? "";
        resolve(bin);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready; stderr:\n${stderr}`));
    });
  });
}

/** Run a bin to completion (for --help, --version, bad flags) and collect its output. */
export function runBin(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [binPath(name), ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A v2 SDK client over stdio to a bin (the SDK spawns and, on close, ends the child). */
export async function connectStdio(
  name: string,
  args: string[] = [],
  env: Record<string, string> = {},
  era: Era = "auto",
): Promise<Client> {
  const client = new Client({ name: "e2e", version: "0.0.0" }, negotiation(era));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binPath(name), ...args],
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  });
  await client.connect(transport);
  return client;
}

/** A v2 SDK client over Streamable HTTP, optionally with a bearer token. */
export async function connectHttp(url: string, token?: string, era: Era = "auto"): Promise<Client> {
  const client = new Client({ name: "e2e", version: "0.0.0" }, negotiation(era));
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {},
  );
  await client.connect(transport);
  return client;
}

/** A v1 SDK client (`@modelcontextprotocol/sdk`, 2025-era only) over stdio to a bin. */
export async function connectStdioV1(
  name: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<ClientV1> {
  const client = new ClientV1({ name: "e2e-v1", version: "0.0.0" });
  await client.connect(
    new StdioClientTransportV1({
      command: process.execPath,
      args: [binPath(name), ...args],
      env: { PATH: process.env.PATH ?? "", ...env },
      stderr: "pipe",
    }),
  );
  return client;
}

/** A v1 SDK client over Streamable HTTP. */
export async function connectHttpV1(url: string): Promise<ClientV1> {
  const client = new ClientV1({ name: "e2e-v1", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransportV1(new URL(url)));
  return client;
}

/** The text of a tool result's first content part. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? "").join("");
}
