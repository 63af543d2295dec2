import type { ScriptedTurn } from "../types.js";
import {
  argumentsText,
  estimateTokens,
  isRecord,
  type ProviderAdapter,
  type Rejection,
  randomId,
  splitText,
  TOOL_NAME_PATTERN,
} from "./adapter.js";

const ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);

function openaiError(
  status: number,
  message: string,
  param: string | null = null,
  code: string | null = null,
  type = "invalid_request_error",
): Rejection {
  return {
    status,
    message,
    body: { error: { message, type, param, code } },
    headers: { "x-request-id": `req_${randomId(32)}` },
  };
}

function bad(message: string, param: string | null, code: string | null = null): Rejection {
  return openaiError(400, message, param, code);
}

function validateTools(tools: unknown): Rejection | undefined {
  if (!Array.isArray(tools))
    return bad("Invalid type for 'tools': expected an array.", "tools", "invalid_type");
  for (const [i, tool] of tools.entries()) {
    const at = `tools[${i}]`;
    if (!isRecord(tool)) return bad(`Invalid type for '${at}': expected an object.`, at, "invalid_type");
    if (tool.type !== "function") {
      return bad(
        `Invalid value for '${at}.type': ${JSON.stringify(tool.type)}. The supported value here is 'function'.`,
        `${at}.type`,
        "invalid_value",
      );
    }
    const fn = tool.function;
    if (!isRecord(fn)) {
      return bad(
        `Missing required parameter: '${at}.function'.`,
        `${at}.function`,
        "missing_required_parameter",
      );
    }
    const nameParam = `${at}.function.name`;
    if (fn.name === undefined) {
      return bad(`Missing required parameter: '${nameParam}'.`, nameParam, "missing_required_parameter");
    }
    if (typeof fn.name !== "string") {
      return bad(`Invalid type for '${nameParam}': expected a string.`, nameParam, "invalid_type");
    }
    if (fn.name.length > 64) {
      return bad(
        `Invalid '${nameParam}': string too long (${fn.name.length} characters). At most 64 are allowed.`,
        nameParam,
        "string_above_max_length",
      );
    }
    if (!TOOL_NAME_PATTERN.test(fn.name)) {
      return bad(
        `Invalid '${nameParam}': ${JSON.stringify(fn.name)} does not match the pattern '^[a-zA-Z0-9_-]+$'. Use only letters, digits, '_' and '-'.`,
        nameParam,
        "invalid_value",
      );
    }
    if (fn.description !== undefined && typeof fn.description !== "string") {
      return bad(
        `Invalid type for '${at}.function.description': expected a string.`,
        `${at}.function.description`,
        "invalid_type",
      );
    }
    if (fn.parameters !== undefined) {
      const params = fn.parameters;
      const got = isRecord(params) ? JSON.stringify(params.type ?? null) : "a non-object value";
      if (!isRecord(params) || params.type !== "object") {
        return bad(
          `Invalid schema for function '${fn.name}': the parameters must be a JSON Schema with 'type: "object"' at the top level, got type ${got}.`,
          `${at}.function.parameters`,
          "invalid_function_parameters",
        );
      }
    }
  }
  return undefined;
}

function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t) =>
    isRecord(t) && isRecord(t.function) && typeof t.function.name === "string" ? [t.function.name] : [],
  );
}

function validateToolChoice(body: Record<string, unknown>): Rejection | undefined {
  const choice = body.tool_choice;
  if (choice === undefined) return undefined;
  if (body.tools === undefined || (Array.isArray(body.tools) && body.tools.length === 0)) {
    return bad(
      "Invalid value for 'tool_choice': 'tool_choice' may only be set when 'tools' are given.",
      "tool_choice",
    );
  }
  if (typeof choice === "string") {
    if (choice === "none" || choice === "auto" || choice === "required") return undefined;
    return bad(
      `Invalid value for 'tool_choice': ${JSON.stringify(choice)}. Use 'none', 'auto', 'required' or {"type": "function", "function": {"name": ...}}.`,
      "tool_choice",
      "invalid_value",
    );
  }
  if (
    isRecord(choice) &&
    choice.type === "function" &&
    isRecord(choice.function) &&
    typeof choice.function.name === "string"
  ) {
    const name = choice.function.name;
    if (!toolNames(body.tools).includes(name)) {
      return bad(
        `Invalid value for 'tool_choice': no function named '${name}' is among 'tools'.`,
        "tool_choice",
        "invalid_value",
      );
    }
    return undefined;
  }
  return bad(
    "Invalid value for 'tool_choice': expected a string or a function choice object.",
    "tool_choice",
    "invalid_value",
  );
}

