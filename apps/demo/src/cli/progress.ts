// One line per tool call on stderr: a live, rewritten line on a terminal, plain lines otherwise.
import type { ToolCallRecord } from "@agentforge/agent-runtime/langchain";

/** A running tool call's progress (numbers only). */
export interface ToolProgressUpdate {
  identity: string;
  callId: string;
  progress: number;
  total?: number;
}

export interface Progress {
  call(record: ToolCallRecord): void;
  /**
   * A running call's progress: a live line on a terminal (rewritten as values arrive); otherwise at most
   * one line per call (its first report), so a log never fills with progress.
   */
  progress(update: ToolProgressUpdate): void;
  note(text: string): void;
  done(): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr, quiet = false): Progress {
  if (quiet)
    return { call: () => undefined, progress: () => undefined, note: () => undefined, done: () => undefined };
  const tty = stream.isTTY === true;
  const color = tty && !process.env.NO_COLOR;
  const paint = (code: number, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  let count = 0;
  let live = false;
  // Non-TTY: the calls that already had their one progress line (bounded: ids of finished calls go).
  const reported = new Set<string>();
  return {
    progress({ identity, callId, progress, total }) {
      if (!Number.isFinite(progress)) return;
      const amount =
        total !== undefined && Number.isFinite(total) && total > 0
          ? `${formatNumber(progress)}/${formatNumber(total)} (${Math.min(100, Math.round((progress / total) * 100))}%)`
          : formatNumber(progress);
      const line = `[${count + 1}] ${identity} ${paint(33, "running")} ${amount}`;
      if (tty) {
        stream.write(`\r\x1b[2K${line}`);
        live = true;
        return;
      }
      if (reported.has(callId)) return;
      if (reported.size >= 1000) reported.clear();
      reported.add(callId);
      stream.write(`${line}\n`);
    },
    call(record) {
      count++;
      const status = record.ok ? paint(32, "ok") : paint(31, record.errorCode ?? "failed");
      const line = `[${count}] ${record.identity} ${status} ${record.durationMs.toFixed(0)} ms`;
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

/** A progress figure: integers as they are, fractions with at most two decimals. */
function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, "");
}
