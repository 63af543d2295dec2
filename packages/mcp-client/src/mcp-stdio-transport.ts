/**
 * A thin stdio client transport implementing the SDK's `Transport` interface: newline-delimited
 * JSON-RPC over a child process's stdin/stdout, nothing more. It exists because the SDK's
 * `StdioClientTransport` re-copies its whole read buffer on every chunk (a 106 MB reply took 83 s) and
 * closes the connection when a reply exceeds its buffer limit; neither can be changed from outside.
 * Here reading is linear, the limit is an option, and an over-limit reply fails only its own request.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, statSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import { finished } from "node:stream";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import { TailBuffer } from "./internal/shared/tail-buffer.js";
import { plainResultResponse } from "./internal/wire/fast-read.js";
import { type DecodedLine, LineDecoder } from "./internal/wire/line-decoder.js";
import { isServerInitiated, replyIdFromEdges } from "./internal/wire/reply-id.js";

/** Default limit of one message read from a stdio server: 64 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES: number = 64 * 1024 * 1024;

/** JSON-RPC error code of the synthetic error answered for an over-limit reply (in the server-error range). */
export const REPLY_TOO_LARGE_RPC_CODE = -32099;

/** Options of `MCPStdioTransport`. */
export interface MCPStdioTransportOptions {
  /** Executable to run (no shell). */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** The child's whole environment (nothing is inherited implicitly). */
  env?: Readonly<Record<string, string>>;
  /** Working directory; must exist. */
  cwd?: string;
  /** Server name used in messages. */
  serverName?: string;
  /** File receiving the child's stderr (truncated at start); `false` keeps stderr in memory only. */
  stderrLogPath?: string | false;
  /** Largest message accepted from the child, in bytes (default 64 MiB). */
  maxMessageBytes?: number;
  /** Applied to every stderr line and diagnostic before it is stored or reported (secret redaction). */
  redact?: (text: string) => string;
  /**
   * A redactor with a streaming form (e.g. `SecretRedactor` of `@agentforge/mcp-config`). When given, it
   * is used instead of `redact`, and stderr is redacted as a stream, so a value split across two reads
   * is still replaced in the log file and in error tails.
   */
  redactor?: MCPStdioRedactor;
  /** How long `close()` waits after ending stdin, and again after SIGTERM, before escalating (default 1000 ms). */
  shutdownGraceMs?: number;
}

/** The streaming redactor `MCPStdioTransport` accepts (`SecretRedactor` of `@agentforge/mcp-config` fits). */
export interface MCPStdioRedactor {
  /** `text` with secret values replaced. */
  redact(text: string): string;
  /** A stream that holds back an overlap across chunk boundaries. */
  stream(): { push(chunk: string): string; flush(): string; peek(): string };
}

/** Data attached to the synthetic JSON-RPC error answered for an over-limit reply. */
export interface ReplyTooLargeData {
  /** Marker telling this error apart from server errors. */
  reason: "REPLY_TOO_LARGE";
  /** Size of the discarded reply, in bytes. */
  replyBytes: number;
  /** The limit, in bytes. */
  limitBytes: number;
}

const STDERR_TAIL_CHARS = 16_000;
const MAX_STDERR_LINE = 64 * 1024;
/** Most messages of a burst joined into one write (see `send`). */
const OUTBOX_MAX_MESSAGES = 16;
/** Largest group of messages (UTF-16 code units) joined into one write; a larger burst is written in pieces. */
const OUTBOX_MAX_CHARS = 256 * 1024;
/** How long a closed stdout waits for the child's exit before the connection is declared lost. */
const STDOUT_END_GRACE_MS = 200;
/** Characters of a non-JSON stdout line kept in diagnostics (after redaction). */
const NOISE_CHARS = 200;

/** Line-buffered stream over a plain `redact` function (values never span lines there). */
function lineStream(redact: (text: string) => string): ReturnType<MCPStdioRedactor["stream"]> {
  let held = "";
  return {
    push(chunk) {
      const text = held + chunk;
      const lastNewline = text.lastIndexOf("\n");
      if (lastNewline === -1 && text.length <= MAX_STDERR_LINE) {
        held = text;
        return "";
      }
      const cut = lastNewline === -1 ? text.length : lastNewline + 1;
      held = text.slice(cut);
      return redact(text.slice(0, cut));
    },
    flush() {
      const out = held ? redact(held) : "";
      held = "";
      return out;
    },
    peek: () => (held ? redact(held) : ""),
  };
}

