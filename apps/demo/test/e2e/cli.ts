// Running the built `agentforge` CLI as a child process.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * The environment a test CLI runs with: no colours, and no provider key or API token inherited from the
 * developer's shell, so every run is offline and unauthenticated unless a test says otherwise.
 */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NO_COLOR: "1",
    OPENAI_API_KEY: "",
    ANTHROPIC_API_KEY: "",
    OLLAMA_BASE_URL: "",
    AGENTFORGE_API_TOKEN: "",
    ...extra,
  };
}

/** Children started by `agentforge()` that have not exited yet. */
const running = new Set<ChildProcess>();

/** Remember a child so `killRunning()` ends it if the test that started it fails or times out. */
export function track<C extends ChildProcess>(child: C): C {
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

/** SIGKILL every tracked child still running (use in afterEach: a failed or timed-out test leaves none). */
export function killRunning(): void {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
}

/**
 * Run independent tasks at most `limit` at a time (default 2, the cores of the CI machine), results in
 * input order: a test's duration then grows with the slowest CLI start-ups, not with their number.
 */
export async function limited<T>(tasks: readonly (() => Promise<T>)[], limit = 2): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** Run `agentforge ...args` to completion (killed after `timeoutMs`, default 90 s). */
export function agentforge(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = track(
      spawn(process.execPath, [CLI, ...args], {
        cwd: options.cwd,
        env: cliEnv(options.env),
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 90_000);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}
