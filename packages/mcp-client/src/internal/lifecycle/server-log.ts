/**
 * The per-server log for what a server sends as `notifications/message`: for stdio servers the lines go
 * to the stderr log the transport writes; HTTP servers get a file of the same name, opened on the first
 * line (truncated per connection, like the stdio log) and closed with the connection.
 */
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import type { Redactor } from "../shared/redactor.js";

/** Longest log line kept (longer ones are cut with a marker). */
export const MAX_LOG_LINE_CHARS = 2000;

/** One log line from the params of a `notifications/message` (already validated by the SDK). */
export function logLine(params: { level: string; logger?: string | undefined; data?: unknown }): string {
  let data: string;
  if (typeof params.data === "string") data = params.data;
  else {
    try {
      data = JSON.stringify(params.data) ?? String(params.data);
    } catch {
      data = String(params.data);
    }
  }
  const line = `[server log] ${params.level}${params.logger ? ` ${params.logger}` : ""}: ${data}`.replace(
    /[\r\n]+/g,
    " ",
  );
  return line.length > MAX_LOG_LINE_CHARS
    ? `${line.slice(0, MAX_LOG_LINE_CHARS)}… [${line.length - MAX_LOG_LINE_CHARS} characters cut]`
    : line;
}

/** The log file of an HTTP server connection (stdio servers use their stderr log instead). */
export class HttpServerLog {
  private file: WriteStream | undefined;
  private failed = false;

  constructor(
    private readonly path: string | undefined,
    private readonly redactor: Redactor,
  ) {}

  /** Append one line (redacted). Write errors are ignored: a log must never break the connection. */
  write(line: string): void {
    if (!this.path || this.failed) return;
    if (!this.file) {
      try {
        mkdirSync(dirname(this.path), { recursive: true });
        const file = createWriteStream(this.path, { flags: "w" });
        file.on("error", () => {
          this.failed = true;
          this.file = undefined;
        });
        this.file = file;
      } catch {
        this.failed = true;
        return;
      }
    }
    this.file.write(`${this.redactor.redact(line)}\n`);
  }

  /** Close the file (resolves once it is flushed). */
  close(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    if (!file) return Promise.resolve();
    return new Promise((resolve) => file.end(() => resolve()));
  }
}
