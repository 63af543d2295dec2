// Fixtures of the management-surface tests (mcp CLI, REST API, dashboard): a temp roster with healthy,
// broken, unreachable and disabled servers and a canary secret; `agentforge serve` as a child process;
// an SSE reader. Every process started here is ended by the returned `stop()`/`cleanup()`.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLI, cliEnv } from "./cli.js";

/** Absolute path of a built bin of @agentforge/example-servers (`filesystem`, `local-tools`, ...). */
export const exampleServerBin = (name: string): string =>
  fileURLToPath(
    new URL(`../../node_modules/@agentforge/example-servers/dist/bin/${name}.js`, import.meta.url),
  );
/** The demo's sample project (documented by runs). */
export const SAMPLE_PROJECT = fileURLToPath(new URL("../../sample-project", import.meta.url));
/** Where tests write artefacts (gitignored). */
export const TEST_OUTPUT = fileURLToPath(new URL("../../test-output", import.meta.url));

/**
 * The `connection_timeout` of every test roster's stdio server that is meant to start. At a load of 20-40
 * on two cores a Node.js server can take longer than the default 10 s to start; the server then counts as
 * failed and the test sees a roster it did not write (seen: a run without its server's tools, so no
 * tool_progress event at all; `mcp refresh` reporting a healthy server failed). What these tests check is
 * what happens once a server is up, so their servers get a budget that no busy machine exhausts.
 */
export const SERVER_START_SECONDS = 60;

/** A YAML value written as it is (a flow mapping, a number), for `stdioServer`'s `more`. */
type YamlValue = string | number;

/**
 * One enabled stdio server of a test roster (a YAML list entry, no trailing newline): `${NODE} ...args`,
 * given SERVER_START_SECONDS to start. `more` holds further keys of the entry, each value as YAML.
 */
export function stdioServer(
  name: string,
  args: readonly string[],
  more: Readonly<Record<string, YamlValue>> = {},
): string {
  return [
    `  - name: ${name}`,
    "    enabled: true",
    "    transport: stdio",
    `    connection_timeout: ${SERVER_START_SECONDS}`,
    "    command: ${NODE}",
    `    args: ${JSON.stringify(args)}`,
    ...Object.entries(more).map(([key, value]) => `    ${key}: ${value}`),
  ].join("\n");
}

/** The environment mapping each example server needs in a roster (the variables the CLI manages). */
export const EXAMPLE_SERVER_ENV = {
  filesystem: "{ WORKSPACE_ROOT: AGENTFORGE_WORKSPACE }",
  "sequential-thinking": "{ DISABLE_THOUGHT_LOGGING: AGENTFORGE_DISABLE_THOUGHT_LOGGING }",
  "local-tools": undefined,
} as const;

/** An example server of this repo as a roster entry named after it (see `stdioServer`). */
export function exampleServer(
  bin: keyof typeof EXAMPLE_SERVER_ENV,
  more: Readonly<Record<string, YamlValue>> = {},
): string {
  const env = EXAMPLE_SERVER_ENV[bin];
  return stdioServer(bin, [exampleServerBin(bin)], { ...(env ? { env } : {}), ...more });
}

/** The environment variable holding the canary secret in every fixture roster. */
export const CANARY_VARIABLE = "AF_TEST_CANARY_SECRET";

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

