// Fixtures of the service tests: a roster whose filesystem server sits behind a gate (a real stdio proxy
// that holds every tools/call until the gate file exists, so runs stay active as long as a test needs,
// without timing), the child processes of a PID read from /proc, and a small JSON client.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  EXAMPLE_SERVER_ENV,
  exampleServer,
  exampleServerBin,
  SAMPLE_PROJECT,
  stdioServer,
} from "./mcp-fixtures.js";

/** A stdio MCP proxy: forwards everything to the command after `--`, holding tools/call until `gate` exists. */
const GATE_PROXY = `import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
const [gate, ...command] = process.argv.slice(2);
const child = spawn(process.execPath, command, { stdio: ["pipe", "inherit", "inherit"], env: process.env });
const open = () => new Promise((resolve) => {
  const timer = setInterval(() => { if (existsSync(gate)) { clearInterval(timer); resolve(); } }, 50);
});
let buffer = "";
let chain = Promise.resolve();
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  for (let end = buffer.indexOf("\\n"); end >= 0; end = buffer.indexOf("\\n")) {
    const line = buffer.slice(0, end + 1);
    buffer = buffer.slice(end + 1);
    const held = line.includes('"tools/call"');
    chain = chain.then(async () => {
      if (held && !existsSync(gate)) await open();
      child.stdin.write(line);
    });
  }
});
process.stdin.on("end", () => chain.then(() => child.stdin.end()));
process.on("SIGTERM", () => child.kill("SIGTERM"));
child.on("exit", (code) => process.exit(code ?? 0));
`;

/** A temp folder for a service test. */
export interface ServiceRoster {
  dir: string;
  config: string;
  stateDir: string;
  /** Allowed base; holds `proj` (the sample project) and `secret.txt` (outside every run's folder). */
  base: string;
  /** While this file is missing, every filesystem tools/call waits. */
  gate: string;
  openGate(): void;
  closeGate(): void;
  /** Write the roster (servers YAML + permissions YAML) editor-style: a temp file renamed over it. */
  write(servers: string, permissions?: string): void;
  cleanup(): void;
}

/** The filesystem (gated), sequential-thinking and local-tools servers as YAML list entries. */
export function serviceServers(roster: Pick<ServiceRoster, "gate" | "dir">): string {
  const gated = [join(roster.dir, "gate-proxy.mjs"), roster.gate, exampleServerBin("filesystem")];
  return `${stdioServer("filesystem", gated, {
    description: "Workspace files (gated)",
    env: EXAMPLE_SERVER_ENV.filesystem,
  })}
${exampleServer("sequential-thinking")}
${localToolsServer("local-tools")}`;
}

/** A local-tools server entry named `name`. */
export function localToolsServer(name: string, description?: string): string {
  return `${stdioServer(name, [exampleServerBin("local-tools")], description ? { description } : {})}\n`;
}

export const DEFAULT_PERMISSIONS = `permissions:
  documentation: [filesystem.*, sequential-thinking.*]
  ops: [local-tools.echo]
`;

export function serviceRoster(): ServiceRoster {
  const dir = mkdtempSync(join(tmpdir(), "agentforge-service-"));
  const base = join(dir, "base");
  mkdirSync(base);
  cpSync(SAMPLE_PROJECT, join(base, "proj"), { recursive: true });
  writeFileSync(join(base, "secret.txt"), "not for any run\n");
  writeFileSync(join(dir, "gate-proxy.mjs"), GATE_PROXY);
  const gate = join(dir, "gate-open");
  const config = join(dir, "mcp_servers.yaml");
  const roster: ServiceRoster = {
    dir,
    config,
    stateDir: join(dir, "state"),
    base,
    gate,
    openGate: () => writeFileSync(gate, "open"),
    closeGate: () => rmSync(gate, { force: true }),
    write: (servers, permissions = DEFAULT_PERMISSIONS) => {
      const temp = `${config}.tmp`;
      writeFileSync(temp, `servers:\n${servers}${permissions}`);
      // Editor-style: a new file renamed over the old one (a watch on the old inode would miss it).
      renameSync(temp, config);
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  roster.write(serviceServers(roster));
  return roster;
}

/** The PIDs of the direct children of `pid`, from /proc (every thread's `children` list). */
export function childPids(pid: number): number[] {
  const pids = new Set<number>();
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) return [];
  for (const tid of readdirSync(tasks)) {
    try {
      for (const child of readFileSync(join(tasks, tid, "children"), "utf8")
        .trim()
        .split(/\s+/)) {
        if (child) pids.add(Number(child));
      }
    } catch {
      // the thread ended meanwhile
    }
  }
  return [...pids].sort((a, b) => a - b);
}

/** Every descendant of `pid` (children, their children...). */
export function descendantPids(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    for (const child of childPids(next)) {
      out.push(child);
      queue.push(child);
    }
  }
  return out.sort((a, b) => a - b);
}

/** A JSON response. */
export interface JsonResponse {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
  text: string;
}

/** A JSON client of one `agentforge serve` base URL. */
export function jsonClient(base: () => string) {
  return async (method: string, path: string, body?: unknown): Promise<JsonResponse> => {
    const response = await fetch(`${base()}${path}`, {
      method,
      ...(body !== undefined
        ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }
        : {}),
    });
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON
    }
    return { status: response.status, headers: response.headers, json, text };
  };
}

/** Read a run's SSE stream until an event of `type` arrives (rejects after `timeoutMs`). */
export async function waitForEvent(url: string, type: string, timeoutMs = 150_000): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no ${type} event on ${url}`)), timeoutMs);
  try {
    const response = await fetch(url, {
      headers: { Accept: "text/event-stream" },
      signal: controller.signal,
    });
    if (!response.body) throw new Error(`no event stream at ${url} (${response.status})`);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended before a ${type} event:\n${text}`);
      text += decoder.decode(value, { stream: true });
      if (text.includes(`event: ${type}\n`)) {
        await reader.cancel().catch(() => undefined);
        return;
      }
    }
  } finally {
    clearTimeout(timer);
  }
}
