// `tsx bench/service.bench.ts` (after the demo's build): the service end to end — real `agentforge serve`
// processes (built dist/cli.js, offline model, the filesystem and sequential-thinking servers on a copy of
// the sample project), runs posted over HTTP, events read over SSE — files vs PostgreSQL.
// - runs per minute: RUNS docs runs posted with at most IN_FLIGHT going on at once (a 429 is retried after
//   its Retry-After), from the first POST until the last run's run_finished arrived over SSE; every run
//   must finish, and every stream must deliver events 1..N once, in order.
// - event latency: an event's `at` (stamped by the process that runs it, when it is produced) until the
//   SSE reader here receives it — same machine, same clock, 1 ms resolution. Only live events count: an
//   event stamped before the stream was open is a replay (its latency would be the wait for the reader).
// Files: one instance; events watched on that instance. PostgreSQL (a fresh database on the server of
// TEST_DATABASE_URL or DATABASE_URL, dropped afterwards; skipped with the reason printed when neither is
// set): two instances A and B on it, runs posted on A and B alternately (either may execute a run: they
// share one queue); each run is watched on both, and its events are counted as "on the other instance"
// (produced on one, seen over SSE on the other, through PostgreSQL) or "on the executing instance".
// A stream that ends before its run_finished is read on with Last-Event-ID (as a client does), one still
// open LINGER_MS after run_finished is closed here; both are counted and printed, as they are defects.
// Before measuring, each instance connects its servers (health check) and finishes one run, not counted.
// Environment: BENCH_SERVICE_RUNS (default 120), BENCH_SERVICE_IN_FLIGHT (default 4, in both modes).
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatMs, formatRatio, heading, printFigure } from "@agentforge/bench";
import { createTestDatabase, type TestDatabase } from "../src/run-store/postgres/test-database.js";
import {
  exampleServerBin,
  SAMPLE_PROJECT,
  type Served,
  SseSplitter,
  startServe,
} from "../test/e2e/mcp-fixtures.js";
import { descendantPids } from "../test/e2e/service-fixtures.js";

const envInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
const RUNS = envInt("BENCH_SERVICE_RUNS", 120);
const IN_FLIGHT = envInt("BENCH_SERVICE_IN_FLIGHT", 4);
/** `--max-runs` of every instance. */
const MAX_RUNS = 4;
/** The longest one run's event stream may take before the bench gives up. */
const RUN_TIMEOUT_MS = 120_000;

/** A temp folder: the roster, the state folders, and the allowed base holding `proj`. */
interface Fixture {
  dir: string;
  config: string;
  base: string;
}

function fixture(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), "agentforge-bench-service-"));
  const base = join(dir, "base");
  mkdirSync(base);
  cpSync(SAMPLE_PROJECT, join(base, "proj"), { recursive: true });
  const config = join(dir, "mcp_servers.yaml");
  writeFileSync(
    config,
    `servers:
  - name: filesystem
    enabled: true
    transport: stdio
    command: \${NODE}
    args: [${JSON.stringify(exampleServerBin("filesystem"))}]
    env: { WORKSPACE_ROOT: AGENTFORGE_WORKSPACE }
  - name: sequential-thinking
    enabled: true
    transport: stdio
    command: \${NODE}
    args: [${JSON.stringify(exampleServerBin("sequential-thinking"))}]
    env: { DISABLE_THOUGHT_LOGGING: AGENTFORGE_DISABLE_THOUGHT_LOGGING }
permissions:
  documentation: [filesystem.*, sequential-thinking.*]
`,
  );
  return { dir, config, base };
}

/** A running `agentforge serve`. */
interface Instance {
  name: string;
  id: string;
  served: Served;
}

/** Every instance started and not yet stopped (ended in `finally`, or on SIGINT/SIGTERM). */
const live = new Set<Instance>();

