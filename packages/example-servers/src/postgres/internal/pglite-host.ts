// The embedded PostgreSQL: PGlite (PostgreSQL compiled to WebAssembly) in a worker thread, served over
// the PostgreSQL wire protocol by pglite-socket on a Unix socket in a private (0700) temporary directory
// (127.0.0.1 on Windows). The server talks to it with `pg`, exactly as to a real PostgreSQL.
//
// Why a worker: PGlite runs queries synchronously in WebAssembly and ignores statement_timeout (there is
// no timer signal inside WASM), so a long query would freeze the thread it runs on. In a worker it
// freezes only the worker, and the watchdog can stop it by terminating the worker and starting a fresh
// engine (same data: every transaction this server runs is read-only and rolled back).
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { reportCleanupFailure } from "./report-cleanup-failure.js";

/** Where a running engine listens. */
export interface PGliteAddress {
  host: string;
  port: number;
}

/** Options of `PGliteHost.start`. */
export interface PGliteHostOptions {
  /** Persistent data directory; in memory when absent. */
  dataDir?: string;
  /** SQL run once each time the engine starts (in-memory databases: the seed). */
  initSql: readonly string[];
  /** Concurrent wire connections the socket server accepts. */
  maxConnections: number;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { rmSync } = require("node:fs");
let server;
let db;
(async () => {
  const { PGlite } = await import(workerData.pgliteUrl);
  const { PGLiteSocketServer } = await import(workerData.socketUrl);
  // In memory: a small buffer pool (the default 128 MB is most of PGlite's footprint). A data directory
  // keeps its own postgresql.conf (PGlite would overwrite it).
  if (workerData.dataDir) {
    db = await PGlite.create(workerData.dataDir);
    for (const sql of workerData.initSql) await db.exec(sql);
  } else if (workerData.snapshot) {
    // A restart: the data directory as the first engine left it after its seed (no initdb, no seed).
    const loadDataDir = new Blob([workerData.snapshot]);
    db = await PGlite.create({ loadDataDir, postgresqlconf: "shared_buffers=32MB" });
  } else {
    db = await PGlite.create({ postgresqlconf: "shared_buffers=32MB" });
    for (const sql of workerData.initSql) await db.exec(sql);
    // A checkpoint first: the data files then hold the seed as it is. Without it the engine that loads
    // the snapshot replays the WAL, where nextval() logs sequences 32 values ahead.
    await db.exec("CHECKPOINT");
    const dump = await db.dumpDataDir(workerData.snapshotCompression);
    const snapshot = new Uint8Array(await dump.arrayBuffer());
    parentPort.postMessage({ type: "snapshot", snapshot }, [snapshot.buffer]);
  }
  const listen = workerData.socketPath
    ? { path: workerData.socketPath }
    : { host: "127.0.0.1", port: 0 };
  if (workerData.socketPath) rmSync(workerData.socketPath, { force: true });
  server = new PGLiteSocketServer({ db, maxConnections: workerData.maxConnections, ...listen });
  await server.start();
  parentPort.postMessage({ type: "ready", conn: server.getServerConn() });
})().catch((error) => {
  parentPort.postMessage({ type: "failed", message: String((error && error.message) || error) });
});
parentPort.on("message", async (message) => {
  if (message !== "close") return;
  let failure;
  try {
    if (server) await server.stop();
    if (db) await db.close();
  } catch (error) {
    failure = String((error && error.message) || error);
  }
  parentPort.postMessage({ type: "closed", failure });
});
`;

type WorkerMessage =
  | { type: "snapshot"; snapshot: Uint8Array }
  | { type: "ready"; conn: string }
  | { type: "failed"; message: string }
  | { type: "closed"; failure?: string };

/** Resolve a dependency's entry from this module, in the ESM build, the CJS build and the bundled bin. */
function resolveDependency(specifier: string): string {
  const base = typeof __filename === "string" ? __filename : import.meta.url;
  return pathToFileURL(createRequire(base).resolve(specifier)).href;
}

const CLOSE_TIMEOUT_MS = 2000;

// The in-memory engine's snapshot (its data directory as a tarball, taken once after the first start's
// seed; every later engine loads it instead of running initdb and the seed again). Uncompressed: measured
// on 2 busy cores (load 13–16), the seeded cluster dumps to 40 MB in 1.8 s uncompressed and to 4.5 MB in
// 4.1 s gzipped, and both load in about the same time (3.4–10 s vs 4.4–5.2 s, noisy) — the dump runs on
// every server start, before the first query, while the 36 MB saved are one buffer per database.
const SNAPSHOT_COMPRESSION = "none";

/**
 * Snapshots by seed (the initSql), shared by the in-memory hosts of this process while one of them holds
 * it: a second database with the same seed (one per HTTP session, one per test file) skips initdb too.
 */
const sharedSnapshots = new Map<string, WeakRef<Uint8Array>>();

/** Counters of a host, for tests: engines started, how many of them from the snapshot, workers alive. */
export interface PGliteHostStats {
  /** Engines started (the first start included). */
  starts: number;
  /** Engines started from the snapshot instead of initdb and initSql. */
  snapshotStarts: number;
  /** Worker threads that have not exited. */
  liveWorkers: number;
  /** Bytes of the snapshot held (0 before it was taken, and for a data directory). */
  snapshotBytes: number;
}

/**
 * Keep Node from reporting a rejection of `promise` as unhandled before its callers look: the failure
 * still reaches everyone who awaits it (`address()`, `restart()`).
 */
function awaitedLater(promise: Promise<unknown>): void {
  promise.then(
    () => undefined,
    () => undefined,
  );
}

/** One embedded engine that can be restarted; `address()` waits until it serves. */
export class PGliteHost {
  private worker: Worker | undefined;
  private current: Promise<PGliteAddress>;
  /** The restart under way, until its engine serves or fails. */
  private restarting: Promise<PGliteAddress> | undefined;
  private snapshot: Uint8Array | undefined;
  private readonly live = new Set<Worker>();
  private starts = 0;
  private snapshotStarts = 0;
  private readonly socketDir: string | undefined;
  private readonly seedKey: string;
  private closed = false;

  private constructor(private readonly options: PGliteHostOptions) {
    this.seedKey = JSON.stringify(options.initSql);
    if (options.dataDir === undefined) {
      const shared = sharedSnapshots.get(this.seedKey);
      this.snapshot = shared?.deref();
      if (shared && !this.snapshot) sharedSnapshots.delete(this.seedKey);
    }
    this.socketDir = process.platform === "win32" ? undefined : mkdtempSync(join(tmpdir(), "agentforge-pg-"));
    this.current = this.spawn();
    awaitedLater(this.current);
  }

  /** Start the engine and wait until it accepts connections. */
  static async start(options: PGliteHostOptions): Promise<PGliteHost> {
    const host = new PGliteHost(options);
    try {
      await host.current;
    } catch (error) {
      await host.close();
      throw error;
    }
    return host;
  }

  /** The address of the engine, once it serves (waits through a restart). */
  address(): Promise<PGliteAddress> {
    return this.current;
  }

  /**
   * Stop the engine whatever it is doing and start a fresh one on the same address. A call while a
   * restart is under way joins it: the engine that restart starts has run nothing yet.
   */
  restart(): Promise<PGliteAddress> {
    if (this.closed) return this.current;
    if (this.restarting) return this.restarting;
    const old = this.worker;
    this.worker = undefined;
    const stopped = old ? old.terminate().then(() => undefined) : Promise.resolve();
    const next = stopped.then(() => this.spawn());
    this.restarting = next;
    this.current = next;
    const settled = () => {
      if (this.restarting === next) this.restarting = undefined;
    };
    next.then(settled, settled);
    return next;
  }

  /** Counters for tests (see `PGliteHostStats`). */
  stats(): PGliteHostStats {
    return {
      starts: this.starts,
      snapshotStarts: this.snapshotStarts,
      liveWorkers: this.live.size,
      snapshotBytes: this.snapshot?.byteLength ?? 0,
    };
  }

  /** Stop the engine and remove the socket directory; rejects when the engine failed to close cleanly. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.snapshot = undefined;
    let failure: string | undefined;
    try {
      if (worker) {
        failure = await new Promise<string | undefined>((resolve) => {
          const timer = setTimeout(
            () => resolve(`it did not close within ${CLOSE_TIMEOUT_MS} ms and was stopped`),
            CLOSE_TIMEOUT_MS,
          );
          worker.on("message", (message: WorkerMessage) => {
            if (message.type === "closed") {
              clearTimeout(timer);
              resolve(message.failure);
            }
          });
          worker.once("exit", () => {
            clearTimeout(timer);
            resolve(undefined);
          });
          worker.postMessage("close");
        });
        await worker.terminate();
      }
    } finally {
      if (this.socketDir) rmSync(this.socketDir, { recursive: true, force: true });
    }
    if (failure !== undefined) throw new Error(`closing the embedded database (PGlite) failed: ${failure}`);
  }

  private spawn(): Promise<PGliteAddress> {
    if (this.closed) return Promise.reject(new Error("the embedded database is closed"));
    const socketPath = this.socketDir ? join(this.socketDir, ".s.PGSQL.5432") : undefined;
    const inMemory = this.options.dataDir === undefined;
    const snapshot = inMemory ? this.snapshot : undefined;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pgliteUrl: resolveDependency("@electric-sql/pglite"),
        socketUrl: resolveDependency("@electric-sql/pglite-socket"),
        dataDir: this.options.dataDir,
        initSql: snapshot ? [] : [...this.options.initSql],
        snapshot,
        snapshotCompression: SNAPSHOT_COMPRESSION,
        maxConnections: this.options.maxConnections,
        socketPath,
      },
      stdout: true,
      stderr: true,
    });
    this.starts++;
    if (snapshot) this.snapshotStarts++;
    this.live.add(worker);
    worker.once("exit", () => this.live.delete(worker));
    // PGlite may print notices; keep them off stdout (which carries the MCP protocol in stdio mode).
    worker.stdout.resume();
    worker.stderr.resume();
    this.worker = worker;
    return new Promise<PGliteAddress>((resolve, reject) => {
      let serving = false;
      const fail = (message: string) => {
        const wasCurrent = this.worker === worker;
        if (wasCurrent) this.worker = undefined;
        void worker.terminate();
        if (!serving) reject(new Error(`the embedded database (PGlite) did not start: ${message}`));
        // An engine that dies while serving (out of memory, a WASM abort) is replaced; a replacement
        // that fails also reaches every later query through address().
        else if (wasCurrent && !this.closed) {
          this.restart().catch((error: unknown) => {
            reportCleanupFailure(`replacing the embedded database after it stopped (${message})`, error);
          });
        }
      };
      worker.on("message", (message: WorkerMessage) => {
        if (message.type === "snapshot") {
          if (inMemory && !this.closed) {
            this.snapshot = message.snapshot;
            sharedSnapshots.set(this.seedKey, new WeakRef(message.snapshot));
          }
        } else if (message.type === "ready") {
          serving = true;
          if (this.socketDir) resolve({ host: this.socketDir, port: 5432 });
          else resolve({ host: "127.0.0.1", port: Number(message.conn.split(":").at(-1)) });
        } else if (message.type === "failed") {
          fail(message.message);
        }
      });
      worker.once("error", (error) => fail(error.message));
      worker.once("exit", (code) => fail(`the worker exited with code ${code}`));
    });
  }
}
