import {
  estimateTokens,
  isRecord,
  type ProviderAdapter,
  type Rejection,
  type Reply,
  splitText,
} from "./adapter.js";

const ROLES = new Set(["system", "user", "assistant", "tool"]);

function ollamaError(status: number, message: string): Rejection {
  return { status, message, body: { error: message } };
}

function bad(message: string): Rejection {
  return ollamaError(400, message);
}

function validateTools(tools: unknown): Rejection | undefined {
  if (!Array.isArray(tools)) return bad("invalid tools: expected an array of tool definitions");
  for (const [i, tool] of tools.entries()) {
    if (!isRecord(tool)) return bad(`invalid tools[${i}]: expected an object`);
    if (tool.type !== "function") {
      return bad(
        `invalid tools[${i}].type ${JSON.stringify(tool.type)}: the only supported type is "function"`,
      );
    }
    const fn = tool.function;
    if (!isRecord(fn) || typeof fn.name !== "string" || fn.name === "") {
      return bad(`invalid tools[${i}]: function.name is required`);
    }
    if (fn.parameters !== undefined && (!isRecord(fn.parameters) || fn.parameters.type !== "object")) {
      return bad(
        `invalid tools[${i}].function.parameters: expected a JSON Schema object with "type": "object"`,
      );
    }
  }
  return undefined;
}

function validateMessages(messages: unknown[]): Rejection | undefined {
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message)) return bad(`invalid messages[${i}]: expected an object`);
    if (typeof message.role !== "string" || !ROLES.has(message.role)) {
      return bad(
        `invalid messages[${i}].role ${JSON.stringify(message.role)}: use "system", "user", "assistant" or "tool"`,
      );
    }
    if (message.content !== undefined && typeof message.content !== "string") {
      return bad(`invalid messages[${i}].content: expected a string`);
    }
    if (message.tool_calls !== undefined && message.tool_calls !== null) {
      if (!Array.isArray(message.tool_calls))
        return bad(`invalid messages[${i}].tool_calls: expected an array`);
      for (const [j, call] of message.tool_calls.entries()) {
        const fn = isRecord(call) ? call.function : undefined;
        if (!isRecord(fn) || typeof fn.name !== "string") {
          return bad(`invalid messages[${i}].tool_calls[${j}]: function.name is required`);
        }
        if (!isRecord(fn.arguments)) {
          return bad(
            `invalid messages[${i}].tool_calls[${j}].function.arguments: expected a JSON object, got ${Array.isArray(fn.arguments) ? "array" : typeof fn.arguments}`,
          );
        }
      }
    }
  }
  return undefined;
}

function argumentsOf(call: { args?: Record<string, unknown>; argsText?: string }): unknown {
  if (call.argsText === undefined) return call.args ?? {};
  try {
    const parsed: unknown = JSON.parse(call.argsText);
    return isRecord(parsed) ? parsed : call.argsText;
  } catch {
    return call.argsText;
  }
}

/** Ollama chat (`POST /api/chat`); `stream` defaults to true, as in Ollama. */
export const ollamaAdapter: ProviderAdapter = {
  route(req) {
    if (req.path === "/" && (req.method === "GET" || req.method === "HEAD")) {
      return { status: 200, body: "Ollama is running", message: "" };
    }
    if (req.path !== "/api/chat")
      return { status: 404, body: "404 page not found", message: "404 page not found" };
    if (req.method !== "POST")
      return { status: 405, body: "405 method not allowed", message: "405 method not allowed" };
    return undefined;
  },
  authenticate() {
    return undefined;
  },
  parseError(detail) {
    return bad(`invalid request body: ${detail}`);
  },
  validate(_req, body) {
    if (!isRecord(body)) return bad("invalid request body: expected a JSON object");
    if (typeof body.model !== "string" || body.model === "") return bad("model is required");
    if (body.messages === undefined || body.messages === null) return bad("messages are required");
    if (!Array.isArray(body.messages)) return bad("invalid messages: expected an array");
    if (body.tools !== undefined && body.tools !== null) {
      const rejected = validateTools(body.tools);
      if (rejected) return rejected;
    }
    return validateMessages(body.messages);
  },
  scriptError(message) {
    return ollamaError(500, message);
  },
  checkTurn() {
    return undefined;
  },
  respond(body, turn): Reply {
    const request = isRecord(body) ? body : {};
    const model = typeof request.model === "string" ? request.model : "unknown";
    const toolCalls = (turn.toolCalls ?? []).map((call, index) => ({
      ...(call.id === undefined ? {} : { id: call.id }),
      function: { index, name: call.name, arguments: argumentsOf(call) },
    }));
    const text = turn.text ?? "";
    const promptEvalCount = estimateTokens(request.messages);
    const evalCount = estimateTokens(`${text}${JSON.stringify(toolCalls)}`);
    const stats = {
      total_duration: 1_000_000,
      load_duration: 100_000,
      prompt_eval_count: promptEvalCount,
      prompt_eval_duration: 200_000,
      eval_count: evalCount,
      eval_duration: 500_000,
    };
    const createdAt = () => new Date().toISOString();
    if (request.stream === false) {
      const message: Record<string, unknown> = { role: "assistant", content: text };
      if (toolCalls.length > 0) message.tool_calls = toolCalls;
      return {
        kind: "json",
        body: { model, created_at: createdAt(), message, done: true, done_reason: "stop", ...stats },
      };
    }
    const lines: unknown[] = [];
    for (const piece of splitText(text)) {
      lines.push({
        model,
        created_at: createdAt(),
        message: { role: "assistant", content: piece },
        done: false,
      });
    }
    if (toolCalls.length > 0) {
      lines.push({
        model,
        created_at: createdAt(),
        message: { role: "assistant", content: "", tool_calls: toolCalls },
        done: false,
      });
    }
    lines.push({
      model,
      created_at: createdAt(),
      message: { role: "assistant", content: "" },
      done: true,
      done_reason: "stop",
      ...stats,
    });
    return {
      kind: "stream",
      contentType: "application/x-ndjson",
      frames: lines.map((l) => `${JSON.stringify(l)}\n`),
    };
  },
};