async function startInstance(name: string, at: Fixture, databaseUrl?: string): Promise<Instance> {
  const served = await startServe(
    [
      "--port",
      "0",
      "--config",
      at.config,
      "--state-dir",
      join(at.dir, `state-${name}`),
      "--allowed-base",
      at.base,
      "--no-check",
      "--health-interval",
      "0",
      "--max-runs",
      String(MAX_RUNS),
      ...(databaseUrl ? ["--database-url", databaseUrl] : []),
    ],
    // An empty DATABASE_URL is none: files mode stays files whatever the shell exports.
    { cwd: at.dir, env: { DATABASE_URL: "" }, timeoutMs: 120_000 },
  );
  const id = /; instance ([0-9a-f-]{36});/.exec(served.stderr())?.[1];
  const instance: Instance = { name, id: id ?? "", served };
  live.add(instance);
  if (!id) {
    await stopInstance(instance);
    throw new Error(`no instance id in the ready line of ${name}:\n${served.stderr()}`);
  }
  return instance;
}

/** SIGTERM (SIGKILL after 15 s), then SIGKILL whatever of its MCP servers is still there. */
async function stopInstance(instance: Instance): Promise<void> {
  const pid = instance.served.child.pid;
  const children = pid ? descendantPids(pid) : [];
  await instance.served.stop();
  for (const child of children) killQuietly(child);
  live.delete(instance);
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** The signal that interrupted the bench, if one did. */
let interrupted: NodeJS.Signals | undefined;

/**
 * Ctrl-C or a SIGTERM of the bench: end every serve process at once; main() then fails fast (its servers
 * are gone) and its `finally` removes the files and drops the database. Exit after 30 s whatever happens.
 */
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    interrupted = signal;
    for (const instance of live) {
      const pid = instance.served.child.pid;
      for (const child of pid ? descendantPids(pid) : []) killQuietly(child);
      instance.served.child.kill("SIGKILL");
    }
    console.error(`\n${signal}: serve processes ended; removing the bench's files and database`);
    setTimeout(() => process.exit(130), 30_000).unref();
  });
}