/** stdio client transport with linear reading, a message-size limit and stderr capture. */
export class MCPStdioTransport implements Transport {
  /** Called with every message read from the child. */
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /** Called on non-fatal problems (a non-JSON line on stdout, a discarded message, a write error). */
  onerror?: ((error: Error) => void) | undefined;
  /** Called once, when the child has exited and its pipes are closed. */
  onclose?: (() => void) | undefined;

  private readonly options: MCPStdioTransportOptions;
  private readonly maxMessageBytes: number;
  private readonly redactText: (text: string) => string;
  private child: ChildProcess | undefined;
  private decoder: LineDecoder;
  private readonly stderrBuffer = new TailBuffer(STDERR_TAIL_CHARS);
  private readonly stderrStream: ReturnType<MCPStdioRedactor["stream"]>;
  private stderrFile: WriteStream | undefined;
  private stderrFileError: string | undefined;
  private readonly noise: string[] = [];
  private readonly pending = new Set<string | number>();
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private closed: Promise<void> | undefined;
  private resolveClosed: (() => void) | undefined;
  private closing: Promise<void> | undefined;
  private negotiatedProtocolVersion: string | undefined;
  private closeNotified = false;
  private stdoutLost = false;

  constructor(options: MCPStdioTransportOptions) {
    if (typeof options.command !== "string" || options.command === "") {
      throw new TypeError("MCPStdioTransport: options.command must be a non-empty string");
    }
    const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    if (!Number.isInteger(max) || max < 1024) {
      throw new RangeError(
        `MCPStdioTransport: options.maxMessageBytes must be an integer >= 1024, got ${max}`,
      );
    }
    this.options = options;
    this.maxMessageBytes = max;
    const redactor = options.redactor;
    this.redactText = redactor ? (text) => redactor.redact(text) : (options.redact ?? ((text) => text));
    this.stderrStream = redactor ? redactor.stream() : lineStream(this.redactText);
    this.decoder = new LineDecoder(max);
  }

  /** The command that is run. */
  get command(): string {
    return this.options.command;
  }

  /** Its arguments. */
  get args(): readonly string[] {
    return this.options.args ?? [];
  }

  /** The protocol version negotiated at initialize (set by the SDK client), for status displays. */
  get protocolVersion(): string | undefined {
    return this.negotiatedProtocolVersion;
  }

  /** Called by the SDK client once initialize has settled the protocol version. */
  setProtocolVersion(version: string): void {
    this.negotiatedProtocolVersion = version;
  }

  /** The child's process id once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The child's exit code, once it has exited (null when a signal ended it). */
  get exitCode(): number | null | undefined {
    return this.exit?.code;
  }

  /** The signal that ended the child, if one did. */
  get signalCode(): string | null | undefined {
    return this.exit?.signal;
  }

  /**
   * Whether the child closed its stdout while it kept running: the connection was declared lost at
   * once (pending requests failed, `onclose` fired) and the child was ended.
   */
  get stdoutClosed(): boolean {
    return this.stdoutLost;
  }

  /** Whether the child has exited. */
  get exited(): boolean {
    return this.exit !== undefined;
  }

  /** The stderr log file, when one is written. */
  get stderrLogPath(): string | undefined {
    return this.options.stderrLogPath || undefined;
  }

  /**
   * Append one line written by the client itself (e.g. a server's `notifications/message` log entry) to
   * the stderr log file and the in-memory tail. Redacted like stderr; a no-op once the child has exited.
   */
  appendLog(line: string): void {
    if (this.exit) return;
    const text = `${this.redactText(line.replace(/[\r\n]+/g, " "))}\n`;
    this.stderrBuffer.write(text);
    this.stderrFile?.write(text);
  }

  /** Why the stderr log file could not be written, if it could not. */
  get stderrLogError(): string | undefined {
    return this.stderrFileError;
  }

  /** The last `maxChars` characters of the child's stderr (redacted), including an unfinished line. */
  stderrTail(maxChars = 4000): string {
    const text = this.stderrBuffer.tail(maxChars) + this.stderrStream.peek();
    return text.length > maxChars ? text.slice(-maxChars) : text;
  }

