import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { SERVER_OPTIONS } from "../internal/server-options.js";
import { VERSION } from "../internal/version.js";

/** Options of `createSequentialThinkingServer`. */
export interface SequentialThinkingServerOptions {
  /**
   * Log each thought to stderr (default: on, unless the environment variable
   * `DISABLE_THOUGHT_LOGGING` is `true`).
   */
  logThoughts?: boolean;
  /** Where logged thoughts go (default: `process.stderr`); never stdout, which carries the protocol. */
  log?: (text: string) => void;
}

/** A thought as the `sequentialthinking` tool receives it (after coercion). */
export interface ThoughtInput {
  thought: string;
  nextThoughtNeeded: boolean;
  thoughtNumber: number;
  totalThoughts: number;
  isRevision?: boolean | undefined;
  revisesThought?: number | undefined;
  branchFromThought?: number | undefined;
  branchId?: string | undefined;
  needsMoreThoughts?: boolean | undefined;
}

/** The tool's reply, identical in shape to the official server's. */
export interface ThoughtResult {
  thoughtNumber: number;
  totalThoughts: number;
  nextThoughtNeeded: boolean;
  branches: string[];
  thoughtHistoryLength: number;
}

/** Most characters of one thought shown in the stderr log (the rest is elided). */
const LOG_THOUGHT_CHARS = 2000;

/**
 * The state of one thinking session: history length and branch ids. Only what the replies report is
 * kept (not the thought texts), so a long session costs constant memory per thought.
 */
export class ThinkingSession {
  private historyLength = 0;
  private readonly branches = new Map<string, number>();

  /** Record a thought and compute the reply (thoughtNumber above totalThoughts raises totalThoughts). */
  record(input: ThoughtInput): ThoughtResult {
    const totalThoughts = Math.max(input.totalThoughts, input.thoughtNumber);
    this.historyLength++;
    if (input.branchFromThought && input.branchId) {
      this.branches.set(input.branchId, (this.branches.get(input.branchId) ?? 0) + 1);
    }
    return {
      thoughtNumber: input.thoughtNumber,
      totalThoughts,
      nextThoughtNeeded: input.nextThoughtNeeded,
      branches: [...this.branches.keys()],
      thoughtHistoryLength: this.historyLength,
    };
  }
}

/** The box the official server prints on stderr for each thought (without colours). */
export function formatThought(input: ThoughtInput, totalThoughts: number): string {
  const thought =
    input.thought.length > LOG_THOUGHT_CHARS
      ? `${input.thought.slice(0, LOG_THOUGHT_CHARS)}… (${input.thought.length - LOG_THOUGHT_CHARS} more characters)`
      : input.thought;
  let prefix = "💭 Thought";
  let context = "";
  if (input.isRevision) {
    prefix = "🔄 Revision";
    context = ` (revising thought ${input.revisesThought})`;
  } else if (input.branchFromThought) {
    prefix = "🌿 Branch";
    context = ` (from thought ${input.branchFromThought}, ID: ${input.branchId})`;
  }
  const header = `${prefix} ${input.thoughtNumber}/${totalThoughts}${context}`;
  const border = "─".repeat(Math.max(header.length, thought.length) + 4);
  return `\n┌${border}┐\n│ ${header} │\n├${border}┤\n│ ${thought.padEnd(border.length - 2)} │\n└${border}┘`;
}

/** A boolean that also accepts "true"/"false" strings, as the official tool does. */
const coercedBoolean = z.union([z.boolean(), z.string()]).transform((value, ctx) => {
  if (typeof value === "boolean") return value;
  if (value.toLowerCase() === "true") return true;
  if (value.toLowerCase() === "false") return false;
  ctx.addIssue({ code: "custom", message: `Expected a boolean or "true"/"false", got "${value}"` });
  return z.NEVER;
});

const DESCRIPTION = `Think through a problem step by step, one thought per call, with room to revise and branch.
Use it to break a complex problem into steps, plan with room for revision, or analyse something whose
scope becomes clear only along the way.

- thought: the current thinking step (an analysis, a revision, a question, a hypothesis, its verification)
- nextThoughtNeeded: true while more thinking is needed, even past the planned end
- thoughtNumber: this thought's number (it may exceed totalThoughts, which then grows to match)
- totalThoughts: current estimate of the thoughts needed; adjust it up or down as you go
- isRevision / revisesThought: this thought reconsiders thought number revisesThought
- branchFromThought / branchId: this thought starts or continues branch branchId from that thought
- needsMoreThoughts: you reached the end but realise more thoughts are needed

Start with an estimate, question and revise earlier thoughts when needed, generate a hypothesis and verify
it, and set nextThoughtNeeded to false only when you have a satisfactory answer. The reply reports the
thought number, the (adjusted) total, the branches so far and the length of this session's history.`;

/**
 * The sequential-thinking MCP server: the official `sequentialthinking` tool with the same input schema,
 * reply shape and totalThoughts adjustment. Each server instance holds its own history, so the bins give
 * every stdio connection and every HTTP session a separate one.
 */
export function createSequentialThinkingServer(options: SequentialThinkingServerOptions = {}): McpServer {
  const logThoughts =
    options.logThoughts ?? (process.env.DISABLE_THOUGHT_LOGGING ?? "").toLowerCase() !== "true";
  const log = options.log ?? ((text: string) => process.stderr.write(`${text}\n`));
  const session = new ThinkingSession();
  const server = new McpServer({ name: "agentforge-sequential-thinking", version: VERSION }, SERVER_OPTIONS);

  server.registerTool(
    "sequentialthinking",
    {
      title: "Sequential Thinking",
      description: DESCRIPTION,
      inputSchema: z.object({
        thought: z.string().describe("Your current thinking step"),
        nextThoughtNeeded: coercedBoolean.describe("Whether another thought step is needed"),
        thoughtNumber: z.coerce.number().int().min(1).describe("Current thought number (1, 2, 3, ...)"),
        totalThoughts: z.coerce.number().int().min(1).describe("Estimated total thoughts needed"),
        isRevision: coercedBoolean.optional().describe("Whether this revises previous thinking"),
        revisesThought: z.coerce
          .number()
          .int()
          .min(1)
          .optional()
          .describe("Which thought is being reconsidered"),
        branchFromThought: z.coerce
          .number()
          .int()
          .min(1)
          .optional()
          .describe("Branching point thought number"),
        branchId: z.string().optional().describe("Branch identifier"),
        needsMoreThoughts: coercedBoolean.optional().describe("If more thoughts are needed"),
      }),
      outputSchema: z.object({
        thoughtNumber: z.number(),
        totalThoughts: z.number(),
        nextThoughtNeeded: z.boolean(),
        branches: z.array(z.string()),
        thoughtHistoryLength: z.number(),
      }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (input) => {
      const result = session.record(input);
      if (logThoughts) log(formatThought(input, result.totalThoughts));
      return {
        content: [{ type: "text", text: JSON.stringify(result, null, 2) }],
        structuredContent: { ...result },
      };
    },
  );
  return server;
}
