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
  db = workerData.dataDir
    ? await PGlite.create(workerData.dataDir)
    : await PGlite.create({ postgresqlconf: "shared_buffers=32MB" });
  for (const sql of workerData.initSql) await db.exec(sql);
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
  try {
    if (server) await server.stop();
    if (db) await db.close();
  } catch {}
  parentPort.postMessage({ type: "closed" });
});
`;

type WorkerMessage =
  | { type: "ready"; conn: string }
  | { type: "failed"; message: string }
  | { type: "closed" };

/** Resolve a dependency's entry from this module, in the ESM build, the CJS build and the bundled bin. */
function resolveDependency(specifier: string): string {
  const base = typeof __filename === "string" ? __filename : import.meta.url;
  return pathToFileURL(createRequire(base).resolve(specifier)).href;
}

const CLOSE_TIMEOUT_MS = 2000;

/** One embedded engine that can be restarted; `address()` waits until it serves. */
export class PGliteHost {
  private worker: Worker | undefined;
  private current: Promise<PGliteAddress>;
  private readonly socketDir: string | undefined;
  private closed = false;

  private constructor(private readonly options: PGliteHostOptions) {
    this.socketDir = process.platform === "win32" ? undefined : mkdtempSync(join(tmpdir(), "agentforge-pg-"));
    this.current = this.spawn();
    this.current.catch(() => undefined);
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

  /** Stop the engine whatever it is doing and start a fresh one on the same address. */
  restart(): Promise<PGliteAddress> {
    if (this.closed) return this.current;
    const old = this.worker;
    this.worker = undefined;
    const stopped = old ? old.terminate().then(() => undefined) : Promise.resolve();
    this.current = stopped.then(() => this.spawn());
    this.current.catch(() => undefined);
    return this.current;
  }

  /** Stop the engine and remove the socket directory. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
        worker.on("message", (message: WorkerMessage) => {
          if (message.type === "closed") {
            clearTimeout(timer);
            resolve();
          }
        });
        worker.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        worker.postMessage("close");
      });
      await worker.terminate();
    }
    if (this.socketDir) rmSync(this.socketDir, { recursive: true, force: true });
  }

  private spawn(): Promise<PGliteAddress> {
    if (this.closed) return Promise.reject(new Error("the embedded database is closed"));
    const socketPath = this.socketDir ? join(this.socketDir, ".s.PGSQL.5432") : undefined;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pgliteUrl: resolveDependency("@electric-sql/pglite"),
        socketUrl: resolveDependency("@electric-sql/pglite-socket"),
        dataDir: this.options.dataDir,
        initSql: [...this.options.initSql],
        maxConnections: this.options.maxConnections,
        socketPath,
      },
      stdout: true,
      stderr: true,
    });
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
        // An engine that dies while serving (out of memory, a WASM abort) is replaced.
        else if (wasCurrent && !this.closed) void this.restart();
      };
      worker.on("message", (message: WorkerMessage) => {
        if (message.type === "ready") {
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
