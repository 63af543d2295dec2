// The cheapest client a stdio MCP server can have, for `governed.bench.ts`: newline-delimited JSON-RPC
// written straight to the child's stdin (a turn's requests in one write) and answers matched by id — no
// SDK, no schema, no timeout, no check of any kind. Never use it for anything but measuring: it trusts the server completely. What it
// reaches with many calls in flight is the server's own limit, which bounds every real client.
import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";

export class BareStdioClient {
  readonly #child: ChildProcessByStdio<Writable, Readable, null>;
  readonly #pending = new Map<number, { resolve: (result: unknown) => void; reject: (e: Error) => void }>();
  #nextId = 1;
  #buffered = "";
  #exited = false;

  private constructor(command: string, args: readonly string[]) {
    this.#child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
    this.#child.stdout.setEncoding("utf8");
    this.#child.stdout.on("data", (chunk: string) => this.#read(chunk));
    // A write after the server died fails with EPIPE: the exit handler rejects what was pending.
    this.#child.stdin.on("error", () => undefined);
    this.#child.on("exit", () => {
      this.#exited = true;
      for (const { reject } of this.#pending.values()) reject(new Error("bare client: the server exited"));
      this.#pending.clear();
    });
  }

  /** Spawn the server and run the initialize handshake. */
  static async start(command: string, args: readonly string[]): Promise<BareStdioClient> {
    const client = new BareStdioClient(command, args);
    try {
      await client.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "bench-bare", version: "0" },
      });
      client.#child.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
      );
      return client;
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Send one request; resolves with its `result` (rejects on a JSON-RPC error). */
  request(method: string, params: Record<string, unknown>): Promise<unknown> {
    if (this.#exited) return Promise.reject(new Error("bare client: the server exited"));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      // Every request of one turn of the event loop goes out in one write: the fewest reads for the server.
      if (this.#outbox === "") process.nextTick(this.#flush);
      this.#outbox += `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
    });
  }

  #outbox = "";
  readonly #flush = () => {
    const text = this.#outbox;
    this.#outbox = "";
    if (!this.#exited) this.#child.stdin.write(text);
  };

  #read(chunk: string): void {
    this.#buffered += chunk;
    let end = this.#buffered.indexOf("\n");
    while (end !== -1) {
      const line = this.#buffered.slice(0, end);
      this.#buffered = this.#buffered.slice(end + 1);
      end = this.#buffered.indexOf("\n");
      let message: { id?: number; result?: unknown; error?: { message?: string } };
      try {
        message = JSON.parse(line);
      } catch {
        continue; // not JSON-RPC (a stray log line): nothing here waits for it
      }
      const waiter = typeof message.id === "number" ? this.#pending.get(message.id) : undefined;
      if (!waiter) continue; // a notification or a server request: nothing here asks for them
      this.#pending.delete(message.id as number);
      if (message.error) waiter.reject(new Error(`bare client: ${message.error.message ?? "error"}`));
      else waiter.resolve(message.result);
    }
  }

  /** End the server: close its stdin, then SIGKILL if it has not exited a second later. */
  async close(): Promise<void> {
    if (this.#exited) return;
    const exited = new Promise<void>((resolve) => this.#child.once("exit", () => resolve()));
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), 1000);
    await exited;
    clearTimeout(timer);
  }
}
