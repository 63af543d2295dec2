// `pnpm bench`: how long the built CLI takes to start, against a bare `node -e 0`. Every sample is one
// real process (`node dist/cli.js ...`), spawned and waited for; the variants alternate within each
// round (order reversed every other round) so a change in machine load hits them alike. It also lists
// which packages each command loads (through a module-loading hook), which is what the start time
// depends on: `--help` must not load LangChain, Hono, PGlite, the MCP SDK or zod.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  type Figures,
  formatMs,
  formatRatio,
  heading,
  printFigure,
  printTable,
  summarize,
} from "@agentforge/bench";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const SHIPPED_CONFIG = fileURLToPath(new URL("../config/mcp_servers.yaml", import.meta.url));
const APP_ROOT = fileURLToPath(new URL("..", import.meta.url));
const envRounds = Number(process.env.BENCH_ROUNDS);
const ROUNDS = Number.isInteger(envRounds) && envRounds > 0 ? envRounds : 20;
const TARGET_MS = 250;
/** Packages no start-up path of `--help` may load. */
const HEAVY = [
  "@langchain/",
  "langsmith",
  "hono",
  "@electric-sql/pglite",
  "@modelcontextprotocol/sdk",
  "zod",
];

interface Command {
  name: string;
  args: string[];
}

function run(args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd: APP_ROOT, env, encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    throw new Error(
      `"node ${args.join(" ")}" exited with ${result.status ?? result.signal}: ${result.stderr.slice(0, 500)}`,
    );
  }
  return { ms, stderr: result.stderr };
}

/** The package (or workspace package) a loaded module URL belongs to. */
function packageOf(url: string): string {
  const inNodeModules = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inNodeModules) return inNodeModules[1] as string;
  const workspace = /\/(?:packages|apps|tooling)\/([^/]+)\//.exec(url);
  if (workspace) return `@agentforge/${workspace[1]}`;
  return url.startsWith("node:") ? "node:*" : url;
}

/** Which modules `node <args>` loads, grouped by package, via a module `load` hook writing to stderr. */
function loadedModules(args: readonly string[], dir: string): Map<string, number> {
  const hooks = join(dir, "hooks.mjs");
  const register = join(dir, "register.mjs");
  writeFileSync(
    hooks,
    `import { writeSync } from "node:fs";
export async function load(url, context, next) {
  const result = await next(url, context);
  writeSync(2, "agentforge-bench-load " + url + "\\n");
  return result;
}\n`,
  );
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const { stderr } = run(["--import", pathToFileURL(register).href, ...args]);
  const counts = new Map<string, number>();
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("agentforge-bench-load ")) continue;
    const name = packageOf(line.slice("agentforge-bench-load ".length));
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

function main(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run pnpm --filter @agentforge/demo build first`);
  const dir = mkdtempSync(join(tmpdir(), "agentforge-cli-start-"));
  try {
    const list = ["mcp", "list", "--config", SHIPPED_CONFIG, "--state-dir", join(dir, "state")];
    const commands: Command[] = [
      { name: "node -e 0 (baseline)", args: ["-e", "0"] },
      { name: "agentforge --help", args: [CLI, "--help"] },
      { name: "agentforge mcp list", args: [CLI, ...list] },
    ];

    heading("demo: modules loaded at start (through a module load hook)");
    for (const command of commands.slice(1)) {
      const counts = loadedModules(command.args, dir);
      const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
      const heavy = [...counts.keys()].filter((name) => HEAVY.some((prefix) => name.startsWith(prefix)));
      printFigure(`${command.name}: modules`, String(total));
      printFigure(`${command.name}: heavy packages`, heavy.length ? heavy.sort().join(", ") : "none");
      if (command.args[1] === "--help" && heavy.length > 0) {
        throw new Error(`agentforge --help loads ${heavy.join(", ")}: some import in cli.ts is not lazy`);
      }
    }

    heading(`demo: CLI start, ${ROUNDS} rounds alternating (one process per sample)`);
    for (const command of commands) run(command.args); // warm-up round, not counted: fills the file cache
    const samples = commands.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++) {
      const order = commands.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      for (const index of order) samples[index]?.push(run((commands[index] as Command).args).ms);
    }
    const rows: Figures[] = commands.map((command, i) => summarize(command.name, samples[i] ?? []));
    printTable(rows);
    const [baseline, ...cli] = rows;
    for (const row of cli) {
      printFigure(`${row.name}: median over node -e 0`, formatMs(row.medianMs - (baseline?.medianMs ?? 0)));
      printFigure(
        `${row.name}: median vs target ${TARGET_MS} ms`,
        `${formatMs(row.medianMs)} (${formatRatio(row.medianMs, TARGET_MS)} of target)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
