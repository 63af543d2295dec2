// What the tools returned so far, read back from the conversation. Two forms exist: the tool loop's own
// history (AI messages with tool calls, then ToolMessages), and the plain-text form the loop sends on its
// last, tools-less call (each call as "[Called tool …]", the results as one user message).
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";

/** One tool call and what came back. */
export interface ToolOutcome {
  /** The model-facing tool name, e.g. `filesystem__read_text_file`. */
  tool: string;
  args: Record<string, unknown>;
  text: string;
  ok: boolean;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      typeof part === "object" && part !== null && "text" in part
        ? String((part as { text: unknown }).text)
        : "",
    )
    .join("");
}

const CALLED = /^\[Called tool (\S+) \(call (\S+)\) with arguments (.*)\]$/;
const RESULT = /(?:^|\n\n)\[Tool (result|error) for call (\S+) \(([^)\n]*)\)\]\n/g;
const FINAL_NOTE = /\n\n\(The tool budget is used up[^\n]*\)\s*$/;

function parseArgs(text: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Tool results written as text (`[Tool result for call ID (name)]` blocks), in order. */
export function resultsFromText(text: string): { id: string; name: string; ok: boolean; text: string }[] {
  const body = text.replace(FINAL_NOTE, "");
  const heads = [...body.matchAll(RESULT)];
  return heads.map((head, i) => {
    const start = (head.index ?? 0) + head[0].length;
    const end = heads[i + 1]?.index ?? body.length;
    return { id: head[2] ?? "", name: head[3] ?? "", ok: head[1] === "result", text: body.slice(start, end) };
  });
}

/** Pair every tool result with the call that produced it, in either form of the conversation. */
export function toolOutcomes(messages: readonly BaseMessage[]): ToolOutcome[] {
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  const out: ToolOutcome[] = [];
  for (const message of messages) {
    if (AIMessage.isInstance(message)) {
      for (const call of message.tool_calls ?? []) if (call.id) calls.set(call.id, call);
      for (const line of textOf(message.content).split("\n")) {
        const match = CALLED.exec(line.trim());
        if (match?.[1] && match[2]) calls.set(match[2], { name: match[1], args: parseArgs(match[3] ?? "") });
      }
      continue;
    }
    if (ToolMessage.isInstance(message)) {
      const call = calls.get(message.tool_call_id);
      out.push({
        tool: call?.name ?? String(message.name),
        args: call?.args ?? {},
        text: textOf(message.content),
        ok: message.status !== "error",
      });
      continue;
    }
    if (message.getType() === "human") {
      for (const result of resultsFromText(textOf(message.content))) {
        const call = calls.get(result.id);
        if (!call && !result.name) continue;
        out.push({
          tool: call?.name ?? result.name,
          args: call?.args ?? {},
          text: result.text,
          ok: result.ok,
        });
      }
    }
  }
  return out;
}