function validateMessages(messages: unknown[]): Rejection | undefined {
  /** Ids of the last assistant tool_calls message still waiting for tool messages, with its index. */
  let pending: { index: number; ids: string[] } | undefined;
  /** Ids answerable by the current run of tool messages. */
  let answerable = new Set<string>();
  for (const [i, message] of messages.entries()) {
    const at = `messages[${i}]`;
    if (!isRecord(message)) return bad(`Invalid type for '${at}': expected an object.`, at, "invalid_type");
    const role = message.role;
    if (role === undefined)
      return bad(`Missing required parameter: '${at}.role'.`, `${at}.role`, "missing_required_parameter");
    if (typeof role !== "string" || !ROLES.has(role)) {
      return bad(
        `Invalid value for '${at}.role': ${JSON.stringify(role)}. Supported values are 'system', 'developer', 'user', 'assistant', 'tool' and 'function'.`,
        `${at}.role`,
        "invalid_value",
      );
    }
    if (role === "tool") {
      const id = message.tool_call_id;
      if (typeof id !== "string") {
        return bad(
          `Missing required parameter: '${at}.tool_call_id'.`,
          `${at}.tool_call_id`,
          "missing_required_parameter",
        );
      }
      if (!answerable.has(id)) {
        return bad(
          `Invalid parameter: a message with role 'tool' must answer a tool call of the assistant message right before it; '${at}' answers tool_call_id '${id}', which no such message made.`,
          `messages.[${i}].role`,
        );
      }
      if (pending) pending.ids = pending.ids.filter((p) => p !== id);
      continue;
    }
    // Any non-tool message closes the run of tool messages: everything must be answered by now.
    if (pending && pending.ids.length > 0) {
      return bad(
        `An assistant message with 'tool_calls' must be followed by tool messages answering each 'tool_call_id' before any other message. These tool_call_ids have no tool message: ${pending.ids.join(", ")}.`,
        `messages.[${pending.index}].role`,
      );
    }
    pending = undefined;
    answerable = new Set();
    if (role === "assistant" && message.tool_calls !== undefined && message.tool_calls !== null) {
      if (!Array.isArray(message.tool_calls)) {
        return bad(
          `Invalid type for '${at}.tool_calls': expected an array.`,
          `${at}.tool_calls`,
          "invalid_type",
        );
      }
      const ids: string[] = [];
      for (const [j, call] of message.tool_calls.entries()) {
        const cat = `${at}.tool_calls[${j}]`;
        if (!isRecord(call) || typeof call.id !== "string") {
          return bad(`Missing required parameter: '${cat}.id'.`, `${cat}.id`, "missing_required_parameter");
        }
        if (!isRecord(call.function) || typeof call.function.name !== "string") {
          return bad(
            `Missing required parameter: '${cat}.function.name'.`,
            `${cat}.function.name`,
            "missing_required_parameter",
          );
        }
        if (typeof call.function.arguments !== "string") {
          return bad(
            `Invalid type for '${cat}.function.arguments': expected a string (JSON text), got ${typeof call.function.arguments}.`,
            `${cat}.function.arguments`,
            "invalid_type",
          );
        }
        ids.push(call.id);
      }
      if (ids.length > 0) {
        pending = { index: i, ids };
        answerable = new Set(ids);
      }
    }
  }
  if (pending && pending.ids.length > 0) {
    return bad(
      `An assistant message with 'tool_calls' must be followed by tool messages answering each 'tool_call_id' before any other message. These tool_call_ids have no tool message: ${pending.ids.join(", ")}.`,
      `messages.[${pending.index}].role`,
    );
  }
  return undefined;
}

function requiresToolCall(choice: unknown): boolean {
  return choice === "required" || (isRecord(choice) && choice.type === "function");
}

function toolCallsOf(turn: ScriptedTurn) {
  return (turn.toolCalls ?? []).map((call) => ({
    id: call.id ?? `call_${randomId(24)}`,
    type: "function" as const,
    function: { name: call.name, arguments: argumentsText(call) },
  }));
}

