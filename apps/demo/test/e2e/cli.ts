// Running the built `agentforge` CLI as a child process.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run `agentforge ...args` to completion (killed after `timeoutMs`). */
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

export function agentforge(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: cliEnv(options.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}
