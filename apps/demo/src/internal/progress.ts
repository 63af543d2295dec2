// One line per tool call on stderr: a live, rewritten line on a terminal, plain lines otherwise.
import type { ToolCallRecord } from "@agentforge/agent-runtime/langchain";

export interface Progress {
  call(record: ToolCallRecord): void;
  note(text: string): void;
  done(): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr, quiet = false): Progress {
  if (quiet) return { call: () => undefined, note: () => undefined, done: () => undefined };
  const tty = stream.isTTY === true;
  const color = tty && !process.env.NO_COLOR;
  const paint = (code: number, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  let count = 0;
  let live = false;
  return {
    call(record) {
      count++;
      const status = record.ok ? paint(32, "ok") : paint(31, record.errorCode ?? "failed");
      const line = `[${count}] ${record.tool} ${status} ${record.durationMs.toFixed(0)} ms`;
      if (tty) {
        stream.write(`\r\x1b[2K${line}`);
        live = true;
      } else {
        stream.write(`${line}\n`);
      }
    },
    note(text) {
      if (live) stream.write("\r\x1b[2K");
      live = false;
      stream.write(`${text}\n`);
    },
    done() {
      if (live) stream.write("\n");
      live = false;
    },
  };
}
