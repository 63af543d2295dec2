// Asking the person at the terminal to confirm a sensitive tool call (a `confirm` grant): who asks, which
// tool, what its server says about it (annotations are hints a server may get wrong), and a preview of the
// arguments — every part cleaned for the terminal. y allows this call, a allows the same tool for the rest
// of the run, anything else (Enter included), the end of input or a timeout denies.
import { createInterface } from "node:readline/promises";
import { terminalSafe } from "../shared/terminal-safe.js";

/** What the prompt shows (the fields of the executor's confirmation request it needs). */
export interface TerminalConfirmationRequest {
  agent: string;
  /** `<server>.<tool>`. */
  identity: string;
  title?: string | undefined;
  annotations?:
    | {
        readOnlyHint?: boolean | undefined;
        destructiveHint?: boolean | undefined;
        idempotentHint?: boolean | undefined;
        openWorldHint?: boolean | undefined;
      }
    | undefined;
  /** The cleaned, bounded argument preview. */
  argumentsPreview: string;
}

/** The answer typed at the terminal. */
export interface TerminalConfirmationAnswer {
  decision: "allow" | "deny";
  scope: "call" | "run";
  /** Why it was denied without a "no" (end of input, aborted). */
  reason?: string;
}

/** Where the question goes and the answer comes from (a terminal; streams in tests). */
export interface ConfirmationPromptStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** Most characters of the argument preview shown (the executor bounds it too). */
const MAX_PREVIEW = 2000;

/** The annotations in words; "none stated" when the server said nothing. */
export function describeAnnotations(annotations: TerminalConfirmationRequest["annotations"]): string {
  if (!annotations) return "none stated";
  const words: string[] = [];
  if (annotations.destructiveHint === true) words.push("destructive");
  if (annotations.destructiveHint === false) words.push("not destructive");
  if (annotations.readOnlyHint === true) words.push("read-only");
  if (annotations.readOnlyHint === false) words.push("not read-only");
  if (annotations.idempotentHint === true) words.push("idempotent");
  if (annotations.openWorldHint === true) words.push("reaches outside systems");
  return words.length > 0 ? words.join(", ") : "none stated";
}

/** The lines shown before the question (exported for tests). */
export function confirmationLines(request: TerminalConfirmationRequest): string[] {
  const title = request.title ? ` — "${terminalSafe(request.title, 200)}"` : "";
  const preview = terminalSafe(request.argumentsPreview, MAX_PREVIEW)
    .split("\n")
    .map((line, i) => (i === 0 ? line : `               ${line}`))
    .join("\n");
  return [
    "",
    `Confirm a tool call of agent "${terminalSafe(request.agent, 100)}":`,
    `  tool:        ${terminalSafe(request.identity, 200)}${title}`,
    `  annotations: ${describeAnnotations(request.annotations)} (as the server states them)`,
    `  arguments:   ${preview}`,
  ];
}

/**
 * A confirmation handler that asks at a terminal. One question at a time (a second waits for the
 * first); the end of input or `signal` (the executor's timeout, the run stopping) denies.
 */
export function terminalConfirmation(
  streams: ConfirmationPromptStreams,
): (
  request: TerminalConfirmationRequest,
  context: { signal: AbortSignal },
) => Promise<TerminalConfirmationAnswer> {
  let queue: Promise<unknown> = Promise.resolve();
  return (request, context) => {
    const next = queue.then(() => ask(streams, request, context.signal));
    // The next question waits for this one, whatever its outcome (the outcome itself goes to the caller).
    queue = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  };
}

async function ask(
  { input, output }: ConfirmationPromptStreams,
  request: TerminalConfirmationRequest,
  signal: AbortSignal,
): Promise<TerminalConfirmationAnswer> {
  if (signal.aborted) return { decision: "deny", scope: "call", reason: "the question was cancelled" };
  const rl = createInterface({ input, output, terminal: false });
  const ended = new Promise<null>((resolve) => rl.once("close", () => resolve(null)));
  try {
    for (const line of confirmationLines(request)) output.write(`${line}\n`);
    let answer: string | null;
    try {
      answer = await Promise.race([
        rl.question("Allow this call? [y = yes, a = yes for this tool for the rest of the run, N = no] ", {
          signal,
        }),
        ended,
      ]);
    } catch {
      answer = null; // aborted: the executor's timeout or the run stopping
    }
    if (answer === null) {
      output.write("\n  no answer: denied\n");
      return {
        decision: "deny",
        scope: "call",
        reason: signal.aborted ? "no answer in time" : "end of input",
      };
    }
    const word = answer.trim().toLowerCase();
    if (word === "y" || word === "yes") return { decision: "allow", scope: "call" };
    if (word === "a" || word === "always") return { decision: "allow", scope: "run" };
    output.write("  denied\n");
    return { decision: "deny", scope: "call" };
  } finally {
    rl.close();
  }
}