interface JsonAnswer {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

async function call(instance: Instance, method: string, path: string, body?: unknown): Promise<JsonAnswer> {
  const response = await fetch(`${instance.served.url}${path}`, {
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
    // not JSON: the checks below name the status
  }
  return { status: response.status, headers: response.headers, json };
}

/** One run's event stream as read on one instance. */
interface Watch {
  instance: Instance;
  /** Every event id received, in order. */
  ids: number[];
  /** Latency (ms) of each live event: received here minus its `at`. */
  latencies: number[];
  /** Events stamped before the stream was open (replayed, not counted). */
  replayed: number;
  /** Times the stream ended before run_finished and was opened again with Last-Event-ID. */
  reopened: number;
  /** Whether the stream stayed open LINGER_MS after run_finished (then the bench closed it). */
  keptOpen: boolean;
  /** The `status` of the last `run_finished` received. */
  finishedStatus: string | undefined;
  /** Settles when run_finished was received (rejects when reading fails first). */
  finished: Promise<void>;
  /** Settles when the stream ended (by itself, or closed by the bench LINGER_MS after run_finished). */
  done: Promise<void>;
}

/** How long a stream may stay open after run_finished before the bench closes it (and counts it). */
const LINGER_MS = 5_000;

function watch(instance: Instance, runId: string): Watch {
  const controller = new AbortController();
  let seenFinished: () => void = () => undefined;
  const result: Watch = {
    instance,
    ids: [],
    latencies: [],
    replayed: 0,
    reopened: 0,
    keptOpen: false,
    finishedStatus: undefined,
    finished: new Promise<void>((resolve) => {
      seenFinished = resolve;
    }),
    done: Promise.resolve(),
  };
  const url = `${instance.served.url}/api/v1/runs/${runId}/events`;
  const timer = setTimeout(
    () => controller.abort(new Error(`the events of run ${runId} on ${instance.name} did not end in time`)),
    RUN_TIMEOUT_MS,
  );
  /** Read one stream (after `lastId`) until it ends, or LINGER_MS after run_finished. */
  const read = async (lastId: number) => {
    const linger = new AbortController();
    let lingering: NodeJS.Timeout | undefined;
    try {
      const response = await fetch(url, {
        headers: { Accept: "text/event-stream", "Last-Event-ID": String(lastId) },
        signal: AbortSignal.any([controller.signal, linger.signal]),
      });
      const openedAt = Date.now();
      if (!response.ok || !response.body) {
        throw new Error(`GET ${url} answered ${response.status}, not an event stream`);
      }
      const decoder = new TextDecoder();
      const splitter = new SseSplitter();
      for await (const chunk of response.body) {
        const receivedAt = Date.now();
        for (const block of splitter.push(decoder.decode(chunk as Uint8Array, { stream: true }))) {
          const id = block.id;
          if (id === undefined) continue; // a keep-alive comment
          const data = JSON.parse(block.data ?? "{}") as Record<string, unknown>;
          result.ids.push(Number(id));
          const at = Date.parse(String(data.at));
          if (!Number.isFinite(at)) throw new Error(`event ${id} of run ${runId} has no valid "at"`);
          if (at < openedAt) result.replayed++;
          else result.latencies.push(receivedAt - at);
          if (data.type === "run_finished") {
            result.finishedStatus = String(data.status);
            seenFinished();
            lingering ??= setTimeout(() => {
              result.keptOpen = true;
              linger.abort();
            }, LINGER_MS);
          }
        }
      }
    } catch (error) {
      if (!linger.signal.aborted || controller.signal.aborted) throw error;
    } finally {
      clearTimeout(lingering);
    }
  };
  result.done = (async () => {
    try {
      await read(0);
      // A stream may end before the run's run_finished (it was opened just as the run stopped on
      // another instance): read on from the last id, as a client does, until run_finished arrives.
      while (result.finishedStatus === undefined) {
        if (result.reopened >= 40) {
          throw new Error(
            `run ${runId} on ${instance.name}: no run_finished after ${result.reopened} reconnects`,
          );
        }
        // At once the first time (the event is usually stored already), then a little later.
        if (result.reopened > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        result.reopened++;
        await read(result.ids.at(-1) ?? 0);
      }
    } catch (error) {
      throw new Error(
        `run ${runId} on ${instance.name}: ${error instanceof Error ? error.message : String(error)} (events received: [${result.ids.join()}], reopened ${result.reopened})`,
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
    }
  })();
  // `finished` also settles (rejected) when reading fails before run_finished.
  result.done.catch(() => undefined);
  result.finished = Promise.race([result.finished, result.done.then(() => undefined)]);
  return result;
}

/** POST a run on `instance`, retrying a 429 after its Retry-After; returns the run id and the retries. */
async function postRun(instance: Instance): Promise<{ id: string; retries: number }> {
  for (let retries = 0; ; retries++) {
    const answer = await call(instance, "POST", "/api/v1/runs", { folder: "proj" });
    if (answer.status === 202 && typeof answer.json.id === "string") return { id: answer.json.id, retries };
    if (answer.status !== 429 || retries >= 60) {
      throw new Error(
        `POST /api/v1/runs on ${instance.name} answered ${answer.status}: ${JSON.stringify(answer.json)}`,
      );
    }
    const seconds = Number(answer.headers.get("retry-after"));
    const waitMs = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 5) * 1000 : 500;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

/**
 * One run: posted on `postOn`, watched on every instance; settles once one watch received its
 * run_finished and the run reads finished (every stream's end is awaited by `verify`).
 */
async function oneRun(postOn: Instance, instances: readonly Instance[]) {
  const { id, retries } = await postRun(postOn);
  const watches = instances.map((instance) => watch(instance, id));
  // The run is over once one instance streamed its run_finished; the other watches read on meanwhile
  // (`verify` waits for them), so a slow stream does not hold back the next run.
  await Promise.any(watches.map((w) => w.finished)).catch((error: unknown) => {
    throw error instanceof AggregateError ? error.errors[0] : error;
  });
  const completedAt = performance.now();
  const run = await call(postOn, "GET", `/api/v1/runs/${id}`);
  if (run.status !== 200 || run.json.status !== "finished") {
    throw new Error(`run ${id} did not finish: ${JSON.stringify(run.json).slice(0, 800)}`);
  }
  return {
    id,
    retries,
    owner: String(run.json.ownerInstance),
    eventCount: Number(run.json.eventCount),
    completedAt,
    watches,
  };
}

type RunResult = Awaited<ReturnType<typeof oneRun>>;

/** Wait for the run's streams to end; each must have received events 1..eventCount once, in order. */
async function verify(result: RunResult): Promise<void> {
  await Promise.all(result.watches.map((w) => w.done));
  const expected = Array.from({ length: result.eventCount }, (_, i) => i + 1).join();
  for (const w of result.watches) {
    if (w.ids.join() !== expected || w.finishedStatus !== "finished") {
      throw new Error(
        `run ${result.id} on ${w.instance.name}: expected events 1..${result.eventCount} ending with run_finished (finished), got [${w.ids.join()}] (${w.finishedStatus})`,
      );
    }
  }
}

interface ModeResult {
  mode: string;
  runs: number;
  seconds: number;
  runsPerMinute: number;
  retries: number;
  /** Streams opened again because they ended before run_finished, per watching instance kind. */
  reopened: { other: number; same: number };
  /** Streams still open LINGER_MS after run_finished (closed by the bench), per watching instance kind. */
  keptOpen: { other: number; same: number };
  /** Latency rows: a name and the live-event samples (ms). */
  latency: Array<{ name: string; samples: number[]; replayed: number }>;
  /** Runs executed by each instance (name → count). */
  executedBy: Record<string, number>;
}

/** Post RUNS runs (on the instances in turn), IN_FLIGHT at a time; every instance watches every run. */
async function measure(mode: string, instances: readonly Instance[]): Promise<ModeResult> {
  // Warm-up, not counted: each instance connects its servers and finishes one run.
  for (const instance of instances) {
    for (const server of ["filesystem", "sequential-thinking"]) {
      const check = await call(instance, "POST", `/api/v1/mcp/servers/${server}/health-check`);
      if (check.json.status !== "healthy") {
        throw new Error(`${server} on ${instance.name} is not healthy: ${JSON.stringify(check.json)}`);
      }
    }
  }
  for (const warm of await Promise.all(instances.map((instance) => oneRun(instance, instances)))) {
    await verify(warm);
  }

  const results: RunResult[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(IN_FLIGHT, RUNS) }, async () => {
      while (next < RUNS) {
        const index = next++;
        results.push(await oneRun(instances[index % instances.length] as Instance, instances));
      }
    }),
  );
  // From the first POST until the last run's run_finished arrived.
  const last = Math.max(started, ...results.map((result) => result.completedAt));
  const seconds = (last - started) / 1000;
  for (const result of results) await verify(result);

  const byId = new Map(instances.map((instance) => [instance.id, instance.name]));
  const executedBy: Record<string, number> = {};
  const same = { samples: [] as number[], replayed: 0, reopened: 0, keptOpen: 0 };
  const other = { samples: [] as number[], replayed: 0, reopened: 0, keptOpen: 0 };
  for (const result of results) {
    const owner = byId.get(result.owner) ?? `unknown (${result.owner})`;
    executedBy[owner] = (executedBy[owner] ?? 0) + 1;
    for (const w of result.watches) {
      const into = w.instance.id === result.owner ? same : other;
      into.samples.push(...w.latencies);
      into.replayed += w.replayed;
      into.reopened += w.reopened;
      if (w.keptOpen) into.keptOpen++;
    }
  }
  const latency = [
    { name: `${mode}, on the executing instance`, samples: same.samples, replayed: same.replayed },
  ];
  if (instances.length > 1) {
    latency.unshift({
      name: `${mode}, on the other instance`,
      samples: other.samples,
      replayed: other.replayed,
    });
  }
  return {
    mode,
    runs: results.length,
    seconds,
    runsPerMinute: (results.length / seconds) * 60,
    retries: results.reduce((sum, result) => sum + result.retries, 0),
    reopened: { other: other.reopened, same: same.reopened },
    keptOpen: { other: other.keptOpen, same: same.keptOpen },
    latency,
    executedBy,
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const a = sorted[low] ?? Number.NaN;
  const b = sorted[Math.ceil(rank)] ?? a;
  return a + (b - a) * (rank - low);
}

interface LatencyFigures {
  name: string;
  events: number;
  replayed: number;
  median: number;
  p95: number;
  p99: number;
  max: number;
}

function latencyFigures(row: ModeResult["latency"][number]): LatencyFigures {
  const sorted = [...row.samples].sort((a, b) => a - b);
  return {
    name: row.name,
    events: sorted.length,
    replayed: row.replayed,
    median: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

function printMode(result: ModeResult): LatencyFigures[] {
  heading(
    `${result.mode}: ${result.runs} docs runs, at most ${IN_FLIGHT} at once (offline model, --max-runs ${MAX_RUNS} per instance)`,
  );
  printFigure("runs per minute", result.runsPerMinute, "runs/min");
  printFigure("wall time", formatMs(result.seconds * 1000));
  printFigure(
    "runs executed by",
    Object.entries(result.executedBy)
      .map(([name, count]) => `${name} ${count}`)
      .join(", "),
  );
  printFigure("429 answers retried", String(result.retries));
  const perKind = (counts: { other: number; same: number }) =>
    result.latency.length === 1
      ? String(counts.same)
      : `${counts.other} on the other instance, ${counts.same} on the executing one`;
  printFigure("streams ended before run_finished (read on)", perKind(result.reopened));
  printFigure(`streams open ${LINGER_MS / 1000} s after run_finished`, perKind(result.keptOpen));
  const rows = result.latency.map(latencyFigures);
  const width = Math.max(28, ...rows.map((row) => row.name.length + 2));
  console.log(
    `  ${"event latency (at → SSE)".padEnd(width)}${"median".padStart(10)}${"p95".padStart(10)}${"p99".padStart(10)}${"max".padStart(10)}${"events".padStart(8)}${"replayed".padStart(10)}`,
  );
  for (const row of rows) {
    console.log(
      `  ${row.name.padEnd(width)}${formatMs(row.median).padStart(10)}${formatMs(row.p95).padStart(10)}${formatMs(row.p99).padStart(10)}${formatMs(row.max).padStart(10)}${String(row.events).padStart(8)}${String(row.replayed).padStart(10)}`,
    );
  }
  return rows;
}

async function main(): Promise<void> {
  const files = fixture();
  let database: TestDatabase | undefined;
  try {
    const one = await startInstance("files", files);
    let filesResult: ModeResult;
    try {
      filesResult = await measure("files", [one]);
    } finally {
      await stopInstance(one);
    }
    const filesRows = printMode(filesResult);

    const adminUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
    if (!adminUrl) {
      console.log(
        "\nPostgreSQL not measured: set TEST_DATABASE_URL or DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test); a fresh database is created on that server and dropped afterwards",
      );
      return;
    }
    // createTestDatabase creates it on the TEST_DATABASE_URL server (and would fall back to PGlite).
    process.env.TEST_DATABASE_URL = adminUrl;
    database = await createTestDatabase("agentforge_bench_svc");
    const a = await startInstance("A", files, database.url);
    let pgResult: ModeResult;
    try {
      const b = await startInstance("B", files, database.url);
      try {
        pgResult = await measure("postgres", [a, b]);
      } finally {
        await stopInstance(b);
      }
    } finally {
      await stopInstance(a);
    }
    const pgRows = printMode(pgResult);

    heading("PostgreSQL / files");
    printFigure("runs per minute", formatRatio(pgResult.runsPerMinute, filesResult.runsPerMinute));
    const base = filesRows[0] as LatencyFigures;
    for (const row of pgRows) {
      printFigure(`latency median, ${row.name}`, formatRatio(row.median, base.median));
      printFigure(`latency p95, ${row.name}`, formatRatio(row.p95, base.p95));
    }
  } finally {
    for (const instance of [...live]) await stopInstance(instance);
    await database?.drop();
    rmSync(files.dir, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  if (!interrupted) throw error;
  process.exitCode = 130;
}