  /** Up to 5 non-JSON lines the child wrote on stdout (redacted, 200 characters each). */
  get stdoutNoise(): readonly string[] {
    return this.noise;
  }

  /** Spawn the child. Rejects with the spawn error (`code` ENOENT, EACCES, or CWD_NOT_FOUND). */
  async start(): Promise<void> {
    if (this.child) throw new Error("MCPStdioTransport already started");
    const { command, args = [], env, cwd } = this.options;
    if (cwd !== undefined) {
      let isDirectory = false;
      try {
        isDirectory = statSync(cwd).isDirectory();
      } catch {
        isDirectory = false;
      }
      if (!isDirectory) {
        throw Object.assign(new Error(`working directory ${cwd} does not exist or is not a directory`), {
          code: "CWD_NOT_FOUND",
        });
      }
    }
    this.openStderrLog();
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    const child = spawn(command, [...args], {
      cwd,
      env: env ? { ...env } : {},
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      const onSpawnError = (error: Error) => {
        this.finish(null, null, false);
        reject(error);
      };
      child.once("error", onSpawnError);
      child.once("spawn", () => {
        child.off("error", onSpawnError);
        child.on("error", (error) => this.safeError(error));
        resolve();
      });
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      try {
        this.decoder.push(chunk, this.onLine);
      } catch (error) {
        this.safeError(error instanceof Error ? error : new Error(String(error)));
      }
    });
    child.stdout?.on("error", (error) => this.safeError(error));
    child.stdout?.once("end", () => this.onStdoutEnd());
    child.stdin?.on("error", (error) => this.safeError(error));
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => this.onStderr(chunk));
    child.once("close", (code, signal) => this.finish(code, signal));
    // A grandchild that inherited stdout/stderr can keep the pipes open after the child exits: stop
    // waiting for them after the grace period so close() never hangs.
    child.once("exit", () => {
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        child.stdin?.destroy();
      }, this.options.shutdownGraceMs ?? 1000).unref();
    });
  }

  /**
   * Write one message to the child's stdin. The first message of a turn of the event loop is written at
   * once; the ones that follow in the same turn (a burst of calls) are gathered and written together in
   * groups of 2, 4, 8, then `OUTBOX_MAX_MESSAGES`, and at the end of the turn — one syscall, and one read
   * for the server, per group instead of per message. The groups grow so that the server, busy with the
   * first messages, never waits for a large group to fill. Resolves once the pipe took the message
   * (waits for it to drain when it is full).
   */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exit || stdin.destroyed || !stdin.writable) {
      return Promise.reject(new Error("Not connected"));
    }
    if ("method" in message) {
      if ("id" in message) this.pending.add(message.id);
      else if (message.method === "notifications/cancelled") {
        const id = (message.params as { requestId?: string | number } | undefined)?.requestId;
        if (id !== undefined) this.pending.delete(id);
      }
    }
    const line = `${JSON.stringify(message)}\n`;
    if (this.outbox === undefined) {
      // First message of this turn: out at once; the turn's later messages gather behind it.
      this.outbox = "";
      this.outboxLimit = 2;
      process.nextTick(this.endTurn);
      return this.write(stdin, line);
    }
    if (this.outbox.length + line.length > OUTBOX_MAX_CHARS) this.writeOutbox(); // never one huge string
    this.outbox += line;
    this.outboxCount++;
    this.outboxSent ??= new Promise((resolve, reject) => {
      this.outboxSettle = { resolve, reject };
    });
    const sent = this.outboxSent;
    if (this.outboxCount >= this.outboxLimit) {
      this.writeOutbox();
      this.outboxLimit = Math.min(this.outboxLimit * 2, OUTBOX_MAX_MESSAGES);
    }
    return sent;
  }

  /** Messages gathered in the current turn (undefined outside a turn); see `send`. */
  private outbox: string | undefined;
  private outboxCount = 0;
  /** Size of the group being gathered: 2, 4, 8, then `OUTBOX_MAX_MESSAGES` (see `send`). */
  private outboxLimit = 2;
  private outboxSent: Promise<void> | undefined;
  private outboxSettle: { resolve: () => void; reject: (error: Error) => void } | undefined;

  private write(stdin: NonNullable<ChildProcess["stdin"]>, text: string): Promise<void> {
    return stdin.write(text) ? Promise.resolve() : this.whenDrained(stdin);
  }

  // Writes what the turn gathered so far; its promise settles once the pipe took it.
  private writeOutbox(): void {
    const text = this.outbox;
    const settle = this.outboxSettle;
    if (this.outbox !== undefined) this.outbox = "";
    this.outboxCount = 0;
    this.outboxSent = undefined;
    this.outboxSettle = undefined;
    if (!text || !settle) return;
    const stdin = this.child?.stdin;
    if (!stdin || this.exit || stdin.destroyed || !stdin.writable) {
      settle.reject(new Error("Not connected"));
      return;
    }
    this.write(stdin, text).then(settle.resolve);
  }

  // End of a turn: what was gathered goes out, and the next message is again written at once.
  private readonly endTurn = (): void => {
    this.writeOutbox();
    this.outbox = undefined;
  };

  private drained: Promise<void> | undefined;

  // One wait for the full pipe, shared by every write made while it is full (a drain means all of them
  // left), so a burst of large messages adds one pair of listeners, not one per write.
  private whenDrained(stdin: NonNullable<ChildProcess["stdin"]>): Promise<void> {
    this.drained ??= new Promise((resolve) => {
      const done = () => {
        stdin.off("drain", done);
        stdin.off("close", done);
        this.drained = undefined;
        resolve();
      };
      stdin.once("drain", done);
      stdin.once("close", done);
    });
    return this.drained;
  }

  /**
   * End the child: close stdin, wait `shutdownGraceMs`, SIGTERM, wait again, SIGKILL. Resolves once the
   * process has exited and been reaped.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const child = this.child;
    if (!child || !this.closed) {
      this.finish(null, null);
      return;
    }
    const grace = this.options.shutdownGraceMs ?? 1000;
    const closed = this.closed;
    const within = (ms: number) =>
      Promise.race([
        closed.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(resolve, ms, false).unref()),
      ]);
    if (!this.exit) {
      this.writeOutbox(); // what was sent before close() still reaches the server
      child.stdin?.end();
      if (!(await within(grace))) {
        child.kill("SIGTERM");
        if (!(await within(grace))) child.kill("SIGKILL");
      }
    }
    await closed;
  }

  // A child that closes its stdout but keeps running can never answer again. Its exit also ends stdout,
  // usually just before the exit is reported: give the exit a short moment to arrive (so a crash is
  // reported with its exit code), then declare the connection lost without waiting for any timeout.
  private onStdoutEnd(): void {
    if (this.exit || this.closing) return;
    const timer = setTimeout(() => {
      if (this.exit || this.closing) return;
      this.stdoutLost = true;
      const server = this.options.serverName ? `MCP server "${this.options.serverName}"` : "The MCP server";
      this.safeError(
        new Error(
          `${server} closed its stdout but kept running; the connection is lost and the process is ended`,
        ),
      );
      this.pending.clear();
      this.notifyClose();
      void this.close();
    }, STDOUT_END_GRACE_MS);
    this.child?.once("exit", () => clearTimeout(timer));
  }

  private safeError(error: Error): void {
    try {
      this.onerror?.(error);
    } catch {
      // A throwing error handler must not break the transport.
    }
  }

  private notifyClose(): void {
    if (this.closeNotified) return;
    this.closeNotified = true;
    try {
      this.onclose?.();
    } catch {
      // A throwing close handler must not break the transport.
    }
  }

  // Called from stream handlers: a handler that throws must never become an uncaught exception.
  private safeMessage(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.safeError(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private readonly onLine = (line: DecodedLine): void => {
    if (line.kind === "oversize") {
      this.onOversize(line.bytes, line.head, line.tail);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(line.text);
    } catch {
      this.noteNoise(line.text);
      return;
    }
    // Most lines are plain result responses: recognised exactly without the schema walk (see fast-read).
    let message = plainResultResponse(parsed);
    if (!message) {
      const result = JSONRPCMessageSchema.safeParse(parsed);
      if (!result.success) {
        this.noteNoise(line.text);
        return;
      }
      message = result.data;
    }
    if ("id" in message && !("method" in message) && message.id !== undefined)
      this.pending.delete(message.id);
    this.deliver(message);
  };

  private queue: JSONRPCMessage[] | undefined;

  // The SDK runs notification handlers one microtask after delivery, but handles responses at once: a
  // progress notification and the response right behind it in the same chunk would lose the progress
  // (its handler is gone by then). After a notification, later messages wait for those microtasks.
  private deliver(message: JSONRPCMessage): void {
    if (this.queue) {
      this.queue.push(message);
      return;
    }
    this.safeMessage(message);
    if ("method" in message && !("id" in message)) {
      this.queue = [];
      void this.drainQueue(this.queue);
    }
  }

  private async drainQueue(queue: JSONRPCMessage[]): Promise<void> {
    await Promise.resolve();
    await Promise.resolve();
    while (queue.length > 0) {
      const message = queue.shift() as JSONRPCMessage;
      this.safeMessage(message);
      if ("method" in message && !("id" in message)) {
        await Promise.resolve();
        await Promise.resolve();
      }
    }
    this.queue = undefined;
  }

  private onOversize(bytes: number, head: string, tail: string): void {
    const server = this.options.serverName ? `MCP server "${this.options.serverName}"` : "The MCP server";
    let id = replyIdFromEdges(head, tail);
    if (id !== undefined && !this.pending.has(id)) id = undefined;
    if (id === undefined && isServerInitiated(head)) {
      this.safeError(
        new Error(
          `${server} sent a ${bytes}-byte message, over the limit of ${this.maxMessageBytes} bytes (max_message_bytes); it was discarded`,
        ),
      );
      return;
    }
    if (id === undefined && this.pending.size === 1) id = [...this.pending][0];
    if (id === undefined) {
      this.safeError(
        new Error(
          `${server} sent a ${bytes}-byte reply, over the limit of ${this.maxMessageBytes} bytes (max_message_bytes), whose request could not be identified; it was discarded`,
        ),
      );
      return;
    }
    this.pending.delete(id);
    const data: ReplyTooLargeData = {
      reason: "REPLY_TOO_LARGE",
      replyBytes: bytes,
      limitBytes: this.maxMessageBytes,
    };
    this.deliver({
      jsonrpc: "2.0",
      id,
      error: {
        code: REPLY_TOO_LARGE_RPC_CODE,
        message: `${server} replied with ${bytes} bytes, over the limit of ${this.maxMessageBytes} bytes (max_message_bytes); the reply was discarded and the connection is still usable`,
        data,
      },
    });
  }

  private noteNoise(text: string): void {
    // Redact the whole line first, then cut: cutting first could leave the beginning of a value.
    const redacted = this.redactText(text);
    const shown = redacted.length > NOISE_CHARS ? `${redacted.slice(0, NOISE_CHARS)}…` : redacted;
    if (this.noise.length < 5) this.noise.push(shown);
    this.safeError(new Error(`stdout line is not JSON-RPC (servers must log to stderr): ${shown}`));
  }

  private openStderrLog(): void {
    const path = this.options.stderrLogPath;
    if (!path) return;
    try {
      mkdirSync(dirname(path), { recursive: true });
      const file = createWriteStream(path, { flags: "w" });
      file.on("error", (error) => {
        this.stderrFileError = error.message;
        this.stderrFile = undefined;
      });
      this.stderrFile = file;
    } catch (error) {
      this.stderrFileError = error instanceof Error ? error.message : String(error);
    }
  }

  // Redacted as a stream (an overlap is held back across reads), so a value split between two reads of
  // the pipe is still replaced before anything reaches the tail buffer or the log file.
  private onStderr(chunk: string): void {
    const text = this.stderrStream.push(chunk);
    if (!text) return;
    this.stderrBuffer.write(text);
    this.stderrFile?.write(text);
  }

  private finish(code: number | null, signal: NodeJS.Signals | null, notify = true): void {
    if (this.exit) return;
    this.exit = { code, signal };
    const rest = this.stderrStream.flush();
    if (rest) {
      this.stderrBuffer.write(rest);
      this.stderrFile?.write(rest);
    }
    this.pending.clear();
    const done = () => {
      this.resolveClosed?.();
      if (notify) this.notifyClose();
    };
    const file = this.stderrFile;
    this.stderrFile = undefined;
    if (!file) {
      done();
      return;
    }
    // Report the end only once the log file is complete, so errors and the file agree.
    finished(file, () => done());
    file.end();
  }
}
