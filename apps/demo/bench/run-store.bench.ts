// `tsx bench/run-store.bench.ts`: how fast run events are stored and streamed, files vs PostgreSQL.
// - append throughput: events appended per second to one run, one appender at a time and 8 at once;
// - event latency: from the appendEvent() call on instance A until instance B's subscription delivers the
//   event (files: one process, so A and B are the same repository; PostgreSQL: two repositories with
//   their own pools and listening connections, i.e. two app instances, through LISTEN/NOTIFY).
// PostgreSQL is measured on a fresh database on the server of TEST_DATABASE_URL (dropped afterwards);
// without it only files are measured.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Figures, formatMs, heading, printFigure, printTable, summarize } from "@agentforge/bench";
import { FileRunRepository } from "../src/run-store/file-run-repository.js";
import { openPostgresRunRepository } from "../src/run-store/postgres/postgres-run-repository.js";
import { createTestDatabase } from "../src/run-store/postgres/test-database.js";
import type { RunEventRecord } from "../src/run-store/run-event-log.js";
import type { RunRepository } from "../src/run-store/run-repository.js";

const envCount = Number(process.env.BENCH_EVENTS);
const EVENTS = Number.isInteger(envCount) && envCount > 0 ? envCount : 1000;
const LATENCY_SAMPLES = Math.min(300, EVENTS);
const PARALLEL = 8;
/** A typical tool-call event payload (a few hundred bytes). */
const payload = (i: number) => ({
  tool: "filesystem.read_text_file",
  agent: "documentation",
  server: "filesystem",
  durationMs: 12,
  round: i % 3,
  note: "x".repeat(200),
});

interface Store {
  name: string;
  writer: RunRepository;
  reader: RunRepository;
}

async function throughput(store: Store, parallel: number): Promise<number> {
  const runId = randomUUID();
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < EVENTS) {
        const i = next++;
        await store.writer.appendEvent(runId, "MCP_TOOL_CALL_COMPLETED", { runId, ...payload(i) });
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const events = await store.reader.eventsSince(runId, 0);
  if (events.length !== EVENTS || events.some((event, i) => event.id !== i + 1)) {
    throw new Error(`${store.name}: expected ids 1..${EVENTS}, got ${events.length} events`);
  }
  return EVENTS / seconds;
}

async function latency(store: Store): Promise<Figures> {
  const runId = randomUUID();
  const samples: number[] = [];
  let waiting: { id: number; resolve: () => void } | undefined;
  const seen: RunEventRecord[] = [];
  const off = store.reader.subscribe(runId, (event) => {
    seen.push(event);
    if (waiting && event.id === waiting.id) waiting.resolve();
  });
  // Let a fresh subscription settle (PostgreSQL: its starting point is read asynchronously).
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const started = process.hrtime.bigint();
    const arrived = new Promise<void>((resolve) => {
      waiting = { id: i + 1, resolve };
    });
    if (seen.some((event) => event.id === i + 1)) waiting?.resolve();
    await store.writer.appendEvent(runId, "MCP_TOOL_CALL_COMPLETED", { runId, ...payload(i) });
    await arrived;
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  off();
  if (seen.map((event) => event.id).join() !== samples.map((_, i) => i + 1).join()) {
    throw new Error(`${store.name}: events were not delivered once each, in order`);
  }
  return summarize(store.name, samples);
}

async function main(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), "agentforge-bench-runs-"));
  const files = new FileRunRepository(stateDir);
  const stores: Store[] = [{ name: "files", writer: files, reader: files }];
  const cleanups: Array<() => Promise<void>> = [
    async () => rmSync(stateDir, { recursive: true, force: true }),
  ];
  if (!process.env.TEST_DATABASE_URL) {
    console.log(
      "PostgreSQL not measured: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)",
    );
  } else {
    const database = await createTestDatabase("agentforge_bench");
    const a = await openPostgresRunRepository({ databaseUrl: database.url, instanceId: "bench-a" });
    const b = await openPostgresRunRepository({ databaseUrl: database.url, instanceId: "bench-b" });
    const fast = await openPostgresRunRepository({
      databaseUrl: database.url,
      instanceId: "bench-fast",
      fastEventCommit: true,
    });
    stores.push({ name: "postgres (A→B)", writer: a, reader: b });
    stores.push({ name: "postgres fastEventCommit (A→B)", writer: fast, reader: b });
    cleanups.unshift(async () => {
      await a.close();
      await b.close();
      await fast.close();
      await database.drop();
    });
  }
  try {
    heading(`run events appended per second (${EVENTS} events of ~400 bytes to one run)`);
    for (const store of stores) {
      printFigure(`${store.name}, 1 appender`, await throughput(store, 1), "events/s");
      printFigure(
        `${store.name}, ${PARALLEL} appenders at once`,
        await throughput(store, PARALLEL),
        "events/s",
      );
    }
    heading(
      `event latency: appendEvent() on A until B's subscription delivers it (${LATENCY_SAMPLES} events)`,
    );
    const rows: Figures[] = [];
    for (const store of stores) rows.push(await latency(store));
    printTable(rows);
    for (const row of rows) printFigure(`${row.name} median`, formatMs(row.medianMs));
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

await main();