/** A temp folder with a roster, a state folder, an allowed base holding `proj`, and a canary secret. */
export interface Roster {
  dir: string;
  config: string;
  stateDir: string;
  /** Allowed base of runs; contains `proj` (a copy of the sample project) and `notes.txt`. */
  base: string;
  /** The secret value, set in `env` under CANARY_VARIABLE; must never appear in any output. */
  canary: string;
  /** The file the `broken` server creates when it is started (proves `mcp list` never starts one). */
  marker: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** The servers of `tempRoster()`, in file order. */
export const TEMP_ROSTER_SERVERS = [
  "local-tools",
  "filesystem",
  "sequential-thinking",
  "broken",
  "remote",
  "off",
];

/**
 * Servers: local-tools, filesystem, sequential-thinking (healthy); `broken` (stdio, prints the canary on
 * stderr and exits 3); `remote` (http on a closed port, bearer token = the canary); `off` (disabled).
 */
export async function tempRoster(): Promise<Roster> {
  const dir = mkdtempSync(join(tmpdir(), "agentforge-mcp-"));
  const base = join(dir, "base");
  mkdirSync(base);
  cpSync(SAMPLE_PROJECT, join(base, "proj"), { recursive: true });
  writeFileSync(join(base, "notes.txt"), "not a folder\n");
  const canary = `canary-${Math.random().toString(36).slice(2)}-secret`;
  const marker = join(dir, "broken-started");
  const port = await closedPort();
  const config = join(dir, "mcp_servers.yaml");
  writeFileSync(
    config,
    `servers:
${exampleServer("local-tools", { display_name: "Local tools" })}
${exampleServer("filesystem", { display_name: "Workspace files" })}
${exampleServer("sequential-thinking")}
${stdioServer(
  "broken",
  [
    "-e",
    "require('node:fs').writeFileSync(process.env.MARKER, 'started'); console.error('boom: token=' + process.env.SECRET); process.exit(3)",
  ],
  {
    description: "Starts, prints its secret on stderr, exits 3",
    env: `{ SECRET: ${CANARY_VARIABLE}, MARKER: AF_TEST_MARKER_FILE }`,
  },
)}
  - name: remote
    display_name: Remote (unreachable)
    enabled: true
    transport: http
    url: http://127.0.0.1:${port}/mcp
    auth: { type: bearer, credential_env_var: ${CANARY_VARIABLE} }
    connection_timeout: 5
  - name: off
    enabled: false
    transport: stdio
    command: \${NODE}
permissions:
  documentation: [filesystem.*, sequential-thinking.*]
  ops: [local-tools.echo]
`,
  );
  return {
    dir,
    config,
    stateDir: join(dir, "state"),
    base,
    canary,
    marker,
    env: { [CANARY_VARIABLE]: canary, AF_TEST_MARKER_FILE: marker },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A running `agentforge serve`. */
export interface Served {
  /** e.g. `http://127.0.0.1:41234`. */
  url: string;
  child: ChildProcess;
  /** Everything written on stderr so far. */
  stderr(): string;
  /** SIGTERM, wait for exit (SIGKILL after 15 s); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Spawn `agentforge serve ...args` and wait for its ready line (rejects if it exits first). */
export function startServe(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Served> {
  const child = spawn(process.execPath, [CLI, "serve", ...args], {
    cwd: options.cwd,
    env: cliEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`serve did not get ready in time; stderr:\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ url: match[1], child, stderr: () => stderr, stop });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        Object.assign(new Error(`serve exited with ${code} before it was ready:\n${stderr}${stdout}`), {
          code,
          stderr,
        }),
      );
    });
  });
}

/** One parsed SSE event. */
export interface SseEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/** The fields of one SSE event block that the API sends (comment lines and other fields left out). */
export interface SseBlock {
  id?: string;
  event?: string;
  data?: string;
}

/**
 * Splits the text of an event stream into its blocks, as chunks arrive: `push` returns the blocks the
 * text completed (a keep-alive comment gives a block without fields); an unfinished block waits.
 */
export class SseSplitter {
  #buffer = "";

  push(text: string): SseBlock[] {
    this.#buffer += text;
    const blocks: SseBlock[] = [];
    for (let end = this.#buffer.indexOf("\n\n"); end >= 0; end = this.#buffer.indexOf("\n\n")) {
      const block: SseBlock = {};
      for (const line of this.#buffer.slice(0, end).split("\n")) {
        const colon = line.indexOf(":");
        if (colon <= 0) continue; // a comment (":..."), or not a field
        const name = line.slice(0, colon);
        if (name === "id" || name === "event" || name === "data")
          block[name] = line.slice(colon + 1).replace(/^ /, "");
      }
      blocks.push(block);
      this.#buffer = this.#buffer.slice(end + 2);
    }
    return blocks;
  }
}

/**
 * Read an SSE stream until it ends, `until` returns true, or `timeoutMs` passes (then it rejects).
 * Returns the events read and the response status and headers.
 */
export async function readSse(
  url: string,
  options: {
    headers?: Record<string, string>;
    until?: (event: SseEvent) => boolean;
    timeoutMs?: number;
  } = {},
): Promise<{ status: number; contentType: string; events: SseEvent[]; raw: string; ended: boolean }> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`SSE read timed out: ${url}`)),
    options.timeoutMs ?? 60_000,
  );
  const events: SseEvent[] = [];
  let raw = "";
  try {
    const response = await fetch(url, {
      headers: { Accept: "text/event-stream", ...options.headers },
      signal: controller.signal,
    });
    const contentType = response.headers.get("content-type") ?? "";
    if (!response.body || !contentType.startsWith("text/event-stream")) {
      raw = await response.text();
      return { status: response.status, contentType, events, raw, ended: true };
    }
    const decoder = new TextDecoder();
    const splitter = new SseSplitter();
    let stopped = false;
    for await (const chunk of response.body) {
      const text = decoder.decode(chunk as Uint8Array, { stream: true });
      raw += text;
      for (const block of splitter.push(text)) {
        if (block.data === undefined) continue;
        const event: SseEvent = {
          id: Number(block.id),
          event: block.event ?? "message",
          data: JSON.parse(block.data) as Record<string, unknown>,
        };
        events.push(event);
        if (options.until?.(event)) {
          stopped = true;
          break;
        }
      }
      // Leaving the loop cancels the body stream cleanly; aborting the request while the iterator still
      // reads would make its cleanup reject with AbortError.
      if (stopped) break;
    }
    if (stopped) {
      controller.abort();
      return { status: response.status, contentType, events, raw, ended: false };
    }
    return { status: response.status, contentType, events, raw, ended: true };
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a process is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
