// `agentforge docs <folder>` and `agentforge resume <id>`.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { RunDocsOptions } from "../docs-agent/run-docs.js";
import { writeJson, writeOut } from "../shared/terminal-safe.js";
import { UsageError } from "../shared/usage-error.js";
import { createProgress } from "./progress.js";
import { DOCS_USAGE } from "./usage.js";

function integer(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`${flag} expects an integer >= ${min}, got "${value}"`);
  return Number(value);
}

export async function docsCommand(argv: string[], mode: "docs" | "resume"): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      out: { type: "string" },
      model: { type: "string" },
      json: { type: "boolean" },
      "max-rounds": { type: "string" },
      "pause-after": { type: "string" },
      config: { type: "string" },
      "state-dir": { type: "string" },
      otel: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(`${DOCS_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UsageError(mode === "docs" ? "docs expects one <folder>" : "resume expects one <run-id>");
  }
  const target = positionals[0] as string;
  const progress = createProgress(process.stderr, values.json === true && !process.stderr.isTTY);
  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error("interrupted"));
  process.once("SIGINT", onSigint);
  // While a confirmation question is on the terminal, the live progress line (rewritten in place) would
  // overwrite it: calls that end meanwhile are shown once the question is answered.
  let asking = 0;
  const held: Parameters<typeof progress.call>[0][] = [];
  const maxRounds = integer(values["max-rounds"], "--max-rounds", 1);
  const pauseAfter = integer(values["pause-after"], "--pause-after", 1);
  const options: RunDocsOptions = {
    ...(mode === "docs" ? { folder: target } : { resumeId: target }),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(maxRounds !== undefined ? { maxRounds } : {}),
    ...(pauseAfter !== undefined ? { pauseAfter } : {}),
    ...(values.config ? { configPath: values.config } : {}),
    ...(values["state-dir"] ? { stateDir: values["state-dir"] } : {}),
    signal: controller.signal,
    onToolCall: (record) => (asking > 0 ? held.push(record) : progress.call(record)),
    onEvent: (event) => {
      if (event.type === "run_started") {
        progress.note(
          `${event.resumed ? "resuming" : "run"} ${event.runId} (${event.model}) on ${event.folder}`,
        );
      } else if (event.type === "elicitation_declined") {
        progress.note(
          `elicitation_declined: server ${event.server} asked for input (${event.mode} mode); no terminal to ask, declined`,
        );
      } else if (event.type === "tool_progress") {
        if (asking === 0) progress.progress(event);
      } else if (event.type === "tool_search") {
        progress.note(
          event.ok
            ? `tool search: ${event.found.length} found (${event.found.join(", ") || "none"})`
            : `tool search refused: ${event.errorCode}`,
        );
      } else if (event.type === "server_unavailable") {
        progress.note(`server ${event.server} unavailable: ${event.message}`);
      }
    },
  };
  // A person at a terminal is asked when a server requests input; otherwise requests are declined.
  if (process.stdin.isTTY && process.stderr.isTTY) {
    const { terminalElicitation } = await import("./elicitation-prompt.js");
    options.elicitation = terminalElicitation({ input: process.stdin, output: process.stderr });
    // ... and to confirm calls that need it (a `confirm` grant); otherwise those calls are refused.
    const { terminalConfirmation } = await import("./confirmation-prompt.js");
    const ask = terminalConfirmation({ input: process.stdin, output: process.stderr });
    options.confirmation = {
      kind: "ask",
      confirm: async (request, context) => {
        // The live progress line is finished first, so the question starts on a line of its own.
        progress.done();
        asking++;
        try {
          return { ...(await ask(request, context)), answeredBy: "terminal" };
        } finally {
          asking--;
          if (asking === 0) for (const record of held.splice(0)) progress.call(record);
        }
      },
    };
  }
  // Tracing (OTLP with --otel or OTEL_* variables, LangSmith with LANGSMITH_*): loads nothing when off.
  const { startTracing } = await import("../tracing/tracing.js");
  const tracing = await startTracing({ env: process.env, ...(values.otel ? { otel: true } : {}) });
  for (const note of tracing.notes) progress.note(note);
  if (tracing.tracer) options.tracer = tracing.tracer;
  try {
    // Loaded here, not at the top: LangChain and the providers only load when a run starts.
    const { runDocs } = await import("../docs-agent/run-docs.js");
    const result = await runDocs(options);
    progress.done();
    if (result.run.status === "paused") {
      progress.note(
        `paused after round ${result.run.state.round}; continue with: agentforge resume ${result.run.id}`,
      );
      if (values.json) writeJson({ runId: result.run.id, status: "paused", calls: result.calls }, 2);
      return controller.signal.aborted && controller.signal.reason instanceof Error ? 130 : 0;
    }
    const document = result.document ?? "";
    if (values.out) {
      writeFileSync(values.out, document);
      progress.note(`wrote ${values.out} (${result.calls.length} tool calls, run ${result.run.id})`);
    }
    if (values.json) {
      writeJson(
        {
          runId: result.run.id,
          status: result.run.status,
          document,
          calls: result.calls,
          transcript: result.transcript,
        },
        2,
      );
    } else if (!values.out) {
      // The document is the model's text: cleaned like anything else that reaches the terminal.
      writeOut(document);
    }
    return 0;
  } finally {
    process.off("SIGINT", onSigint);
    progress.done();
    await tracing.shutdown();
  }
}