/** OpenAI Chat Completions (`POST /v1/chat/completions`). */
export const openaiAdapter: ProviderAdapter = {
  route(req) {
    if (req.path !== "/v1/chat/completions") {
      return openaiError(
        404,
        `Unknown request URL: ${req.method} ${req.path}. This server only serves POST /v1/chat/completions.`,
        null,
        "unknown_url",
      );
    }
    if (req.method !== "POST") {
      return openaiError(
        405,
        `Method ${req.method} is not allowed on ${req.path}; use POST.`,
        null,
        "method_not_allowed",
      );
    }
    return undefined;
  },
  authenticate(req, apiKey) {
    const header = req.headers.authorization;
    if (!header) {
      return openaiError(401, "No API key was sent. Send it as 'Authorization: Bearer <key>'.", null, null);
    }
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match || match[1] !== apiKey) {
      return openaiError(
        401,
        "Incorrect API key provided. Check the key you configured for this server.",
        null,
        "invalid_api_key",
      );
    }
    return undefined;
  },
  parseError(detail) {
    return bad(`The JSON body of the request could not be parsed (${detail}). Send valid JSON.`, null);
  },
  validate(_req, body) {
    if (!isRecord(body)) return bad("The request body must be a JSON object.", null);
    if (body.model === undefined)
      return bad("Missing required parameter: 'model'.", "model", "missing_required_parameter");
    if (typeof body.model !== "string")
      return bad("Invalid type for 'model': expected a string.", "model", "invalid_type");
    if (body.messages === undefined)
      return bad("Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
    if (!Array.isArray(body.messages))
      return bad("Invalid type for 'messages': expected an array.", "messages", "invalid_type");
    if (body.messages.length === 0) {
      return bad(
        "Invalid 'messages': empty array. At least one message is required.",
        "messages",
        "empty_array",
      );
    }
    if (body.tools !== undefined) {
      const rejected = validateTools(body.tools);
      if (rejected) return rejected;
    }
    return validateToolChoice(body) ?? validateMessages(body.messages);
  },
  scriptError(message) {
    return openaiError(500, message, null, "script_error", "server_error");
  },
  checkTurn(body, turn) {
    const choice = isRecord(body) ? body.tool_choice : undefined;
    const calls = turn.toolCalls?.length ?? 0;
    if (choice === "none" && calls > 0) {
      return "Script error: this turn makes tool calls, but the request set tool_choice 'none', so the model must not call tools. Fix the script.";
    }
    if (requiresToolCall(choice) && calls === 0) {
      return "Script error: the request forces a tool call (tool_choice), but this turn makes none. Fix the script.";
    }
    return undefined;
  },
  respond(body, turn) {
    const request = isRecord(body) ? body : {};
    const model = typeof request.model === "string" ? request.model : "unknown";
    const id = `chatcmpl-${randomId(29)}`;
    const created = Math.floor(Date.now() / 1000);
    const toolCalls = toolCallsOf(turn);
    const text = turn.text ?? (toolCalls.length > 0 ? null : "");
    const finishReason = toolCalls.length > 0 ? "tool_calls" : "stop";
    const promptTokens =
      estimateTokens(request.messages) + (request.tools ? estimateTokens(request.tools) : 0);
    const completionTokens = estimateTokens(`${text ?? ""}${JSON.stringify(toolCalls)}`);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
    const headers = { "x-request-id": `req_${randomId(32)}`, "openai-processing-ms": "1" };

    if (request.stream !== true) {
      const message: Record<string, unknown> = { role: "assistant", content: text, refusal: null };
      if (toolCalls.length > 0) message.tool_calls = toolCalls;
      return {
        kind: "json",
        headers,
        body: {
          id,
          object: "chat.completion",
          created,
          model,
          choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
          usage,
          system_fingerprint: "fp_scripted",
        },
      };
    }

    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created,
        model,
        system_fingerprint: "fp_scripted",
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
    const frames: string[] = [chunk({ role: "assistant", content: "", refusal: null }, null)];
    for (const piece of splitText(turn.text ?? "")) frames.push(chunk({ content: piece }, null));
    for (const [index, call] of toolCalls.entries()) {
      frames.push(
        chunk(
          {
            tool_calls: [
              { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
            ],
          },
          null,
        ),
      );
      for (const piece of splitText(call.function.arguments)) {
        frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
      }
    }
    frames.push(chunk({}, finishReason));
    if (isRecord(request.stream_options) && request.stream_options.include_usage === true) {
      frames.push(
        JSON.stringify({
          id,
          object: "chat.completion.chunk",
          created,
          model,
          system_fingerprint: "fp_scripted",
          choices: [],
          usage,
        }),
      );
    }
    return {
      kind: "stream",
      contentType: "text/event-stream; charset=utf-8",
      headers,
      frames: [...frames.map((f) => `data: ${f}\n\n`), "data: [DONE]\n\n"],
    };
  },
};
